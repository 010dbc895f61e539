"""The cascade paper's model: its conventions, the closed forms derived from scratch (see
docs/papers/cascade.md), and the sources, dimension spaces and samplers every claim module shares.

Model (review of Ladewig, Ersoy, Wiesner, "Cascading Through the Hierarchy", arXiv 2608.06597):
a deep linear network with ``n`` weight matrices, loss
``L = E||W_n ... W_1 x - y||^2 + beta sum_i ||W_i||_F^2`` (no factor 1/2), gradient flow
``dW_i/dt = -dL/dW_i``.  Alignment (eq. 17): ``Sigma_xx = R diag(kappa) R^T``,
``Sigma_yx = L diag(eta) R^T``.

Conventions fixed here and used by every claim:

* ``sigma`` is a **layer's** singular value (balanced weights ``W_i = U_i diag(sigma) U_{i-1}^T``);
  the end-to-end map ("macrostate") ``W = W_n ... W_1`` has singular values ``s = sigma**n``;
* the Landau potential ``L_j(sigma) = kappa_j sigma^{2n} - 2 eta_j sigma^n + n beta sigma^2``
  omits the additive constant ``tr Sigma_yy``;
* ``eta_j`` are the singular values of ``Sigma_yx`` (not of the regression matrix
  ``Sigma_yx Sigma_xx^{-1}``, whose singular values are ``eta_j / kappa_j``).

Every function here is plain NumPy on scalars/arrays unless it takes a ``ctx`` (then it runs at
float32, float64 and mpmath precision).
The claim modules of :mod:`derivations.cascade` import the closed forms as ``th`` and the shared
pieces (``PAPER``, ``ALIGNED``, ``LOSS``, ``_src``, ``_net_space``, ``_aligned_problem``, ...) by name.
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import mpmath
import numpy as np

import theorem_check as tc
from theorem_check import dln, sampling

__all__ = [
    "landau", "landau_product", "beta_det", "beta_star", "u_det", "u_star", "n2_layer_sigma", "n2_product_s",
    "critical_sigmas", "global_min_sigma", "eta_from_sigma", "stable_branch", "cayley", "diag_embed",
    "predicted_hessian_spectrum", "sector_counts", "slowing_product", "slowing_layer",
    "PAPER", "REVIEW", "ALIGNED", "LOSS",
]


# ---------------------------------------------------------------------------------------
# Landau potentials and thresholds
# ---------------------------------------------------------------------------------------
def landau(sigma, eta, kappa, beta, n):
    """``L_j(sigma) = kappa sigma^{2n} - 2 eta sigma^n + n beta sigma^2`` (layer singular value sigma).

    Source: review of arXiv 2608.06597, "Core claim" / eq. (15); additive constant ``tr Sigma_yy`` omitted.
    """
    return kappa * sigma ** (2 * n) - 2 * eta * sigma ** n + n * beta * sigma ** 2


def landau_product(s, eta, kappa, beta, n):
    """The same potential in the product's singular value ``s = sigma**n``: ``kappa s^2 - 2 eta s + n beta s^{2/n}``."""
    return kappa * s ** 2 - 2 * eta * s + n * beta * s ** (2.0 / n)


def u_det(eta, kappa, n):
    """Product singular value ``s = sigma^n`` at the bifurcation (n >= 3): ``(n-2) eta / (2 (n-1) kappa)``."""
    return (n - 2) * eta / (2 * (n - 1) * kappa)


def u_star(eta, kappa, n):
    """Product singular value at the level crossing (the jump of the order parameter): ``(n-2) eta / ((n-1) kappa)``."""
    return (n - 2) * eta / ((n - 1) * kappa)


