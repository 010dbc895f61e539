"""Deep linear networks trained by online SGD, and the noise equilibrium of Theorem 5.4.

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
"""

from __future__ import annotations

import numpy as np

__all__ = ["equilibrium_norms", "printed_norms", "layer_norms", "run_dln"]


def _T(a):
    return np.swapaxes(a, -1, -2)


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
