"""Noise paper, Section 5.3: the noise-aligned solution of deep linear networks (Theorem 5.4, eq. 19).

Theorem 5.4 (eqs. 17-18) at the global minimum, the balance of the layer norms (eq. 19) and the charge of the
pair symmetry printed before the theorem.  Its proof is Appendix E (:mod:`derivations.noise.appendix_e`,
:mod:`derivations.noise.appendix_e_eqs127_130`).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import dln

from . import model as M
from .model import DLN3_DIMS, SIGMA2, _roots, _svd_factors, claim, control, sample_dln_pair, sample_gmin, variant


def _fro2(a):
    return np.sum((a * a).reshape(a.shape[0], -1), axis=-1)


# ==============================================================================================
# Theorem 5.4 (eqs. 17-18) and eq. 19
# ==============================================================================================
def _t54_normalize(d):
    for i in range(d["D"], 4):
        d[f"e{i}"] = 0
    return d


T54_DIMS = tc.DimSpace({"D": (2, 4), "dx": (1, 3), "dy": (1, 3), "r": (1, 2), "e1": (0, 1), "e2": (0, 1), "e3": (0, 1)},
                       where=lambda d: d["r"] <= min(d["dx"], d["dy"]), normalize=_t54_normalize)


def _t54_weights(inst, ctx, form):
    """Weights of eq. 17 with Sigma_i of eq. 18 (form 'printed'), of the corrected eq. 18 ('corrected'), or the
    printed eq. 18 after rescaling Sigma_x, Sigma_eps to trace d ('normalised').  Returns (Ws, rx, re, info)."""
    rx, rxi, re, rei = _roots(inst, ctx)
    r = inst.sp.shape[-1]
    L, s, R = _svd_factors(inst, ctx, r)
    D = len(inst.KU) + 1
    Us = [M.cayley(K, ctx)[:, :, :r] for K in inst.KU]              # U_1 .. U_{D-1}, orthonormal columns
    t = np.sum(s, axis=-1)
    a, b_ = np.sum(inst.sx, axis=-1), np.sum(inst.se, axis=-1)
    dd = ctx.scalar(r)
    if form == "normalised":
        kx, ke = ctx.sqrt(dd / a), ctx.sqrt(dd / b_)
        rx, rxi = rx * kx[:, None, None], rxi / kx[:, None, None]
        re, rei = re * ke[:, None, None], rei / ke[:, None, None]
        a, b_ = a * 0 + dd, b_ * 0 + dd
    if form in ("printed", "normalised"):
        c = M.pw(t / dd, 1, D, ctx)
        f1 = fD = M.pw(dd / t, D - 2, 2 * D, ctx)
    else:
        c = M.pw(t / ctx.sqrt(a * b_), 1, D, ctx)
        base = M.pw(c, -(D - 2), 2, ctx)
        f1 = M.pw(a / b_, 1, 4, ctx) * base
        fD = M.pw(b_ / a, 1, 4, ctx) * base
    rs = ctx.sqrt(s)
    Ws = [(Us[0] * (f1[:, None] * rs)[:, None, :]) @ R @ rxi]
    for i in range(1, D - 1):
        Ws.append(Us[i] @ M.T(Us[i - 1]) * c[:, None, None])
    Ws.append(rei @ (L * (fD[:, None] * rs)[:, None, :]) @ M.T(Us[-1]))
    return Ws, rx, re, dict(c=c, t=t, a=a, b=b_, d=dd, D=D, S1=f1[:, None] * rs, SD=fD[:, None] * rs, sp=s)


def _t54_M(inst, ctx, form, parts=False):
    Ws, rx, re, _ = _t54_weights(inst, ctx, form)
    V = dln.product(Ws)
    X, Y, E = M.product_data(rx, re, V, ctx)
    return M.dln_pair_matrices(Ws, X, Y, ctx.scalar(SIGMA2), parts=parts)


def _t54_lhs(inst, ctx, form="printed"):
    Ms = _t54_M(inst, ctx, form)
    return np.concatenate([m.reshape(m.shape[0], -1) for m in Ms], axis=1)


def _t54_scale(inst, ctx, form="printed"):
    return sum(M.scale_of(p) for p in _t54_M(inst, ctx, form, parts=True))


def _t54(form, name, kind, latex):
    return tc.Statement(latex, name=name, kind=kind, dims=T54_DIMS, sample=sample_gmin,
                        lhs=lambda i, c: _t54_lhs(i, c, form), rhs=lambda i, c: _t54_lhs(i, c, form) * 0,
                        scale=lambda i, c: _t54_scale(i, c, form),
                        note=r"product data set ($x, \varepsilon$ exactly independent, "
                             r"$\mathbb{E}[x x^{\top}] = \Sigma_{x}, \mathbb{E}[\varepsilon \varepsilon^{\top}] = \Sigma_{\varepsilon}$), "
                             r"$V = W_{D}\dots W_{1}$ is the least-squares solution; residual: the drift matrices $M_{i}$ of every pair charge ($\mathrm{d}C_{B_{i}}/\mathrm{d}t = \operatorname{Tr}[B_{i} M_{i}]$ for all $B_{i}$)")


_t54p = _t54("printed", "as printed", "printed",
             r"\Sigma_1=\Sigma_D=\Big(\frac{d}{\mathrm{Tr}S'}\Big)^{\frac{D-2}{2D}}\sqrt{S'},\ \Sigma_i=\Big(\frac{\mathrm{Tr}S'}{d}\Big)^{1/D}I"
             r"\ \Rightarrow\ \dot C_{B_i}=0")
claim("thm5_4", "Theorem 5.4: the noise equilibrium of a deep linear network at the global minimum (eqs. 17-18)",
      "5.3", "Theorem 5.4, (17)-(18)",
      r"\Sigma_{1}=\Sigma_{D}=\left(\frac{d}{{\rm Tr}S^{\prime}}\right)^{(D-2)/2D}\sqrt{S^{\prime}},\ \Sigma_{i}=\left(\frac{{\rm Tr}S^{\prime}}{d}\right)^{1/D}I_{d\times d}",
      _t54p, aliases=("eq17", "eq18", "eq131"),
      variants=[_t54("corrected", r"corrected: $c^{D} = \operatorname{Tr} S'/\sqrt{\operatorname{Tr} \Sigma_x \operatorname{Tr} \Sigma_\varepsilon}$, "
                     r"$\Sigma_{1} = (\operatorname{Tr} \Sigma_x/\operatorname{Tr} \Sigma_\varepsilon)^{1/4} c^{-(D-2)/2} \sqrt{S'}$, $\Sigma_{D} = (\operatorname{Tr} \Sigma_\varepsilon/\operatorname{Tr} \Sigma_x)^{1/4} c^{-(D-2)/2} \sqrt{S'}$", "corrected",
                     r"c=\Big(\frac{\mathrm{Tr}S'}{\sqrt{\mathrm{Tr}\Sigma_x\mathrm{Tr}\Sigma_\epsilon}}\Big)^{1/D},\ "
                     r"\Sigma_1=\Big(\frac{\mathrm{Tr}\Sigma_x}{\mathrm{Tr}\Sigma_\epsilon}\Big)^{1/4}\frac{\sqrt{S'}}{c^{(D-2)/2}},\ "
                     r"\Sigma_D=\Big(\frac{\mathrm{Tr}\Sigma_\epsilon}{\mathrm{Tr}\Sigma_x}\Big)^{1/4}\frac{\sqrt{S'}}{c^{(D-2)/2}},\ \Sigma_i=cI"),
                _t54("normalised", r"reading: $\Sigma_{x}$ and $\Sigma_{\varepsilon}$ rescaled to trace $d$", "reading",
                     r"\text{eq. 18 with }\mathrm{Tr}\Sigma_x=\mathrm{Tr}\Sigma_\epsilon=d")],
      controls=[control(_t54p, r"corrected with $\Sigma_{1}$ and $\Sigma_{D}$ swapped",
                        lhs=lambda i, c: _t54_lhs(i, c, "swapped"), scale=lambda i, c: _t54_scale(i, c, "swapped"))],
      assumptions=(r"the proof replaces $\operatorname{Tr}[\Sigma_{x}] (i = 1)$ and $\operatorname{Tr}[\Sigma_{\varepsilon}] (i = D-1)$ in eq. 122 by $d$ (eqs. 127-128)",
                   r"$\gamma = 0$, global minimum, $\varepsilon$ independent of $x$"))


_orig_weights = _t54_weights


def _t54_weights_with_swap(inst, ctx, form):
    if form != "swapped":
        return _orig_weights(inst, ctx, form)
    # Sigma_1 <-> Sigma_D of the corrected solution: exchange the trace ratio
    Ws, rx, re, info = _orig_weights(inst, ctx, "corrected")
    a, b_ = info["a"], info["b"]
    k = M.pw(b_ / a, 1, 2, ctx)
    Ws = [Ws[0] * k[:, None, None]] + Ws[1:-1] + [Ws[-1] / k[:, None, None]]
    return Ws, rx, re, info


_t54_weights = _t54_weights_with_swap  # noqa: F811


def _eq19_lhs(inst, ctx):
    """``[Tr Sigma_1^2, Tr Sigma_i^2 (middle layers), Tr Sigma_D^2]`` read off the equilibrium's weights."""
    Ws, rx, re, info = _t54_weights(inst, ctx, "corrected")
    vals = [_fro2(Ws[0] @ rx)] + [_fro2(W) for W in Ws[1:-1]] + [_fro2(re @ Ws[-1])]
    return np.stack(vals, axis=-1)


