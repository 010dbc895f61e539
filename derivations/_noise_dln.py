"""Noise paper: deep linear networks (Theorem 5.4, eq. 19, Appendix E) and approximate symmetry (eqs. 20-23)."""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import dln, sampling

from . import _noise_models as M
from ._noise_common import ETA, GAMMA, MF_DIMS, S_BATCH, claim, control, mf, refine, sample_mf, variant
from ._noise_sec5 import SIGMA2, _roots, _svd_factors, sample_gmin
from .noise import DLN3_DIMS, _dln_dot_scale, sample_dln_pair

S = S_BATCH


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
# Section 5.3's charge and Appendix E
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


def _e1_rhs(inst, ctx, centred, sign=-1):
    inst = _data(inst, ctx)
    """``8 sigma^2 (xi_i^T C_0 xi_i - W_i h_i C_1 h_i^T W_i^T)`` for every pair (Theorem E.1, eq. 109)."""
    Ws, X, Y = inst.Ws, inst.X, inst.Y
    D = len(Ws)
    n = X.shape[-1]
    pre, suf = dln.prefix_products(Ws), dln.suffix_products(Ws)
    R = dln.product(Ws) @ X - Y
    Mm = R @ M.T(X) / n
    out = []
    for i in range(1, D):                                    # pair (W_{i+1}, W_i), 1-based
        h = pre[i - 1]                                       # W_{i-1} ... W_1 (None = identity)
        hx = X if h is None else h @ X
        xi_i, xi_ip = suf[i], suf[i + 1]                     # W_D..W_{i+1}, W_D..W_{i+2}
        xr = R if xi_ip is None else M.T(xi_ip) @ R
        C0 = (R * np.sum(hx * hx, axis=1)[:, None, :]) @ M.T(R) / n
        C1 = (X * np.sum(xr * xr, axis=1)[:, None, :]) @ M.T(X) / n
        if centred:
            hh = M.T(h) @ h if h is not None else None
            C0 = C0 - (Mm @ hh @ M.T(Mm) if hh is not None else Mm @ M.T(Mm))
            xx = xi_ip @ M.T(xi_ip) if xi_ip is not None else None
            C1 = C1 - (M.T(Mm) @ xx @ Mm if xx is not None else M.T(Mm) @ Mm)
        Wh = Ws[i - 1] if h is None else Ws[i - 1] @ h
        out.append(8 * inst.s2 * (M.T(xi_i) @ C0 @ xi_i + sign * (Wh @ C1 @ M.T(Wh))))
    return np.concatenate([o.reshape(o.shape[0], -1) for o in out], axis=1)


def _e1_lhs(inst, ctx):
    inst = _data(inst, ctx)
    Ms = M.dln_pair_matrices(inst.Ws, inst.X, inst.Y, inst.s2)
    return np.concatenate([m.reshape(m.shape[0], -1) for m in Ms], axis=1)


E1_DIMS = tc.dln_dims(depth=(2, 4), width=(1, 3), distinct=False, extra={"n": (3, 5)})


def sample_e1(rng, d, batch):
    D = d["D"]
    ws = [d[f"d{i}"] for i in range(D + 1)]
    return {"Ws": [sampling.gaussian(rng, ws[k + 1], ws[k], batch=batch) for k in range(D)],
            "X": sampling.gaussian(rng, ws[0], d["n"], batch=batch),
            "Y": sampling.gaussian(rng, ws[D], d["n"], batch=batch), "s2": SIGMA2}


def sample_e1_gmin(rng, d, batch):
    """Random weights on a product data set whose least-squares solution is W_D...W_1 (a global minimum)."""
    D = d["D"]
    ws = [d[f"d{i}"] for i in range(D + 1)]
    Ws = [sampling.gaussian(rng, ws[k + 1], ws[k], batch=batch) for k in range(D)]
    rx = sampling.spd(rng, ws[0], cond=4.0, batch=batch)
    re = sampling.spd(rng, ws[D], cond=4.0, batch=batch)
    return {"Ws": Ws, "rx": rx, "re": re, "s2": SIGMA2}


def _data(inst, ctx):
    """The instance with its data: a product data set built *in ctx* when the sampler gave square roots."""
    if "rx" not in inst:
        return inst
    X, Y, E = M.product_data(inst.rx, inst.re, dln.product(inst.Ws), ctx)
    return tc.Instance(dict(inst, X=X, Y=Y))


