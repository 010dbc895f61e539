"""Section 4 of the prh note: eqs. (26)-(31), S along ``e^{lam T}`` and gradient balance at a minimum of S.

S split into the ``W_i`` term, the ``W_{i+1}`` term and the rest (26); only the two terms change (before 26);
their form after the transformation (27); the derivative of S in lambda (28), (29); the bracket vanishes at
the minimising lambda (30); gradient balance at a minimum of S over the gauge group (boxed eq. 31).
"""

from __future__ import annotations

import functools

import numpy as np

import theorem_check as tc
from theorem_check import ShapeMismatch, dln

from . import derivations_sympy as Y
from . import model as M
from .checks import (
    _G0,
    _check_conform,
    _fmt,
    _Glam,
    _inst64,
    _levels_refinement,
    _pair_normalised,
    _scalar_levels,
    _second_moments,
    _single_net,
    _tr,
    dS_dlam,
    two_terms,
)
from .model import _SETUP, _TRANSFORM, _chk, _ident, _src


# ---------------------------------------------------------------------------------------
# eqs. (26)-(29): S and its two transformed terms
# ---------------------------------------------------------------------------------------
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
# custom checks at optima: eqs. (30), (31)
# ---------------------------------------------------------------------------------------
def _moments(net):
    G = net.grads()
    A = [np.einsum("nab,ncb->ac", g, g) / g.shape[0] for g in G]       # E[G G^T]
    B = [np.einsum("nba,nbc->ac", g, g) / g.shape[0] for g in G]       # E[G^T G]
    return G, A, B


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


# =======================================================================================
# eqs. (26)-(31)
# =======================================================================================
P26 = (r"S={\rm Tr}[\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"+{\rm Tr}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]+\text{ other terms}")
s26 = _ident(P26, eq26_lhs, eq26_rhs,
             note="as printed the second term has no expectation (a random variable, while S is a number): evaluated at "
                  "one sample (the first). A typographical slip only: with E, as in eq. (27), it holds")
v26 = _ident(P26.replace(r"{\rm Tr}[\nabla_{W_{i+1}}", r"{\rm Tr}[\mathbb{E}[\nabla_{W_{i+1}}")
             .replace(r"\ell]+\text{ other", r"\ell]]+\text{ other"), eq26_lhs,
             functools.partial(eq26_rhs, with_E=True), name="corrected: E in the second term (typographical slip; eq. 27 has it)", kind="corrected",
             derivation=Y.eq26)
tc.register(tc.Claim(
    id="prh.eq26", title="$S$ split into the $W_{i}$ term, the $W_{i+1}$ term and the rest",
    source=_src("4", "(26)", P26), statement=s26, variants=(v26,),
    controls=(tc.perturb(v26, "factor 2 on the two terms",
                         rhs=lambda v, inst, ctx: eq26_rhs(inst, ctx, with_E=True, factor=2)),),
    assumptions=_SETUP,
))

P26o = r"\text{the transformation only affects the part of } S \text{ due to } \nabla_{W_i}\ell,\ \nabla_{W_{i+1}}\ell"
s26o = _ident(r"\mathbb{E}\|\nabla_{W_{k}^{\lambda}}\ell\|^2=\mathbb{E}\|\nabla_{W_{k}}\ell\|^2\quad(k\ne i,i+1)",
              eq26_other_lhs, eq26_other_rhs, derivation=Y.eq26_other,
              note="for D = 2 there are no other terms (both sides empty)")
tc.register(tc.Claim(
    id="prh.eq26_other", title="Eqs. (21)-(22) change only the $W_{i}$ and $W_{i+1}$ terms of $S$",
    source=_src("4", "before (26)", P26o), statement=s26o,
    controls=(tc.perturb(s26o, "$W_{i}$ term unchanged too",
                         lhs=lambda v, inst, ctx: eq26_other_lhs(inst, ctx, skip=(1,)),
                         rhs=lambda v, inst, ctx: eq26_other_rhs(inst, ctx, skip=(1,))),),
    aliases=("other_terms",), assumptions=(*_SETUP, *_TRANSFORM),
))

P27 = (r"{\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"+{\rm Tr}[e^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]]")
s27 = _ident(r"\mathbb{E}\|\nabla_{W_i^\lambda}\ell\|^2+\mathbb{E}\|\nabla_{W_{i+1}^\lambda}\ell\|^2=" + P27,
             two_terms, functools.partial(eq27_rhs, form="printed"),
             note=r"$e^{2 \lambda T}$ is $d_{i+1} \times d_{i+1}$; the printed $\mathbb{E}[\nabla \nabla^{\top}]$ of $W_{i+1}$ is $d_{i+2} \times d_{i+2}$")
v27 = _ident(r"\mathbb{E}\|\nabla_{W_i^\lambda}\ell\|^2+\mathbb{E}\|\nabla_{W_{i+1}^\lambda}\ell\|^2={\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
             r"+{\rm Tr}[e^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]]",
             two_terms, functools.partial(eq27_rhs, form="corrected"), name=r"corrected: $\nabla^{\top} \nabla$",
             kind="corrected", derivation=Y.eq27)