def _eq19_rhs(inst, ctx, form="printed"):
    Ws, rx, re, info = _t54_weights(inst, ctx, "corrected")
    D, t, d, c = info["D"], info["t"], info["d"], info["c"]
    if form == "printed":
        v = M.pw(t, 2, D, ctx) * M.pw(d * (t * 0 + 1), D - 2, D, ctx)
        return np.stack([v] * D, axis=-1)
    c2 = c * c
    return np.stack([info["a"] * c2] + [d * c2] * (D - 2) + [info["b"] * c2], axis=-1)


def _eq19_derivation():
    d, t, D = sp.symbols("d t D", positive=True)
    s1 = (d / t) ** ((D - 2) / D) * t                  # Tr Sigma_1^2 with Sigma_1 of eq. (18)
    si = d * (t / d) ** (2 / D)                         # Tr Sigma_i^2 with Sigma_i of eq. (18)
    target = t ** (2 / D) * d ** (1 - 2 / D)
    return tc.Derivation([tc.Step(s1, target, r"$\operatorname{Tr}[\Sigma_{1}^{2}]$ from eq. (18)"),
                          tc.Step(si, target, r"$\operatorname{Tr}[\Sigma_{i}^{2}]$ from eq. (18)")], general=True)


_e19 = tc.Statement(r"\mathrm{Tr}[\Sigma_1^2]=\mathrm{Tr}[\Sigma_i^2]=(\mathrm{Tr}S')^{2/D}d^{1-2/D}", dims=T54_DIMS,
                    sample=sample_gmin, lhs=_eq19_lhs, rhs=_eq19_rhs,
                    note="at the noise equilibrium (the corrected eq. 18, claim noise.thm5_4)")