def _e1_normalize(d):
    for i in range(d["D"] + 1, 4):
        d[f"d{i}"] = 1
    return d


E1B_DIMS = tc.DimSpace({"D": (2, 3), "d0": (1, 3), "d1": (1, 3), "d2": (1, 3), "d3": (1, 3), "n": (8, 10)},
                       where=lambda d: all(d[f"d{k}"] <= min(d["d0"], d[f"d{d['D']}"]) for k in range(1, d["D"])),
                       normalize=_e1_normalize)
"""Deep linear nets whose hidden widths are at most min(d_0, d_D), so that xi_{i+1} has full column rank and
h_i full row rank: the balance of a pair can then be imposed at any fixed product W_{i+1} W_i."""


def _psd_root(S_, inv=False):
    w, V = np.linalg.eigh(S_)
    return (V * (w ** (-0.5 if inv else 0.5))) @ V.T


def _e1_balanced(Ws, X, Y, i, centred, seed, ko_factor=1.0):
    """Replace ``W_i, W_{i+1}`` (1-based pair ``i``) by a factorisation of the same product satisfying eq. 109
    (``centred=False``, as printed) or its centred form (``centred=True``).  Returns (new Ws, cond of the Ks)."""
    D, n = len(Ws), X.shape[-1]
    R = dln.product(Ws) @ X - Y                                       # fixed by the product W_{i+1} W_i
    h = dln.product(Ws[:i - 1]) if i > 1 else np.eye(X.shape[0])     # W_{i-1} ... W_1
    xi = dln.product(Ws[i + 1:]) if i + 1 < D else np.eye(Y.shape[0])  # W_D ... W_{i+2}
    hx, xr = h @ X, xi.T @ R
    C0 = (R * np.sum(hx * hx, 0)) @ R.T / n
    C1 = (X * np.sum(xr * xr, 0)) @ X.T / n
    if centred:
        Mm = R @ X.T / n
        C0 = C0 - Mm @ h.T @ h @ Mm.T
        C1 = C1 - Mm.T @ xi @ xi.T @ Mm
    Ko, Ki = ko_factor * xi.T @ C0 @ xi, h @ C1 @ h.T
    P = Ws[i] @ Ws[i - 1]
    Vp = _psd_root(Ko) @ P @ _psd_root(Ki)
    L, sv, Rt = np.linalg.svd(Vp)
    k = min(int(np.sum(sv > sv[0] * 1e-9)) if sv.size and sv[0] > 0 else 0, Ws[i - 1].shape[0])
    F = np.linalg.qr(np.random.default_rng(seed).standard_normal((Ws[i - 1].shape[0], k)))[0].T   # k x d_i
    Up = (L[:, :k] * np.sqrt(sv[:k])) @ F
    Wp = F.T @ (np.sqrt(sv[:k])[:, None] * Rt[:k])
    out = list(Ws)
    out[i], out[i - 1] = _psd_root(Ko, inv=True) @ Up, Wp @ _psd_root(Ki, inv=True)
    return out, float(np.linalg.cond(Ko) * np.linalg.cond(Ki))


def _e1_balance_check(centred, ko_factor=1.0):
    """Theorem E.1 as a statement about equilibria: at a theta where eq. 109 holds for pair i (constructed at a random,
    non-minimal product), is dC_B^i/dt = 0 for every B?  Drift matrix from per-sample gradients (Sigma = covariance)."""
    def check(rng, d):
        D = d["D"]
        ws = [d[f"d{k}"] for k in range(D + 1)]
        Ws = [rng.standard_normal((ws[k + 1], ws[k])) for k in range(D)]
        X, Y = rng.standard_normal((ws[0], d["n"])), rng.standard_normal((ws[D], d["n"]))
        seed = int(rng.integers(2**31))
        res, conds = [0.0, 0.0], []
        for i in range(1, D):
            Wb, cond = _e1_balanced(Ws, X, Y, i, centred, seed, ko_factor)
            conds.append(cond)
            for k, (dtype, ctx) in enumerate(((np.float32, tc.FLOAT32), (np.float64, tc.FLOAT64))):
                parts = M.dln_pair_matrices([ctx.asarray(W.astype(dtype)[None]) for W in Wb],
                                            ctx.asarray(X.astype(dtype)[None]), ctx.asarray(Y.astype(dtype)[None]),
                                            ctx.scalar(SIGMA2), parts=True)[i - 1]
                Mi = parts[0] + parts[1] - parts[2]
                res[k] = max(res[k], float(np.sqrt(_fro2(Mi))[0] / M.scale_of(parts)[0]))
        cond = max(conds)
        return refine(res, [tc.FLOAT32.eps * 100 * cond, tc.FLOAT64.eps * 100 * cond], ["float32", "float64"],
                      detail=f"|dC_B/dt| over all B at a theta satisfying eq. 109{' (centred)' if centred else ''} "
                             f"for each pair, random product (not a minimum); cond {cond:.1e}")
    return check


