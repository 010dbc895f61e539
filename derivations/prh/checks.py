"""Numeric stages of the prh claims: identity sides (any precision) and custom checks (optima).

Identity sides take ``(inst, ctx)`` (see :mod:`theorem_check.precision`) and recompute the data
``X = Z u``, ``Y = V* u + eps`` and every derived quantity in the context's precision, so that
the float32 -> float64 -> mpmath refinement applies to the whole computation.  Custom checks
take ``(rng, dims)`` and refine an optimiser (levels and floors in :mod:`.model`).

Indexing: see :mod:`.model` (note's ``h^k`` = dln ``h^{k-1}``; the note's layer ``i``
couples dln ``Ws[i-1]`` (= note's ``W_i``) and ``Ws[i]`` (= ``W_{i+1}``) through dln's ``h^i``).
"""

from __future__ import annotations

import functools

import numpy as np

from theorem_check import BadClaim, Level, Refinement, ShapeMismatch, dln, sampling

from . import model as M

# ---------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------


def _fmt(xs) -> str:
    return " -> ".join(f"{x:.1e}" for x in xs)


def _second_moments(G):
    return dln.layer_gradient_moments(G)


def _tr(x):
    return np.trace(x, axis1=-2, axis2=-1)


def _check_conform(a_shape, b_shape, what):
    if a_shape[-1] != b_shape[-2] or a_shape[-2] != b_shape[-1]:
        raise ShapeMismatch(f"{what}: {a_shape[-2]}x{a_shape[-1]} times {b_shape[-2]}x{b_shape[-1]} does not conform")


# ---------------------------------------------------------------------------------------
# eq. (14): S from the definition (exact central differences) vs the outer-product form
# ---------------------------------------------------------------------------------------
def _unit(W, a, c, ctx):
    E = np.zeros(W.shape)
    E[..., a, c] = 1.0
    return ctx.asarray(E)


def fd_weight_grads(Ws, X, Y, M_O, M_I, ctx):
    """Per-sample ``grad_{W_k} l`` by central differences with unit steps: exact for the quadratic ``l``.

    ``l(W + E) - l(W - E) = 2 <grad l, E>`` holds exactly because ``l`` is quadratic in each
    ``W_k``; only rounding remains.  Shapes ``(b, N, d_k, d_{k-1})``; independent of backprop.
    """
    out = []
    for k, W in enumerate(Ws):
        b, p, q = W.shape
        G = np.empty((b, X.shape[-1], p, q), dtype=W.dtype)
        for a in range(p):
            for c in range(q):
                E = _unit(W, a, c, ctx)
                Wp, Wm = list(Ws), list(Ws)
                Wp[k], Wm[k] = W + E, W - E
                G[:, :, a, c] = (M.per_sample_losses(Wp, X, Y, M_O, M_I) - M.per_sample_losses(Wm, X, Y, M_O, M_I)) / 2
        out.append(G)
    return out


def fd_representation_grads(Ws, X, Y, M_O, M_I, ctx):
    """Per-sample ``grad_{h^k} l`` for dln layers ``k = 1..D`` by exact central differences in ``h``."""
    hs = dln.representations(Ws, X, M_I)
    out = []
    for k in range(1, len(Ws) + 1):
        H = hs[k]
        down = Ws[k:]

        def loss_from(Hk):
            R = (M_O @ (dln.product(down) @ Hk if down else Hk)) - Y
            return np.sum(R * R, axis=-2)

        g = np.empty(H.shape, dtype=H.dtype)
        for a in range(H.shape[1]):
            E = np.zeros(H.shape)
            E[:, a, :] = 1.0
            E = ctx.asarray(E)
            g[:, a, :] = (loss_from(H + E) - loss_from(H - E)) / 2
        out.append(g)
    return out, hs


def eq14_lhs(inst, ctx):
    """``[E||grad_{W_k} l||^2]_k`` with gradients from the definition (central differences)."""
    X, Y = M.data(inst)
    G = fd_weight_grads(inst.Ws, X, Y, inst.M_O, inst.M_I, ctx)
    return np.stack([np.sum(g * g, axis=(2, 3)).sum(axis=1) / g.shape[1] for g in G], axis=1)


def eq14_rhs(inst, ctx, shift=0):
    """``[E[||grad_{h^{k+1}} l||^2 ||h^k||^2]]_k`` (note's indexing); ``shift=-1`` pairs ``grad_{h^k}``."""
    X, Y = M.data(inst)
    g, hs = fd_representation_grads(inst.Ws, X, Y, inst.M_O, inst.M_I, ctx)
    out = []
    for k in range(len(inst.Ws)):            # dln W_{k+1}: h^k -> h^{k+1}; gradient g[k] is at h^{k+1}
        gk = g[k + shift] if k + shift >= 0 else g[0]
        h = hs[k]
        out.append(np.sum(np.sum(gk * gk, axis=1) * np.sum(h * h, axis=1), axis=1) / h.shape[-1])
    return np.stack(out, axis=1)


# ---------------------------------------------------------------------------------------
# eqs. (16), (18): the symmetry of eq. (16) and the kernel after it
# ---------------------------------------------------------------------------------------
def _eq16_weights(inst, ctx, *, left="T", right="Tinv"):
    i = inst.i
    Tm = inst.T
    Ti = ctx.inv(Tm)
    ops = {"T": Tm, "Tinv": Ti, "TT": ctx.T(Tm)}
    Ws = list(inst.Ws)
    Ws[i] = Ws[i] @ ops[left]          # W_{i+1} T
    Ws[i - 1] = ops[right] @ Ws[i - 1]  # T^{-1} W_i
    return Ws


def eq16_lhs(inst, ctx, **kw):
    """Per-sample losses after ``(W_{i+1} T, T^{-1} W_i)``: ``(b, N)``."""
    X, Y = M.data(inst)
    return M.per_sample_losses(_eq16_weights(inst, ctx, **kw), X, Y, inst.M_O, inst.M_I)


def eq16_rhs(inst, ctx):
    """Per-sample losses at the original weights."""
    X, Y = M.data(inst)
    return M.per_sample_losses(inst.Ws, X, Y, inst.M_O, inst.M_I)


def eq18_lhs(inst, ctx):
    """Kernel (Gram matrix over the data) of ``h^{i+1}`` computed by the transformed network."""
    X, _ = M.data(inst)
    H = dln.representations(_eq16_weights(inst, ctx), X, inst.M_I)[inst.i]
    return dln.gram(H)


def eq18_rhs(inst, ctx, form="TinvT Tinv"):
    """``h^T (T^{-1})^T T^{-1} h`` from the original network (``form`` selects controls)."""
    X, _ = M.data(inst)
    H = dln.representations(inst.Ws, X, inst.M_I)[inst.i]
    Ti = ctx.inv(inst.T)
    mid = {"TinvT Tinv": ctx.T(Ti) @ Ti, "Tinv TinvT": Ti @ ctx.T(Ti), "I": None}[form]
    return dln.gram(H) if mid is None else ctx.T(H) @ mid @ H