claim("eq19", "Eq. 19: balance of the layer norms at the noise equilibrium", "5.3", "(19)",
      r"{\rm Tr}[\Sigma_{1}^{2}]={\rm Tr}[\Sigma_{i}^{2}]=({\rm Tr}S^{\prime})^{2/D}d^{1-2/D}", _e19, aliases=("eq132",),
      variants=[tc.Statement(r"\text{eq. 18 as printed}\Rightarrow\mathrm{Tr}\Sigma_1^2=\mathrm{Tr}\Sigma_i^2=(\mathrm{Tr}S')^{2/D}d^{1-2/D}",
                             name="reading: algebra from eq. 18 as printed", kind="reading", derivation=_eq19_derivation),
                variant(_e19, r"corrected: $\operatorname{Tr} \Sigma_{i}^{2} = d c^{2}$ (middle layers balanced), $\operatorname{Tr} \Sigma_{1}^{2} = \operatorname{Tr} \Sigma_x c^{2}$, $\operatorname{Tr} \Sigma_{D}^{2} = \operatorname{Tr} \Sigma_\varepsilon c^{2}$",
                        latex=r"\mathrm{Tr}\Sigma_i^2=dc^2\ (1<i<D),\ \mathrm{Tr}\Sigma_1^2=\mathrm{Tr}\Sigma_x\,c^2,\ \mathrm{Tr}\Sigma_D^2=\mathrm{Tr}\Sigma_\epsilon\,c^2",
                        rhs=lambda i, c: _eq19_rhs(i, c, "corrected"))],
      controls=[tc.double(_e19)])