_e1_identity = tc.Statement(
    r"\dot C_{B}^i=\mathrm{Tr}[B\,8\sigma^2(\xi_i^\top C_0^i\xi_i-W_ih_iC_1^ih_i^\top W_i^\top)],\ "
    r"C_0^i=\mathbb{E}[\|h_ix\|^2rr^\top],\ C_1^i=\mathbb{E}[\|\xi_{i+1}^\top r\|^2xx^\top]",
    name="reading: the proof's identity (eqs. 111-119), drift proportional to the uncentred difference", kind="reading",
    dims=E1_DIMS, sample=sample_e1, lhs=_e1_lhs, rhs=lambda i, c: _e1_rhs(i, c, False),
    note=r"the drift matrix of every pair charge (from per-sample gradients, $\Sigma$ = covariance) against "
         r"$8 \sigma^{2}$ (LHS - RHS of eq. 109); the proof's own constant is $2 \sigma^{2}$")
_e1 = tc.Statement(r"W_{i+1}^\top\xi_{i+1}^\top C_0^i\xi_{i+1}W_{i+1}=W_ih_iC_1^ih_i^\top W_i^\top\Rightarrow\dot C_B^i=0\ \forall B",
                   dims=E1B_DIMS, check=_e1_balance_check(False),
                   note=r"$\theta$ built so that eq. 109 holds exactly for the pair (same product $W_{i+1} W_{i}$, hence "
                        "the same $r, C_{0}, C_{1}$), at a random non-minimal product; the drift of $C_{B}^{i}$ from per-sample gradients")
claim("thm_e1", r"Theorem E.1: the noise equilibrium of every layer pair of a deep linear net, at any $\theta$ (eq. 109)",
      "Appendix E", "Theorem E.1, (109)-(110)",
      r"W_{i+1}^{\top}\xi_{i+1}^{\top}C_{0}^{i}\xi_{i+1}W_{i+1}=W_{i}h_{i}C_{1}^{i}h_{i}^{\top}W_{i}^{\top},\ C_{0}^{i}=\mathbb{E}[\|h_{i}x\|^{2}rr^{\top}],C_{1}^{i}=\mathbb{E}[\|\xi_{i+1}^{\top}r\|^{2}xx^{\top}]",
      _e1, aliases=("eq109", "eq110", "eq120"),
      variants=[variant(_e1_identity, r"reading: at the global minimum (product data, $\mathbb{E}[r x^{\top}] = 0$), identity with $8 \sigma^{2}$",
                        kind="reading", sample=sample_e1_gmin, dims=tc.dln_dims(depth=(2, 4), width=(1, 3), distinct=False)),
                _e1_identity,
                variant(_e1, r"corrected: centred $C_{0} - M h^{\top} h M^{\top}$, $C_{1} - M^{\top} \xi \xi^{\top} M (M = \mathbb{E}[r x^{\top}])$",
                        latex=r"C_0^i=\mathbb{E}[\|h_ix\|^2rr^\top]-Mh_i^\top h_iM^\top,\ C_1^i=\mathbb{E}[\|\xi_{i+1}^\top r\|^2xx^\top]-M^\top\xi_{i+1}\xi_{i+1}^\top M",
                        check=_e1_balance_check(True)),
                variant(_e1_identity, r"corrected: the drift is $8 \sigma^{2}$ (centred difference), for every $\theta$",
                        kind="corrected", rhs=lambda i, c: _e1_rhs(i, c, True))],
      controls=[control(_e1_identity, "corrected identity with the sign of the $W_{i}$ term flipped",
                        rhs=lambda i, c: _e1_rhs(i, c, True, +1)),
                control(_e1, "corrected (centred) balance with $C_{0}$ doubled", check=_e1_balance_check(True, 2.0))])