def beta_det(eta, kappa, n):
    """Bifurcation strength: below it ``L_j`` has a nonzero local minimum (n >= 3; equals ``eta`` for n = 2).

    ``beta_det = eta n / (2 (n-1)) * ((n-2) eta / (2 (n-1) kappa))^{(n-2)/n}``.
    Source: derived here (SymPy, symbolic n); the review's eq. (25) describes it.
    """
    if n == 2:
        return eta
    return eta * n / (2 * (n - 1)) * u_det(eta, kappa, n) ** ((n - 2) / n)


def beta_star(eta, kappa, n):
    """Level-crossing strength: below it the nonzero minimum is global (n >= 3; ``eta`` for n = 2).

    ``beta* = eta / (n-1) * ((n-2) eta / ((n-1) kappa))^{(n-2)/n}``.
    Source: derived here (SymPy, symbolic n); the review's eq. (26) describes it.
    """
    if n == 2:
        return eta
    return eta / (n - 1) * u_star(eta, kappa, n) ** ((n - 2) / n)


def n2_layer_sigma(eta, kappa, beta):
    """One hidden layer: the minimising layer singular value ``sqrt((eta - beta)_+ / kappa)``."""
    return np.sqrt(np.maximum(np.asarray(eta) - beta, 0.0) / kappa)


def n2_product_s(eta, kappa, beta):
    """One hidden layer: the minimising product singular value ``(eta - beta)_+ / kappa``."""
    return np.maximum(np.asarray(eta) - beta, 0.0) / kappa


def critical_sigmas(eta, kappa, beta, n) -> np.ndarray:
    """Positive roots of ``kappa s^{2n-2} - eta s^{n-2} + beta = 0`` (nonzero critical points of L_j), ascending."""
    c = np.zeros(2 * n - 1)
    c[0] += kappa
    c[n] += -eta
    c[-1] += beta
    r = np.roots(c)
    r = r[(np.abs(r.imag) <= 1e-9 * np.maximum(1.0, np.abs(r))) & (r.real > 0)].real
    return np.sort(r)


def global_min_sigma(eta, kappa, beta, n) -> float:
    """The layer singular value minimising ``L_j`` over ``sigma >= 0`` (0 when the origin wins or ties)."""
    best, best_val = 0.0, 0.0
    for s in critical_sigmas(eta, kappa, beta, n):
        v = landau(s, eta, kappa, beta, n)
        if v < best_val:
            best, best_val = float(s), v
    return best


def eta_from_sigma(sigma, kappa, beta, n):
    """The ``eta`` that makes ``sigma > 0`` a critical point of ``L_j``: ``(beta + kappa sigma^{2n-2}) / sigma^{n-2}``."""
    return (beta + kappa * sigma ** (2 * n - 2)) / sigma ** (n - 2)


def stable_branch(sigma, kappa, beta, n) -> bool:
    """True if the nonzero critical point ``sigma`` is a local minimum of ``L_j`` (``L_j'' > 0``).

    At a critical point ``L_j''(sigma) = 2n (n kappa sigma^{2n-2} - (n-2) beta)`` (use
    ``eta sigma^{n-2} = kappa sigma^{2n-2} + beta``): positive iff ``n kappa sigma^{2n-2} > (n-2) beta``,
    i.e. iff the radial Hessian eigenvalue ``2 n kappa sigma^{2n-2} - 2 (n-2) beta`` is positive.
    """
    return n * kappa * sigma ** (2 * n - 2) > (n - 2) * beta


# ---------------------------------------------------------------------------------------
# Exact orthogonal matrices at every precision, rectangular diagonals
# ---------------------------------------------------------------------------------------
def cayley(A, ctx):
    """Orthogonal ``Q = (I - A)(I + A)^{-1}`` from antisymmetric ``A`` (batch, m, m), at ``ctx``'s precision.

    Exactly orthogonal in exact arithmetic, so the residual of a true identity built on it falls
    with the working precision (a float64 Haar matrix would leave a 1e-16 defect at 50 digits).
    """
    m = A.shape[-1]
    I = ctx.eye(m)
    return (I - A) @ ctx.inv(I + A)