# ==============================================================================================
# Section 5.3's charge of the pair symmetry
# ==============================================================================================
def _pair_grads(inst):
    i = inst.pair
    n = inst.X.shape[-1]
    gs = dln.per_sample_gradients(inst.Ws, inst.X, inst.Y)
    return np.sum(gs[i - 1], axis=1) / n, np.sum(gs[i], axis=1) / n


def _charge_matrix_rate(inst, ctx):
    """d/dt (W_i^T B W_i) under gradient flow: -(G_i^T B W_i + W_i^T B G_i)."""
    i = inst.pair
    Gi, _ = _pair_grads(inst)
    Wi = inst.Ws[i - 1]
    return -(M.T(Gi) @ inst.Bp @ Wi + M.T(Wi) @ inst.Bp @ Gi)


def _charge_scalar_rate(inst, ctx, sign=-1):
    """d/dt (Tr[W_i^T B W_i] + sign Tr[W_{i+1} B W_{i+1}^T]) under gradient flow."""
    i = inst.pair
    Gi, Go = _pair_grads(inst)
    Wi, Wo = inst.Ws[i - 1], inst.Ws[i]
    return -2 * M.tr(inst.Bp @ Wi @ M.T(Gi)) - sign * 2 * M.tr(inst.Bp @ M.T(Wo) @ Go)


def _charge_scale(inst, ctx):
    i = inst.pair
    Gi, Go = _pair_grads(inst)
    b = ctx.sqrt(_fro2(inst.Bp))
    return b * (ctx.sqrt(_fro2(Gi) * _fro2(inst.Ws[i - 1])) + ctx.sqrt(_fro2(Go) * _fro2(inst.Ws[i])))


_c53 = tc.Statement(r"\frac{d}{dt}C_{B_i}=0,\ C_{B_i}=W_i^\top B_iW_i\ \text{(gradient flow)}", dims=DLN3_DIMS,
                    sample=sample_dln_pair, lhs=_charge_matrix_rate, rhs=lambda i, c: _charge_matrix_rate(i, c) * 0,
                    scale=lambda i, c: _charge_scale(i, c))
claim("sec5_3_charge", r"Sec. 5.3: the charge of the pair symmetry, printed $C_{B_{i}} = W_{i}^{\top} B_{i} W_{i}$", "5.3",
      "text before Theorem 5.4", r"C_{B_{i}}=W_{i}^{T}B_{i}W_{i}", _c53,
      variants=[variant(_c53, r"corrected: $C_{B_{i}} = \operatorname{Tr}[W_{i}^{\top} B_{i} W_{i}] - \operatorname{Tr}[W_{i+1} B_{i} W_{i+1}^{\top}]$",
                        latex=r"C_{B_i}=\mathrm{Tr}[W_i^\top B_iW_i]-\mathrm{Tr}[W_{i+1}B_iW_{i+1}^\top]",
                        lhs=_charge_scalar_rate, rhs=lambda i, c: _charge_scalar_rate(i, c) * 0)],
      controls=[control(_c53, r"$\operatorname{Tr}[W_{i}^{\top} B W_{i}] + \operatorname{Tr}[W_{i+1} B W_{i+1}^{\top}]$", lhs=lambda i, c: _charge_scalar_rate(i, c, +1),
                        rhs=lambda i, c: _charge_scalar_rate(i, c, +1) * 0)],
      assumptions=(r"a Noether charge is a scalar; the printed one is a $d_{i-1} \times d_{i-1}$ matrix",))