def _per_sample_losses(Ws, X, Y):
    R = dln.product(Ws) @ X - Y
    return np.sum(R * R, axis=1)


def _fd_grad(inst, layer):
    """Per-sample gradient w.r.t. ``W_layer`` (1-based) by exact unit central differences: (b, n, d_l, d_{l-1})."""
    Ws = inst.Ws
    W = Ws[layer - 1]
    rows = []
    for a in range(W.shape[1]):
        cols = []
        for c in range(W.shape[2]):
            E = W * 0
            E[:, a, c] = E[:, a, c] + 1
            plus = list(Ws)
            minus = list(Ws)
            plus[layer - 1], minus[layer - 1] = W + E, W - E
            cols.append((_per_sample_losses(plus, inst.X, inst.Y) - _per_sample_losses(minus, inst.X, inst.Y)) / 2)
        rows.append(np.stack(cols, axis=-1))
    return np.stack(rows, axis=-2)


def _e112_lhs(inst, ctx, half=False):
    i = inst.pair
    g = np.concatenate([_fd_grad(inst, i + 1).reshape(inst.X.shape[0], inst.X.shape[-1], -1),
                        _fd_grad(inst, i).reshape(inst.X.shape[0], inst.X.shape[-1], -1)], axis=-1)
    return g / 2 if half else g


def _e112_rhs(inst, ctx, factor=1):
    """Printed: dl/dW_{i+1} = xi_{i+1}^T r (W_i h_i x)^T, dl/dW_i = xi_{i+1}^T W_{i+1}^T r (h_i x)^T."""
    Ws, X, Y, i = inst.Ws, inst.X, inst.Y, inst.pair
    pre, suf = dln.prefix_products(Ws), dln.suffix_products(Ws)
    R = dln.product(Ws) @ X - Y
    h = pre[i - 1]
    hx = X if h is None else h @ X
    xi = suf[i + 1]
    left_o = R if xi is None else M.T(xi) @ R                         # (b, d_{i+1}, n)
    right_o = Ws[i - 1] @ hx                                          # (b, d_i, n)
    left_i = M.T(Ws[i]) @ left_o
    b, n = X.shape[0], X.shape[-1]
    go = np.moveaxis(left_o, -1, 1)[..., :, None] * np.moveaxis(right_o, -1, 1)[..., None, :]
    gi = np.moveaxis(left_i, -1, 1)[..., :, None] * np.moveaxis(hx, -1, 1)[..., None, :]
    return factor * np.concatenate([go.reshape(b, n, -1), gi.reshape(b, n, -1)], axis=-1)


_e112 = tc.Statement(r"\frac{\partial\ell}{\partial W_{i+1}}=\xi_{i+1}^\top r(W_ih_ix)^\top,\ "
                     r"\frac{\partial\ell}{\partial W_i}=\xi_{i+1}^\top W_{i+1}^\top r(h_ix)^\top",
                     dims=DLN3_DIMS, sample=sample_dln_pair, lhs=_e112_lhs, rhs=_e112_rhs,
                     note=r"LHS: exact unit central differences of the per-sample loss (16), $\lVert W_{D}\dots W_{1} x - y\rVert ^{2}$")
claim("eq112", "Appendix E: per-sample gradients of the deep linear net (eqs. 112-113)", "Appendix E", "(112)-(113)",
      r"\frac{\partial\ell}{\partial W_{i+1}}=\xi_{i+1}^{\top}r(W_{i}h_{i}x)^{\top},\ \frac{\partial\ell}{\partial W_{i}}=\xi_{i+1}^{\top}W_{i+1}^{\top}r(h_{i}x)^{\top}",
      _e112, aliases=("eq113",),
      variants=[variant(_e112, "corrected (loss (16)): factor 2", rhs=lambda i, c: _e112_rhs(i, c, 2)),
                variant(_e112, r"reading: loss $1/2 \lVert W_{D}\dots W_{1} x - y\rVert ^{2}$", kind="reading", lhs=lambda i, c: _e112_lhs(i, c, True))],
      controls=[tc.negate(_e112)])