# ---------------------------------------------------------------------------------------
# eq. (20): the end-to-end matrix at the global minimum of the empirical loss
# ---------------------------------------------------------------------------------------
def eq20_lhs(inst, ctx):
    """The least-squares minimiser ``W = (M^O)^{-1} Sigma_{y xt} Sigma_{xt xt}^{-1}``, ``xt = M^I x``.

    Computed from the data (normal equations of ``E||M^O W xt - y||^2``, unique since ``M^O`` is
    invertible and ``Sigma_{xt xt} > 0``), not from ``V*`` or ``Z``.
    """
    X, Y = M.data(inst)
    Xt = inst.M_I @ X
    n = X.shape[-1]
    Syx = Y @ ctx.T(Xt) / n
    Sxx = Xt @ ctx.T(Xt) / n
    return ctx.solve(inst.M_O, Syx @ ctx.inv(Sxx))


def eq20_rhs(inst, ctx, order="printed"):
    """``(M^O)^{-1} V* (M^I)^{-1} Z^{-1}`` (printed) or ``(M^O)^{-1} V* Z^{-1} (M^I)^{-1}`` (corrected)."""
    Oi, Mi, Zi = ctx.inv(inst.M_O), ctx.inv(inst.M_I), ctx.inv(inst.Z)
    if order == "printed":
        return Oi @ inst.V @ Mi @ Zi
    if order == "corrected":
        return Oi @ inst.V @ Zi @ Mi
    if order == "MI^-T":                                     # control
        return Oi @ inst.V @ Zi @ ctx.T(Mi)
    raise ValueError(order)


# ---------------------------------------------------------------------------------------
# achievability: width >= rank V* suffices for the global minimum
# ---------------------------------------------------------------------------------------
def sample_achievable(rng, d, batch):
    """``V* = L R`` of rank ``r``, random ``J_k`` (hidden widths >= r), embedding and data."""
    inst = M.sample_edln(rng, d, batch)
    w = M.widths(d)
    r = d["r"]
    inst["L"] = sampling.gaussian(rng, w[-1], r, batch=batch)
    inst["R"] = sampling.gaussian(rng, r, w[0], batch=batch)
    inst["J"] = [sampling.gaussian(rng, w[k], r, batch=batch) for k in range(1, d["D"])]
    return inst


def achievable_lhs(inst, ctx, rank_drop=0):
    """Mean loss of the factorisation built through an ``r``-dimensional bottleneck (``r - rank_drop``).

    ``W_1 = J_1 R Z^{-1} (M^I)^{-1}``, ``W_k = J_k J_{k-1}^+``, ``W_D = (M^O)^{-1} L J_{D-1}^+`` with
    ``J^+ = (J^T J)^{-1} J^T``: the product is ``(M^O)^{-1} V* Z^{-1} (M^I)^{-1}`` whenever every
    hidden width is ``>= r``.
    """
    L, R, J = inst.L, inst.R, list(inst.J)
    r = R.shape[-2] - rank_drop
    L, R, J = L[..., :r], R[..., :r, :], [j[..., :r] for j in J]
    if r == 0:
        Ws = [w * ctx.scalar(0.0) for w in inst.Ws]
    else:
        pinv = [ctx.inv(ctx.T(j) @ j) @ ctx.T(j) for j in J]
        Ws = [J[0] @ R @ ctx.inv(inst.Z) @ ctx.inv(inst.M_I)]
        for k in range(1, len(J)):
            Ws.append(J[k] @ pinv[k - 1])
        Ws.append(ctx.solve(inst.M_O, L @ pinv[-1]))
    X, Y = M.data(dict(inst, V=inst.L @ inst.R))          # V* = L R in the working precision
    return M.per_sample_losses(Ws, X, Y, inst.M_O, inst.M_I).sum(axis=-1) / X.shape[-1]


def achievable_rhs(inst, ctx):
    """``E||eps||^2`` over the (centred) noise samples: the infimum of the loss."""
    E = inst.E - np.sum(inst.E, axis=-1, keepdims=True) / inst.E.shape[-1]
    return np.sum(E * E, axis=(-2, -1)) / E.shape[-1]


# ---------------------------------------------------------------------------------------
# eqs. (23)-(25): invariance and equivariance under W_i -> e^{lam T} W_i, W_{i+1} -> W_{i+1} e^{-lam T}
# ---------------------------------------------------------------------------------------
def gen_exp(ctx, Tm, lam):
    """``exp(lam T)`` for a general square ``T`` (SciPy ``expm`` / ``mpmath.expm``), batched."""
    import mpmath
    import scipy.linalg as sla

    if ctx.is_mp:
        out = []
        for b in range(Tm.shape[0]):
            m = mpmath.expm(mpmath.matrix(Tm[b].tolist()) * lam[b])
            out.append(np.array(m.tolist(), dtype=object))
        return np.stack(out)
    return np.stack([sla.expm(Tm[b] * lam[b]).astype(Tm.dtype) for b in range(Tm.shape[0])])


def _transformed_general(inst, ctx, sign_right=-1):
    i, lam, Tm = inst.i, inst.lam, inst.T
    Ep, Er = gen_exp(ctx, Tm, lam), gen_exp(ctx, Tm, sign_right * lam)
    Ws = list(inst.Ws)
    Ws[i - 1] = Ep @ Ws[i - 1]
    Ws[i] = Ws[i] @ Er
    return Ws, Ep, gen_exp(ctx, Tm, -lam)


def eq23_lhs(inst, ctx, sign_right=-1):
    """Per-sample losses at ``(e^{lam T} W_i, W_{i+1} e^{sign lam T})``."""
    X, Y = M.data(inst)
    Ws, _, _ = _transformed_general(inst, ctx, sign_right)
    return M.per_sample_losses(Ws, X, Y, inst.M_O, inst.M_I)


def eq24_lhs(inst, ctx, factor="E"):
    """``e^{lam T} grad_{W_i^lam} l(W^lam)`` per sample (``factor``: ``E``, ``E^T`` or ``E^-1``)."""
    X, Y = M.data(inst)
    Ws, Ep, Em = _transformed_general(inst, ctx)
    G = M.grads(Ws, inst, X, Y)[inst.i - 1]
    F = {"E": Ep, "E^T": ctx.T(Ep), "E^-1": Em}[factor]
    return F[:, None] @ G


def eq24_rhs(inst, ctx):
    """``grad_{W_i} l`` per sample at the original weights."""
    X, Y = M.data(inst)
    return M.grads(inst.Ws, inst, X, Y)[inst.i - 1]


def eq25_lhs(inst, ctx, factor="E^-1"):
    """``grad_{W_{i+1}^lam} l(W^lam) e^{-lam T}`` per sample (``factor``: ``E^-1``, ``E^-T``, ``E``)."""
    X, Y = M.data(inst)
    Ws, Ep, Em = _transformed_general(inst, ctx)
    G = M.grads(Ws, inst, X, Y)[inst.i]
    F = {"E^-1": Em, "E^-T": ctx.T(Em), "E": Ep}[factor]
    return G @ F[:, None]


