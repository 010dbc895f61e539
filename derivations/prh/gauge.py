"""EDLNs at a global minimum of the loss, and the minimisation of S over the gauge group (float64).

:class:`Net` is one network at a point of its parameter space; :func:`global_minimum` and
:func:`random_net` draw a random global minimum on a task from :func:`shared_task`;
:func:`minimise_S` minimises S over ``W_k -> G_k W_k G_{k-1}^{-1}`` at the refinement :data:`LEVELS`
(floors :data:`FLOORS`); :func:`platonic_pair` gives two networks at S-minimisers on one task and
:func:`universal_kernel` their derived common kernel ``Q*``.  Used by the checks at optima (eqs. 17,
31, 33, 36, Section 3, Theorem 1); the model, its data and its indexing are in :mod:`.model`.
"""

from __future__ import annotations

import itertools

import numpy as np

from theorem_check import dln, sampling
from theorem_check.library.dln import T

from .model import invertible, pair_hidden, per_sample_losses


# ---------------------------------------------------------------------------------------
# networks at a global minimum, and the minimisation of S over the gauge group (float64)
# ---------------------------------------------------------------------------------------
class Net:
    """One EDLN at a point of its parameter space (float64, no batch axis).

    Attributes: ``M_O, M_I, Z`` (invertible), ``Ws`` (list, note's ``W_1..W_D``), ``X, Y`` (data of
    the shared product set), ``widths`` (``[d0, .., dD]`` in dln indexing).
    """

    def __init__(self, M_O, M_I, Z, Ws, X, Y):
        self.M_O, self.M_I, self.Z, self.Ws, self.X, self.Y = M_O, M_I, Z, list(Ws), X, Y

    @property
    def widths(self):
        """``[d0, d1, ..., dD]``."""
        return [self.Ws[0].shape[1]] + [W.shape[0] for W in self.Ws]

    def with_weights(self, Ws) -> "Net":
        """Same embedding and data, other weights."""
        return Net(self.M_O, self.M_I, self.Z, Ws, self.X, self.Y)

    def batched(self):
        """``(Ws, X, Y, M_O, M_I)`` with a leading batch axis of 1, for :mod:`theorem_check.library.dln`."""
        return [W[None] for W in self.Ws], self.X[None], self.Y[None], self.M_O[None], self.M_I[None]

    def loss(self) -> float:
        """Mean per-sample loss over the data set (from the definition)."""
        Ws, X, Y, M_O, M_I = self.batched()
        return float(per_sample_losses(Ws, X, Y, M_O, M_I).mean())

    def grads(self):
        """Per-sample gradients (dln :func:`~theorem_check.library.dln.per_sample_gradients`), batch axis dropped."""
        Ws, X, Y, M_O, M_I = self.batched()
        return [G[0] for G in dln.per_sample_gradients(Ws, X, Y, M_O=M_O, M_I=M_I)]

    def S(self) -> float:
        """Eq. (14) from the definition: ``sum_i E||grad_{W_i} l||^2``."""
        return float(sum(np.sum(G * G) / G.shape[0] for G in self.grads()))

    def kernel(self, k: int) -> np.ndarray:
        """The kernel of the note's representation ``h^k`` (k = 1..D+1) as a bilinear form in ``u``.

        ``h^k(Z u_1)^T h^k(Z u_2) = u_1^T Q u_2`` with ``Q = (A M^I Z)^T (A M^I Z)``, ``A = W_{k-1}..W_1``.
        Equal kernels on all pairs of inputs <=> equal ``Q``.
        """
        A = self.M_I @ self.Z
        for W in self.Ws[:k - 1]:
            A = W @ A
        return A.T @ A

    def covariances(self):
        """``X_k = E[h h^T]``, ``Y_k = E[delta delta^T]`` for dln layers ``k = 0..D`` (from the data)."""
        Ws, X, Y, M_O, M_I = self.batched()
        hs = dln.representations(Ws, X, M_I)
        ds = dln.representation_gradients(Ws, X, Y, M_O=M_O, M_I=M_I)
        n = X.shape[-1]
        return [h[0] @ h[0].T / n for h in hs], [g[0] @ g[0].T / n for g in ds]


