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
:mod:`theorem_check.numerics.precision` (it uses only ``@``, ``+``, ``*`` and transposes), with a
leading batch axis.
"""

from __future__ import annotations

import functools
from typing import Mapping, Sequence

import numpy as np

from theorem_check.model.dims import Dims, DimSpace

__all__ = ["dln_dims", "T", "product", "prefix_products", "suffix_products", "end_to_end", "representations",
           "population_loss", "population_gradients", "per_sample_gradients",
           "population_hvp", "population_hessian", "flatten_weights", "unflatten_weights",
           "hessian_eigsh", "aligned_moments", "aligned_weights", "gradient_flow",
           "flat_per_sample_gradients", "gradient_second_moment", "noise_covariance"]


def T(a: np.ndarray) -> np.ndarray:
    """Transpose of the last two axes."""
    return a.swapaxes(-1, -2) if isinstance(a, np.ndarray) else np.swapaxes(a, -1, -2)   # the method: no wrapper


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
    pre, suf = prefix_products(Ws), suffix_products(Ws)
    P = _mul(_mul(M_O, pre[-1]), M_I)                  # end_to_end: pre[-1] is product(Ws), the same products
    E = P @ Sigma_xx - Sigma_yx
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
    pre, suf = prefix_products(Ws), suffix_products(Ws)
    P = _mul(_mul(M_O, pre[-1]), M_I)              # end_to_end, from the same products
    R = P @ X - Y                                  # (b, dy, n)
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
# Second order: Hessian-vector products, dense Hessians, Lanczos; aligned data; gradient flow
# ---------------------------------------------------------------------------------------
def _chain(Ws: Sequence[np.ndarray], lo: int, hi: int):
    """``W_hi ... W_{lo+1}`` with 0-based list slicing ``Ws[lo:hi]``; None if empty."""
    return product(Ws, lo, hi)


def population_hvp(Ws, Vs, Sigma_xx, Sigma_yx, *, M_O=None, M_I=None, beta=0.0) -> list[np.ndarray]:
    """Hessian-vector product of :func:`population_loss`: the directional derivative of the gradients.

    ``Vs = [V_1, ..., V_D]`` has the shapes of ``Ws`` (leading batch axes broadcast, e.g.
    ``Ws[i]`` of shape ``(b, 1, d_i, d_{i-1})`` against ``Vs[i]`` of shape ``(b, P, d_i, d_{i-1})``).
    Returns ``[d/de dL/dW_i (W + e V)]_{e=0}`` for each layer:

    ``2 [dA_i^T E B_i^T + A_i^T dP Sigma_xx B_i^T + A_i^T E dB_i^T] + 2 beta V_i`` with
    ``E = P Sigma_xx - Sigma_yx``, ``A_i = M_O W_D...W_{i+1}``, ``B_i = W_{i-1}...W_1 M_I``,
    ``dP = sum_k A_k V_k B_k`` and ``dA_i``, ``dB_i`` the derivatives of ``A_i``, ``B_i`` along ``V``.
    Uses only ``@``, ``+``, ``*``: runs on float arrays and on mpmath object arrays.

    Source: second derivative of the loss of every paper's deep linear network (no factor 1/2).
    """
    D = len(Ws)
    pre, suf = prefix_products(Ws), suffix_products(Ws)
    P = _mul(_mul(M_O, pre[-1]), M_I)                  # end_to_end: pre[-1] is product(Ws), the same products
    E = P @ Sigma_xx - Sigma_yx
    A = [_mul(M_O, suf[i + 1]) for i in range(D)]       # map from layer i+1's output to the output
    B = [_mul(pre[i], M_I) for i in range(D)]           # map from the input to layer i+1's input
    terms = [_mul(_mul(A[k], Vs[k]), B[k]) for k in range(D)]
    dP = terms[0]
    for t in terms[1:]:
        dP = dP + t
    dE = dP @ Sigma_xx
    out = []
    for i in range(D):
        # dA_i = sum_{k>i} A_k V_k (W_{k-1} ... W_{i+1});  dB_i = sum_{k<i} (W_{i-1} ... W_{k+1}) V_k B_k
        dA = None
        for k in range(i + 1, D):
            t = _mul(_mul(A[k], Vs[k]), _chain(Ws, i + 1, k))
            dA = t if dA is None else dA + t
        dB = None
        for k in range(i):
            t = _mul(_mul(_chain(Ws, k + 1, i), Vs[k]), B[k])
            dB = t if dB is None else dB + t
        At = None if A[i] is None else T(A[i])
        Bt = None if B[i] is None else T(B[i])
        g = _mul(_mul(At, dE), Bt)
        if dA is not None:
            g = g + _mul(T(dA) @ E, Bt)
        if dB is not None:
            g = g + _mul(At, E @ T(dB))
        out.append(2 * g + (2 * beta * Vs[i] if beta else 0 * Vs[i]))
    return out


def flatten_weights(Ws: Sequence[np.ndarray]) -> np.ndarray:
    """Concatenate ``vec(W_1), ..., vec(W_D)`` (row-major within each layer): shape ``(batch..., P)``."""
    lead = Ws[0].shape[:-2]
    return np.concatenate([W.reshape(lead + (-1,)) for W in Ws], axis=-1)


def unflatten_weights(theta: np.ndarray, dims: Sequence[int]) -> list[np.ndarray]:
    """Inverse of :func:`flatten_weights` for layer widths ``dims = (d_0, ..., d_D)``.

    ``theta`` has shape ``(batch..., P)`` with ``P = sum_i d_i d_{i-1}``; raises InvalidArgument
    otherwise.
    """
    from theorem_check.errors import InvalidArgument

    sizes = [dims[i + 1] * dims[i] for i in range(len(dims) - 1)]
    if theta.shape[-1] != sum(sizes):
        raise InvalidArgument(f"theta.shape={theta.shape!r} must end with P={sum(sizes)} for dims={tuple(dims)}")
    out, o = [], 0
    for i, sz in enumerate(sizes):
        out.append(theta[..., o:o + sz].reshape(theta.shape[:-1] + (dims[i + 1], dims[i])))
        o += sz
    return out


def population_hessian(Ws, Sigma_xx, Sigma_yx, *, M_O=None, M_I=None, beta=0.0) -> np.ndarray:
    """Dense Hessian of :func:`population_loss` in the coordinates of :func:`flatten_weights`.

    ``Ws[i]`` of shape ``(b, d_i, d_{i-1})``; returns ``(b, P, P)``, symmetrised (the two halves
    agree to rounding).  Built from :func:`population_hvp` applied to all ``P`` basis vectors at
    once (float) or one at a time (mpmath object arrays).  For ``P`` beyond a few thousand use
    :func:`hessian_eigsh`.
    """
    b = Ws[0].shape[:-2]
    dims = [Ws[0].shape[-1]] + [W.shape[-2] for W in Ws]
    P = sum(W.shape[-1] * W.shape[-2] for W in Ws)
    obj = Ws[0].dtype == object
    if not obj:
        basis = np.broadcast_to(np.eye(P, dtype=Ws[0].dtype), b + (P, P))
        Vs = unflatten_weights(basis, dims)                       # (b, P, d_i, d_{i-1})
        ex = lambda x: None if x is None else x[..., None, :, :]
        cols = population_hvp([W[..., None, :, :] for W in Ws], Vs, ex(Sigma_xx), ex(Sigma_yx),
                              M_O=ex(M_O), M_I=ex(M_I), beta=beta)
        H = flatten_weights(cols)                                 # (b, P[column], P[row])
        H = np.swapaxes(H, -1, -2)
    else:
        zero = Ws[0].flat[0] * 0
        cols = []
        for c in range(P):
            e = np.full(b + (P,), zero, dtype=object)
            e[..., c] = zero + 1
            cols.append(flatten_weights(population_hvp(Ws, unflatten_weights(e, dims), Sigma_xx, Sigma_yx,
                                                       M_O=M_O, M_I=M_I, beta=beta)))
        H = np.stack(cols, axis=-1)
    return (H + np.swapaxes(H, -1, -2)) * 0.5


def hessian_eigsh(Ws, Sigma_xx, Sigma_yx, *, beta=0.0, k: int = 6, which: str = "SA", M_O=None, M_I=None,
                  **eigsh_kwargs) -> np.ndarray:
    """``k`` extreme eigenvalues of the Hessian of one network (no batch axis) by Lanczos.

    Uses :func:`population_hvp` inside a :class:`scipy.sparse.linalg.LinearOperator`, so the
    Hessian is never formed: memory ``O(P)``, cost ``O(k * iterations * D^2 * d^3)``.
    ``Ws[i]`` of shape ``(d_i, d_{i-1})``; ``which`` as in :func:`scipy.sparse.linalg.eigsh`
    (``"SA"`` smallest algebraic, ``"LA"`` largest).  Returns the eigenvalues sorted ascending.
    """
    from scipy.sparse.linalg import LinearOperator, eigsh

    dims = [Ws[0].shape[-1]] + [W.shape[-2] for W in Ws]
    P = sum(W.size for W in Ws)

    def mv(v):
        Vs = unflatten_weights(np.asarray(v, dtype=float).ravel(), dims)
        return flatten_weights(population_hvp(Ws, Vs, Sigma_xx, Sigma_yx, M_O=M_O, M_I=M_I, beta=beta))

    op = LinearOperator((P, P), matvec=mv, dtype=float)
    vals = eigsh(op, k=k, which=which, return_eigenvectors=False, **eigsh_kwargs)
    return np.sort(vals)


def aligned_moments(kappa, eta, R, L):
    """Second moments obeying the alignment condition (review of Ladewig et al., eq. 17).

    ``Sigma_xx = R diag(kappa) R^T`` and ``Sigma_yx = L_k diag(eta) R_k^T`` with ``R`` (d_x x d_x)
    and ``L`` (d_y x d_y) orthogonal and ``eta`` of length ``k <= min(d_x, d_y)`` (its first ``k``
    columns are used).  ``kappa`` (length d_x) > 0.  Leading batch axes broadcast.
    Returns ``(Sigma_xx, Sigma_yx)``.
    """
    kappa = np.asarray(kappa)
    eta = np.asarray(eta)
    k = eta.shape[-1]
    Sxx = (R * kappa[..., None, :]) @ T(R)
    Syx = (L[..., :, :k] * eta[..., None, :]) @ T(R[..., :, :k])
    return Sxx, Syx


def aligned_weights(sigma, dims: Sequence[int], *, R=None, L=None, U=None) -> list[np.ndarray]:
    """Balanced aligned weights ``W_i = U_i diag(sigma) U_{i-1}^T`` (rectangular diagonal).

    ``sigma`` (length ``r <= min(dims)``) are the *layers'* singular values (the end-to-end map
    then has singular values ``sigma**D``); ``U_0 = R``, ``U_D = L`` (identity when None) and
    ``U = [U_1, ..., U_{D-1}]`` hidden bases (identity when None).  Returns ``[W_1, ..., W_D]``
    without a batch axis.
    """
    sigma = np.asarray(sigma)
    r = sigma.shape[-1]
    D = len(dims) - 1
    bases = [R] + list(U if U is not None else [None] * (D - 1)) + [L]
    out = []
    for i in range(D):
        core = np.zeros((dims[i + 1], dims[i]), dtype=sigma.dtype)
        core[np.arange(r), np.arange(r)] = sigma
        left, right = bases[i + 1], bases[i]
        W = core if left is None else left @ core
        W = W if right is None else W @ T(right)
        out.append(W)
    return out


def gradient_flow(Ws0, Sigma_xx, Sigma_yx, *, beta=0.0, t_eval, method: str = "DOP853", rtol: float = 1e-9,
                  atol: float = 1e-12, M_O=None, M_I=None, events=None):
    """Integrate gradient flow ``dW_i/dt = -dL/dW_i`` of one network (no batch axis) with SciPy.

    ``t_eval`` increasing times (the integration runs from 0 to ``t_eval[-1]``); ``method``,
    ``rtol``, ``atol`` and ``events`` are passed to :func:`scipy.integrate.solve_ivp` (an exact
    Jacobian ``-H`` from :func:`population_hessian` is supplied for the implicit methods
    Radau/BDF/LSODA).  Returns ``(t, [Ws at each t], sol)`` where ``Ws`` at time ``t_k`` is a list
    of arrays of the layers' shapes.
    """
    from scipy.integrate import solve_ivp

    dims = [Ws0[0].shape[-1]] + [W.shape[-2] for W in Ws0]
    cuts = np.cumsum([0] + [dims[i + 1] * dims[i] for i in range(len(dims) - 1)]).tolist()
    shapes = [(dims[i + 1], dims[i]) for i in range(len(dims) - 1)]

    plain = M_O is None and M_I is None
    out = np.empty(cuts[-1])

    def rhs(_t, th):   # unflatten_weights / flatten_weights without the checks: the solver keeps th's shape
        Ws = [th[a:b].reshape(sh) for a, b, sh in zip(cuts, cuts[1:], shapes)]
        if not plain:
            g = population_gradients(Ws, Sigma_xx, Sigma_yx, M_O=M_O, M_I=M_I, beta=beta)
            return -np.concatenate([x.reshape(-1) for x in g])
        # population_gradients without embeddings, its products in one pass each way (the solver calls this ~10^3
        # times per flow): B_i = W_{i-1}..W_1 forward, A_i^T E = W_{i+1}^T (A_{i+1}^T E) backward
        pre = [None]
        for W in Ws:
            pre.append(W if pre[-1] is None else W @ pre[-1])
        left = pre[-1] @ Sigma_xx - Sigma_yx
        for i in range(len(Ws) - 1, -1, -1):
            G = left if pre[i] is None else left @ pre[i].T
            out[cuts[i]:cuts[i + 1]] = (-2.0 * (G + beta * Ws[i]) if beta else -2.0 * G).reshape(-1)
            if i:
                left = Ws[i].T @ left
        return out.copy()

    jac = None
    if method in ("Radau", "BDF", "LSODA"):
        def jac(_t, th):
            Ws = [W[None] for W in unflatten_weights(th, dims)]
            ex = lambda x: None if x is None else x[None]
            return -population_hessian(Ws, ex(Sigma_xx), ex(Sigma_yx), M_O=ex(M_O), M_I=ex(M_I), beta=beta)[0]

    t_eval = np.asarray(t_eval, dtype=float)
    extra = {"jac": jac} if jac is not None else {}
    sol = solve_ivp(rhs, (0.0, float(t_eval[-1])), flatten_weights(Ws0), method=method, t_eval=t_eval,
                    rtol=rtol, atol=atol, events=events, **extra)
    traj = [unflatten_weights(sol.y[:, k], dims) for k in range(sol.y.shape[1])]
    return sol.t, traj, sol


# ---------------------------------------------------------------------------------------
# gradient noise over a finite data set (uniform weights): used by the noise paper (SGD noise)
# ---------------------------------------------------------------------------------------
def flat_per_sample_gradients(Ws, X, Y, *, M_O=None, M_I=None) -> np.ndarray:
    """Per-sample gradients of ``l = ||P x - y||^2`` flattened like :func:`flatten_weights`: ``(b, n, P)``.

    Works at every precision of :mod:`theorem_check.numerics.precision` (object arrays included).
    """
    gs = per_sample_gradients(Ws, X, Y, M_O=M_O, M_I=M_I)
    b, n = gs[0].shape[:2]
    return np.concatenate([g.reshape(b, n, -1) for g in gs], axis=-1)


def gradient_second_moment(G: np.ndarray) -> np.ndarray:
    """``E_z[g g^T]`` over the ``n`` samples of ``G (b, n, P)`` (uniform weights): ``(b, P, P)``."""
    return (T(G) @ G) / G.shape[1]


def noise_covariance(G: np.ndarray) -> np.ndarray:
    """Gradient-noise covariance ``Sigma = E[g g^T] - E[g] E[g]^T`` of per-sample gradients ``G (b, n, P)``.

    The covariance of a single-sample SGD gradient; a minibatch of ``S`` samples drawn with
    replacement has covariance ``Sigma / S``.  Source: the noise paper, Sec. 3.
    """
    m = np.sum(G, axis=1) / G.shape[1]
    return gradient_second_moment(G) - m[:, :, None] * m[:, None, :]


# ---------------------------------------------------------------------------------------
# Representation gradients, gauge (symmetry) transforms, gradient second moments, kernels.
# Added for the prh note (Ziyin et al., "Proof of a perfect platonic representation
# hypothesis"); used by any paper that needs per-sample backpropagated signals.
# ---------------------------------------------------------------------------------------
__all__ += ["representation_gradients", "gauge_transform", "layer_gradient_moments",
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


def layer_gradient_moments(G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


# -- dimension spaces -------------------------------------------------------------------------

def dln_dims(*, depth: tuple[int, int] = (2, 4), width: tuple[int, int] = (1, 6), distinct: bool = True,
             extra: Mapping[str, tuple[int, int]] | None = None) -> DimSpace:
    """Dimensions of a deep linear network ``W_D ... W_1`` with ``W_i`` of shape ``d_i x d_{i-1}``.

    Keys: ``D`` (number of weight matrices) and ``d0 ... d{Dmax}`` (``d0`` the input width,
    ``dD`` the output width); widths past ``D`` are normalised to the minimum.  With
    ``distinct=True`` the hidden widths ``d1 ... d{D-1}`` all differ from each other.
    ``extra`` adds further named ranges (e.g. a sample count).  Spaces are cached: equal
    arguments return the same (immutable) space.
    """
    return _dln_dims(tuple(depth), tuple(width), bool(distinct), tuple(sorted((extra or {}).items())))


@functools.lru_cache(maxsize=None)
def _dln_dims(depth, width, distinct, extra) -> DimSpace:
    dmin, dmax = depth
    ranges = {"D": depth, **{f"d{i}": width for i in range(dmax + 1)}, **dict(extra)}

    def normalize(d: Dims) -> Dims:
        for i in range(d["D"] + 1, dmax + 1):
            d[f"d{i}"] = width[0]
        return d

    def where(d: Dims) -> bool:
        hidden = [d[f"d{i}"] for i in range(1, d["D"])]
        return not distinct or len(set(hidden)) == len(hidden)

    return DimSpace(ranges, where=where, normalize=normalize)