def diag_embed(values, rows: int, cols: int, ctx):
    """``(batch, rows, cols)`` matrices with ``values[:, j]`` at ``(j, j)`` (``values`` (batch, r), r <= min)."""
    b, r = values.shape
    out = ctx.zeros((b, rows, cols))
    for j in range(r):
        out[:, j, j] = values[:, j]
    return out


# ---------------------------------------------------------------------------------------
# Hessian spectrum at an aligned diagonal critical point (block closed forms)
# ---------------------------------------------------------------------------------------
def _T(sp_, sq, m):
    """``T_m = sum_{k=0}^{m-1} sp^{2(m-1-k)} sq^{2k}`` (``T_0 = 0``)."""
    return sum(sp_ ** (2 * (m - 1 - k)) * sq ** (2 * k) for k in range(m)) if m > 0 else 0 * sp_


def predicted_hessian_spectrum(n: int, dims: Sequence[int], sigma, kappa, eta_inactive, beta, *, sqrt=math.sqrt,
                               beta_sector: float = 4.0, swap_sign: float = 1.0) -> list:
    """Eigenvalues (with multiplicity, unsorted) of the full Hessian at an aligned critical point.

    Parameters
    ----------
    n : int
        Number of weight matrices (``n - 1`` hidden layers).
    dims : (d_0, ..., d_n)
        Input, hidden and output widths.
    sigma : sequence, length r <= min(dims)
        The active directions' *layer* singular values (> 0); their ``eta_p`` are
        ``(beta + kappa_p sigma_p^{2n-2}) / sigma_p^{n-2}`` (criticality).
    kappa : sequence, length d_0
        Eigenvalues of ``Sigma_xx`` along the shared right singular vectors.
    eta_inactive : sequence
        ``eta_p`` of the inactive directions ``p = r, r+1, ...`` (length ``k - r`` with ``k`` the
        rank of ``Sigma_yx``, ``k <= min(d_0, d_n)``).
    beta : scalar
    sqrt : callable
        Square root of the working precision.
    beta_sector, swap_sign : float
        ``4.0`` and ``1.0`` for the derived statement; other values give negative controls.

    Returns
    -------
    list of scalars, length ``P = sum_i d_i d_{i-1}``.

    The Hessian is block diagonal over index pairs ``{p, q}`` (entries ``(W_l)_{pq}``,
    ``(W_l)_{qp}``); block closed forms were derived in SymPy (:mod:`derivations.cascade.hessian_sectors`):

    * diagonal, active p: ``(4 beta)^{n-1}`` and ``2 n kappa_p sigma_p^{2n-2} - 2 (n-2) beta``;
    * pair, both active: ``0^{n-1}``, ``(4 beta)^{n-1}`` and the roots of
      ``l^2 - (4 beta + 2 (kp + kq) T_n) l + 4 T_n (beta (kp + kq) + kp kq T_n - beta^2 T_{n-2} / (sp sq)^{2(n-2)})``;
    * pair, p active, q inactive: one ``{0, 4 beta}`` per hidden layer ``i`` with ``q < d_i``, and the
      swap block ``2 [[kappa_q sp^{2n-2} + beta, -eta_q sp^{n-2}], [-eta_q sp^{n-2}, eta_p sp^{n-2}]]``
      (or its existing diagonal entry when ``q >= d_0`` or ``q >= d_n``);
    * inactive entries: ``2 beta`` each for ``n >= 3``; for ``n = 2`` the pairs
      ``(W_2)_{pq}, (W_1)_{qp}`` give ``2 beta +- 2 eta_p``.
    """
    d = list(dims)
    r = len(sigma)
    D = max(d)
    k = r + len(eta_inactive)
    if r > min(d) or k > min(d[0], d[-1]):
        raise ValueError(f"r={r}, k={k} must satisfy r <= min(dims)={min(d)} and k <= min(d_0, d_n)")
    kap = list(kappa) + [None] * (D - len(kappa))
    sig = list(sigma)
    eta = [eta_from_sigma(sig[p], kap[p], beta, n) for p in range(r)] + list(eta_inactive)
    zero = 0 * beta
    etap = lambda p: eta[p] if p < k else zero
    exists = lambda l, a, b: a < d[l] and b < d[l - 1]          # (W_l)_{ab}, l = 1..n
    out: list = []
    B = beta_sector * beta

    def eig2(a11, a22, a12):
        tr, _det = a11 + a22, a11 * a22 - a12 * a12
        disc = sqrt((a11 - a22) ** 2 + 4 * a12 * a12)
        return [(tr - disc) / 2, (tr + disc) / 2]

    for p in range(D):
        # diagonal block: entries (W_l)_{pp}
        ex = [exists(l, p, p) for l in range(1, n + 1)]
        if p < r:
            s = sig[p]
            out += [B] * (n - 1) + [2 * n * kap[p] * s ** (2 * n - 2) - 2 * (n - 2) * beta]
        elif n == 2 and ex[0] and ex[1]:
            out += [2 * beta - 2 * etap(p), 2 * beta + 2 * etap(p)]
        else:
            out += [2 * beta] * sum(ex)
    for p, q in itertools.combinations(range(D), 2):
        if q < r:                                                # both active
            sp_, sq, kp, kq = sig[p], sig[q], kap[p], kap[q]
            Tn, Tm = _T(sp_, sq, n), _T(sp_, sq, n - 2)
            tr = 4 * beta + 2 * (kp + kq) * Tn
            det = 4 * Tn * (beta * (kp + kq) + kp * kq * Tn - beta ** 2 * Tm / (sp_ * sq) ** (2 * (n - 2)))
            disc = sqrt(tr * tr - 4 * det)
            out += [zero] * (n - 1) + [B] * (n - 1) + [(tr - disc) / 2, (tr + disc) / 2]
        elif p < r:                                              # p active, q inactive
            s = sig[p]
            for i in range(1, n):                                # chain pairs through hidden layer i
                if q < d[i]:
                    out += [zero, B]
            x1, yn = q < d[0], q < d[n]                          # (W_1)_{pq}, (W_n)_{qp}
            a11 = 2 * (kap[q] * s ** (2 * n - 2) + beta) if x1 else None
            a22 = 2 * etap(p) * s ** (n - 2)
            if x1 and yn:
                out += eig2(a11, a22, -2 * swap_sign * etap(q) * s ** (n - 2))
            elif x1:
                out += [a11]
            elif yn:
                out += [a22]
        else:                                                    # both inactive
            xs = [exists(l, p, q) for l in range(1, n + 1)]
            ys = [exists(l, q, p) for l in range(1, n + 1)]
            if n == 2:
                used = 0
                if xs[1] and ys[0]:                              # (W_2)_{pq} with (W_1)_{qp}: eta_p
                    out += [2 * beta - 2 * etap(p), 2 * beta + 2 * etap(p)]
                    used += 2
                if ys[1] and xs[0]:                              # (W_2)_{qp} with (W_1)_{pq}: eta_q
                    out += [2 * beta - 2 * etap(q), 2 * beta + 2 * etap(q)]
                    used += 2
                out += [2 * beta] * (sum(xs) + sum(ys) - used)
            else:
                out += [2 * beta] * (sum(xs) + sum(ys))
    P = sum(d[i] * d[i - 1] for i in range(1, n + 1))
    if len(out) != P:  # pragma: no cover - internal consistency of the block decomposition
        raise AssertionError(f"predicted {len(out)} eigenvalues for P={P}")
    return out