def global_minimum(rng, n_in, n_out, hidden, V, M_O, M_I, Z, X, Y, *, cond=10.0) -> Net:
    """A random global minimum of the empirical loss: ``W_D .. W_1 = (M^O)^{-1} V* Z^{-1} (M^I)^{-1}``.

    Every hidden width must be ``>= rank V*``.  ``W_1 .. W_{D-1}`` are random (condition number
    ``cond``; ``W_1``'s row space contains the target's, so that the constraint is solvable when
    a hidden width is below ``n_in``); ``W_D`` solves the product constraint plus a random
    component on the orthogonal complement of the range of ``W_{D-1} .. W_1``, so that the point
    is a generic member of the set of global minima, not a balanced one.
    """
    target = np.linalg.solve(M_O, V) @ np.linalg.inv(M_I @ Z)
    w = [n_in, *hidden, n_out]
    D = len(w) - 1
    r = np.linalg.matrix_rank(target)
    s = min(min(hidden), n_in)
    _, _, Vh = np.linalg.svd(target)
    F = np.vstack([Vh[:r], rng.standard_normal((max(0, s - r), n_in))])[:s]       # row space of W_1
    Ws = [sampling.invertible(rng, max(w[1], s), cond=cond)[:w[1], :s] @ F]
    for k in range(1, D - 1):
        Ws.append(sampling.invertible(rng, max(w[k + 1], w[k]), cond=cond)[:w[k + 1], :w[k]])
    A = dln.product([W[None] for W in Ws])[0]
    Ap = np.linalg.pinv(A)
    N = rng.standard_normal((n_out, w[D - 1]))
    Ws.append(target @ Ap + N @ (np.eye(w[D - 1]) - A @ Ap))
    return Net(M_O, M_I, Z, Ws, X, Y)


def shared_task(rng, n_in, n_out, rank=None, *, n_u=None, n_eps=None):
    """``V*`` (rank ``rank``, default full), underlying inputs ``U`` and centred noise ``E``.

    Returns ``(V, U, E, Urep, Erep)`` with the product-set repetitions ``Urep (n_in, N)``,
    ``Erep (n_out, N)``.
    """
    rank = min(n_in, n_out) if rank is None else rank
    V = sampling.rank_r(rng, n_out, n_in, rank, cond=4.0) * np.sqrt(n_in) * np.exp(rng.uniform(-1.0, 1.0)) \
        if rank else np.zeros((n_out, n_in))
    n_u = n_u or n_in + 2
    n_eps = n_eps or n_out + 2
    U = rng.standard_normal((n_in, n_u)) + 0.3
    E = rng.standard_normal((n_out, n_eps))
    E -= E.mean(axis=1, keepdims=True)
    return V, U, E, np.repeat(U, n_eps, axis=1), np.tile(E, (1, n_u))


def random_net(rng, hidden, task, *, cond=10.0, dead=None) -> Net:
    """A network of the given hidden widths with its own random ``M^O, M^I, Z``, at a global minimum.

    ``dead=(k, j)``: unit ``j`` of dln hidden layer ``h^k`` (note's ``h^{k+1}``) is dead: the
    network is built with one unit fewer there, then a zero row is inserted in ``W_k`` and a zero
    column in ``W_{k+1}`` (still a global minimum when ``hidden[k-1] - 1 >= rank V*``).
    """
    V, U, E, Urep, Erep = task
    n_out, n_in = V.shape
    M_O = invertible(rng, n_out, cond=cond)
    M_I = invertible(rng, n_in, cond=cond)
    Z = invertible(rng, n_in, cond=cond)
    X, Y = Z @ Urep, V @ Urep + Erep
    hid = list(hidden)
    if dead is not None:
        hid[dead[0] - 1] -= 1
    net = global_minimum(rng, n_in, n_out, hid, V, M_O, M_I, Z, X, Y, cond=cond)
    if dead is not None:
        k, j = dead
        Ws = list(net.Ws)
        Ws[k - 1] = np.insert(Ws[k - 1], j, 0.0, axis=0)
        Ws[k] = np.insert(Ws[k], j, 0.0, axis=1)
        net = net.with_weights(Ws)
    return net


