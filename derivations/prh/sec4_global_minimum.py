"""Section 4 of the prh note (the proof), its first step: the global minima, eqs. (19)-(20) and achievability.

Eq. (20): the end-to-end matrix ``W_D .. W_1`` at a global minimum of the empirical loss (the order of the
inverses); achievability: every hidden width ``>= rank V*`` suffices to reach the noise floor.
"""

from __future__ import annotations

import functools

import numpy as np

import theorem_check as tc
from theorem_check import sampling

from . import derivations_sympy as Y
from . import model as M
from .model import _SETUP, _ident, _src


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


# =======================================================================================
# eq. (20) and achievability
# =======================================================================================
P20 = r"W_{D}\cdots W_{1}=(M^{O})^{-1}V^{*}(M^{I})^{-1}Z_{A}^{-1}"
io_dims = tc.DimSpace({"D": (2, 2), "d0": (2, 3), "d1": (1, 1), "d2": (1, 3), "i": (1, 1)})
io_dims_all = tc.DimSpace({"D": (2, 2), "d0": (1, 3), "d1": (1, 1), "d2": (1, 3), "i": (1, 1)})
s20 = _ident(P20, eq20_lhs, functools.partial(eq20_rhs, order="printed"), dims=io_dims,
             derivation=Y.eq20_printed,
             note="lhs: the minimiser of the empirical loss over the end-to-end matrix (normal equations from "
                  r"the data); $n_{\mathrm{in}} \ge 2$ (for $n_{\mathrm{in}} = 1$ the inverses commute). Rests on part "
                  r"1's setup as restated in issue 2: the network $f(x) = M^{O} W_{D}\dots W_{1} M^{I} x$ sees $x = Z u$, so $M^{I}$ acts after $Z$")
v20 = _ident(r"W_{D}\cdots W_{1}=(M^{O})^{-1}V^{*}Z_{A}^{-1}(M^{I})^{-1}", eq20_lhs,
             functools.partial(eq20_rhs, order="corrected"), name="corrected: $Z^{-1} (M^{I})^{-1}$",
             kind="corrected", dims=io_dims_all, derivation=Y.eq20_corrected)
tc.register(tc.Claim(
    id="prh.eq20", title="The end-to-end matrix at a global minimum (order of the inverses)",
    source=_src("4", "(19)-(20)", P20), statement=s20, variants=(v20,),
    controls=(tc.perturb(v20, r"$(M^{I})^{-\top}$", rhs=lambda v, inst, ctx: eq20_rhs(inst, ctx, "MI^-T")),
              tc.double(v20)),
    aliases=("eq19", "global_min_product"), assumptions=(*_SETUP, r"$\mathbb{E}[u u^{\top}] > 0$ ($N_{u} > n_{\mathrm{in}}$ samples)"),
))

Pach = r"\text{achievable as long as the model's width is larger than }\operatorname{rank}(V^{*})"


def _ach_dims():
    def where(d):
        D = d["D"]
        hidden = [d[f"d{k}"] for k in range(1, D)]
        return (d["r"] <= min(d["d0"], d[f"d{D}"]) and all(w >= d["r"] for w in hidden)
                and len(set(hidden)) == len(hidden))

    def normalize(d):
        for k in range(d["D"] + 1, M.DMAX + 1):
            d[f"d{k}"] = 1
        d["i"] = 1
        return d

    return tc.DimSpace({"D": (2, 4), "r": (1, 3), "d0": (1, 3), "d1": (1, 4), "d2": (1, 4), "d3": (1, 4),
                        "d4": (1, 3), "i": (1, 1)}, where=where, normalize=normalize)


sach = _ident(r"\min_\theta \mathbb{E}\,\ell=\mathbb{E}\|\epsilon\|^2\ \text{when every hidden width}\ \ge\operatorname{rank}V^*",
              achievable_lhs, achievable_rhs, dims=_ach_dims(), sample=sample_achievable,
              derivation=Y.achievable,
              note="an explicit factorisation through an r = rank V* bottleneck reaches the noise floor "
                   "(the printed 'larger than' is sufficient; 'no smaller than', as in Theorem 1, suffices)")
tc.register(tc.Claim(
    id="prh.achievable", title=r"The global minimum is reachable when the widths are ≥ $\operatorname{rank} V^*$",
    source=_src("4", "before (19)", Pach), statement=sach,
    controls=(tc.perturb(sach, "bottleneck rank V* - 1", lhs=lambda v, inst, ctx: achievable_lhs(inst, ctx, 1)),),
    assumptions=_SETUP,
))
