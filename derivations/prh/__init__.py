"""Claims of the prh note: "Proof of a perfect platonic representation hypothesis", part 2.

Embedded deep linear networks ``f(x) = M^O W_D ... W_1 M^I x`` with inputs ``x = Z u``, targets
``y = V* u + eps`` and per-sample loss ``l = ||f(x) - y||^2``; the "entropy" ``S = sum_i
E||grad_{W_i} l||^2`` (eq. 14); Theorem 1 (perfect Platonic representations); Section 3 (most
global minima are not Platonic); the proof of Section 4 (eqs. 19-36, footnote 14).

Every claim is checked from definitions: the data are a finite product set (exact
expectations, ``u`` independent of ``eps``), gradients come from backpropagation
(:mod:`theorem_check.dln`) or, for eq. (14), from exact central differences; the printed right-hand
sides are evaluated as printed.  Where a printed statement fails, the corrected form derived in
``docs/papers/prh.md`` is checked next to it.  Model, samplers and the minimisation of S over the
gauge group live in :mod:`derivations.prh.model`; numeric stages in :mod:`derivations.prh.checks`;
SymPy derivations in :mod:`derivations.prh.derivations_sympy`.
"""

from __future__ import annotations

import functools

import numpy as np

import theorem_check as tc

from . import checks as C
from . import model as M
from . import derivations_sympy as Y

PAPER = "prh"
_SETUP = (
    r"$f(x) = M^{O} W_{D} \dots W_{1} M^{I} x$, $W_{i}$ of shape $d_{i+1} \times d_{i}$; $M^{O}$, $M^{I}$, $Z$ invertible (cond 10)",
    r"$x = Z u$, $y = V^* u + \varepsilon$; $u$ and $\varepsilon$ range over finite sets, the data "
    r"set is their product with uniform weights (exact expectations, $\varepsilon$ centred and independent of $u$)",
    r"$l = \lVert f(x) - y\rVert ^{2}$ per sample; $h^{1} = M^{I} x$, $h^{i+1} = W_{i} h^{i}$ ($h^{i}$ is the input of $W_{i}$, as eq. 14 implies)",
)
_TRANSFORM = (r"$T$ symmetric with spectral norm 1, $\lambda$ uniform in [-1, 1]; layer $i$ in 1..$D-1$",)


def _src(section, equation, printed):
    return tc.Source(PAPER, section, equation, printed)


def _sample(**kw):
    return functools.partial(_sample_impl, **kw)


def _sample_impl(rng, d, batch, **kw):
    inst = M.sample_edln(rng, d, batch, **kw)
    inst["lam2"] = rng.uniform(-1.0, 1.0, size=batch)
    return inst


def _ident(latex, lhs=None, rhs=None, *, name="as printed", kind="printed", dims=None, sample=None, derivation=None,
           scale=None, cond=100.0, note="", contexts=("float32", "float64", "mp50")):
    return tc.Statement(latex, name=name, kind=kind, dims=dims or M.edln_dims(), sample=sample or _sample(),
                        lhs=lhs, rhs=rhs, derivation=derivation, scale=scale, cond=cond, note=note,
                        contexts=contexts)


def _chk(latex, check, *, name="as printed", kind="printed", dims, derivation=None, note=""):
    return tc.Statement(latex, name=name, kind=kind, dims=dims, check=check, derivation=derivation, note=note)


# =======================================================================================
# eq. (14)
# =======================================================================================
P14 = (r"S=\sum_{i}\mathbb{E}\|\nabla_{W_{i}}\ell\|^{2}"
       r"=\sum_{i}\mathbb{E}[{\|\nabla_{h^{i+1}}\ell\|^{2}}{\|h^{i}\|^{2}}]")
s14 = _ident(P14, C.eq14_lhs, C.eq14_rhs, derivation=Y.eq14, dims=M.edln_dims(width=(1, 4), io=(1, 2)),
             sample=_sample(n_u=2, n_eps=2),
             note="checked layer by layer (a stronger statement than the sum); gradients by exact central "
                  "differences of the quadratic l, independent of backpropagation")
tc.register(tc.Claim(
    id="prh.eq14", title="The entropy S couples representation gradients and representations",
    source=_src("2", "(14)", P14), statement=s14,
    controls=(tc.perturb(s14, r"index shift $\nabla_{h^{i}}$", rhs=lambda v, inst, ctx: C.eq14_rhs(inst, ctx, shift=-1)),
              tc.double(s14)),
    aliases=("entropy_S",), assumptions=_SETUP,
))