def _S_closed(Gs, Xc, Yc):
    """``S(G) = sum_k tr(G_{k-1} X_{k-1} G_{k-1}^T) tr(G_k^{-T} Y_k G_k^{-1})`` and its gradient in ``G``.

    Valid at a global minimum of the product data set, where ``delta^k`` depends on the noise
    only and ``h^{k-1}`` on ``u`` only, so ``E[||delta||^2 ||h||^2] = E||delta||^2 E||h||^2``
    (derivation in docs/papers/prh.md; the verifier recomputes S from the definition).
    ``Gs`` has identity at both ends (input and output are not transformed).
    """
    D = len(Gs) - 1
    val = 0.0
    grad = [np.zeros_like(G) for G in Gs]
    invs = [None] + [np.linalg.inv(G) for G in Gs[1:-1]] + [Gs[-1]]   # G_0 is not inverted; G_D = I is its own inverse
    for k in range(1, D + 1):
        Gp, Gi = Gs[k - 1], invs[k]
        a = (Gp @ Xc[k - 1] @ Gp.T).trace()   # the method np.trace calls, without its wrapper
        M = Gi.T @ Yc[k] @ Gi
        b = M.trace()
        val += a * b
        grad[k - 1] += 2.0 * b * Gp @ Xc[k - 1]
        grad[k] -= 2.0 * a * M @ Gi.T
    return val, grad