def sector_counts(n: int, dims: Sequence[int], r: int) -> dict:
    """Multiplicities of the exact zero modes and of the eigenvalue ``4 beta`` at a rank-r aligned critical point.

    ``zero = (n-1) r(r-1)/2 + r sum_{i=1}^{n-1} (d_i - r)`` (antisymmetric hidden-layer rotations that
    move the active subspace) and ``four_beta = (n-1) r(r+1)/2 + r sum_i (d_i - r)`` (symmetric
    ones: broken rescalings, explicitly broken by the L2 term), for generic (distinct) parameters.
    """
    hidden = sum(dims[i] - r for i in range(1, n))
    return {"zero": (n - 1) * r * (r - 1) // 2 + r * hidden, "four_beta": (n - 1) * r * (r + 1) // 2 + r * hidden}


# ---------------------------------------------------------------------------------------
# Critical slowing down (n = 2, beta = eta): exact scalar solution
# ---------------------------------------------------------------------------------------
def slowing_product(t, s0, kappa, eta, beta):
    """Product singular value under balanced aligned gradient flow, n = 2: logistic ``ds/dt = 4 s (eta - beta - kappa s)``.

    At ``beta = eta``: ``s(t) = s0 / (1 + 4 kappa s0 t)`` (decays as ``1/(4 kappa t)``: t^{-1}).
    """
    a = eta - beta
    t = np.asarray(t, dtype=float)
    if a == 0:
        return s0 / (1 + 4 * kappa * s0 * t)
    # kappa s0 + (a - kappa s0) e^{-4at} written with expm1, accurate when a -> 0 (no cancellation)
    return a * s0 / (kappa * s0 * -np.expm1(-4 * a * t) + a * np.exp(-4 * a * t))


def slowing_layer(t, s0, kappa, eta, beta):
    """Layer singular value ``sqrt(s(t))``; at ``beta = eta`` it decays as ``(4 kappa t)^{-1/2}``: t^{-1/2}."""
    return np.sqrt(slowing_product(t, s0, kappa, eta, beta))


# ---------------------------------------------------------------------------------------
# SymPy: Hessian blocks derived from the loss of the 2-dim (pair) and 1-dim (diagonal) sub-networks
# ---------------------------------------------------------------------------------------
def sym_pair_block(n, sig_p, sig_q, eta_p, eta_q, kap_p, kap_q, beta):
    """Hessian (2n x 2n) of the loss w.r.t. the off-diagonal entries ``(W_l)_{pq}, (W_l)_{qp}`` at a diagonal point.

    Built from the definition: each layer restricted to the coordinates ``{p, q}`` is the 2x2
    matrix ``[[sig_p, x_l], [y_l, sig_q]]``; the loss ``tr(W S_xx W^T) - 2 tr(W S_yx^T) + beta sum
    ||W_l||^2`` with ``S_xx = diag(kap_p, kap_q)``, ``S_yx = diag(eta_p, eta_q)`` is differentiated
    twice and evaluated at ``x = y = 0``.  Variables ordered ``x_1..x_n, y_1..y_n``.
    """
    import sympy as sp

    x = sp.symbols(f"x1:{n + 1}")
    y = sp.symbols(f"y1:{n + 1}")
    Ws = [sp.Matrix([[sig_p, x[l]], [y[l], sig_q]]) for l in range(n)]
    W = Ws[0]
    for l in range(1, n):
        W = Ws[l] * W
    Sxx, Syx = sp.diag(kap_p, kap_q), sp.diag(eta_p, eta_q)
    loss = (W * Sxx * W.T).trace() - 2 * (W * Syx.T).trace() + beta * sum((M.T * M).trace() for M in Ws)
    V = list(x) + list(y)
    H = sp.hessian(sp.expand(loss), V)
    return H.subs({v: 0 for v in V})


def sym_diag_block(n, sig, eta, kap, beta):
    """Hessian (n x n) of the loss w.r.t. the diagonal entries ``(W_l)_{pp}`` of the 1-dim sub-network at ``sig``."""
    import sympy as sp

    z = sp.symbols(f"z1:{n + 1}")
    w = 1
    for l in range(n):
        w = w * (sig + z[l])
    loss = kap * w ** 2 - 2 * eta * w + beta * sum((sig + zl) ** 2 for zl in z)
    H = sp.hessian(sp.expand(loss), list(z))
    return H.subs({v: 0 for v in z})


def charpoly(H, lam):
    """``det(H - lam I)`` by Berkowitz (expanded)."""
    import sympy as sp

    return sp.expand((H - lam * sp.eye(H.shape[0])).det(method="berkowitz"))


# ---------------------------------------------------------------------------------------
# Shared by the claim modules: the source, the conventions' assumption strings, dimension spaces, samplers
# ---------------------------------------------------------------------------------------
PAPER = "cascade"
REVIEW = "Pith review of arXiv 2608.06597"
ALIGNED = r"aligned covariances (eq. 17): $\Sigma_{xx} = R \operatorname{diag}(\kappa) R^{\top}$, $\Sigma_{yx} = L \operatorname{diag}(\eta) R^{\top}$"
LOSS = r"$L = \mathbb{E}\lVert W_{n}\dots W_{1} x - y\rVert ^{2} + \beta \sum_{i} \lVert W_{i}\rVert _{F}^{2}$ (no factor 1/2); gradient flow $\mathrm{d}W/\mathrm{d}t = -\nabla L$"


def _src(section: str, equation: str, printed: str) -> tc.Source:
    return tc.Source(PAPER, section, equation, printed)


def _sqrt(ctx):
    return mpmath.sqrt if ctx.is_mp else np.sqrt


def _net_space(depth, width, *, extra=None, where=None) -> tc.DimSpace:
    """Dims ``n`` (number of weight matrices), ``d0..d{nmax}`` and extra ranges; unused widths normalised."""
    nmin, nmax = depth
    ranges = {"n": depth, **{f"d{i}": width for i in range(nmax + 1)}, **dict(extra or {})}

    def normalize(d):
        for i in range(d["n"] + 1, nmax + 1):
            d[f"d{i}"] = width[0]
        return d

    return tc.DimSpace(ranges, normalize=normalize, where=where)


def _widths(d) -> list[int]:
    return [d[f"d{i}"] for i in range(d["n"] + 1)]


def _antisym(rng, m, batch, scale=0.7):
    return scale * sampling.antisymmetric(rng, m, batch=batch)


def _fmt(v) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in np.atleast_1d(v)) + ")"


