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


# ---------------------------------------------------------------------------------------
# Representation gradients, gauge (symmetry) transforms, gradient second moments, kernels.
# Added for the prh note (Ziyin et al., "Proof of a perfect platonic representation
# hypothesis"); used by any paper that needs per-sample backpropagated signals.
# ---------------------------------------------------------------------------------------
__all__ += ["representation_gradients", "gauge_transform", "gradient_second_moments",
            "mean_squared_norms", "gram", "alignment_residual"]


def representation_gradients(Ws, X, Y, *, M_O=None, M_I=None) -> list[np.ndarray]:
    """Per-sample gradients ``delta^i = dl/dh^i`` of ``l = ||M_O h^D - y||^2`` for ``i = 0..D``.

    Shapes: ``X (b, dx, n)``, ``Y (b, dy, n)``; entry ``i`` has shape ``(b, d_i, n)`` (columns =
    samples), with this module's indexing ``h^0 = M_I x``, ``h^i = W_i h^{i-1}``.  Then
    ``delta^D = 2 M_O^T (P x - y)`` and ``delta^{i-1} = W_i^T delta^i``, so that the per-sample
    weight gradient is ``dl/dW_i = delta^i (h^{i-1})^T`` (see :func:`per_sample_gradients`).

    Works on float arrays and on mpmath object arrays (uses ``@``, ``*``, transposes only).
    Source: chain rule; the prh note's eq. (14) writes ``||grad_{h^{i+1}} l||`` for ``delta^i``.
    """
    hs = representations(Ws, X, M_I)
    R = (hs[-1] if M_O is None else M_O @ hs[-1]) - Y
    delta = 2 * (R if M_O is None else T(M_O) @ R)
    out = [delta]
    for W in reversed(Ws):
        delta = T(W) @ delta
        out.append(delta)
    return out[::-1]


def gauge_transform(Ws, Gs) -> list[np.ndarray]:
    """The symmetry ``W_i -> G_i W_i G_{i-1}^{-1}`` given ``Gs = [G_1, ..., G_{D-1}]`` and their inverses.

    ``Gs`` is a list of pairs ``(G_i, G_i^{-1})`` (``None`` for the identity), one per hidden layer
    ``h^1 .. h^{D-1}`` (this module's indexing), shapes ``(b, d_i, d_i)``.  The end-to-end map
    ``W_D ... W_1`` is unchanged, so is every per-sample loss.  Passing the inverse explicitly
    keeps the function precision-agnostic (compute it with ``ctx.inv``).
    """
    D = len(Ws)
    if len(Gs) != D - 1:
        raise ValueError(f"len(Gs)={len(Gs)} must be D-1={D - 1}")
    full = [(None, None), *Gs, (None, None)]
    out = []
    for i, W in enumerate(Ws):
        G, _ = full[i + 1]
        _, Ginv_prev = full[i]
        V = W if G is None else G @ W
        out.append(V if Ginv_prev is None else V @ Ginv_prev)
    return out


def gradient_second_moments(G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(E[G G^T], E[G^T G])`` over the sample axis of per-sample gradients ``G (b, n, p, q)``.

    Uniform weights over the ``n`` samples (an exact expectation for a finite data set).
    Returns arrays of shapes ``(b, p, p)`` and ``(b, q, q)``.
    """
    n = G.shape[1]
    GGt = np.sum(G @ np.swapaxes(G, -1, -2), axis=1) * (1.0 / n) if G.dtype != object else \
        _obj_mean(G @ np.swapaxes(G, -1, -2))
    GtG = np.sum(np.swapaxes(G, -1, -2) @ G, axis=1) * (1.0 / n) if G.dtype != object else \
        _obj_mean(np.swapaxes(G, -1, -2) @ G)
    return GGt, GtG


def _obj_mean(a: np.ndarray) -> np.ndarray:
    """Mean over axis 1 of an object array (exact in mpmath: sum, then divide by n)."""
    return np.sum(a, axis=1) / a.shape[1]


def mean_squared_norms(G: np.ndarray) -> np.ndarray:
    """``E||G||_F^2`` over the sample axis of ``G (b, n, p, q)``: shape ``(b,)``.

    Uses ``x*x`` (not ``|x|^2``) so that it stays holomorphic for complex-step derivatives.
    """
    return np.sum(G * G, axis=(1, 2, 3)) / G.shape[1]


def gram(H: np.ndarray) -> np.ndarray:
    """Kernel (Gram) matrix ``K[a, b] = h(x_a)^T h(x_b)`` of representations ``H (b, d, n)``: ``(b, n, n)``."""
    return T(H) @ H


def alignment_residual(K1: np.ndarray, K2: np.ndarray) -> np.ndarray:
    """``min_c ||c K1 - K2||_F / ||K2||_F`` over the last two axes: 0 iff ``K2`` is a multiple of ``K1``.

    "Perfectly aligned" kernels (``c k_1(x, x') = k_2(x, x')`` for all pairs) have residual 0.
    Computed directly (not as ``sqrt(1 - cos^2)``), so it is accurate to working precision.
    Returns shape ``(b,)``; float arrays only.
    """
    K1 = np.asarray(K1, dtype=float)
    K2 = np.asarray(K2, dtype=float)
    num = np.sum(K1 * K2, axis=(-2, -1))
    den = np.sum(K1 * K1, axis=(-2, -1))
    c = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.linalg.norm(c[..., None, None] * K1 - K2, axis=(-2, -1)) / np.linalg.norm(K2, axis=(-2, -1))