def _round(net: Net, gtol: float, maxiter: int = 3000, polish: bool = False):
    """One re-centred minimisation of S over symmetric ``G_k = I + sym(t_k)``; returns (net, |grad|/S)."""
    import scipy.optimize as so

    Xc, Yc = net.covariances()
    D = len(net.Ws)
    hid = net.widths[1:D]
    iu = [np.triu_indices(d) for d in hid]
    sizes = [len(r) for r, _ in iu]
    off = [np.triu_indices(d, 1) for d in hid]          # strictly upper: mirrored into the lower triangle
    diag = [(np.arange(d), np.arange(d)) for d in hid]
    ends = np.eye(net.widths[0]), np.eye(net.widths[-1])   # G_0 = G_D = I, never written to
    S0 = _S_closed([ends[0]] + [np.eye(d) for d in hid] + [ends[1]], Xc, Yc)[0]

    eyes = [np.eye(d) for d in hid]
    a_in, b_out = float(Xc[0].trace()), float(Yc[D].trace())   # the end terms: G_0 = G_D = I

    def unpack(t):
        # I + M + triu(M, 1)^T with M[iu] = t, entry by entry the same sums: 1 + t on the diagonal, 0 + t off it
        out, o = [], 0
        for I, (r, c), (ru, cu), m in zip(eyes, iu, off, sizes):
            G = I.copy()
            G[r, c] += t[o:o + m]
            G[cu, ru] = G[ru, cu]
            out.append(G)
            o += m
        return out

    def terms(t):
        # _S_closed on the hidden G_k only (the end terms are constants), for one parameter vector t (n,) or a batch of
        # rows (m, n), real or complex (every operation is analytic in t: transposes, not conjugates): S / S0 and its
        # gradient in t in the symmetric parametrisation (d/dt of an off-diagonal entry sees G and G^T).  One vector
        # takes plain 2-d products (the BFGS path: each call is a few microseconds of NumPy per layer).
        a, b, keep, o = [np.asarray(a_in)], [], [], 0
        lead = t.shape[:-1]
        for I, (r, c), (ru, cu), m, X, Y in zip(eyes, iu, off, sizes, Xc[1:D], Yc[1:D]):
            G = np.array(np.broadcast_to(I, lead + I.shape), dtype=t.dtype)
            G[..., r, c] += t[..., o:o + m]
            G[..., cu, ru] = G[..., ru, cu]
            o += m
            Gi = np.linalg.inv(G)
            GX = G @ X
            Mk = T(Gi) @ Y @ Gi
            a.append((GX * G).sum(axis=(-2, -1)))
            b.append(np.trace(Mk, axis1=-2, axis2=-1))
            keep.append((GX, Mk @ T(Gi)))
        b.append(np.asarray(b_out))
        val = sum(x * y for x, y in zip(a, b))
        gv = []
        for k, ((GX, MGi), (r, c), dg) in enumerate(zip(keep, iu, diag)):
            gk = (2.0 * b[k + 1])[..., None, None] * GX - (2.0 * a[k])[..., None, None] * MGi
            gg = gk + T(gk)
            gg[..., dg[0], dg[1]] *= 0.5
            gv.append(gg[..., r, c])
        return val / S0, np.concatenate(gv, axis=-1) / S0

    def f(t):
        try:
            val, g = terms(t)
        except np.linalg.LinAlgError:   # a line-search step onto a singular G_k, where S is infinite: BFGS backs off
            return np.inf, np.zeros_like(t)
        return float(val), g

    def stationarity_and_hessian(t):
        # the gradient and its Jacobian (the Hessian of S in t) by the complex step, every direction in one batch:
        # exact to rounding (no difference quotient), where MINPACK's lmdif would difference the gradient n times
        h = 1e-30
        _, g = terms(t)
        _, gc = terms(t[None, :] + 1j * h * np.eye(len(t)))
        return g, (gc.imag / h).T

    t0 = np.zeros(sum(sizes))
    if polish:
        # the stationarity equations by SciPy's trust-region reflective least squares (exact SVD steps).  Where a hidden
        # covariance is singular, S is flat along some G directions and the Hessian is rank-deficient (16 x 16 of
        # rank 12 in prh.thm1_1); there SciPy's MINPACK lm (1.17), used here before, reads memory it never wrote, and
        # the polished gauge changed from process to process (by ~1e-16; two runs' seed-0 JSON differed).
        last: dict = {}

        def at(t):   # the residual and its Jacobian come from one batched evaluation: kept for the jac call
            key = t.tobytes()
            if key not in last:
                last.clear()
                last[key] = stationarity_and_hessian(t)
            return last[key]

        def g_of(t):
            return at(t)[0]

        def h_of(t):
            return at(t)[1]

        x = so.least_squares(g_of, t0, jac=h_of, method="trf", tr_solver="exact", xtol=1e-15, ftol=1e-15,
                             gtol=1e-15, max_nfev=2000).x
    else:
        x = so.minimize(f, t0, jac=True, method="BFGS", options={"gtol": gtol, "maxiter": maxiter}).x
    if not np.all(np.isfinite(x)) or f(x)[0] > 1.0 + 1e-12:   # never accept a step that increases S
        x = t0
    Gs = [ends[0]] + unpack(x) + [ends[1]]
    Ws = [Gs[k + 1] @ W @ np.linalg.inv(Gs[k]) for k, W in enumerate(net.Ws)]
    new = net.with_weights(Ws)
    return new, _stationarity(new)


def _stationarity(net: Net) -> np.ndarray:
    """Relative imbalance ``||E[G_{k+1}^T G_{k+1}] - E[G_k G_k^T]|| / S`` per hidden layer (the Riemannian gradient)."""
    G = net.grads()
    S = sum(np.sum(g * g) / g.shape[0] for g in G)
    out = []
    for k in range(len(G) - 1):
        A = np.einsum("nab,ncb->ac", G[k], G[k]) / G[k].shape[0]
        B = np.einsum("nba,nbc->ac", G[k + 1], G[k + 1]) / G[k + 1].shape[0]
        out.append(np.linalg.norm(A - B) / S)
    return np.array(out)