tc.register(tc.Claim(
    id="prh.eq27", title="The two affected terms of S after the transformation",
    source=_src("4", "(27)", P27), statement=s27, variants=(v27,),
    controls=(tc.perturb(v27, r"$\lambda \to -\lambda$",
                         rhs=lambda v, inst, ctx: eq27_rhs(inst, ctx, "corrected", lam=-inst.lam)),),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P28 = (r"\frac{d}{d\lambda}S\propto{\rm Tr}[-Te^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"+{\rm Tr}[Te^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]]")
s28 = _ident(P28, eq28_printed_lhs, eq28_printed_rhs,
             note="proportionality with an unknown constant: "
                  r"$\mathrm{d}S/\mathrm{d}\lambda(\lambda_{1}) P(\lambda_{2}) = \mathrm{d}S/\mathrm{d}\lambda(\lambda_{2}) P(\lambda_{1})$; $\mathrm{d}S/\mathrm{d}\lambda$ by the complex step of $S$ (definition)")
v28 = _ident(r"\frac{d}{d\lambda}S=2\left({\rm Tr}[-Te^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
             r"+{\rm Tr}[Te^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]]\right)",
             eq28_lhs, eq28_rhs, name=r"corrected: $\nabla^{\top} \nabla$, constant 2", kind="corrected", derivation=Y.eq28)
tc.register(tc.Claim(
    id="prh.eq28", title=r"Derivative of $S$ along $e^{\lambda T}$",
    source=_src("4", "(28)", P28), statement=s28, variants=(v28,),
    controls=(tc.perturb(v28, "constant 1 instead of 2", rhs=lambda v, inst, ctx: eq28_rhs(inst, ctx, factor=1)),
              tc.negate(v28)),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P29 = (r"{\rm Tr}[-T\mathbb{E}[\nabla_{W_{i}^{\lambda}}\ell\nabla_{W_{i}^{\lambda}}^{\top}\ell]]"
       r"+{\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda}}\ell\nabla_{W_{i+1}^{\lambda}}^{\top}\ell]]")
s29 = _ident(r"(28)=" + P29, functools.partial(bracket28, form="printed"),
             functools.partial(bracket29, form="printed"))
v29 = _ident(r"(28)={\rm Tr}[-T\mathbb{E}[\nabla_{W_{i}^{\lambda}}\ell\nabla_{W_{i}^{\lambda}}^{\top}\ell]]"
             r"+{\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda}}^{\top}\ell\nabla_{W_{i+1}^{\lambda}}\ell]]",
             functools.partial(bracket28, form="corrected"), functools.partial(bracket29, form="corrected"),
             name=r"corrected: $\nabla^{\top} \nabla$", kind="corrected", derivation=Y.eq29)
tc.register(tc.Claim(
    id="prh.eq29", title="The derivative in terms of the transformed gradients",
    source=_src("4", "(29)", P29), statement=s29, variants=(v29,),
    controls=(tc.negate(v29),),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P30 = P29 + "=0"
s30 = _chk(P30 + r"\quad(\lambda=\lambda^*)", check_eq30("printed"), dims=M.edln_dims())
v30 = _chk(r"{\rm Tr}[-T\mathbb{E}[\nabla_{W_{i}^{\lambda^*}}\ell\nabla_{W_{i}^{\lambda^*}}^{\top}\ell]]"
           r"+{\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda^*}}^{\top}\ell\nabla_{W_{i+1}^{\lambda^*}}\ell]]=0",
           check_eq30("corrected"), name=r"corrected: $\nabla^{\top} \nabla$", kind="corrected", dims=M.edln_dims(),
           note=r"$\lambda^*$ minimises $S(\lambda)$ (SciPy Brent, then brentq on $\mathrm{d}S/\mathrm{d}\lambda$)")
tc.register(tc.Claim(
    id="prh.eq30", title=r"The bracket vanishes at the minimising $\lambda$",
    source=_src("4", "(30)", P30), statement=s30, variants=(v30,),
    controls=(tc.perturb(v30, "sign of the first term",                      # Tr[T B] = -Tr[T A]
                         predicted=lambda p: -p, latex=P30 + r"\ \text{[sign of the first term flipped]}"),),
    assumptions=(*_SETUP, *_TRANSFORM, "arbitrary weights (not a minimum of S)"),
))

P31 = (r"{\rm Tr}[T\mathbb{E}[\nabla_{W_{i}^{\lambda}}\ell\nabla_{W_{i}^{\lambda}}^{\top}\ell]]"
       r"={\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda}}\ell\nabla_{W_{i+1}^{\lambda}}^{\top}\ell]]")
one_dims = M.single_dims()
s31 = _chk(P31, check_eq31("printed"), dims=one_dims,
           note="at an S-minimiser over the gauge group (all symmetric T at once)")
v31 = _chk(r"\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]=\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]"
           r"\ \Leftrightarrow\ {\rm Tr}[T\,\cdot]\ \text{equal}\ \forall T=T^{\top}", check_eq31("corrected"),
           name=r"corrected: $\nabla^{\top} \nabla$", kind="corrected", dims=one_dims, derivation=Y.eq31)
tc.register(tc.Claim(
    id="prh.eq31", title="Boxed: gradient balance at a minimum of S",
    source=_src("4", "(31)", P31), statement=s31, variants=(v31,),
    controls=(tc.double(v31),
              _chk(P31, check_eq31("corrected", minimise=False), name="control: generic global minimum",
                   kind="control", dims=one_dims)),
    assumptions=(*_SETUP, r"global minimum of the loss, $S$ minimised over $W_{k} \to G_{k} W_{k} G_{k-1}^{-1}$; "
                          r"$n_{\mathrm{in}} = n_{\mathrm{out}} = \operatorname{rank} V^* = n$; hidden widths $n$ + (0..2), all different"),
))