# =======================================================================================
# Section 3: eqs. (16)-(18) and "most global minima are not Platonic"
# =======================================================================================
P16 = r"(W_{D}^{*},...,W_{i+1}^{*}T,T^{-1}W_{i}^{*},...,W_{1}^{*})\ \text{is also a global minimum}"
s16 = _ident(r"\ell(\ldots,W_{i+1}T,T^{-1}W_{i},\ldots)=\ell(\ldots,W_{i+1},W_{i},\ldots)\ \forall x,\ T\in GL",
             C.eq16_lhs, C.eq16_rhs, derivation=Y.eq16, sample=_sample(T_kind="invertible"),
             note="per-sample losses at arbitrary weights: the loss is invariant, so global minima map to global minima")
tc.register(tc.Claim(
    id="prh.eq16", title=r"$W_{i+1} \to W_{i+1} T$, $W_{i} \to T^{-1} W_{i}$ leaves the loss unchanged",
    source=_src("3", "(16)", P16), statement=s16,
    controls=(tc.perturb(s16, "$T W_{i}$ instead of $T^{-1} W_{i}$", rhs=None,
                         lhs=lambda v, inst, ctx: C.eq16_lhs(inst, ctx, right="T")),
              tc.perturb(s16, r"$W_{i+1} T^{\top}$", lhs=lambda v, inst, ctx: C.eq16_lhs(inst, ctx, left="TT"))),
    assumptions=(*_SETUP, "T invertible, condition number 10"),
))

P17 = r"h_{A}^{\top}(x_{1}^{A})h_{A}(x_{2}^{A})=h_{B}^{\top}(x_{1}^{B})h_{B}(x_{2}^{B})"
PAIR_DIMS = M.pair_dims()
s17 = _chk(r"\exists c>0:\ c\,h_{A}^{\top}(x_{1}^{A})h_{A}(x_{2}^{A})=h_{B}^{\top}(x_{1}^{B})h_{B}(x_{2}^{B})",
           C.check_theorem(3), dims=M.pair_dims(n=(2, 3)),
           note=r"eq. (17) restates the definition of perfect alignment (part 1, issue 2: $c h_{A}^{\top} h_{A} = h_{B}^{\top} h_{B}$) "
                "with its constant $c$ left implicit; checked at $S$-minimisers (Platonic solutions) of two networks, "
                "hidden layers, $x^{A} = Z_{A} u$, $x^{B} = Z_{B} u$")
r17 = _chk(P17 + r"\quad(c=1)", C.check_theorem(3, c_free=False), name="reading: literally c = 1",
           kind="reading", dims=PAIR_DIMS,
           note=r"the kernels at Platonic solutions are $2 \sqrt{\kappa} Q^*$ with a layer- and network-dependent "
                r"$\kappa$, so $c = 1$ fails; the definition has the constant $c$, so this reading is not the note's")
tc.register(tc.Claim(
    id="prh.eq17", title="Perfect alignment (eq. 17 restates the definition; its constant c is implicit)",
    source=_src("3", "(17)", P17), statement=s17, variants=(r17,),
    controls=(_chk(P17 + r"\ \text{[before minimising S]}", C.check_theorem(3, minimise=False),
                   name="control: generic global minima (S not minimised)", kind="control", dims=s17.dims),),
    assumptions=(*_SETUP, r"both networks at an $S$-minimiser over their gauge group; $n_{\mathrm{in}} = n_{\mathrm{out}} = \operatorname{rank} V^* = n$"),
))

P18 = r"h_{A}^{\top}(x_{1})(T^{-1})^{\top}T^{-1}h_{A}(x_{2})"
s18 = _ident(r"h^{i+1}_{T}(x_1)^{\top}h^{i+1}_{T}(x_2)=h^{i+1}(x_{1})^{\top}(T^{-1})^{\top}T^{-1}h^{i+1}(x_{2})",
             C.eq18_lhs, C.eq18_rhs, derivation=Y.eq18, sample=_sample(T_kind="invertible"),
             note="Gram matrix over all pairs of inputs of the data set")
tc.register(tc.Claim(
    id="prh.eq18", title=r"After $T$ the kernel of $h^{i+1}$ becomes $h^{\top} T^{-\top} T^{-1} h$",
    source=_src("3", "(18)", P18), statement=s18,
    controls=(tc.perturb(s18, r"$T^{-1} T^{-\top}$ (swapped)", rhs=lambda v, inst, ctx: C.eq18_rhs(inst, ctx, "Tinv TinvT")),
              tc.perturb(s18, "kernel unchanged", rhs=lambda v, inst, ctx: C.eq18_rhs(inst, ctx, "I"))),
    assumptions=(*_SETUP, "T invertible, condition number 10"),
))

P3 = (r"\text{For a general } T,\ h_A^{\top}(x_1)(T^{-1})^{\top}T^{-1}h_A(x_2)\ \text{and}\ "
      r"h_B^{\top}(x_1)h_B(x_2)\ \text{can no longer be perfectly aligned}")