def _e122_lhs(inst, ctx):
    inst = _data(inst, ctx)
    Ws, X, Y = inst.Ws, inst.X, inst.Y
    n = X.shape[-1]
    pre, suf = dln.prefix_products(Ws), dln.suffix_products(Ws)
    R = dln.product(Ws) @ X - Y
    out = []
    for i in range(1, len(Ws)):
        h, xi = pre[i - 1], suf[i + 1]
        hx = X if h is None else h @ X
        xr = R if xi is None else M.T(xi) @ R
        out.append((R * np.sum(hx * hx, axis=1)[:, None, :]) @ M.T(R) / n)
        out.append((X * np.sum(xr * xr, axis=1)[:, None, :]) @ M.T(X) / n)
    return np.concatenate([o.reshape(o.shape[0], -1) for o in out], axis=1)


def _e122_rhs(inst, ctx, swap=False):
    inst = _data(inst, ctx)
    Ws, X, Y = inst.Ws, inst.X, inst.Y
    n = X.shape[-1]
    E = Y - dln.product(Ws) @ X
    Sx, Se = X @ M.T(X) / n, E @ M.T(E) / n
    pre, suf = dln.prefix_products(Ws), dln.suffix_products(Ws)
    out = []
    for i in range(1, len(Ws)):
        h, xi = pre[i - 1], suf[i + 1]
        thx = M.tr(Sx) if h is None else M.tr(h @ Sx @ M.T(h))
        txe = M.tr(Se) if xi is None else M.tr(M.T(xi) @ Se @ xi)
        out.append((txe if swap else thx)[:, None, None] * Se)
        out.append((thx if swap else txe)[:, None, None] * Sx)
    return np.concatenate([o.reshape(o.shape[0], -1) for o in out], axis=1)


_e122 = tc.Statement(r"C_0^i=\mathrm{Tr}[h_i\Sigma_xh_i^\top]\Sigma_\epsilon,\ C_1^i=\mathrm{Tr}[\xi_{i+1}^\top\Sigma_\epsilon\xi_{i+1}]\Sigma_x",
                     dims=tc.dln_dims(depth=(2, 4), width=(1, 3), distinct=False), sample=sample_e1_gmin,
                     lhs=_e122_lhs, rhs=_e122_rhs, note=r"global minimum on a product data set $(r = -\varepsilon)$")
claim("eq122", r"Proof of Thm 5.4: at the global minimum $C_{0}$, $C_{1}$ factorise $(r = \varepsilon)$, giving eq. 122 (and eq. 14's moments)",
      "Appendix E", "(121)-(122)",
      r"W_{i+1}^{\top}\frac{W_{i+2}^{\top}\cdots W_{D}^{\top}\Sigma_{\epsilon}W_{D}\cdots W_{i+2}}{{\rm Tr}[\cdots]}W_{i+1}=W_{i}\frac{W_{i-1}\cdots W_{1}\Sigma_{x}W_{1}^{\top}\cdots W_{i-1}^{\top}}{{\rm Tr}[\cdots]}W_{i}^{\top}",
      _e122, aliases=("eq121",),
      controls=[control(_e122, "traces exchanged", rhs=lambda i, c: _e122_rhs(i, c, True))])


# ==============================================================================================
# Section 5.4: approximate symmetry, eqs. 20-23
# ==============================================================================================
def sample_approx(rng, d, batch):
    out = sample_mf(rng, d, batch)
    P = d["dy"] * d["d"] + d["d"] * d["dx"]
    out.update(kap=rng.uniform(0.3, 1.5, (batch, P)), cc=rng.standard_normal((batch, P)), zeta=0.7)
    return out


def _approx(inst, ctx):
    p = mf(inst, ctx)
    g2 = 2 * inst.kap * (p.th - inst.cc)                        # grad l_2, l_2 = sum kap (theta - c)^2
    G = p.G + inst.zeta * g2[:, None, :]
    return p, g2, G


def _e20_lhs(inst, ctx, half=False):
    p, g2, G = _approx(inst, ctx)
    out = M.flow_drift(p.th, G, p.A) + M.sgd_noise_drift(p.th, G, p.A, inst.eta, S)
    return out / 2 if half else out


def _e20_rhs(inst, ctx, factor=1, sign=1):
    p, g2, G = _approx(inst, ctx)
    Ath = (p.A @ p.th[:, :, None])[..., 0]
    return factor * (-sign * inst.zeta * np.sum(g2 * Ath, -1) + inst.eta / (2 * S) * M.tr(M.covariance(G) @ p.A))