def _aligned_problem(rng, dx, dy, *, kappa_one=False, eta=None, beta_range=(0.2, 1.2), margin=0.15, active=False):
    """Random aligned moments with distinct eta_j and |eta_j - beta| >= margin; returns a dict.

    ``active=True`` also requires ``eta_1 - beta >= margin`` (at least one direction above threshold).
    """
    k = min(dx, dy)
    for _ in range(1000):
        e = np.sort(rng.uniform(0.1, 2.2, size=k))[::-1] if eta is None else np.asarray(eta, float)
        beta = rng.uniform(*beta_range)
        gaps = np.abs(e - beta)
        if (np.all(gaps >= margin) and (k < 2 or np.min(-np.diff(e)) >= margin)
                and (not active or e[0] - beta >= margin)):
            break
    kappa = np.ones(dx) if kappa_one else np.exp(rng.uniform(-0.8, 0.8, size=dx))
    R, L = sampling.orthogonal(rng, dx), sampling.orthogonal(rng, dy)
    Sxx, Syx = dln.aligned_moments(kappa, e, R, L)
    return {"eta": e, "kappa": kappa, "beta": float(beta), "R": R, "L": L, "Sxx": Sxx, "Syx": Syx}


_GTOLS = (1e-4, 1e-7, 1e-10)
"""Optimiser gradient tolerances (refinement levels) of cascade.n2_cascade and cascade.balance_critical."""