s3 = _chk(P3 + r"\quad(\operatorname{rank}V^*\ge 2)", C.check_sec3(), dims=M.pair_dims(n=(2, 3)),
          note="$T$ random invertible (cond 10); alignment iff $T^{-1}$ is a scaled isometry on the representation's "
               r"span. $\operatorname{rank} V^* \ge 2$: with rank one every kernel $u_{1}^{\top} Q u_{2}$ is a "
               r"multiple of one $\operatorname{rank}$-one form and 'perfectly aligned' is vacuous, so the argument is about the non-degenerate case")
r3 = _chk(P3 + r"\quad(\text{also }n_{in}=n_{out}=\operatorname{rank}V^*=1)", C.check_sec3(),
          name="reading: also the degenerate task rank V* = 1", kind="reading", dims=M.pair_dims(n=(1, 1)),
          note="scalar inputs: every kernel is 1 x 1, every T keeps the alignment (as do all global minima)")
tc.register(tc.Claim(
    id="prh.sec3", title="Most global minima are not Platonic (Section 3)",
    source=_src("3", "Section 3", P3), statement=s3, variants=(r3,),
    controls=(_chk(P3 + r"\ \text{[T conformal]}", C.check_sec3("conformal"), name="control: T = 2 O (conformal)",
                   kind="control", dims=M.pair_dims(n=(2, 3))),),
    aliases=("not_platonic",),
    assumptions=(*_SETUP, "start: both networks at S-minimisers (Platonic); T acts on a hidden layer of A"),
))

# =======================================================================================
# eq. (20) and achievability
# =======================================================================================
P20 = r"W_{D}\cdots W_{1}=(M^{O})^{-1}V^{*}(M^{I})^{-1}Z_{A}^{-1}"
io_dims = tc.DimSpace({"D": (2, 2), "d0": (2, 3), "d1": (1, 1), "d2": (1, 3), "i": (1, 1)})
io_dims_all = tc.DimSpace({"D": (2, 2), "d0": (1, 3), "d1": (1, 1), "d2": (1, 3), "i": (1, 1)})
s20 = _ident(P20, C.eq20_lhs, functools.partial(C.eq20_rhs, order="printed"), dims=io_dims,
             derivation=Y.eq20_printed,
             note="lhs: the minimiser of the empirical loss over the end-to-end matrix (normal equations from "
                  r"the data); $n_{\mathrm{in}} \ge 2$ (for $n_{\mathrm{in}} = 1$ the inverses commute). Rests on part "
                  r"1's setup as restated in issue 2: the network $f(x) = M^{O} W_{D}\dots W_{1} M^{I} x$ sees $x = Z u$, so $M^{I}$ acts after $Z$")
v20 = _ident(r"W_{D}\cdots W_{1}=(M^{O})^{-1}V^{*}Z_{A}^{-1}(M^{I})^{-1}", C.eq20_lhs,
             functools.partial(C.eq20_rhs, order="corrected"), name="corrected: $Z^{-1} (M^{I})^{-1}$",
             kind="corrected", dims=io_dims_all, derivation=Y.eq20_corrected)