_e20 = tc.Statement(r"\dot C_A=-\zeta(\nabla\ell_2)^\top A\theta+\sigma^2\mathrm{Tr}[\Sigma(\theta)A]", dims=MF_DIMS,
                    sample=sample_approx, lhs=_e20_lhs, rhs=_e20_rhs,
                    note=r"$l_{1}$ = two-layer net (double rotation), $l_{2} = \sum_{k} \kappa_{k} (\theta_{k} - c_{k})^{2}$, "
                         r"$\zeta = 0.7$; $\theta^*$ in the printed $A \theta^*$ read as the current $\theta$")
claim("eq20", r"Approximate symmetry: the drift $\mathrm{d}C_{A}/\mathrm{d}t$ displayed before eq. 20 (factor 2); its zero, eq. 20, is unaffected",
      "5.4", "display before (20)", r"\dot{C}_{A}(\theta)=-\zeta(\nabla\ell_{2})^{\top}A\theta^{*}+\sigma^{2}{\rm Tr}[\Sigma(\theta)A]", _e20,
      variants=[variant(_e20, r"corrected $(C_{A} = \theta^{\top} A \theta)$: $-2 \zeta \nabla l_{2}^{\top} A \theta + 2 \sigma^{2} \operatorname{Tr}[\Sigma A]$",
                        latex=r"\dot C_A=-2\zeta(\nabla\ell_2)^\top A\theta+2\sigma^2\mathrm{Tr}[\Sigma A]",
                        rhs=lambda i, c: _e20_rhs(i, c, 2)),
                variant(_e20, r"reading: $C_{A} = \theta^{\top} A \theta / 2$ (same fixed point, eq. 20)", kind="reading",
                        lhs=lambda i, c: _e20_lhs(i, c, True))],
      controls=[control(_e20, "corrected with +2 zeta", rhs=lambda i, c: _e20_rhs(i, c, 2, -1))])


def _e21_check(mode):
    """Landau order of the expansion (21): residual/t of the linear term must be O(t)."""
    def check(rng, d):
        dy = dx = h = d["d"]
        n = d["n"]
        X, Y = rng.standard_normal((dx, n)), rng.standard_normal((dy, n))
        K = 0.7 * (lambda g: (g - g.T) / 2)(rng.standard_normal((h, h)))
        Q = (np.eye(h) - K) @ np.linalg.inv(np.eye(h) + K)
        B = Q @ np.diag(rng.standard_normal(h)) @ Q.T
        P = 2 * h * h
        kap = rng.uniform(0.3, 1.5, P)
        zeta = 5.0
        inst = tc.Instance(X=X[None], Y=Y[None], K=K[None], mu=np.zeros((1, h)))
        if mode == "reading":                                     # theta* minimises l_1 and l_2: grad l_2(theta*) = 0
            V = Y @ X.T @ np.linalg.inv(X @ X.T)
            W = rng.standard_normal((h, dx)) + 2 * np.eye(h)
            U = V @ np.linalg.inv(W)
        else:
            U, W = rng.standard_normal((dy, h)), rng.standard_normal((h, dx))
        A = M.mf_A(B[None], dy, dx, tc.FLOAT64)[0]
        th = M.mf_flat(U[None], W[None])[0]
        g1 = M.mean_grad(M.mf_grads(U[None], W[None], X[None], Y[None]))[0]
        c = th + (g1 / (2 * zeta * kap) if mode != "reading" else 0)      # theta* stationary for L_1 + zeta l_2
        H = np.diag(2 * kap)

        def f(t):
            return zeta * (2 * kap * (t - c)) @ (A @ t)

        grad2 = 2 * kap * (th - c)
        delta = rng.standard_normal(P)
        delta /= np.linalg.norm(delta)
        lin = zeta * delta @ H @ A @ th
        if mode == "only_grad":
            lin = zeta * delta @ A @ grad2
        if mode == "corrected":
            lin = lin + zeta * delta @ A @ grad2
        scale = zeta * (np.linalg.norm(H @ A @ th) + np.linalg.norm(A @ grad2))
        ts = (1e-2, 1e-3, 1e-4)
        res = [abs(f(th + t * delta) - f(th) - t * lin) / (t * scale) for t in ts]
        return refine(res, list(ts), [f"t={t:g}" for t in ts], detail=f"|grad l_2(theta*)| = {np.linalg.norm(grad2):.3g}")
    return check


