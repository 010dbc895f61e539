"""Section 4 of the prh note: eqs. (21)-(25), the symmetry ``e^{lam T}`` and the equivariance of the gradient.

``W_i -> e^{lam T} W_i`` (21), ``W_{i+1} -> W_{i+1} e^{-lam T}`` (22) leave every per-sample loss unchanged
(23), and the gradients transform equivariantly (boxed eqs. 24 and 25).  Eq. (23)'s right-hand side, the
per-sample losses at the original weights, is eq. (16)'s (:func:`.sec3_not_platonic.eq16_rhs`).
"""

from __future__ import annotations

import functools

import numpy as np

import theorem_check as tc

from . import derivations_sympy as Y
from . import model as M
from .model import _SETUP, _TRANSFORM, _ident, _sample, _src
from .sec3_not_platonic import eq16_rhs


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


# =======================================================================================
# eqs. (21)-(25): the symmetry e^{lam T} and the equivariance of the gradient
# =======================================================================================
P23 = r"\ell(W_{i}^{\lambda},W_{i+1}^{\lambda})=\ell(W_{i},W_{i+1})"
s23 = _ident(P23, eq23_lhs, eq16_rhs, derivation=Y.eq23,
             note=r"$W_{i}^{\lambda} = e^{\lambda T} W_{i} (21)$, $W_{i+1}^{\lambda} = W_{i+1} e^{-\lambda T} (22)$; per-sample losses")
tc.register(tc.Claim(
    id="prh.eq23", title="Eqs. (21)-(22) leave every per-sample loss unchanged",
    source=_src("4", "(21)-(23)", P23), statement=s23,
    controls=(tc.perturb(s23, r"$W_{i+1} e^{+\lambda T}$", lhs=lambda v, inst, ctx: eq23_lhs(inst, ctx, sign_right=1)),),
    aliases=("eq21", "eq22"), assumptions=(*_SETUP, *_TRANSFORM),
))

P24 = r"e^{\lambda T}\nabla_{W_{i}^{\lambda}}\ell(W_{i}^{\lambda},W_{i+1}^{\lambda})=\nabla_{W_{i}}\ell(W_{i},W_{i+1})"
s24 = _ident(P24, eq24_lhs, eq24_rhs, derivation=Y.eq24, note="per-sample gradients (backpropagation)")
r24 = _ident(r"e^{\lambda T^{\top}}\nabla_{W_{i}^{\lambda}}\ell=\nabla_{W_{i}}\ell\quad(T\ \text{arbitrary})",
             functools.partial(eq24_lhs, factor="E^T"), eq24_rhs, name=r"reading: $T$ not symmetric, $e^{\lambda T^{\top}}$",
             kind="reading", sample=_sample(T_kind="general"), derivation=functools.partial(Y.eq24, general_T=True))
tc.register(tc.Claim(
    id="prh.eq24", title=r"Boxed: the $W_{i}$ gradient is equivariant under $e^{\lambda T}$",
    source=_src("4", "(24)", P24), statement=s24, variants=(r24,),
    controls=(tc.perturb(s24, r"$e^{-\lambda T}$", lhs=lambda v, inst, ctx: eq24_lhs(inst, ctx, "E^-1")),
              tc.perturb(r24, r"$T$ not symmetric, printed $e^{\lambda T}$",
                         lhs=lambda v, inst, ctx: eq24_lhs(inst, ctx, "E"))),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P25 = r"\nabla_{W_{i+1}^{\lambda}}\ell(W_{i}^{\lambda},W_{i+1}^{\lambda})e^{-\lambda T}=\nabla_{W_{i+1}}\ell(W_{i},W_{i+1})"
s25 = _ident(P25, eq25_lhs, eq25_rhs, derivation=Y.eq25, note="per-sample gradients (backpropagation)")
r25 = _ident(r"\nabla_{W_{i+1}^{\lambda}}\ell\,e^{-\lambda T^{\top}}=\nabla_{W_{i+1}}\ell\quad(T\ \text{arbitrary})",
             functools.partial(eq25_lhs, factor="E^-T"), eq25_rhs, name=r"reading: $T$ not symmetric, $e^{-\lambda T^{\top}}$",
             kind="reading", sample=_sample(T_kind="general"), derivation=functools.partial(Y.eq25, general_T=True))
tc.register(tc.Claim(
    id="prh.eq25", title=r"Boxed: the $W_{i+1}$ gradient is equivariant under $e^{-\lambda T}$",
    source=_src("4", "(25)", P25), statement=s25, variants=(r25,),
    controls=(tc.perturb(s25, r"$e^{+\lambda T}$", lhs=lambda v, inst, ctx: eq25_lhs(inst, ctx, "E")),
              tc.perturb(r25, r"$T$ not symmetric, printed $e^{-\lambda T}$",
                         lhs=lambda v, inst, ctx: eq25_lhs(inst, ctx, "E^-1"))),
    assumptions=(*_SETUP, *_TRANSFORM),
))