def eq25_rhs(inst, ctx):
    """``grad_{W_{i+1}} l`` per sample at the original weights."""
    X, Y = M.data(inst)
    return M.grads(inst.Ws, inst, X, Y)[inst.i]


# ---------------------------------------------------------------------------------------
# eqs. (26)-(29): S and its two transformed terms
# ---------------------------------------------------------------------------------------
def _G0(inst):
    X, Y = M.data(inst)
    return M.grads(inst.Ws, inst, X, Y)


def _Glam(inst, ctx, lam=None):
    X, Y = M.data(inst)
    return M.grads(M.transformed(inst, ctx, lam), inst, X, Y)


def eq26_lhs(inst, ctx):
    """S from its definition, eq. (14)."""
    return sum(dln.mean_squared_norms(G) for G in _G0(inst))


def eq26_rhs(inst, ctx, with_E=False, factor=1):
    """``Tr E[G_i G_i^T] + Tr[G_{i+1} G_{i+1}^T] + other terms`` (printed: one sample, no E)."""
    G = _G0(inst)
    i = inst.i
    A, _ = _second_moments(G[i - 1])
    if with_E:
        B, _ = _second_moments(G[i])
    else:
        g = G[i][:, 0]                                   # the printed term has no expectation
        B = g @ ctx.T(g)
    other = sum(dln.mean_squared_norms(G[k]) for k in range(len(G)) if k not in (i - 1, i))
    return factor * (_tr(A) + _tr(B)) + other


def eq26_other_lhs(inst, ctx, skip=(0, 1)):
    """``[E||grad_{W_k} l||^2]`` after the transformation, for the layers ``k`` other than ``i, i+1``."""
    G = _Glam(inst, ctx)
    i = inst.i
    keep = [k for k in range(len(G)) if k not in tuple(i - 1 + s for s in skip)]
    if not keep:
        return np.zeros((G[0].shape[0], 0), dtype=G[0].dtype)
    return np.stack([dln.mean_squared_norms(G[k]) for k in keep], axis=1)


def eq26_other_rhs(inst, ctx, skip=(0, 1)):
    """The same terms at the original weights."""
    G = _G0(inst)
    i = inst.i
    keep = [k for k in range(len(G)) if k not in tuple(i - 1 + s for s in skip)]
    if not keep:
        return np.zeros((G[0].shape[0], 0), dtype=G[0].dtype)
    return np.stack([dln.mean_squared_norms(G[k]) for k in keep], axis=1)


def two_terms(inst, ctx, lam=None):
    """``E||G_i^lam||^2 + E||G_{i+1}^lam||^2``: the part of S that the transformation changes."""
    G = _Glam(inst, ctx, lam)
    i = inst.i
    return dln.mean_squared_norms(G[i - 1]) + dln.mean_squared_norms(G[i])


def eq27_rhs(inst, ctx, form="printed", lam=None):
    """``Tr[e^{-2 lam T} E[G_i G_i^T]] + Tr[e^{2 lam T} E[G_{i+1} G_{i+1}^T]]`` (printed) or ``G^T G``."""
    lam = inst.lam if lam is None else lam
    G = _G0(inst)
    i = inst.i
    A, _ = _second_moments(G[i - 1])
    BBt, BtB = _second_moments(G[i])
    Em2, Ep2 = M.sym_exp(ctx, inst.T, -2 * lam), M.sym_exp(ctx, inst.T, 2 * lam)
    B = {"printed": BBt, "corrected": BtB}[form]
    _check_conform(Ep2.shape, B.shape, r"$e^{2\lambda T}\,\mathbb{E}[\dots]$")
    return _tr(Em2 @ A) + _tr(Ep2 @ B)


def bracket28(inst, ctx, form="corrected", lam=None):
    """``-Tr[T e^{-2 lam T} E[G_i G_i^T]] + Tr[T e^{2 lam T} E[G_{i+1}^T G_{i+1}]]`` (G at lam = 0)."""
    lam = inst.lam if lam is None else lam
    G = _G0(inst)
    i = inst.i
    A, _ = _second_moments(G[i - 1])
    BBt, BtB = _second_moments(G[i])
    B = {"printed": BBt, "corrected": BtB}[form]
    Tm = inst.T
    Em2, Ep2 = M.sym_exp(ctx, Tm, -2 * lam), M.sym_exp(ctx, Tm, 2 * lam)
    _check_conform((Tm @ Ep2).shape, B.shape, r"$T e^{2\lambda T}\,\mathbb{E}[\dots]$")
    return -_tr(Tm @ Em2 @ A) + _tr(Tm @ Ep2 @ B)


def dS_dlam(inst, ctx, lam=None):
    """``dS/dlam`` of the full S (definition, eq. 14) along eqs. (21)-(22), by the complex step."""
    lam = inst.lam if lam is None else lam

    def S_of(z):
        X, Y = M.data(inst)
        Ws = M.transformed(inst, ctx, z)
        Wc = [M.as_complex(W, ctx) for W in Ws]
        G = dln.per_sample_gradients(Wc, M.as_complex(X, ctx), M.as_complex(Y, ctx),
                                     M_O=M.as_complex(inst.M_O, ctx), M_I=M.as_complex(inst.M_I, ctx))
        return sum(dln.mean_squared_norms(g) for g in G)

    return M.complex_step(S_of, lam, ctx)


def eq28_lhs(inst, ctx):
    """``dS/dlam`` (complex step of the definition)."""
    return dS_dlam(inst, ctx)


def eq28_rhs(inst, ctx, factor=2):
    """``factor * bracket`` (the derived constant is 2)."""
    return factor * bracket28(inst, ctx, "corrected")


def eq28_printed_lhs(inst, ctx):
    """Proportionality without knowing the constant: ``dS/dlam(lam_1) * P(lam_2)``."""
    return dS_dlam(inst, ctx) * bracket28(inst, ctx, "printed", inst.lam2)


def eq28_printed_rhs(inst, ctx):
    """``dS/dlam(lam_2) * P(lam_1)`` with ``P`` the printed bracket (``G_{i+1} G_{i+1}^T``)."""
    return dS_dlam(inst, ctx, inst.lam2) * bracket28(inst, ctx, "printed")


def bracket29(inst, ctx, form="corrected"):
    """``-Tr[T E[G_i^lam G_i^lam^T]] + Tr[T E[G_{i+1}^lam^T G_{i+1}^lam]]`` from the transformed network."""
    G = _Glam(inst, ctx)
    i = inst.i
    A, _ = _second_moments(G[i - 1])
    BBt, BtB = _second_moments(G[i])
    B = {"printed": BBt, "corrected": BtB}[form]
    Tm = inst.T
    _check_conform(Tm.shape, B.shape, r"$T\,\mathbb{E}[\dots]$")
    return -_tr(Tm @ A) + _tr(Tm @ B)


# ---------------------------------------------------------------------------------------
# eqs. (34)-(35): rescaling of unit j
# ---------------------------------------------------------------------------------------
def _unit_T(inst, ctx):
    d = inst.T.shape[-1]
    P = np.zeros(inst.T.shape)
    P[:, inst.j, inst.j] = 1.0
    return ctx.asarray(P)