LEVELS = ("bfgs gtol=1e-3", "bfgs gtol=1e-8 x4", "lm polish")
"""Refinement levels of the S-minimisation (coarse -> fine)."""
FLOORS = (1e-3, 1e-8, 1e-11)
"""What a true statement at an S-minimiser may still leave at each level: the optimiser's
relative gradient tolerance (BFGS ``gtol``), and for the least-squares polish of the
stationarity equations (the level still named ``lm polish``) a rounding floor ``~1e5 eps`` (stationarity is solved to ``~eps``;
the factor covers the conditioning of the kernels of the drawn instances, cond <= 10 each)."""


def minimise_S(net: Net) -> list[Net]:
    """Minimise S over the gauge group ``W_k -> G_k W_k G_{k-1}^{-1}`` at the three :data:`LEVELS`.

    SciPy BFGS on symmetric ``G_k = I + sym(t_k)`` (enough: S depends on ``G_k^T G_k`` only),
    re-centred after each round (the weights are transformed and ``G`` restarts at ``I``), then a
    least-squares solve of the stationarity equations with their exact Jacobian (SciPy's trust-region reflective
    ``least_squares(method="trf", tr_solver="exact")``; the level keeps its name ``lm polish``, from the
    Levenberg-Marquardt solve it replaced: MINPACK's lm gave process-dependent results where the Hessian of S is
    rank-deficient, docs/design-decisions.md item 184).  Returns the network after each level (each continues from the previous one).
    The loss is unchanged by construction (gauge symmetry); S never increases.
    """
    out = []
    cur, _ = _round(net, 1e-3, maxiter=50)
    out.append(cur)
    for _ in range(4):
        cur, g = _round(cur, 1e-8)
        if g.max(initial=0.0) < 1e-9:
            break
    out.append(cur)
    for _ in range(3):
        cur, g = _round(cur, 0.0, polish=True)
        if g.max(initial=0.0) < 1e-14:
            break
    out.append(cur)
    return out


def hidden_layers(net: Net) -> list[int]:
    """The note's indices of the hidden representations ``h^2 .. h^D``."""
    return list(range(2, len(net.Ws) + 1))


def all_layers(net: Net) -> list[int]:
    """The note's indices of every representation ``h^1 = M^I x .. h^{D+1}``."""
    return list(range(1, len(net.Ws) + 2))


def platonic_pair(rng, d, *, rank=None):
    """Two networks (own random ``M^O, M^I, Z``) on one task, at global minima, with S minimised.

    Returns ``(task, [A at each level], [B at each level], A0, B0)`` (``A0, B0``: before the
    minimisation).
    """
    n = d["n"]
    task = shared_task(rng, n, n, rank)
    hA, hB = pair_hidden(d)
    A0 = random_net(rng, hA, task)
    B0 = random_net(rng, hB, task)
    return task, minimise_S(A0), minimise_S(B0), A0, B0


def universal_kernel(task) -> np.ndarray:
    """``Q* = Su^{-1/2} (Su^{1/2} V*^T Se V* Su^{1/2})^{1/2} Su^{-1/2}`` (derived, docs/papers/prh.md).

    ``Su = E[u u^T]``, ``Se = E[eps eps^T]`` over the data set.  Every hidden kernel at an
    S-minimiser is a positive multiple of ``Q*`` (for ``n_in = n_out = rank V*``).
    """
    import scipy.linalg as sla

    V, U, E, Urep, Erep = task
    Su = U @ U.T / U.shape[1]
    Se = E @ E.T / E.shape[1]
    w, Q = np.linalg.eigh(Su)
    r = (Q * np.sqrt(w)) @ Q.T
    ri = (Q / np.sqrt(w)) @ Q.T
    M = r @ V.T @ Se @ V @ r
    M = 0.5 * (M + M.T)
    return ri @ np.real(sla.sqrtm(M)) @ ri


def pairs(layers_a, layers_b, *, same=False):
    """Pairs ``(i, j)`` of layers (``i < j`` when ``same``)."""
    if same:
        return [(a, b) for a, b in itertools.combinations(layers_a, 2)]
    return [(a, b) for a in layers_a for b in layers_b]
