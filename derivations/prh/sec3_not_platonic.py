"""Section 3 of the prh note, "Most global minima are not platonic": eqs. (16)-(18) and the argument.

The loss is invariant under ``W_{i+1} -> W_{i+1} T``, ``W_i -> T^{-1} W_i`` (16); eq. (17) restates perfect
alignment; the kernel after ``T`` is ``h^T T^{-T} T^{-1} h`` (18); a general ``T`` breaks the alignment of
two Platonic networks (the claim ``prh.sec3``).  The alignment check of eq. (17) is shared with Theorem 1
(:func:`.checks.check_theorem`).
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc
from theorem_check import dln, sampling

from . import derivations_sympy as Y
from . import gauge
from . import model as M
from .checks import _fmt, _kernel_residual, _nonvanishing, check_theorem
from .model import _SETUP, _chk, _ident, _sample, _src


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
# Section 3 on pairs of networks: a general T breaks the alignment
# ---------------------------------------------------------------------------------------
def check_sec3(T_kind="general"):
    """Section 3: a random T between W_{i+1} and W_i keeps the loss but breaks the alignment.

    The statement is negated ("no longer aligned"): the misalignment ``g_k`` of the transformed layer with
    net B's hidden layer at each level must not vanish; reported by :func:`_nonvanishing` against the
    floors of the S-minimisation (what an aligned pair leaves there).  ``T_kind="conformal"`` (a negative
    control) uses ``T = c O``, ``O`` orthogonal, which keeps the alignment.
    """

    def check(rng, d):
        task, As, Bs, A0, B0 = gauge.platonic_pair(rng, d)
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
        return _nonvanishing(gauge.LEVELS, vals, gauge.FLOORS,
                             detail=f"T on h^{k + 1} of A (n={d['n']}): alignment residual with h^2 of B "
                                    f"{_fmt(vals)} (stays = not aligned); loss change {max(dloss):.1e}")

    return check


# =======================================================================================
# Section 3: eqs. (16)-(18) and "most global minima are not Platonic"
# =======================================================================================
P16 = r"(W_{D}^{*},...,W_{i+1}^{*}T,T^{-1}W_{i}^{*},...,W_{1}^{*})\ \text{is also a global minimum}"
s16 = _ident(r"\ell(\ldots,W_{i+1}T,T^{-1}W_{i},\ldots)=\ell(\ldots,W_{i+1},W_{i},\ldots)\ \forall x,\ T\in GL",
             eq16_lhs, eq16_rhs, derivation=Y.eq16, sample=_sample(T_kind="invertible"),
             note="per-sample losses at arbitrary weights: the loss is invariant, so global minima map to global minima")
tc.register(tc.Claim(
    id="prh.eq16", title=r"$W_{i+1} \to W_{i+1} T$, $W_{i} \to T^{-1} W_{i}$ leaves the loss unchanged",
    source=_src("3", "(16)", P16), statement=s16,
    controls=(tc.perturb(s16, "$T W_{i}$ instead of $T^{-1} W_{i}$", rhs=None,
                         lhs=lambda v, inst, ctx: eq16_lhs(inst, ctx, right="T")),
              tc.perturb(s16, r"$W_{i+1} T^{\top}$", lhs=lambda v, inst, ctx: eq16_lhs(inst, ctx, left="TT"))),
    assumptions=(*_SETUP, "T invertible, condition number 10"),
))

P17 = r"h_{A}^{\top}(x_{1}^{A})h_{A}(x_{2}^{A})=h_{B}^{\top}(x_{1}^{B})h_{B}(x_{2}^{B})"
PAIR_DIMS = M.pair_dims()
s17 = _chk(r"\exists c>0:\ c\,h_{A}^{\top}(x_{1}^{A})h_{A}(x_{2}^{A})=h_{B}^{\top}(x_{1}^{B})h_{B}(x_{2}^{B})",
           check_theorem(3), dims=M.pair_dims(n=(2, 3)),
           note=r"eq. (17) restates the definition of perfect alignment (part 1, issue 2: $c h_{A}^{\top} h_{A} = h_{B}^{\top} h_{B}$) "
                "with its constant $c$ left implicit; checked at $S$-minimisers (Platonic solutions) of two networks, "
                "hidden layers, $x^{A} = Z_{A} u$, $x^{B} = Z_{B} u$")
r17 = _chk(P17 + r"\quad(c=1)", check_theorem(3, c_free=False), name="reading: literally c = 1",
           kind="reading", dims=PAIR_DIMS,
           note=r"the kernels at Platonic solutions are $2 \sqrt{\kappa} Q^*$ with a layer- and network-dependent "
                r"$\kappa$, so $c = 1$ fails; the definition has the constant $c$, so this reading is not the note's")
tc.register(tc.Claim(
    id="prh.eq17", title="Perfect alignment (eq. 17 restates the definition; its constant c is implicit)",
    source=_src("3", "(17)", P17), statement=s17, variants=(r17,),
    controls=(_chk(P17 + r"\ \text{[before minimising S]}", check_theorem(3, minimise=False),
                   name="control: generic global minima (S not minimised)", kind="control", dims=s17.dims),),
    assumptions=(*_SETUP, r"both networks at an $S$-minimiser over their gauge group; $n_{\mathrm{in}} = n_{\mathrm{out}} = \operatorname{rank} V^* = n$"),
))

P18 = r"h_{A}^{\top}(x_{1})(T^{-1})^{\top}T^{-1}h_{A}(x_{2})"
s18 = _ident(r"h^{i+1}_{T}(x_1)^{\top}h^{i+1}_{T}(x_2)=h^{i+1}(x_{1})^{\top}(T^{-1})^{\top}T^{-1}h^{i+1}(x_{2})",
             eq18_lhs, eq18_rhs, derivation=Y.eq18, sample=_sample(T_kind="invertible"),
             note="Gram matrix over all pairs of inputs of the data set")
tc.register(tc.Claim(
    id="prh.eq18", title=r"After $T$ the kernel of $h^{i+1}$ becomes $h^{\top} T^{-\top} T^{-1} h$",
    source=_src("3", "(18)", P18), statement=s18,
    controls=(tc.perturb(s18, r"$T^{-1} T^{-\top}$ (swapped)", rhs=lambda v, inst, ctx: eq18_rhs(inst, ctx, "Tinv TinvT")),
              tc.perturb(s18, "kernel unchanged", rhs=lambda v, inst, ctx: eq18_rhs(inst, ctx, "I"))),
    assumptions=(*_SETUP, "T invertible, condition number 10"),
))

P3 = (r"\text{For a general } T,\ h_A^{\top}(x_1)(T^{-1})^{\top}T^{-1}h_A(x_2)\ \text{and}\ "
      r"h_B^{\top}(x_1)h_B(x_2)\ \text{can no longer be perfectly aligned}")
s3 = _chk(P3 + r"\quad(\operatorname{rank}V^*\ge 2)", check_sec3(), dims=M.pair_dims(n=(2, 3)),
          note="$T$ random invertible (cond 10); alignment iff $T^{-1}$ is a scaled isometry on the representation's "
               r"span. $\operatorname{rank} V^* \ge 2$: with rank one every kernel $u_{1}^{\top} Q u_{2}$ is a "
               r"multiple of one $\operatorname{rank}$-one form and 'perfectly aligned' is vacuous, so the argument is about the non-degenerate case")
r3 = _chk(P3 + r"\quad(\text{also }n_{in}=n_{out}=\operatorname{rank}V^*=1)", check_sec3(),
          name="reading: also the degenerate task rank V* = 1", kind="reading", dims=M.pair_dims(n=(1, 1)),
          note="scalar inputs: every kernel is 1 x 1, every T keeps the alignment (as do all global minima)")
tc.register(tc.Claim(
    id="prh.sec3", title="Most global minima are not Platonic (Section 3)",
    source=_src("3", "Section 3", P3), statement=s3, variants=(r3,),
    controls=(_chk(P3 + r"\ \text{[T conformal]}", check_sec3("conformal"), name="control: T = 2 O (conformal)",
                   kind="control", dims=M.pair_dims(n=(2, 3))),),
    aliases=("not_platonic",),
    assumptions=(*_SETUP, "start: both networks at S-minimisers (Platonic); T acts on a hidden layer of A"),
))