def eq34_side(inst, ctx, lam, *, which="34", rate=-2, norm="row", magnitude=False):
    """``Tr[e^{c lam T} M] - e^{rate lam} m_j`` with ``T = e_j e_j^T`` (constant in lam iff the statement holds).

    ``which="34"``: ``c = -2``, ``M = E[G_i G_i^T]``, ``m_j = E||row j of G_i||^2``;
    ``"35 printed"``: ``c = -2``, ``M = E[G_{i+1} G_{i+1}^T]``; ``"35"``: ``c = +2``, ``M = E[G_{i+1}^T G_{i+1}]``,
    ``m_j = E||column j of G_{i+1}||^2``.
    """
    G = _G0(inst)
    i, j = inst.i, inst.j
    P = _unit_T(inst, ctx)
    if which == "34":
        Mm, _ = _second_moments(G[i - 1])
        g, c = G[i - 1], -2
    else:
        BBt, BtB = _second_moments(G[i])
        Mm = BBt if which == "35 printed" else BtB
        g, c = G[i], (-2 if which == "35 printed" else 2)
    if norm == "row":
        m = np.sum(g[:, :, j, :] * g[:, :, j, :], axis=(1, 2)) / g.shape[1] if g.shape[2] > j else None
    else:
        m = np.sum(g[:, :, :, j] * g[:, :, :, j], axis=(1, 2)) / g.shape[1] if g.shape[3] > j else None
    if m is None:
        raise ShapeMismatch(f"unit j={j} does not index a {norm} of a {g.shape[2]}x{g.shape[3]} gradient")
    Ec = M.sym_exp(ctx, P, c * lam)
    _check_conform(Ec.shape, Mm.shape, r"$e^{c\lambda T}\,\mathbb{E}[\dots]$")
    if magnitude:                 # reference size of the two terms (the constant may vanish exactly)
        return ctx.abs(_tr(Ec @ Mm)) + ctx.abs(ctx.exp(rate * lam) * m)
    return _tr(Ec @ Mm) - ctx.exp(rate * lam) * m


def eq34_pair(inst, ctx, **kw):
    """The side at ``lam`` and at ``lam_2``: equal iff the difference is constant in lambda."""
    return eq34_side(inst, ctx, inst.lam, **kw), eq34_side(inst, ctx, inst.lam2, **kw)


def eq34_scale(inst, ctx, **kw):
    """Reference magnitude of eq. (34)/(35)'s comparison: the sizes of both terms at both lambdas.

    Needed because the "constant in lambda" is exactly 0 when the hidden layer has one unit.
    """
    return eq34_side(inst, ctx, inst.lam, magnitude=True, **kw) + eq34_side(inst, ctx, inst.lam2, magnitude=True, **kw)


# ---------------------------------------------------------------------------------------
# the lambda-uniqueness claim: spectral form of the two terms
# ---------------------------------------------------------------------------------------
def sample_dead(rng, d, batch, dead=True):
    """Like :func:`.model.sample_edln`; with ``dead`` unit ``j`` of dln ``h^i`` is dead.

    Dead: row ``j`` of the note's ``W_i`` and column ``j`` of ``W_{i+1}`` are zero, so unit ``j``
    neither receives nor sends a signal (the gradients of both vanish along it).
    """
    inst = M.sample_edln(rng, d, batch)
    if dead:
        i, j = inst["i"], inst["j"]
        inst["Ws"][i - 1][:, j, :] = 0.0
        inst["Ws"][i][:, :, j] = 0.0
        P = np.zeros_like(inst["T"])
        P[:, j, j] = 1.0
        inst["T"] = P
    return inst


def spectral_terms(inst, ctx, swap=False):
    """``sum_k e^{-2 lam t_k} alpha_k + e^{2 lam t_k} beta_k``, ``alpha_k = q_k^T A q_k``, ``beta_k = q_k^T B q_k``."""
    import mpmath

    G = _G0(inst)
    i = inst.i
    A, _ = _second_moments(G[i - 1])
    _, B = _second_moments(G[i])
    out = []
    for b in range(A.shape[0]):
        if ctx.is_mp:
            ev, Q = mpmath.eigsy(mpmath.matrix(inst.T[b].tolist()))
            t = np.array([ev[k] for k in range(ev.rows)], dtype=object)
            Q = np.array(Q.tolist(), dtype=object)
        else:
            t, Q = np.linalg.eigh(inst.T[b])
        al = np.sum(Q * (A[b] @ Q), axis=0)
        be = np.sum(Q * (B[b] @ Q), axis=0)
        if swap:
            al, be = be, al
        lam = inst.lam[b]
        out.append(np.sum(ctx.exp(-2 * lam * t) * al + ctx.exp(2 * lam * t) * be))
    return np.array(out, dtype=A.dtype)


# ---------------------------------------------------------------------------------------
# custom checks at optima
# ---------------------------------------------------------------------------------------
SCALAR_LEVELS = ("brent tol=1e-3", "brent tol=1e-8", "brentq on dS/dlam xtol=1e-15")
"""Refinement levels of the one-dimensional minimisations (eqs. 30, 36)."""
SCALAR_FLOORS = (1e-3, 1e-7, 1e-11)
"""Their floors: Brent's relative tolerance (its ``1e-8`` is limited to ~``sqrt(eps)``, hence
``1e-7``), and for ``brentq`` on the exact complex-step derivative a rounding floor."""


OPT_RESOLUTION = 1e-5
"""Finest relative perturbation of a prediction the three-level optimum checks resolve: with floors
``1e-3 / 1e-8 / 1e-11`` (or ``1e-3 / 1e-7 / 1e-11``) a mutant ``(1 + delta)`` leaves ``~delta`` at the two
fine levels (a stall), which the rule calls *fails* once ``delta > sqrt(f_last) ~ 3e-6``."""


def _levels_refinement(measured, predicted, detail="", scalar=False, scale=None, resolution=OPT_RESOLUTION):
    """A :class:`~theorem_check.Refinement` over the optimiser levels (S-minimisation or scalar minimisation).

    ``measured`` and ``predicted`` are one value (scalar or array) per level: the engine decides.
    """
    levels, floors = (SCALAR_LEVELS, SCALAR_FLOORS) if scalar else (M.LEVELS, M.FLOORS)
    return Refinement.of(levels, measured=list(measured), predicted_levels=list(predicted), floors=list(floors),
                         scale=scale, resolution=resolution, detail=detail)


