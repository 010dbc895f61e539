"""Deep linear networks, shared by every paper: forward pass, losses, gradients, kernels.

Conventions (used by all three papers' claim modules):

* weights ``Ws = [W_1, ..., W_D]`` with ``W_i`` of shape ``(batch, d_i, d_{i-1})``; the network
  is ``f(x) = M_O W_D ... W_1 M_I x`` (``M_O``/``M_I`` optional, identity when ``None``);
* data enter through second moments: ``Sigma_xx = E[x x^T]`` (d_x x d_x),
  ``Sigma_yx = E[y x^T]`` (d_y x d_x), ``Sigma_yy = E[y y^T]``;
* the loss is ``L = E||f(x) - y||^2 + beta * sum_i ||W_i||_F^2`` (no factor 1/2);
* representations ``h^0 = M_I x``, ``h^i = W_i h^{i-1}`` (so ``h^D`` is the last layer's output
  before ``M_O``).

Every function works on NumPy float arrays and on the mpmath object arrays of
:mod:`theorem_check.precision` (it uses only ``@``, ``+``, ``*`` and transposes), with a
leading batch axis.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["T", "product", "prefix_products", "suffix_products", "end_to_end", "representations",
           "population_loss", "population_gradients", "per_sample_gradients"]


def T(a: np.ndarray) -> np.ndarray:
    """Transpose of the last two axes."""
    return np.swapaxes(a, -1, -2)


def product(Ws: Sequence[np.ndarray], lo: int = 0, hi: int | None = None) -> np.ndarray | None:
    """``W_hi ... W_{lo+1}`` (1-based layers ``lo+1..hi``) for ``Ws = [W_1, ..., W_D]``; None if empty.

    ``product(Ws)`` is ``W_D ... W_1`` of shape ``(batch, d_D, d_0)``.
    """
    hi = len(Ws) if hi is None else hi
    out = None
    for W in Ws[lo:hi]:
        out = W if out is None else W @ out
    return out


def prefix_products(Ws: Sequence[np.ndarray]) -> list[np.ndarray | None]:
    """``[None, W_1, W_2 W_1, ..., W_D...W_1]``: entry ``i`` is the map from the input to layer ``i``."""
    out: list[np.ndarray | None] = [None]
    for W in Ws:
        out.append(W if out[-1] is None else W @ out[-1])
    return out


def suffix_products(Ws: Sequence[np.ndarray]) -> list[np.ndarray | None]:
    """Entry ``i`` (0..D) is ``W_D ... W_{i+1}`` (None for ``i = D``): the map from layer ``i`` to the output."""
    D = len(Ws)
    out: list[np.ndarray | None] = [None] * (D + 1)
    for i in range(D - 1, -1, -1):
        out[i] = Ws[i] if out[i + 1] is None else out[i + 1] @ Ws[i]
    return out


def _mul(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a @ b


def end_to_end(Ws: Sequence[np.ndarray], M_O: np.ndarray | None = None, M_I: np.ndarray | None = None) -> np.ndarray:
    """The end-to-end matrix ``P = M_O W_D ... W_1 M_I``, shape ``(batch, d_out, d_in)``."""
    return _mul(_mul(M_O, product(Ws)), M_I)


def representations(Ws: Sequence[np.ndarray], X: np.ndarray, M_I: np.ndarray | None = None) -> list[np.ndarray]:
    """Hidden representations ``[h^0, ..., h^D]`` of inputs ``X`` of shape ``(batch, d_in, n)``.

    ``h^0 = M_I X`` and ``h^i = W_i h^{i-1}``, each of shape ``(batch, d_i, n)`` (columns = samples).
    """
    h = _mul(M_I, X)
    out = [h]
    for W in Ws:
        h = W @ h
        out.append(h)
    return out


def population_loss(Ws, Sigma_xx, Sigma_yx, Sigma_yy, *, M_O=None, M_I=None, beta=0.0):
    """``E||P x - y||^2 + beta sum ||W_i||_F^2 = tr(P Sxx P^T) - 2 tr(P Sxy) + tr(Syy) + beta sum||W||^2``.

    Shapes: ``Sigma_xx (b, dx, dx)``, ``Sigma_yx (b, dy, dx)``, ``Sigma_yy (b, dy, dy)``; returns ``(b,)``.
    """
    P = end_to_end(Ws, M_O, M_I)
    tr = lambda a: np.trace(a, axis1=-2, axis2=-1)
    loss = tr(P @ Sigma_xx @ T(P)) - 2 * tr(P @ T(Sigma_yx)) + tr(Sigma_yy)
    if beta:
        for W in Ws:
            loss = loss + beta * np.sum(W * W, axis=(-2, -1))
    return loss


def population_gradients(Ws, Sigma_xx, Sigma_yx, *, M_O=None, M_I=None, beta=0.0) -> list[np.ndarray]:
    """Gradients ``dL/dW_i`` of :func:`population_loss`, each of ``W_i``'s shape.

    ``dL/dW_i = 2 A_i^T (P Sigma_xx - Sigma_yx) B_i^T + 2 beta W_i`` with
    ``A_i = M_O W_D ... W_{i+1}`` and ``B_i = W_{i-1} ... W_1 M_I``.
    """
    P = end_to_end(Ws, M_O, M_I)
    E = P @ Sigma_xx - Sigma_yx
    pre, suf = prefix_products(Ws), suffix_products(Ws)
    grads = []
    for i, W in enumerate(Ws):
        A = _mul(M_O, suf[i + 1])
        B = _mul(pre[i], M_I)
        G = E if A is None else T(A) @ E
        G = G if B is None else G @ T(B)
        grads.append(2 * G + (2 * beta * W if beta else 0 * W))
    return grads


def per_sample_gradients(Ws, X, Y, *, M_O=None, M_I=None) -> list[np.ndarray]:
    """Per-sample gradients of ``l = ||P x - y||^2`` for data ``X (b, dx, n)``, ``Y (b, dy, n)``.

    Returns, for each layer, an array ``(b, n, d_i, d_{i-1})``: ``2 A_i^T r_k (B_i x_k)^T`` with
    residual ``r_k = P x_k - y_k``.
    """
    P = end_to_end(Ws, M_O, M_I)
    R = P @ X - Y                                  # (b, dy, n)
    pre, suf = prefix_products(Ws), suffix_products(Ws)
    out = []
    for i in range(len(Ws)):
        A = _mul(M_O, suf[i + 1])
        B = _mul(pre[i], M_I)
        left = R if A is None else T(A) @ R        # (b, d_i, n)
        right = X if B is None else B @ X          # (b, d_{i-1}, n)
        out.append(2 * np.einsum("bin,bjn->bnij", left, right) if left.dtype != object
                   else 2 * (np.moveaxis(left, -1, 1)[..., :, None] * np.moveaxis(right, -1, 1)[..., None, :]))
    return out


def _prod(Ws, lo, hi):
    """``W_hi ... W_{lo+1}`` or None when ``lo >= hi`` (identity)."""
    return product(Ws, lo, hi) if hi > lo else None


def population_hvp(Ws, Vs, Sigma_xx, Sigma_yx, *, M_O=None, M_I=None, beta=0.0) -> list[np.ndarray]:
    """Exact Hessian-vector product of :func:`population_loss` along directions ``Vs`` (same shapes as ``Ws``).

    Returns ``[d/dt dL/dW_i (W + t V)]_i`` at ``t = 0``: with ``E = P Sigma_xx - Sigma_yx``,
    ``L_i = M_O W_D...W_{i+1}``, ``R_i = W_{i-1}...W_1 M_I`` and ``dP = sum_j L_j V_j R_j``,
    ``H[V]_i = 2 dL_i^T E R_i^T + 2 L_i^T dP Sigma_xx R_i^T + 2 L_i^T E dR_i^T + 2 beta V_i``.
    Works batched (leading axis) and on mpmath object arrays.
    """
    D = len(Ws)
    P = end_to_end(Ws, M_O, M_I)
    E = P @ Sigma_xx - Sigma_yx
    Ls = [_mul(M_O, _prod(Ws, i + 1, D)) for i in range(D)]
    Rs = [_mul(_prod(Ws, 0, i), M_I) for i in range(D)]
    dP = None
    for j in range(D):
        term = _mul(_mul(Ls[j], Vs[j]), Rs[j])
        dP = term if dP is None else dP + term
    dE = dP @ Sigma_xx
    out = []
    for i in range(D):
        dL = None
        for j in range(i + 1, D):
            t = _mul(_mul(_mul(M_O, _prod(Ws, j + 1, D)), Vs[j]), _prod(Ws, i + 1, j))
            dL = t if dL is None else dL + t
        dR = None
        for j in range(i):
            t = _mul(_mul(_prod(Ws, j + 1, i), Vs[j]), _mul(_prod(Ws, 0, j), M_I))
            dR = t if dR is None else dR + t
        L_i, R_i = Ls[i], Rs[i]
        LT = (lambda X: X) if L_i is None else (lambda X, L_i=L_i: T(L_i) @ X)
        RT = (lambda X: X) if R_i is None else (lambda X, R_i=R_i: X @ T(R_i))
        H = 2 * RT(LT(dE))
        if dL is not None:
            H = H + 2 * RT(T(dL) @ E)
        if dR is not None:
            H = H + 2 * (LT(E) @ T(dR))
        if beta:
            H = H + 2 * beta * Vs[i]
        out.append(H)
    return out


def flatten(Ws) -> np.ndarray:
    """Concatenate ``[W_1, ..., W_D]`` (each ``(batch, d_i, d_{i-1})``) into ``(batch, sum d_i d_{i-1})``."""
    return np.concatenate([W.reshape(W.shape[0], -1) for W in Ws], axis=1)


def unflatten(theta: np.ndarray, shapes: Sequence[tuple[int, int]]) -> list[np.ndarray]:
    """Inverse of :func:`flatten` for layer ``shapes`` ``[(d_1, d_0), ...]``; ``theta`` is ``(batch, p)``."""
    out, k = [], 0
    for (r, c) in shapes:
        out.append(theta[:, k:k + r * c].reshape(theta.shape[0], r, c))
        k += r * c
    return out


def population_hessian(Ws, Sigma_xx, Sigma_yx, *, M_O=None, M_I=None, beta=0.0) -> np.ndarray:
    """Dense Hessian ``(p, p)`` of :func:`population_loss` for ONE network (batch axis of size 1).

    Built from :func:`population_hvp` with all ``p`` unit directions stacked along the batch axis
    (``p = sum d_i d_{i-1}``); parameters ordered as :func:`flatten`.  For ``p`` beyond a few
    thousand use :func:`hessian_eigsh`.
    """
    shapes = [W.shape[-2:] for W in Ws]
    p = sum(r * c for r, c in shapes)
    eye = np.eye(p)[:, :]
    Vs = unflatten(eye, shapes)
    rep = lambda A: None if A is None else np.broadcast_to(A, (p,) + A.shape[1:])
    Hv = population_hvp([rep(W) for W in Ws], Vs, rep(Sigma_xx), rep(Sigma_yx), M_O=rep(M_O), M_I=rep(M_I), beta=beta)
    H = flatten(Hv)
    return 0.5 * (H + H.T)


def hessian_eigsh(Ws, Sigma_xx, Sigma_yx, *, k: int = 6, which: str = "LA", M_O=None, M_I=None, beta=0.0):
    """``k`` extreme Hessian eigenvalues by Lanczos (``scipy.sparse.linalg.eigsh``) on HVPs.

    For one network (batch axis of size 1); memory is O(p), so widths in the thousands work.
    Returns the eigenvalues in ascending order.
    """
    from scipy.sparse.linalg import LinearOperator, eigsh

    shapes = [W.shape[-2:] for W in Ws]
    p = sum(r * c for r, c in shapes)

    def mv(v):
        Vs = unflatten(np.asarray(v, dtype=float).reshape(1, p), shapes)
        return flatten(population_hvp(Ws, Vs, Sigma_xx, Sigma_yx, M_O=M_O, M_I=M_I, beta=beta))[0]

    op = LinearOperator((p, p), matvec=mv, dtype=float)
    return np.sort(eigsh(op, k=k, which=which, return_eigenvectors=False))
