"""Simulators of the noise paper's slow claims, and how those claims use them.

"Parameter Symmetry and Noise Equilibrium of Stochastic Gradient Descent": the paper supports its
fixed-point theorems with figures of SGD runs.  Each simulation claim (the ``simulations_*`` modules of
:mod:`derivations.noise`, all ``slow=True``) reruns the figure's setting
(vectorised over independent replicas, seeded by the engine), computes the theory's prediction
independently of the simulation (closed-form Gaussian moments, the equilibrium solved from the
balance equations), and reports what it measured and what the theory predicts; the engine decides
and evaluates the automatic mutants of the prediction (trust model 2):

* SGD equilibria are small-step statements: measured at ``eta`` and ``eta/2`` (the second run
  continues from the first's end state), extrapolated to ``eta -> 0`` replica by replica
  (:func:`derivations.simulation.richardson`), and returned as ``tc.MonteCarlo`` (engine z-test,
  alpha = 1e-6) with the replica spread and the last extrapolation correction as error bar;
  matrix statements ``A = c B`` are reported as ``(rho, perp)`` against ``(c, 0)``
  (:func:`derivations.simulation.ratio_perp`), so that the mutants are the statements ``A = c' B``;
* deterministic flows (GD) refine the step size and return ``tc.Refinement`` with floors equal to
  the discrete-time error bound of a true statement;
* a run whose observables still drift between the two halves of the averaging window is not
  converged: the check raises :class:`derivations.simulation.NotConverged` (INCONCLUSIVE).

Budget: ``THEOREM_CHECK_BUDGET`` (see :mod:`derivations.simulation`).  Claim ids end in ``_sim``;
the algebraic claims of the same paper live in the section modules of :mod:`derivations.noise`.

**Two-layer linear networks** (matrix factorisation) trained by online SGD or GD.

Model and loss (noise paper, eq. 12 with gamma = 0): ``l = ||U W x - y||^2`` with
``W: (d, d0)``, ``U: (d2, d)``, Gaussian inputs ``x ~ N(0, diag(sx))``, labels
``y = V x + eps``, ``eps ~ N(0, diag(se))`` independent of ``x``.  SGD draws a fresh minibatch of
``S`` samples each step (online SGD: the population is the data distribution) and steps on the
minibatch mean of ``l``; GD steps on the exact population gradient.

The noise-equilibrium quantities of Theorem 5.2 are computed in closed form from Gaussian
moments (Isserlis), never by Monte Carlo.  With ``E = U W - V``:

* ``Gamma_W = E[||r||^2 x x^T] = tr(E^T E Sx) Sx + 2 Sx E^T E Sx + tr(Se) Sx``,
* ``Gamma_U = E[||x||^2 r r^T] = E (tr(Sx) Sx + 2 Sx^2) E^T + tr(Sx) Se``,

and the balance of Theorem 5.2 compares ``A = W Gamma_W W^T`` with ``B = U^T Gamma_U U`` (both
``d x d``).  Every array has the replicas on axis 0.

**Deep linear networks** trained by online SGD, and the noise equilibrium of Theorem 5.4.

Model: ``f(x) = W_D ... W_1 x``, per-sample loss ``||f(x) - y||^2``, labels ``y = V x + eps`` with
``eps ~ N(0, Sigma_eps)`` drawn fresh and independent of ``x`` (the assumption of Theorem 5.4);
``x`` is Gaussian ``N(0, diag(sx))`` or drawn uniformly from a finite data set (e.g. PCA
coordinates of scikit-learn's digits).  Weights ``Ws[i]`` of shape ``(R, d_{i+1}, d_i)``, replicas
on axis 0.

Equilibrium (derived here, not copied): at a global minimum ``W_D ... W_1 = V`` the Noether flow of
every neighbouring pair vanishes iff, with ``V' = Sigma_eps^{1/2} V Sigma_x^{1/2}`` of rank ``d``,
``tau = Tr S'`` (sum of its singular values), ``a_x = Tr Sigma_x``, ``a_e = Tr Sigma_eps`` and
``c^D = tau / sqrt(a_x a_e)``::

    ||W_1 Sigma_x^{1/2}||_F^2 = a_x c^2,   ||W_i||_F^2 = d c^2 (1 < i < D),   ||Sigma_eps^{1/2} W_D||_F^2 = a_e c^2.

(Pair ``(i, i+1)``: ``Tr[B_i Sx B_i^T] W_{i+1}^T A^T Se A W_{i+1} = Tr[A^T Se A] W_i B_i Sx B_i^T W_i^T``;
with the SVD ansatz of eq. 17 the partial products ``p_i = Sigma_i ... Sigma_1`` satisfy
``p_i^4 = (T_x(i) / T_e(i+1)) S'^2``; ``log`` of the gains is linear in ``i``, fixed by the end
conditions ``T_x(1) = a_x``, ``T_e(D) = a_e``.)  The paper's eq. 18/19 is the case ``a_x = a_e = d``.

**Net-A and Net-B** of the noise paper's Appendix A.1: scale-invariant two-layer tanh networks.

``u`` has shape ``(R, dy, h)`` (column ``u_j`` = output weights of hidden unit ``j``), ``w`` has
shape ``(R, h, dx)`` (row ``w_j`` = input weights of unit ``j``), replicas on axis 0; inputs
``X`` of shape ``(n, dx)`` or ``(R, n, dx)``, labels ``Y`` of shape ``(n, dy)`` or ``(R, n, dy)``; per-sample loss ``||f(x) - y||^2``.

* Net-A: ``f(x) = sum_j u_j / ||w||_F * tanh(w_j^T x / ||u||_F)`` -- invariant under
  ``(u, w) -> (rho u, rho w)`` only;
* Net-B: ``f(x) = sum_j u_j / ||u||_F * tanh(w_j^T x / ||w||_F)`` -- invariant under scaling
  ``u`` and ``w`` separately (three scale symmetries).

Gradients are written out by hand (checked against finite differences in the tests); by the
scale invariance ``<theta, grad l> = 0`` for every sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..simulation import Progress

__all__ = ["MFProblem", "gammas", "balance_terms", "output_balance_terms", "population_gradients", "run_mf",
           "equilibrium_norms", "printed_norms", "layer_norms", "run_dln", "forward", "per_sample_grads"]


def _T(a):
    return np.swapaxes(a, -1, -2)


def _child(rng: np.random.Generator) -> np.random.Generator:
    return np.random.default_rng(int(rng.integers(2 ** 63)))


def _thin(xs, n=120):
    xs = list(xs)
    step = max(1, len(xs) // n)
    return xs[::step]


# ----------------------------------------------------------------------------------------------
# two-layer linear networks (matrix factorisation)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MFProblem:
    """A matrix-factorisation task: diagonal input/noise covariances and a teacher ``V`` (d2 x d0).

    ``sx`` has shape ``(d0,)``; ``se`` has shape ``(d2,)`` or ``(R, d2)`` (one noise covariance
    per replica, as in Figure 2 where each point is a run with its own ``Sigma_eps``).
    """

    sx: np.ndarray
    se: np.ndarray
    V: np.ndarray

    @property
    def d0(self) -> int:
        return len(self.sx)

    @property
    def d2(self) -> int:
        return np.shape(self.se)[-1]


def gammas(prob: MFProblem, U: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Gamma_W, Gamma_U)`` of Theorem 5.2 (gamma = 0), shapes ``(R, d0, d0)`` and ``(R, d2, d2)``."""
    E = U @ W - prob.V
    sx = prob.sx
    se = np.broadcast_to(prob.se, (U.shape[0], prob.d2))
    EtE = _T(E) @ E
    tr = np.einsum("rii,i->r", EtE, sx)
    GW = (tr + se.sum(axis=-1))[:, None, None] * np.diag(sx) + 2 * sx[:, None] * EtE * sx[None, :]
    GU = (E * (sx.sum() * sx + 2 * sx ** 2)[None, None, :]) @ _T(E) + sx.sum() * (se[:, :, None] * np.eye(prob.d2))
    return GW, GU