def _nonvanishing(names, gaps, floors, detail, precisions=None):
    """Encode "the gap ``g`` does not vanish" (a negated statement) as a refinement for the engine.

    At level ``k`` the check measured a gap ``g_k >= 0`` (a misalignment, a variation) whose vanishing is
    resolved at ``f_k`` (what a *vanishing* gap still leaves there: the level's floor).  The statement
    "``g`` does not vanish" is reported as ``measured_k = f_k / (f_k + g_k)``, ``predicted = 0``,
    ``scale = 1``: the fraction of the level's resolution in the gap.  For a true statement (``g_k -> g > 0``)
    it falls like the floors, ``f_k / g``, and the rule decides *holds* when ``g > sqrt(f_last)`` (its
    second clause, ``rho = f_first / f_last``); a vanishing gap (``g_k <= f_k``) leaves ``>= 1/2`` at every
    fine level, a stall: *fails*.  The prediction is zero, so the automatic mutants are additive (``+-1``,
    ``+2``, ``+1/2``, ``+resolution`` on a ``[0, 1]`` quantity): they check that the comparison resolves a
    shift of the quantity itself; the statement's own fallibility is shown by its variants and controls
    (aligned or constant cases), which run through this same encoding and are refuted.
    """
    precisions = precisions or ["float64"] * len(names)
    lv = tuple(Level(str(nm), float(f / (f + g)), 0.0, float(f), 1.0, pr)
               for nm, g, f, pr in zip(names, gaps, floors, precisions))
    return Refinement(lv, resolution=1e-3, detail=detail)


@functools.lru_cache(maxsize=None)
def single_dims(*, n=(1, 3), offsets=(0, 2), depth=(2, M.DMAX)):
    """Dims of one network with ``n_in = n_out = rank V* = n`` and hidden widths ``n + o_k`` (all different)."""
    hi = depth[1] - 1
    ranges = {"n": n, "D": depth, **{f"o{k}": offsets for k in range(1, hi + 1)}}

    def normalize(d):
        for k in range(d["D"], hi + 1):
            d[f"o{k}"] = offsets[0]
        return d

    def where(d):
        o = [d[f"o{k}"] for k in range(1, d["D"])]
        return len(set(o)) == len(o)

    from theorem_check import DimSpace

    return DimSpace(ranges, where=where, normalize=normalize)


def _single_net(rng, d):
    n = d["n"]
    task = M.shared_task(rng, n, n)
    hidden = [n + d[f"o{k}"] for k in range(1, d["D"])]
    net = M.random_net(rng, hidden, task)
    return task, net, M.minimise_S(net)


def _moments(net):
    G = net.grads()
    A = [np.einsum("nab,ncb->ac", g, g) / g.shape[0] for g in G]       # E[G G^T]
    B = [np.einsum("nba,nbc->ac", g, g) / g.shape[0] for g in G]       # E[G^T G]
    return G, A, B


def _pair_normalised(left, right):
    """``left / s`` and ``right / s`` with the pair's common magnitude ``s = max(||left||, ||right||)``.

    A common positive factor per compared pair, so that every layer (unit, pair of layers) weighs the same
    in the Frobenius gap of the stacked arrays whatever its magnitude; the statement ``left = right`` is
    unchanged by it, and a prediction mutant still acts on ``right`` only.
    """
    s = max(float(np.linalg.norm(left)), float(np.linalg.norm(right)))
    s = s if s > 0 else 1.0
    return np.ravel(left) / s, np.ravel(right) / s


def check_eq31(form="corrected", factor=1.0, minimise=True):
    """Eq. (31) at an S-minimiser: ``E[G_i G_i^T]`` vs ``E[G_{i+1}^T G_{i+1}]`` (or the printed ``G G^T``).

    Measured: ``E[G_i G_i^T]`` of every hidden layer ``i``; predicted: ``factor * E[G_{i+1}^T G_{i+1}]``
    (each pair scaled by its common magnitude, then stacked), at each level of the S-minimisation.
    """

    def check(rng, d):
        task, net0, levels = _single_net(rng, d)
        nets = levels if minimise else [net0] * len(levels)
        meas, pred, vals = [], [], []
        for net in nets:
            G, A, B = _moments(net)
            ms, ps, worst = [], [], 0.0
            for i in range(1, len(G)):
                left = A[i - 1]
                right = B[i] if form == "corrected" else A[i]
                if left.shape != right.shape:
                    raise ShapeMismatch(f"layer i={i}: T is {left.shape[0]}x{left.shape[0]} (width of h^{i + 1}) "
                                        f"but E[grad_W{i + 1} grad_W{i + 1}^T] is {right.shape[0]}x{right.shape[0]}")
                m, p = _pair_normalised(left, factor * right)
                ms.append(m)
                ps.append(p)
                worst = max(worst, float(np.linalg.norm(m - p) / max(np.linalg.norm(m), np.linalg.norm(p))))
            meas.append(np.concatenate(ms))
            pred.append(np.concatenate(ps))
            vals.append(worst)
        return _levels_refinement(meas, pred, detail=f"max over layers i of ||lhs - rhs||/||.||: {_fmt(vals)}")

    return check


def _diag_round(net, polish=False, gtol=1e-8):
    """Minimise S over diagonal rescalings ``G_k = diag(exp(s_k))`` (the rescaling symmetry only).

    BFGS with tolerance ``gtol`` on the log-scales, or (``polish``) Levenberg-Marquardt on the
    stationarity equations; the weights are re-centred (the found scaling is applied).
    """
    import scipy.optimize as so

    Xc, Yc = net.covariances()
    D = len(net.Ws)
    hid = net.widths[1:D]
    sizes = np.cumsum([0] + hid)

    def Gs(s):
        return [np.eye(net.widths[0])] + [np.diag(np.exp(s[sizes[k]:sizes[k + 1]])) for k in range(len(hid))] \
            + [np.eye(net.widths[-1])]

    S0 = M._S_closed(Gs(np.zeros(sizes[-1])), Xc, Yc)[0]

    def f(s):
        G = Gs(s)
        val, g = M._S_closed(G, Xc, Yc)
        grad = np.concatenate([np.diag(gk) * np.diag(Gk) for gk, Gk in zip(g[1:-1], G[1:-1])])
        return val / S0, grad / S0

    s0 = np.zeros(sizes[-1])
    if polish:
        res = so.root(lambda s: f(s)[1], s0, method="lm", options={"xtol": 1e-15, "ftol": 1e-15})
    else:
        res = so.minimize(f, s0, jac=True, method="BFGS", options={"gtol": gtol})
    x = res.x if np.all(np.isfinite(res.x)) and f(res.x)[0] <= 1 + 1e-12 else s0
    G = Gs(x)
    return net.with_weights([G[k + 1] @ W @ np.linalg.inv(G[k]) for k, W in enumerate(net.Ws)])