E21_DIMS = tc.DimSpace({"d": (1, 2), "n": (4, 6)})
_e21 = tc.Statement(r"\zeta\nabla\ell_2(\theta)^\top A\theta=\zeta(\theta-\theta^*)^\top H(\theta^*)A\theta^*+O(\|\theta-\theta^*\|^2)",
                    dims=E21_DIMS, check=_e21_check("printed"),
                    note=r"$\theta^*$ a stationary point of $L_{1} + \zeta l_{2}$ with $\nabla l_{2}(\theta^*) \ne 0$; "
                         r"$t \to 0$ along a random direction; a correct first-order term leaves residual/$t = O(t)$")
claim("eq21", "Approximate symmetry near a local minimum: the first-order expansion of eq. 21", "5.4", "(21)",
      r"\zeta(\theta-\theta^{*})^{\top}H(\theta^{*})A\theta^{*}=\sigma^{2}{\rm Tr}[\Sigma(\theta^{*})A]+O(\sigma^{2}\|\theta-\theta^{*}\|+\|\theta-\theta^{*}\|^{2})",
      _e21,
      variants=[variant(_e21, r"reading: $\theta^*$ also a stationary point of $l_{2} (\nabla l_{2}(\theta^*) = 0)$", kind="reading",
                        check=_e21_check("reading")),
                variant(_e21, r"corrected: first-order term $\zeta (\theta-\theta^*)^{\top} (H A \theta^* + A \nabla l_{2}(\theta^*))$",
                        latex=r"\zeta\nabla\ell_2^\top A\theta=\zeta(\theta-\theta^*)^\top\big(HA\theta^*+A\nabla\ell_2(\theta^*)\big)+O(\|\theta-\theta^*\|^2)",
                        check=_e21_check("corrected"))],
      controls=[control(_e21, r"corrected at a generic point, term $H A \theta^*$ dropped", check=_e21_check("only_grad"))])


def _e22_derivation(wrong=False):
    z, s, h, a, s2, T = sp.symbols("zeta s h a sigma2 T", positive=True)
    s_star = s2 * T * h / (z * a) if wrong else s2 * T / (z * h * a)
    return tc.Derivation([tc.Step(z * (s_star * h) * a, s2 * T,
                                  r"eq. 21 with $\theta - \theta^* = s n$, $H n = h n$, a $= n^{\top} A \theta^*$, $T = \operatorname{Tr}[\Sigma A]$")],
                         general=True)


_e22 = tc.Statement(r"s=\frac{\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A]}{\zeta h^*n^\top A\theta^*}", derivation=_e22_derivation)
claim("eq22", "Eq. 22: the displacement s along an eigenvector of H solves eq. 21 (algebra)", "5.4", "(22)",
      r"s=\frac{\sigma^{2}{\rm Tr}[\Sigma(\theta^{*})A]}{\zeta h^{*}n^{\top}A\theta^{*}}", _e22,
      controls=[tc.Statement(r"s=\frac{\sigma^2Th}{\zeta a}", name="control: h in the numerator", kind="control",
                             derivation=lambda: _e22_derivation(True))])


def _e23_lhs(inst, ctx):
    p = mf(inst, ctx)
    delta = inst.cc * 0.3
    return M.quad(p.th + delta, p.A) - M.quad(p.th, p.A) - 2 * np.sum(delta * (p.A @ p.th[:, :, None])[..., 0], -1)


def _e23_rhs(inst, ctx, f=1):
    p = mf(inst, ctx)
    delta = inst.cc * 0.3
    return f * M.quad(delta, p.A)


def _e23_derivation():
    z, h, a, s2, T = sp.symbols("zeta h a sigma2 T", positive=True)
    s = s2 * T / (z * h * a)
    return tc.Derivation([tc.Step(2 * s * a, 2 * s2 * T / (z * h), r"$2 (\theta - \theta^*)^{\top} A \theta^*$ with eq. 22")],
                         general=True)


_e23 = tc.Statement(r"C(\theta)-C^*-2(\theta-\theta^*)^\top A\theta^*=(\theta-\theta^*)^\top A(\theta-\theta^*)=O(\|\theta-\theta^*\|^2)",
                    dims=MF_DIMS, sample=sample_approx, lhs=_e23_lhs, rhs=_e23_rhs, derivation=_e23_derivation)