def balance_terms(prob: MFProblem, U: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A = W Gamma_W W^T`` and ``B = U^T Gamma_U U`` (each ``(R, d, d)``): Theorem 5.2 says A = B."""
    GW, GU = gammas(prob, U, W)
    return W @ GW @ _T(W), _T(U) @ GU @ U


def output_balance_terms(prob: MFProblem, U: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``U A U^T = P Gamma_W P^T`` and ``U B U^T = G Gamma_U G`` with ``P = U W``, ``G = U U^T`` (each ``d2 x d2``).

    The balance ``A = B`` of Theorem 5.2 mapped to output space: necessary, and sufficient on the
    range of ``U^T``; used for wide networks (width 2000) where the ``d x d`` matrices are costly.
    """
    GW, GU = gammas(prob, U, W)
    P = U @ W
    G = U @ _T(U)
    return P @ GW @ _T(P), G @ GU @ G


def population_gradients(prob: MFProblem, U, W):
    """Exact gradients of ``L = E l``: ``G_U = 2 E Sx W^T``, ``G_W = 2 U^T E Sx`` with ``E = UW - V``."""
    ES = (U @ W - prob.V) * prob.sx[None, None, :]
    return 2 * ES @ _T(W), 2 * _T(U) @ ES


def run_mf(rng: np.random.Generator, prob: MFProblem, U: np.ndarray, W: np.ndarray, *, eta: float, S: int,
           steps: int, burn: int, every: int = 10, gd: bool = False, progress: Progress | None = None,
           done0: float = 0.0, observe=None) -> dict:
    """Train ``steps`` steps from ``(U, W)`` (copied); average observables over the last ``steps - burn``.

    ``observe(U, W) -> dict of arrays (R, ...)`` with at least keys ``A`` and ``B`` is evaluated every
    ``every`` steps after ``burn`` (default: the balance terms ``A``, ``B`` of :func:`balance_terms`); the returned dict holds, per observable, the
    averages over the first and the second half of the window (``"<name>_1"``, ``"<name>_2"``)
    and over all of it (``"<name>"``), the end state ``U``, ``W`` and a thinned history of the
    relative imbalance ``||A - B|| / ||A||`` (replica mean) for figures.
    """
    U, W = U.copy(), W.copy()
    R = U.shape[0]
    observe = observe or (lambda U, W: dict(zip("AB", balance_terms(prob, U, W))))
    sqrt_sx = np.sqrt(prob.sx)
    sqrt_se = np.broadcast_to(np.sqrt(prob.se), (R, prob.d2))
    sums: dict[str, list] = {}
    n_half = [0, 0]
    half_at = burn + (steps - burn) // 2
    hist_t, hist_v = [], []
    hist_every = max(every, steps // 200)
    for t in range(steps):
        if gd:
            gU, gW = population_gradients(prob, U, W)
        else:
            X = rng.standard_normal((R, prob.d0, S)) * sqrt_sx[None, :, None]
            Y = prob.V @ X + rng.standard_normal((R, prob.d2, S)) * sqrt_se[:, :, None]
            H = W @ X
            Rr = U @ H - Y
            gU = (2.0 / S) * Rr @ _T(H)
            gW = (2.0 / S) * _T(U) @ Rr @ _T(X)
        U -= eta * gU
        W -= eta * gW
        if t % hist_every == 0:
            obs = observe(U, W)
            A, B = obs["A"], obs["B"]
            hist_t.append(t)
            hist_v.append(float(np.mean(np.linalg.norm(A - B, axis=(1, 2)) / np.linalg.norm(A, axis=(1, 2)))))
        if t >= burn and (t - burn) % every == 0:
            h = 0 if t < half_at else 1
            n_half[h] += 1
            for k, v in observe(U, W).items():
                sums.setdefault(k, [0.0, 0.0])
                sums[k][h] = sums[k][h] + v
        if progress is not None and t % 200 == 0:
            progress.update(done0 + t)
    if not np.all(np.isfinite(U)) or not np.all(np.isfinite(W)):
        raise FloatingPointError(f"training diverged at eta={eta}")
    out: dict = {"U": U, "W": W, "hist_t": hist_t, "hist_v": hist_v}
    for k, (s1, s2) in sums.items():
        out[f"{k}_1"] = s1 / max(n_half[0], 1)
        out[f"{k}_2"] = s2 / max(n_half[1], 1)
        out[k] = (s1 + s2) / max(sum(n_half), 1)
    return out


# ----------------------------------------------------------------------------------------------
# deep linear networks and the equilibrium of Theorem 5.4
# ----------------------------------------------------------------------------------------------
def _vprime(V, sx, se):
    return np.sqrt(se)[:, None] * V * np.sqrt(sx)[None, :]


def equilibrium_norms(V, sx, se, D: int, *, rank_tol: float = 1e-10) -> np.ndarray:
    """Predicted ``(||W_1 Sx^1/2||^2, ||W_2||^2, ..., ||W_{D-1}||^2, ||Se^1/2 W_D||^2)`` (derived, see module doc).

    ``V`` has shape ``(d_y, d_x)``, ``sx`` ``(d_x,)`` and ``se`` ``(d_y,)`` are the diagonals of
    ``Sigma_x`` and ``Sigma_eps``; ``D >= 2``.
    """
    s = np.linalg.svd(_vprime(V, sx, se), compute_uv=False)
    d = int(np.sum(s > rank_tol * s[0]))
    tau, ax, ae = s.sum(), float(np.sum(sx)), float(np.sum(se))
    c2 = (tau / np.sqrt(ax * ae)) ** (2.0 / D)
    return np.array([ax * c2] + [d * c2] * (D - 2) + [ae * c2])


def printed_norms(V, sx, se, D: int, *, rank_tol: float = 1e-10) -> np.ndarray:
    """Eq. 19 as printed: every ``Tr Sigma_i^2 = (Tr S')^{2/D} d^{1 - 2/D}`` (same order as :func:`equilibrium_norms`)."""
    s = np.linalg.svd(_vprime(V, sx, se), compute_uv=False)
    d = int(np.sum(s > rank_tol * s[0]))
    return np.full(D, s.sum() ** (2.0 / D) * d ** (1 - 2.0 / D))


def layer_norms(Ws, sx, se) -> np.ndarray:
    """Measured counterparts of :func:`equilibrium_norms`, shape ``(R, D)`` (``sx (R, d_x)``, ``se (R, d_y)``)."""
    out = [np.einsum("rij,rj,rij->r", Ws[0], sx, Ws[0])]
    out += [np.sum(W * W, axis=(1, 2)) for W in Ws[1:-1]]
    out.append(np.einsum("rij,ri,rij->r", Ws[-1], se, Ws[-1]))
    return np.stack(out, axis=1)


def run_dln(rng, Ws, *, V, sx, se, eta, S, steps, burn, sample_x, every=5, progress=None, done0=0):
    """Online SGD for ``steps`` steps from ``Ws`` (copied); averages :func:`layer_norms` over the window.

    Per-replica tasks: ``V (R, d_y, d_x)``, ``sx (R, d_x)``, ``se (R, d_y)``; ``sample_x(rng, S)``
    returns inputs ``(R, d_x, S)`` (Gaussian or drawn from a finite data set); the noise
    ``eps ~ N(0, diag(se))`` is drawn fresh.  Returns ``(Ws, halves, hist)`` with ``halves`` the
    window averages over its two halves (each ``(R, D)``) and ``hist`` a thinned history
    ``[(t, norms (R, D)), ...]``.
    """
    Ws = [W.copy() for W in Ws]
    R, D = Ws[0].shape[0], len(Ws)
    sq_se = np.sqrt(se)
    sums, counts = [0.0, 0.0], [0, 0]
    half = burn + (steps - burn) // 2
    hist = []
    for t in range(steps):
        X = sample_x(rng, S)
        Y = V @ X + rng.standard_normal((R, se.shape[1], S)) * sq_se[:, :, None]
        hs = [X]
        for W in Ws:
            hs.append(W @ hs[-1])
        delta = hs[-1] - Y
        for i in range(D - 1, -1, -1):
            g = (2.0 / S) * delta @ _T(hs[i])
            if i > 0:
                delta = _T(Ws[i]) @ delta
            Ws[i] -= eta * g
        if t % every == 0:
            n = layer_norms(Ws, sx, se)
            if t >= burn:
                h = 0 if t < half else 1
                sums[h] = sums[h] + n
                counts[h] += 1
            if t % (every * 40) == 0:
                hist.append((t, n))
        if progress is not None and t % 500 == 0:
            progress.update(done0 + t)
    if not all(np.all(np.isfinite(W)) for W in Ws):
        raise FloatingPointError(f"SGD diverged at eta={eta}")
    return Ws, [s / max(c, 1) for s, c in zip(sums, counts)], hist


# ----------------------------------------------------------------------------------------------
# Net-A and Net-B (Appendix A.1)
# ----------------------------------------------------------------------------------------------
def forward(net: str, u, w, X):
    """Outputs ``f`` of shape ``(R, n, dy)`` and the intermediates ``(a, b, z, s)``.

    ``X`` may be shared, ``(n, dx)``, or per replica, ``(R, n, dx)``.
    """
    X = np.broadcast_to(X, (u.shape[0],) + np.shape(X)[-2:])
    a = np.sqrt(np.sum(u * u, axis=(1, 2)))[:, None, None]
    b = np.sqrt(np.sum(w * w, axis=(1, 2)))[:, None, None]
    if net == "A":
        z = np.einsum("rhd,rnd->rnh", w, X) / a
        s = np.tanh(z)
        f = np.einsum("ryh,rnh->rny", u, s) / b
    elif net == "B":
        z = np.einsum("rhd,rnd->rnh", w, X) / b
        s = np.tanh(z)
        f = np.einsum("ryh,rnh->rny", u, s) / a
    else:
        raise ValueError(f"net={net!r} must be 'A' or 'B'")
    return f, (a, b, z, s)


def per_sample_grads(net: str, u, w, X, Y):
    """Per-sample gradients ``(g_u (R, n, dy, h), g_w (R, n, h, dx))`` and losses ``(R, n)``."""
    X = np.broadcast_to(X, (u.shape[0],) + np.shape(X)[-2:])
    Y = np.broadcast_to(Y, (u.shape[0],) + np.shape(Y)[-2:])
    f, (a, b, z, s) = forward(net, u, w, X)
    gf = 2.0 * (f - Y)                                          # (R, n, dy)
    loss = np.sum((f - Y) ** 2, axis=-1)
    a3, b3 = a[:, :, 0], b[:, :, 0]                             # (R, 1)
    if net == "A":
        delta = (1 - s ** 2) * np.einsum("ryh,rny->rnh", u, gf) / b3[..., None]     # dl/dz
        dz_a = -np.sum(delta * z, axis=-1) / a3                                      # dl/da (R, n)
        gu = np.einsum("rny,rnh->rnyh", gf, s) / b3[..., None, None] + dz_a[..., None, None] * (u / a)[:, None]
        fb = -np.sum(gf * f, axis=-1) / b3                                           # dl/db
        gw = np.einsum("rnh,rnd->rnhd", delta, X) / a3[..., None, None] + fb[..., None, None] * (w / b)[:, None]
    else:
        uh, wh = u / a, w / b
        G_uh = np.einsum("rny,rnh->rnyh", gf, s)
        gu = (G_uh - np.einsum("rnyh,ryh->rn", G_uh, uh)[..., None, None] * uh[:, None]) / a[:, None]
        delta = (1 - s ** 2) * np.einsum("ryh,rny->rnh", uh, gf)
        G_wh = np.einsum("rnh,rnd->rnhd", delta, X)
        gw = (G_wh - np.einsum("rnhd,rhd->rn", G_wh, wh)[..., None, None] * wh[:, None]) / b[:, None]
    return gu, gw, loss