def check_eq33(norm="column", rescaling_only=False, minimise=True):
    """Eq. (33): ``E||row j of grad W_i||^2 = E||column j of grad W_{i+1}||^2`` for all i, j at the minimiser."""

    def check(rng, d):
        task, net0, levels = _single_net(rng, d)
        if rescaling_only:                        # same three levels as M.LEVELS, diagonal G only
            coarse = _diag_round(net0, gtol=1e-3)
            fine = _diag_round(_diag_round(coarse))
            levels = [coarse, fine, _diag_round(fine, polish=True)]
        nets = levels if minimise else [net0] * len(levels)
        meas, pred, vals = [], [], []
        for net in nets:
            G = net.grads()
            ms, ps, worst = [], [], 0.0
            for i in range(1, len(G)):
                rows = np.sum(G[i - 1] ** 2, axis=(0, 2)) / G[i - 1].shape[0]
                if norm == "column":
                    other = np.sum(G[i] ** 2, axis=(0, 1)) / G[i].shape[0]
                else:
                    other = np.sum(G[i] ** 2, axis=(0, 2)) / G[i].shape[0]
                    if other.shape != rows.shape:
                        raise ShapeMismatch(f"W_{i + 1} has {other.shape[0]} rows, h^{i + 1} has {rows.shape[0]} units")
                # every unit j weighs the same: both sides of unit j over their common magnitude (> 0: no unit
                # of these networks is dead), so a small unit's imbalance is not hidden by a large one's
                s = np.maximum(np.maximum(rows, other), np.finfo(float).tiny)
                ms.append(rows / s)
                ps.append(other / s)
                worst = max(worst, float(np.max(np.abs(rows - other) / s)))
            meas.append(np.concatenate(ms))
            pred.append(np.concatenate(ps))
            vals.append(worst)
        return _levels_refinement(meas, pred, detail=f"max over i, j of relative gap: {_fmt(vals)}")

    return check