claim("eq23", r"Eq. 23: $C(\theta) = C^* + 2 (\theta-\theta^*)^{\top} A \theta^* + O(|\theta-\theta^*|^{2}) = C^* + 2 \sigma^{2} \operatorname{Tr}[\Sigma A]/(\zeta h^*)$",
      "5.4", "(23)", r"C(\theta)=C^{*}+2(\theta-\theta^{*})^{\top}A\theta^{*}+O(\|\theta-\theta^{*}\|^{2})=C^{*}+2\frac{\sigma^{2}}{\zeta h^{*}}{\rm Tr}[\Sigma A]",
      _e23, controls=[tc.double(_e23)])


# ----------------------------------------------------------------------------------------------
# the proof's eqs. 127-130 evaluated at the true equilibrium (the corrected eq. 18)
# ----------------------------------------------------------------------------------------------
T54_3_DIMS = tc.DimSpace({"D": (3, 4), "dx": (1, 3), "dy": (1, 3), "r": (1, 2), "e1": (0, 1), "e2": (0, 1), "e3": (0, 1)},
                         where=lambda d: d["r"] <= min(d["dx"], d["dy"]), normalize=_t54_normalize)


def _e127(inst, ctx, side):
    Ws, rx, re, info = _t54_weights(inst, ctx, "corrected")
    c2 = info["c"] ** 2
    S1, SD = info["S1"] ** 2, info["SD"] ** 2
    if side == "lhs":
        return c2[:, None] * SD / np.sum(SD, -1)[:, None]
    norm = info["d"] if side == "printed" else info["a"]
    return S1 / (norm[:, None] if isinstance(norm, np.ndarray) and norm.ndim else norm)


_e127s = tc.Statement(r"c^2\frac{\Sigma_D^2}{\mathrm{Tr}[\Sigma_D^2]}=\frac{\Sigma_1^2}{d}", dims=T54_3_DIMS, sample=sample_gmin,
                      lhs=lambda i, c: _e127(i, c, "lhs"), rhs=lambda i, c: _e127(i, c, "printed"),
                      note=r"$\Sigma_{1}$, $\Sigma_{D}$, $c$ of the true equilibrium (corrected eq. 18, verified by noise.thm5_4)")
claim("eq127", r"Proof of Thm 5.4: eq. 127 at $i = 1$ normalises by $d$ where eq. 122 has $\operatorname{Tr}[\Sigma_{x}]$", "Appendix E", "(127)-(129)",
      r"\frac{\Sigma_{2}^{2}\cdots\Sigma_{D}^{2}}{{\rm Tr}[\Sigma_{3}^{2}\dots\Sigma_{D}^{2}]}=c^{2}\frac{\Sigma_{D}^{2}}{{\rm Tr}[\Sigma_{D}^{2}]}=\frac{\Sigma_{1}^{2}}{d}",
      _e127s, aliases=("eq128", "eq129"),
      variants=[variant(_e127s, r"corrected: $\Sigma_{1}^{2} / \operatorname{Tr}[\Sigma_{x}]$", latex=r"c^2\frac{\Sigma_D^2}{\mathrm{Tr}\Sigma_D^2}=\frac{\Sigma_1^2}{\mathrm{Tr}\Sigma_x}",
                        rhs=lambda i, c: _e127(i, c, "corrected"))],
      controls=[tc.double(_e127s)])


def _e130(inst, ctx, form):
    Ws, rx, re, info = _t54_weights(inst, ctx, "corrected")
    D, c = info["D"], info["c"]
    cp = M.pw(c, D - 2, 1, ctx)[:, None]
    if form == "lhs":
        return info["S1"] ** 2 * cp
    if form == "corrected_lhs":
        return info["S1"] * info["SD"] * cp
    return info["sp"]


_e130s = tc.Statement(r"\Sigma_1^2c^{D-2}=S'", dims=T54_DIMS, sample=sample_gmin, lhs=lambda i, c: _e130(i, c, "lhs"),
                      rhs=lambda i, c: _e130(i, c, "sp"))
claim("eq130", r"Proof of Thm 5.4: $\Sigma_{1}^{2} c^{D-2} = S'$ (uses $\Sigma_{1} = \Sigma_{D}$)", "Appendix E", "(130)",
      r"\Sigma_{1}^{2}c^{D-2}=S^{\prime}", _e130s,
      variants=[variant(_e130s, r"corrected: $\Sigma_{D} \Sigma_{1} c^{D-2} = S'$", latex=r"\Sigma_D\Sigma_1c^{D-2}=S'",
                        lhs=lambda i, c: _e130(i, c, "corrected_lhs"))],
      controls=[tc.double(_e130s)])