tc.register(tc.Claim(
    id="prh.eq20", title="The end-to-end matrix at a global minimum (order of the inverses)",
    source=_src("4", "(19)-(20)", P20), statement=s20, variants=(v20,),
    controls=(tc.perturb(v20, r"$(M^{I})^{-\top}$", rhs=lambda v, inst, ctx: C.eq20_rhs(inst, ctx, "MI^-T")),
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
              C.achievable_lhs, C.achievable_rhs, dims=_ach_dims(), sample=C.sample_achievable,
              derivation=Y.achievable,
              note="an explicit factorisation through an r = rank V* bottleneck reaches the noise floor "
                   "(the printed 'larger than' is sufficient; 'no smaller than', as in Theorem 1, suffices)")
tc.register(tc.Claim(
    id="prh.achievable", title=r"The global minimum is reachable when the widths are ≥ $\operatorname{rank} V^*$",
    source=_src("4", "before (19)", Pach), statement=sach,
    controls=(tc.perturb(sach, "bottleneck rank V* - 1", lhs=lambda v, inst, ctx: C.achievable_lhs(inst, ctx, 1)),),
    assumptions=_SETUP,
))

# =======================================================================================
# eqs. (21)-(25): the symmetry e^{lam T} and the equivariance of the gradient
# =======================================================================================
P23 = r"\ell(W_{i}^{\lambda},W_{i+1}^{\lambda})=\ell(W_{i},W_{i+1})"
s23 = _ident(P23, C.eq23_lhs, C.eq16_rhs, derivation=Y.eq23,
             note=r"$W_{i}^{\lambda} = e^{\lambda T} W_{i} (21)$, $W_{i+1}^{\lambda} = W_{i+1} e^{-\lambda T} (22)$; per-sample losses")
tc.register(tc.Claim(
    id="prh.eq23", title="Eqs. (21)-(22) leave every per-sample loss unchanged",
    source=_src("4", "(21)-(23)", P23), statement=s23,
    controls=(tc.perturb(s23, r"$W_{i+1} e^{+\lambda T}$", lhs=lambda v, inst, ctx: C.eq23_lhs(inst, ctx, sign_right=1)),),
    aliases=("eq21", "eq22"), assumptions=(*_SETUP, *_TRANSFORM),
))

P24 = r"e^{\lambda T}\nabla_{W_{i}^{\lambda}}\ell(W_{i}^{\lambda},W_{i+1}^{\lambda})=\nabla_{W_{i}}\ell(W_{i},W_{i+1})"
s24 = _ident(P24, C.eq24_lhs, C.eq24_rhs, derivation=Y.eq24, note="per-sample gradients (backpropagation)")
r24 = _ident(r"e^{\lambda T^{\top}}\nabla_{W_{i}^{\lambda}}\ell=\nabla_{W_{i}}\ell\quad(T\ \text{arbitrary})",
             functools.partial(C.eq24_lhs, factor="E^T"), C.eq24_rhs, name=r"reading: $T$ not symmetric, $e^{\lambda T^{\top}}$",
             kind="reading", sample=_sample(T_kind="general"), derivation=functools.partial(Y.eq24, general_T=True))
tc.register(tc.Claim(
    id="prh.eq24", title=r"Boxed: the $W_{i}$ gradient is equivariant under $e^{\lambda T}$",
    source=_src("4", "(24)", P24), statement=s24, variants=(r24,),
    controls=(tc.perturb(s24, r"$e^{-\lambda T}$", lhs=lambda v, inst, ctx: C.eq24_lhs(inst, ctx, "E^-1")),
              tc.perturb(r24, r"$T$ not symmetric, printed $e^{\lambda T}$",
                         lhs=lambda v, inst, ctx: C.eq24_lhs(inst, ctx, "E"))),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P25 = r"\nabla_{W_{i+1}^{\lambda}}\ell(W_{i}^{\lambda},W_{i+1}^{\lambda})e^{-\lambda T}=\nabla_{W_{i+1}}\ell(W_{i},W_{i+1})"
s25 = _ident(P25, C.eq25_lhs, C.eq25_rhs, derivation=Y.eq25, note="per-sample gradients (backpropagation)")
r25 = _ident(r"\nabla_{W_{i+1}^{\lambda}}\ell\,e^{-\lambda T^{\top}}=\nabla_{W_{i+1}}\ell\quad(T\ \text{arbitrary})",
             functools.partial(C.eq25_lhs, factor="E^-T"), C.eq25_rhs, name=r"reading: $T$ not symmetric, $e^{-\lambda T^{\top}}$",
             kind="reading", sample=_sample(T_kind="general"), derivation=functools.partial(Y.eq25, general_T=True))
tc.register(tc.Claim(
    id="prh.eq25", title=r"Boxed: the $W_{i+1}$ gradient is equivariant under $e^{-\lambda T}$",
    source=_src("4", "(25)", P25), statement=s25, variants=(r25,),
    controls=(tc.perturb(s25, r"$e^{+\lambda T}$", lhs=lambda v, inst, ctx: C.eq25_lhs(inst, ctx, "E")),
              tc.perturb(r25, r"$T$ not symmetric, printed $e^{-\lambda T}$",
                         lhs=lambda v, inst, ctx: C.eq25_lhs(inst, ctx, "E^-1"))),
    assumptions=(*_SETUP, *_TRANSFORM),
))

# =======================================================================================
# eqs. (26)-(31)
# =======================================================================================
P26 = (r"S={\rm Tr}[\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"+{\rm Tr}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]+\text{ other terms}")
s26 = _ident(P26, C.eq26_lhs, C.eq26_rhs,
             note="as printed the second term has no expectation (a random variable, while S is a number): evaluated at "
                  "one sample (the first). A typographical slip only: with E, as in eq. (27), it holds")
v26 = _ident(P26.replace(r"{\rm Tr}[\nabla_{W_{i+1}}", r"{\rm Tr}[\mathbb{E}[\nabla_{W_{i+1}}")
             .replace(r"\ell]+\text{ other", r"\ell]]+\text{ other"), C.eq26_lhs,
             functools.partial(C.eq26_rhs, with_E=True), name="corrected: E in the second term (typographical slip; eq. 27 has it)", kind="corrected",
             derivation=Y.eq26)
tc.register(tc.Claim(
    id="prh.eq26", title="$S$ split into the $W_{i}$ term, the $W_{i+1}$ term and the rest",
    source=_src("4", "(26)", P26), statement=s26, variants=(v26,),
    controls=(tc.perturb(v26, "factor 2 on the two terms",
                         rhs=lambda v, inst, ctx: C.eq26_rhs(inst, ctx, with_E=True, factor=2)),),
    assumptions=_SETUP,
))

P26o = r"\text{the transformation only affects the part of } S \text{ due to } \nabla_{W_i}\ell,\ \nabla_{W_{i+1}}\ell"
s26o = _ident(r"\mathbb{E}\|\nabla_{W_{k}^{\lambda}}\ell\|^2=\mathbb{E}\|\nabla_{W_{k}}\ell\|^2\quad(k\ne i,i+1)",
              C.eq26_other_lhs, C.eq26_other_rhs, derivation=Y.eq26_other,
              note="for D = 2 there are no other terms (both sides empty)")
tc.register(tc.Claim(
    id="prh.eq26_other", title="Eqs. (21)-(22) change only the $W_{i}$ and $W_{i+1}$ terms of $S$",
    source=_src("4", "before (26)", P26o), statement=s26o,
    controls=(tc.perturb(s26o, "$W_{i}$ term unchanged too",
                         lhs=lambda v, inst, ctx: C.eq26_other_lhs(inst, ctx, skip=(1,)),
                         rhs=lambda v, inst, ctx: C.eq26_other_rhs(inst, ctx, skip=(1,))),),
    aliases=("other_terms",), assumptions=(*_SETUP, *_TRANSFORM),
))

P27 = (r"{\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"+{\rm Tr}[e^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]]")
s27 = _ident(r"\mathbb{E}\|\nabla_{W_i^\lambda}\ell\|^2+\mathbb{E}\|\nabla_{W_{i+1}^\lambda}\ell\|^2=" + P27,
             C.two_terms, functools.partial(C.eq27_rhs, form="printed"),
             note=r"$e^{2 \lambda T}$ is $d_{i+1} \times d_{i+1}$; the printed $\mathbb{E}[\nabla \nabla^{\top}]$ of $W_{i+1}$ is $d_{i+2} \times d_{i+2}$")
v27 = _ident(r"\ldots={\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
             r"+{\rm Tr}[e^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]]",
             C.two_terms, functools.partial(C.eq27_rhs, form="corrected"), name=r"corrected: $\nabla^{\top} \nabla$",
             kind="corrected", derivation=Y.eq27)
tc.register(tc.Claim(
    id="prh.eq27", title="The two affected terms of S after the transformation",
    source=_src("4", "(27)", P27), statement=s27, variants=(v27,),
    controls=(tc.perturb(v27, r"$\lambda \to -\lambda$",
                         rhs=lambda v, inst, ctx: C.eq27_rhs(inst, ctx, "corrected", lam=-inst.lam)),),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P28 = (r"\frac{d}{d\lambda}S\propto{\rm Tr}[-Te^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"+{\rm Tr}[Te^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]]")
s28 = _ident(P28, C.eq28_printed_lhs, C.eq28_printed_rhs,
             note="proportionality with an unknown constant: "
                  r"$\mathrm{d}S/\mathrm{d}\lambda(\lambda_{1}) P(\lambda_{2}) = \mathrm{d}S/\mathrm{d}\lambda(\lambda_{2}) P(\lambda_{1})$; $\mathrm{d}S/\mathrm{d}\lambda$ by the complex step of $S$ (definition)")
v28 = _ident(r"\frac{d}{d\lambda}S=2\left({\rm Tr}[-Te^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
             r"+{\rm Tr}[Te^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]]\right)",
             C.eq28_lhs, C.eq28_rhs, name=r"corrected: $\nabla^{\top} \nabla$, constant 2", kind="corrected", derivation=Y.eq28)
tc.register(tc.Claim(
    id="prh.eq28", title=r"Derivative of $S$ along $e^{\lambda T}$",
    source=_src("4", "(28)", P28), statement=s28, variants=(v28,),
    controls=(tc.perturb(v28, "constant 1 instead of 2", rhs=lambda v, inst, ctx: C.eq28_rhs(inst, ctx, factor=1)),
              tc.negate(v28)),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P29 = (r"{\rm Tr}[-T\mathbb{E}[\nabla_{W_{i}^{\lambda}}\ell\nabla_{W_{i}^{\lambda}}^{\top}\ell]]"
       r"+{\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda}}\ell\nabla_{W_{i+1}^{\lambda}}^{\top}\ell]]")
s29 = _ident(r"(28)=" + P29, functools.partial(C.bracket28, form="printed"),
             functools.partial(C.bracket29, form="printed"))
v29 = _ident(r"(28)={\rm Tr}[-T\mathbb{E}[\nabla_{W_{i}^{\lambda}}\ell\nabla_{W_{i}^{\lambda}}^{\top}\ell]]"
             r"+{\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda}}^{\top}\ell\nabla_{W_{i+1}^{\lambda}}\ell]]",
             functools.partial(C.bracket28, form="corrected"), functools.partial(C.bracket29, form="corrected"),
             name=r"corrected: $\nabla^{\top} \nabla$", kind="corrected", derivation=Y.eq29)
tc.register(tc.Claim(
    id="prh.eq29", title="The derivative in terms of the transformed gradients",
    source=_src("4", "(29)", P29), statement=s29, variants=(v29,),
    controls=(tc.negate(v29),),
    assumptions=(*_SETUP, *_TRANSFORM),
))

P30 = P29 + "=0"
s30 = _chk(P30 + r"\quad(\lambda=\lambda^*)", C.check_eq30("printed"), dims=M.edln_dims())
v30 = _chk(r"{\rm Tr}[-T\mathbb{E}[\nabla_{W_{i}^{\lambda^*}}\ell\nabla_{W_{i}^{\lambda^*}}^{\top}\ell]]"
           r"+{\rm Tr}[T\mathbb{E}[\nabla_{W_{i+1}^{\lambda^*}}^{\top}\ell\nabla_{W_{i+1}^{\lambda^*}}\ell]]=0",
           C.check_eq30("corrected"), name=r"corrected: $\nabla^{\top} \nabla$", kind="corrected", dims=M.edln_dims(),
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
one_dims = C.single_dims()
s31 = _chk(P31, C.check_eq31("printed"), dims=one_dims,
           note="at an S-minimiser over the gauge group (all symmetric T at once)")
v31 = _chk(r"\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]=\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]"
           r"\ \Leftrightarrow\ {\rm Tr}[T\,\cdot]\ \text{equal}\ \forall T=T^{\top}", C.check_eq31("corrected"),
           name=r"corrected: $\nabla^{\top} \nabla$", kind="corrected", dims=one_dims, derivation=Y.eq31)
tc.register(tc.Claim(
    id="prh.eq31", title="Boxed: gradient balance at a minimum of S",
    source=_src("4", "(31)", P31), statement=s31, variants=(v31,),
    controls=(tc.double(v31),
              _chk(P31, C.check_eq31("corrected", minimise=False), name="control: generic global minimum",
                   kind="control", dims=one_dims)),
    assumptions=(*_SETUP, r"global minimum of the loss, $S$ minimised over $W_{k} \to G_{k} W_{k} G_{k-1}^{-1}$; "
                          r"$n_{\mathrm{in}} = n_{\mathrm{out}} = \operatorname{rank} V^* = n$; hidden widths $n$ + (0..2), all different"),
))

# =======================================================================================
# eqs. (32)-(36), footnote 14, uniqueness of lambda*
# =======================================================================================
P33 = r"\mathbb{E}[\|\nabla_{W_{i}^{j:}}\ell\|^{2}]=\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]"
s33 = _chk(P33, C.check_eq33(), dims=one_dims, derivation=Y.eq33,
           note="every i and j, at an S-minimiser over the gauge group")
r33 = _chk(P33 + r"\quad\text{(rescaling symmetry only)}", C.check_eq33(rescaling_only=True),
           name="reading: minimiser over rescalings only", kind="reading", dims=one_dims,
           note="$T$ of eq. (32) only: $S$ minimised over diagonal $G_{k}$")
tc.register(tc.Claim(
    id="prh.eq33", title="Gradient balance of unit $j$: row of $W_{i}$ vs column of $W_{i+1}$",
    source=_src("4", "(32)-(33)", P33), statement=s33, variants=(r33,),
    controls=(_chk(P33, C.check_eq33(norm="row"), name="control: row $j$ of $W_{i+1}$", kind="control", dims=one_dims),
              _chk(P33, C.check_eq33(minimise=False), name="control: generic global minimum", kind="control",
                   dims=one_dims)),
    aliases=("eq32",), assumptions=(*_SETUP, "$T_{kl} = 1$ iff $k = l = j$ (eq. 32)"),
))


def _const_in_lambda(**kw):
    return dict(lhs=lambda inst, ctx: C.eq34_side(inst, ctx, inst.lam, **kw),
                rhs=lambda inst, ctx: C.eq34_side(inst, ctx, inst.lam2, **kw),
                scale=lambda inst, ctx: C.eq34_scale(inst, ctx, **kw))


P34 = (r"{\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"=e^{-2\lambda}\mathbb{E}[\|\nabla_{W_{i}^{j:}}\ell\|^{2}]+\text{ constants in }\lambda")
s34 = _ident(P34, **_const_in_lambda(which="34", rate=-2, norm="row"), derivation=functools.partial(Y.eq34_35, False),
             note=r"$T = e_{j} e_{j}^{\top}$; 'constant in $\lambda'$: the difference of the sides is equal at $\lambda_{1}$ and $\lambda_{2}$")
tc.register(tc.Claim(
    id="prh.eq34", title="Footnote 14: the $W_{i}$ term under the rescaling of unit $j$",
    source=_src("4", "footnote 14, (34)", P34), statement=s34,
    controls=(_ident(P34, **_const_in_lambda(which="34", rate=-1, norm="row"), name=r"control: $e^{-\lambda}$",
                     kind="control"),),
    aliases=("fn14",), assumptions=_SETUP,
))

P35 = (r"{\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]]"
       r"=e^{2\lambda}\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]\ \text{constants in }\lambda")
s35 = _ident(P35, **_const_in_lambda(which="35 printed", rate=2, norm="column"),
             note=r"printed: $e^{-2 \lambda T}$ with the $d_{i+2} \times d_{i+2}$ matrix $\mathbb{E}[\nabla \nabla^{\top}]$")
v35 = _ident(r"{\rm Tr}[e^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]]"
             r"=e^{2\lambda}\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]+\text{ constants in }\lambda",
             **_const_in_lambda(which="35", rate=2, norm="column"), name=r"corrected: $e^{+2 \lambda T}$, $\nabla^{\top} \nabla$",
             kind="corrected", derivation=functools.partial(Y.eq34_35, True))
tc.register(tc.Claim(
    id="prh.eq35", title="Footnote 14: the $W_{i+1}$ term under the rescaling of unit $j$",
    source=_src("4", "footnote 14, (35)", P35), statement=s35, variants=(v35,),
    controls=(_ident(P35, **_const_in_lambda(which="35", rate=-2, norm="column"), name=r"control: $e^{-2 \lambda}$",
                     kind="control"),),
    assumptions=_SETUP,
))

P36 = r"e^{4\lambda}=\frac{\mathbb{E}[\|\nabla_{W_{i}^{j:}}\ell\|^{2}]}{\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]}"
s36 = _chk(P36, C.check_eq36("printed"), dims=M.edln_dims(), derivation=Y.eq36,
           note=r"$\lambda^*$ minimises $S$ along the rescaling of unit $j$ (SciPy), compared with the printed formula")
tc.register(tc.Claim(
    id="prh.eq36", title="Footnote 14: the unique minimiser of the rescaling",
    source=_src("4", "footnote 14, (36)", P36), statement=s36,
    controls=(tc.perturb(s36, r"$e^{2 \lambda}$", predicted=lambda p: 2 * p),       # lam = log(a/b)/2
              tc.perturb(s36, "ratio swapped", predicted=lambda p: -p)),       # lam = log(b/a)/4
    assumptions=(*_SETUP, "arbitrary weights; a, b > 0 (unit j receives and sends a signal)"),
))

Puniq = (r"\text{(27) reaches its minimum at a unique }\lambda=\lambda^{*}\ \text{for any symmetric } T"
         r"\ \text{at any solution of (20)}")
uniq_dims = C.single_dims(offsets=(1, 3))
suniq = _chk(Puniq, C.check_unique_printed(), dims=uniq_dims,
             note=r"instance: a global minimum with a dead hidden unit $j$ (hidden width > $\operatorname{rank} V^*$), $T = e_{j} e_{j}^{\top}$")
dead_dims = M.edln_dims()
vuniq = _ident(r"\mathbb{E}\|\nabla_{W_i^\lambda}\ell\|^2+\mathbb{E}\|\nabla_{W_{i+1}^\lambda}\ell\|^2="
               r"\sum_k e^{-2\lambda t_k}\alpha_k+e^{2\lambda t_k}\beta_k,\ \alpha_k=q_k^\top A q_k,\ "
               r"\beta_k=q_k^\top B q_k\ \text{(convex in }\lambda\text{; constant along directions unused by both)}",
               C.two_terms, C.spectral_terms, name="corrected: spectral form (convex; unique iff coercive)", kind="corrected",
               sample=functools.partial(C.sample_dead, dead=False), derivation=Y.lambda_unique,
               note=r"$A = \mathbb{E}[\nabla_{Wi} \nabla_{Wi}^{\top}]$, $B = \mathbb{E}[\nabla_{Wi}+1^{\top} \nabla_{Wi}+1]$, "
                    r"$T = \sum t_{k} q_{k} q_{k}^{\top}$; unique minimiser iff (some $t_{k}>0$ has $\beta_{k}>0$ "
                    r"or $t_{k}<0$ has $\alpha_{k}>0$) and (some $t_{k}>0$ has $\alpha_{k}>0$ or $t_{k}<0$ has $\beta_{k}>0$)")
viff = _chk(r"T=qq^{\top}:\ \text{(27) has a unique minimiser iff it is coercive } (\alpha=q^{\top}Aq>0,\ "
           r"\beta=q^{\top}Bq>0)\text{, then } e^{4\lambda^{*}}=\alpha/\beta\text{; else } \lambda^{*}\to\pm\infty",
           C.check_unique_iff(), name=r"corrected: unique iff coercive (rank-one $T = q q^{\top}$)", kind="corrected",
           dims=C.single_dims(offsets=(2, 4)),
           note=r"one global minimum, three directions of its widest hidden layer: a random unit $q$ (coercive), "
                r"a unit that receives nothing ($\beta = 0$) and one that sends nothing ($\alpha = 0$); the minimiser "
                r"over $[-L, L]$ (from $S$'s definition) against $w^* = \alpha/(\alpha+\beta)$ on the compactified line "
                r"$w = 1/(1+e^{-4 \lambda})$: interior iff coercive. $\alpha = \beta = 0$ ($S$ constant) is the printed "
                r"counterexample")
tc.register(tc.Claim(
    id="prh.lambda_unique", title=r"Uniqueness of the minimising $\lambda$ (the '(!!!)' observation)",
    source=_src("4", "after (27)", Puniq), statement=suniq, variants=(vuniq, viff),
    controls=(tc.perturb(vuniq, r"$\alpha$ and $\beta$ swapped", rhs=lambda v, inst, ctx: C.spectral_terms(inst, ctx, swap=True)),
              tc.perturb(viff, r"$\alpha$ and $\beta$ swapped in $w^*$", predicted=lambda p: 1 - p),
              tc.perturb(viff, "a finite minimiser also when not coercive",      # the 'only if' half
                         predicted=lambda p: np.where((p == 0) | (p == 1), 0.5, p))),
    aliases=("unique_lambda",),
    assumptions=(*_SETUP, "the printed claim is tested where it can fail: hidden widths > rank V* = n"),
))

# =======================================================================================
# Theorem 1
# =======================================================================================
PT = (r"\text{For any invertible } M^{O}_{A},M^{I}_{A},Z_{A},M^{O}_{B},M^{I}_{B},Z_{B}\text{ and any } i,j:\ ")
_parts = {
    1: (r"h^{i}_{A}\ \text{and}\ h^{j}_{A}\ \text{are perfectly aligned}", "within network A"),
    2: (r"h^{i}_{B}\ \text{and}\ h^{j}_{B}\ \text{are perfectly aligned}", "within network B"),
    3: (r"h^{i}_{A}\ \text{and}\ h^{j}_{B}\ \text{are perfectly aligned}", "across networks A and B"),
}
_READINGS = (
    ("with_input", r"(1\le i,j\le D)", "reading: $i$, $j$ also the module input $h^{1} = M^{I} x$",
     r"$h^{1} = M^{I} Z u$ has the kernel $Z^{\top} M^{I\top} M^{I} Z$, fixed by the arbitrary $M^{I}$, $Z$: not learned"),
    ("with_output", r"(2\le i,j\le D+1)", "reading: $i$, $j$ also the module output $h^{D+1}$",
     "at a global minimum $h^{D+1} = (M^{O})^{-1} V^* u$, fixed by the arbitrary $M^{O}$: not learned"),
)
for part, (txt, where) in _parts.items():
    dims = M.pair_dims(n=(2, 3)) if part == 3 else M.pair_dims(n=(2, 3), depth=(3, M.DMAX))
    sT = _chk(PT + txt + r"\quad(2\le i,j\le D)", C.check_theorem(part, layers="hidden"), dims=dims,
              derivation=Y.thm1,
              note="$i$, $j$ over the learned representations $h^{2}$..$h^{D}$ (outputs of $W_{1}$..$W_{D-1}$; "
                   "eq. 14's indexing); the common kernel is "
                   r"$Q^* = \Sigma_u^{-1/2}(\Sigma_u^{1/2} V^{*\top} \Sigma_\varepsilon V^* \Sigma_u^{1/2})^{1/2} \Sigma_u^{-1/2}$ (derived); $n \ge 2$ and, within one network, depth ≥ 3 (otherwise every instance is trivially aligned)")
    readings = tuple(
        _chk(PT + txt + r"\quad" + rng_tex, C.check_theorem(part, layers=layers), name=name, kind="reading",
             dims=M.pair_dims(n=(2, 3)), note=why + " (n >= 2; for n = 1 every pair is trivially aligned)")
        for layers, rng_tex, name, why in _READINGS)
    tc.register(tc.Claim(
        id=f"prh.thm1_{part}", title=f"Theorem 1 part {part}: perfect alignment {where}",
        source=_src("2", f"Theorem 1 ({part})", PT + txt), statement=sT, variants=readings,
        controls=(_chk(PT + txt, C.check_theorem(part, layers="hidden", minimise=False),
                       name="control: generic global minima (S not minimised)", kind="control", dims=dims),),
        aliases=("thm1",),
        assumptions=(*_SETUP, "two networks with their own depth (2..4), hidden widths $n$ + (0..2)(all different), "
                              r"random $M^{O}$, $M^{I}$, $Z$; same task $V^* (n \times n, \operatorname{rank} n)$, "
                              r"same $u$ and $\varepsilon$; label noise with $V^{*\top} \Sigma_\varepsilon V^*$ of $\operatorname{rank} n$",
                     "each network at a global minimum of the loss, $S$ minimised over its gauge group "
                     r"$W_{k} \to G_{k} W_{k} G_{k-1}^{-1}$ (SciPy BFGS, then Levenberg-Marquardt on the stationarity equations)"),
    ))