def _scalar_levels(fun, dfun, bracket_hint=(-1.0, 1.0)):
    """Minimiser of a smooth convex scalar function at three refinement levels.

    Brent (``tol = 1e-3``), Brent (``tol = 1e-8``), then ``brentq`` on the derivative
    (complex step, exact to rounding) with ``xtol = 1e-15``.
    """
    import scipy.optimize as so

    out = []
    r1 = so.minimize_scalar(fun, bracket=bracket_hint, tol=1e-3)
    out.append(r1.x)
    r2 = so.minimize_scalar(fun, bracket=bracket_hint, tol=1e-8)
    out.append(r2.x)
    a, b = r2.x - 1e-3, r2.x + 1e-3
    for _ in range(60):
        if dfun(a) < 0 < dfun(b):
            break
        a, b = a - (b - a), b + (b - a)
    out.append(so.brentq(dfun, a, b, xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return out


def _inst64(rng, d):
    from theorem_check import FLOAT64

    return M.to_ctx(M.sample_edln(rng, d, 1), FLOAT64), FLOAT64


def check_eq30(form="corrected", flip=False):
    """Eq. (30): at the minimiser lam* of S along eqs. (21)-(22), the bracket of eq. (29) vanishes.

    ``flip=True`` (a negative control) flips the sign of the bracket's first term.
    """

    def check(rng, d):
        inst, ctx = _inst64(rng, d)
        if form == "printed":
            i = inst.i
            di, dn = inst.Ws[i - 1].shape[-2], inst.Ws[i].shape[-2]
            if di != dn:
                raise ShapeMismatch(f"T is {di}x{di} but E[grad_W{i + 1} grad_W{i + 1}^T] is {dn}x{dn}")
        fun = lambda z: float(two_terms(inst, ctx, np.array([z]))[0])
        dfun = lambda z: float(dS_dlam(inst, ctx, np.array([z]))[0])
        lams = _scalar_levels(fun, dfun)
        meas, pred, vals = [], [], []
        for z in lams:
            inst2 = type(inst)(dict(inst, lam=np.array([z])))
            G = _Glam(inst2, ctx)
            i = inst.i
            # eq. (30): -Tr[T A^lam] + Tr[T B^lam] = 0 at lam*, i.e. Tr[T B^lam*] (measured) = Tr[T A^lam*]
            # (predicted); bracket29 gives the second term as bracket + first
            first = float(_tr(inst.T @ _second_moments(G[i - 1])[0])[0])
            second = float(bracket29(inst2, ctx, form)[0]) + first
            meas.append(second)
            pred.append(-first if flip else first)
            vals.append(abs(second - pred[-1]) / max(abs(second), abs(pred[-1])))
        return _levels_refinement(meas, pred, scalar=True,
                                  detail=f"lam* = {lams[-1]:.6g}; Tr[T B] = {meas[-1]:.6g} vs Tr[T A] = {pred[-1]:.6g}; "
                                         f"relative gap: {_fmt(vals)}")

    return check


def check_eq36(mode="printed"):
    """Eq. (36): the minimiser of S along the rescaling of unit j satisfies e^{4 lam} = a / b."""

    def check(rng, d):
        inst, ctx = _inst64(rng, d)
        P = np.zeros_like(inst.T)
        P[:, inst.j, inst.j] = 1.0
        inst = type(inst)(dict(inst, T=P))
        G = _G0(inst)
        i, j = inst.i, inst.j
        a = float(np.sum(G[i - 1][:, :, j, :] ** 2) / G[i - 1].shape[1])
        b = float(np.sum(G[i][:, :, :, j] ** 2) / G[i].shape[1])
        pred = {"printed": np.log(a / b) / 4, "factor 2": np.log(a / b) / 2, "swapped": np.log(b / a) / 4}[mode]
        fun = lambda z: float(two_terms(inst, ctx, np.array([z]))[0])
        dfun = lambda z: float(dS_dlam(inst, ctx, np.array([z]))[0])
        lams = _scalar_levels(fun, dfun)
        vals = [abs(z - pred) / (1 + abs(pred)) for z in lams]
        # lambda is dimensionless and its Brent/brentq errors are absolute: scale 1 + |lam_pred|
        return _levels_refinement(lams, [pred] * len(lams), scalar=True, scale=1.0 + abs(pred),
                                  detail=f"lam* = {lams[-1]:.6g}, predicted {pred:.6g}; "
                                         f"|lam* - lam_pred|/(1+|lam_pred|): {_fmt(vals)}")

    return check


def check_unique_printed():
    """The printed claim "Eq. (27) has a unique minimiser" at a global minimum with a dead unit.

    The instance is a global minimum (hidden width > rank V*) whose unit ``j`` of ``h^{i+1}`` is
    dead, and ``T = e_j e_j^T``.  Uniqueness fails iff S(lam) is constant: decided by precision
    refinement of ``|S(lam) - S(0)| / S(0)`` at lam = +-1 (float64 -> mpmath 50 digits).
    """
    from theorem_check import FLOAT64, MP50

    def check(rng, d):
        n = d["n"]
        task = M.shared_task(rng, n, n)
        hidden = [n + d[f"o{k}"] for k in range(1, d["D"])]
        k = int(np.argmax(hidden))                   # a hidden layer wider than rank V*
        j = int(rng.integers(hidden[k]))
        net = M.random_net(rng, hidden, task, dead=(k + 1, j))
        inst = {"M_O": net.M_O[None], "M_I": net.M_I[None], "Z": net.Z[None], "V": task[0][None],
                "U": task[1][None], "E": task[2][None], "Ws": [W[None] for W in net.Ws], "i": k + 1, "j": j}
        P = np.zeros((1, hidden[k], hidden[k]))
        P[0, j, j] = 1.0
        inst["T"] = P
        vals = []
        for ctx in (FLOAT64, MP50):
            ci = M.to_ctx(inst, ctx)
            with ctx.active():
                f0 = two_terms(ci, ctx, ctx.asarray(np.zeros(1)))
                dev = max(abs(float((two_terms(ci, ctx, ctx.asarray(np.array([s]))) - f0)[0])) for s in (-1.0, 1.0))
                vals.append(dev / float(f0[0]))
        # a unique minimiser needs S(lambda) not constant: "the variation does not vanish", resolved at the
        # precision's floor eps * 1e3 (the two-term sum of a few hundred products); see _nonvanishing
        floors = [FLOAT64.eps * 1e3, MP50.eps * 1e3]
        return _nonvanishing(["float64", "mp50"], vals, floors, precisions=["float64", "mp50"],
                             detail=f"dead unit j={j} of h^{k + 2}, T = e_j e_j^T: |S(+-1) - S(0)|/S(0) = {_fmt(vals)} "
                                    "(S constant in lambda: every lambda minimises)")

    return check


IFF_WINDOWS = (2.0, 5.0, 8.0)
"""Half-widths ``L`` of the windows ``[-L, L]`` over which the iff check locates the minimiser of (27)."""


def _two_unit_net(rng, d):
    """A global minimum whose widest hidden layer has two one-sided units (for :func:`check_unique_iff`).

    Built with two units fewer there (still ``>= rank V*``), then unit ``a`` gets a zero row in the note's
    ``W_i`` and a random column in ``W_{i+1}`` (it sends but receives nothing: ``h_a = 0``), unit ``b`` a
    random row and a zero column (receives but sends nothing: ``delta_b = 0``).  Neither changes the
    product ``W_{i+1} W_i``, so the point is still a global minimum.  Returns ``(inst, i, a, b)`` with a
    float64 instance of batch 1 (``T`` to be set).
    """
    n = d["n"]
    task = M.shared_task(rng, n, n)
    hidden = [n + d[f"o{k}"] for k in range(1, d["D"])]
    k = int(np.argmax(hidden))
    w = hidden[k]
    hid = list(hidden)
    hid[k] -= 2
    net = M.random_net(rng, hid, task)
    Ws = list(net.Ws)
    W_in, W_out = Ws[k], Ws[k + 1]
    row = rng.standard_normal((1, W_in.shape[1])) * np.linalg.norm(W_in) / np.sqrt(W_in.size)
    col = rng.standard_normal((W_out.shape[0], 1)) * np.linalg.norm(W_out) / np.sqrt(W_out.size)
    W_in = np.vstack([W_in, np.zeros((1, W_in.shape[1])), row])          # unit w-2: zero row; w-1: random row
    W_out = np.hstack([W_out, col, np.zeros((W_out.shape[0], 1))])       # unit w-2: random column; w-1: zero
    perm = rng.permutation(w)
    Ws[k], Ws[k + 1] = W_in[perm], W_out[:, perm]
    inv = np.argsort(perm)
    a, b = int(inv[w - 2]), int(inv[w - 1])
    inst = {"M_O": net.M_O[None], "M_I": net.M_I[None], "Z": net.Z[None], "V": task[0][None],
            "U": task[1][None], "E": task[2][None], "Ws": [W[None] for W in Ws], "i": k + 1, "j": a,
            "T": np.zeros((1, w, w)), "lam": np.zeros(1)}
    return inst, k + 1, a, b


def check_unique_iff():
    """'(27) has a unique minimiser iff it is coercive', for rank-one ``T = q q^T`` (issue 10).

    In ``T``'s eigenbasis (27) is ``f(lam) = alpha e^{-2 lam} + beta e^{2 lam} + const`` with
    ``alpha = q^T E[G_i G_i^T] q``, ``beta = q^T E[G_{i+1}^T G_{i+1}] q`` (the verified spectral form); it
    is coercive iff ``alpha, beta > 0``, and then its unique minimiser solves ``e^{4 lam*} = alpha / beta``.
    If ``beta = 0`` (``alpha = 0``) it decreases (increases) strictly: no minimiser, the infimum is at
    ``+inf`` (``-inf``).  On the compactified line ``w = 1 / (1 + e^{-4 lam})`` all three cases read
    ``w* = alpha / (alpha + beta)``: interior (unique minimiser) iff coercive, ``1`` or ``0`` (none) otherwise.

    Per instance, on one global minimum (:func:`_two_unit_net`): three directions, a random unit ``q``
    (coercive), unit ``a`` (``beta = 0``) and unit ``b`` (``alpha = 0``).  Predicted: ``w*`` from
    ``alpha, beta`` (second moments of the gradients at ``lam = 0``).  Measured: the minimiser of ``f`` over
    ``[-L, L]`` located from its definition (S of the transformed network; ``f`` is convex, so it is the
    root of the complex-step ``dS/dlam`` by ``brentq`` when ``f'(-L) < 0 < f'(L)``, else the end where
    ``f`` is smallest), mapped to ``w``.  Levels ``L = 2, 5, 8``; floor ``e^{-4L}`` (what a minimiser at
    infinity leaves in ``w``) plus a rounding floor ``1e3 eps S / (alpha_q + beta_q)`` (``dS/dlam`` is
    exact to ``eps S``, ``f'' = 4 (alpha e^{-2 lam} + beta e^{2 lam})``).
    """
    import scipy.optimize as so
    from theorem_check import FLOAT64

    def check(rng, d):
        raw, i, a, b = _two_unit_net(rng, d)
        ctx = FLOAT64
        inst = M.to_ctx(raw, ctx)
        w = raw["T"].shape[-1]
        G = _G0(inst)
        A, _ = _second_moments(G[i - 1])
        _, B = _second_moments(G[i])
        S0 = float(sum(dln.mean_squared_norms(g) for g in G)[0])
        q = rng.standard_normal(w)
        q /= np.linalg.norm(q)
        dirs = {"q": q, "a": np.eye(w)[a], "b": np.eye(w)[b]}
        pred, meas, lam_hat, ab = [], [[] for _ in IFF_WINDOWS], [[] for _ in IFF_WINDOWS], {}
        for nm, v in dirs.items():
            al, be = float(v @ A[0] @ v), float(v @ B[0] @ v)
            ab[nm] = (al, be)
            pred.append(al / (al + be))
            one = type(inst)(dict(inst, T=ctx.asarray(np.outer(v, v)[None])))
            dfun = lambda z, one=one: float(dS_dlam(one, ctx, np.array([z]))[0])
            for k, L in enumerate(IFF_WINDOWS):
                lo, hi = dfun(-L), dfun(L)
                if lo < 0 < hi:
                    z = so.brentq(dfun, -L, L, xtol=1e-15, rtol=4 * np.finfo(float).eps)
                else:                       # monotone on the window: the minimum is at an end
                    z = L if hi <= 0 else -L
                lam_hat[k].append(z)
                meas[k].append(1.0 / (1.0 + np.exp(-4.0 * z)))
        al_q, be_q = ab["q"]
        rounding = 1e3 * np.finfo(float).eps * S0 / (al_q + be_q)
        floors = [float(np.exp(-4 * L)) + rounding for L in IFF_WINDOWS]
        detail = (f"h^{i + 1} width {w}: alpha, beta = " + ", ".join(f"{nm} ({x:.3g}, {y:.3g})" for nm, (x, y) in ab.items())
                  + f"; minimiser over [-L, L] (L = {IFF_WINDOWS[-1]:g}): " + ", ".join(f"{z:.6g}" for z in lam_hat[-1])
                  + "; predicted w* = alpha/(alpha+beta): " + ", ".join(f"{p:.6g}" for p in pred))
        return Refinement.of([f"L={L:g}" for L in IFF_WINDOWS], measured=[np.array(m) for m in meas],
                             predicted=np.array(pred), floors=floors, resolution=OPT_RESOLUTION, detail=detail)

    return check


# ---------------------------------------------------------------------------------------
# Theorem 1, eq. (17) and Section 3 on pairs of networks
# ---------------------------------------------------------------------------------------
def _kernel_residual(QA, QB, c_free=True):
    if c_free:
        return float(dln.alignment_residual(QA[None], QB[None])[0])
    return float(np.linalg.norm(QA - QB) / max(np.linalg.norm(QA), np.linalg.norm(QB)))


def check_theorem(part, layers="hidden", minimise=True, c_free=True):
    """Theorem 1 part 1 (within A), 2 (within B) or 3 (A vs B) at S-minimisers.

    ``layers="hidden"``: the note's learned representations ``h^2 .. h^D`` (outputs of
    ``W_1 .. W_{D-1}``); ``"with_input"``: ``h^1 = M^I x .. h^D`` (eq. 14's ``h^i``, the inputs of
    ``W_1 .. W_D``); ``"with_output"``: ``h^2 .. h^{D+1}`` (the outputs of ``W_1 .. W_D``); ``"all"``:
    ``h^1 .. h^{D+1}``.  ``c_free=False`` requires ``c = 1``.  The residual is the worst pair's
    ``min_c ||c Q_i - Q_j|| / ||Q_j||`` (kernels as bilinear forms in ``u``: equal on every pair of
    inputs).  The detail lists the pairs.
    """
    pick = {"hidden": M.hidden_layers, "all": M.all_layers,
            "with_input": lambda net: [1, *M.hidden_layers(net)],
            "with_output": lambda net: [*M.hidden_layers(net), len(net.Ws) + 1]}[layers]

    def check(rng, d):
        task, As, Bs, A0, B0 = M.platonic_pair(rng, d)
        if not minimise:
            As, Bs = [A0] * len(As), [B0] * len(Bs)
        vals, per_pair, meas, pred = [], {}, [], []
        for A, B in zip(As, Bs):
            if part == 1:
                prs = [((A, a), (A, b)) for a, b in M.pairs(pick(A), pick(A), same=True)]
                names = [f"A{a}-A{b}" for a, b in M.pairs(pick(A), pick(A), same=True)]
            elif part == 2:
                prs = [((B, a), (B, b)) for a, b in M.pairs(pick(B), pick(B), same=True)]
                names = [f"B{a}-B{b}" for a, b in M.pairs(pick(B), pick(B), same=True)]
            else:
                prs = [((A, a), (B, b)) for a, b in M.pairs(pick(A), pick(B))]
                names = [f"A{a}-B{b}" for a, b in M.pairs(pick(A), pick(B))]
            if not prs:
                raise BadClaim(f"check_theorem({part}, {layers!r}): no pair of layers to compare at depths "
                               f"{len(A.Ws)}, {len(B.Ws)} (the dims must allow one)")
            res = [_kernel_residual(x.kernel(a), y.kernel(b), c_free) for (x, a), (y, b) in prs]
            for nm, r in zip(names, res):
                per_pair.setdefault(nm, []).append(r)
            vals.append(max(res, default=0.0))
            # measured: the kernel of the second layer of each pair, predicted: that of the first (aligned: equal
            # up to c > 0, so each is taken over its own Frobenius norm; c = 1: over the pair's common magnitude)
            ms, ps = [], []
            for (x, a), (y, b) in prs:
                Qi, Qj = x.kernel(a), y.kernel(b)
                if c_free:
                    ms.append(np.ravel(Qj) / np.linalg.norm(Qj))
                    ps.append(np.ravel(Qi) / np.linalg.norm(Qi))
                else:
                    m, p = _pair_normalised(Qj, Qi)
                    ms.append(m)
                    ps.append(p)
            meas.append(np.concatenate(ms))
            pred.append(np.concatenate(ps))
        ok = [nm for nm, r in per_pair.items() if r[-1] <= M.FLOORS[-1]]
        bad = [f"{nm} ({r[-1]:.2f})" for nm, r in per_pair.items() if r[-1] > M.FLOORS[-1]]
        Qs = M.universal_kernel(task)
        univ = max((_kernel_residual(Qs, net.kernel(k)) for net in (As[-1], Bs[-1]) for k in M.hidden_layers(net)),
                   default=0.0)
        detail = (f"depths {len(As[0].Ws)},{len(Bs[0].Ws)}, widths {As[0].widths},{Bs[0].widths}; "
                  f"aligned pairs: {', '.join(ok) or 'none'}; not aligned: {', '.join(bad) or 'none'}; "
                  f"hidden kernels vs Q*: {univ:.1e}; worst pair per level {_fmt(vals)}")
        return _levels_refinement(meas, pred, detail=detail)

    return check


def check_sec3(T_kind="general"):
    """Section 3: a random T between W_{i+1} and W_i keeps the loss but breaks the alignment.

    The statement is negated ("no longer aligned"): the misalignment ``g_k`` of the transformed layer with
    net B's hidden layer at each level must not vanish; reported by :func:`_nonvanishing` against the
    floors of the S-minimisation (what an aligned pair leaves there).  ``T_kind="conformal"`` (a negative
    control) uses ``T = c O``, ``O`` orthogonal, which keeps the alignment.
    """

    def check(rng, d):
        task, As, Bs, A0, B0 = M.platonic_pair(rng, d)
        D = len(As[0].Ws)
        k = int(rng.integers(1, D))                       # dln hidden layer h^k (note's h^{k+1})
        w = As[0].widths[k]
        if T_kind == "general":
            Tm = M.invertible(rng, w, cond=10.0)
        else:
            Tm = 2.0 * sampling.orthogonal(rng, w)
        vals, dloss = [], []
        for A, B in zip(As, Bs):
            Ws = list(A.Ws)
            Ws[k] = Ws[k] @ Tm                            # W_{i+1} T
            Ws[k - 1] = np.linalg.solve(Tm, Ws[k - 1])    # T^{-1} W_i
            At = A.with_weights(Ws)
            dloss.append(abs(At.loss() - A.loss()) / A.loss())
            vals.append(_kernel_residual(At.kernel(k + 1), B.kernel(2)))
        return _nonvanishing(M.LEVELS, vals, M.FLOORS,
                             detail=f"T on h^{k + 1} of A (n={d['n']}): alignment residual with h^2 of B "
                                    f"{_fmt(vals)} (stays = not aligned); loss change {max(dloss):.1e}")

    return check
