"""Noise paper, Section 5.2: stability of matrix factorization (Proposition 5.3, eq. 15).

Proposition 5.3 (the trace of the Hessian) and its proof (Appendix B.5); eq. 15, the sharpness at
initialisation and at the end of training, and the Xavier and Kaiming statements after it.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import sampling

from . import model as M
from .model import MF_DIMS, claim, control, sample_mf, variant


# ==============================================================================================
# Proposition 5.3 and eq. 15: the trace of the Hessian
# ==============================================================================================
def _loss_mean(U, W, X, Y):
    return np.sum(M.mf_losses(U, W, X, Y), axis=-1) / X.shape[-1]


def _trace_hessian(U, W, X, Y):
    """``Tr[Hess L]`` by exact unit second differences along every coordinate (L is quadratic in each)."""
    th = M.mf_flat(U, W)
    dy, d, dx = U.shape[1], U.shape[2], W.shape[2]
    L0 = _loss_mean(U, W, X, Y)
    tot = 0
    for k in range(th.shape[1]):
        e = th * 0
        e[:, k] = e[:, k] + 1
        Up, Wp = M.mf_unflat(th + e, dy, d, dx)
        Um, Wm = M.mf_unflat(th - e, dy, d, dx)
        tot = tot + _loss_mean(Up, Wp, X, Y) - 2 * L0 + _loss_mean(Um, Wm, X, Y)
    return tot


def _p53_lhs(inst, ctx, half=False):
    out = _trace_hessian(inst.U, inst.W, inst.X, inst.Y)
    return out / 2 if half else out


def _p53_rhs(inst, ctx, factor=1):
    n = inst.X.shape[-1]
    Sx = inst.X @ M.T(inst.X) / n
    dy = inst.U.shape[1]
    return factor * (dy * M.tr(inst.W @ Sx @ M.T(inst.W)) + np.sum((inst.U * inst.U).reshape(inst.U.shape[0], -1), -1) * M.tr(Sx))


def _p53_derivation(factor):
    u, w, x, y = sp.symbols("u w x y", real=True)
    l = (u * w * x - y) ** 2
    return tc.Derivation([tc.Step(sp.diff(l, u, 2) + sp.diff(l, w, 2), factor * (w ** 2 * x ** 2 + u ** 2 * x ** 2),
                                  r"$\operatorname{Tr}$ Hess of $(u w x - y)^{2}$ against the printed $d_{y}\lVert W \Sigma_x^{1/2}\rVert ^{2} + \lVert U\rVert ^{2} \operatorname{Tr} \Sigma_x$")],
                         general=False, sizes="$d_x = d = d_y = 1$, one sample")


_p53 = tc.Statement(r"S(\theta)=\mathrm{Tr}[\nabla^2L]=d_y\|W\Sigma_x^{1/2}\|_F^2+\|U\|_F^2\mathrm{Tr}[\Sigma_x]",
                    dims=MF_DIMS, sample=sample_mf, lhs=_p53_lhs, rhs=_p53_rhs, derivation=lambda: _p53_derivation(1),
                    note=r"$\operatorname{Tr} \operatorname{Hess} L$ by exact second differences; $\Sigma_{x} = \mathbb{E}[x x^{\top}]$ of the data set")
claim("prop5_3", "Proposition 5.3: trace of the Hessian of the two-layer linear net", "5.2", "Proposition 5.3",
      r"S(\theta)=d_{y}\|W\Sigma_{x}^{1/2}\|_{F}^{2}+\|U\|_{F}^{2}{\rm Tr}[\Sigma_{x}]", _p53,
      variants=[variant(_p53, r"corrected (loss (12)): $2 (d_{y} \lVert W \Sigma_x^{1/2}\rVert ^{2} + \lVert U\rVert ^{2} \operatorname{Tr} \Sigma_x)$",
                        latex=r"S=2\big(d_y\|W\Sigma_x^{1/2}\|_F^2+\|U\|_F^2\mathrm{Tr}\Sigma_x\big)",
                        rhs=lambda i, c: _p53_rhs(i, c, 2), derivation=lambda: _p53_derivation(2)),
                variant(_p53, r"reading: loss $1/2 \lVert U W x - y\rVert ^{2}$", kind="reading", lhs=lambda i, c: _p53_lhs(i, c, True))],
      controls=[control(_p53, "corrected with $d_{x}$ in place of $d_{y}$",
                        rhs=lambda i, c: 2 * (i.W.shape[2] * M.tr(i.W @ (i.X @ M.T(i.X) / i.X.shape[-1]) @ M.T(i.W))
                                              + np.sum((i.U * i.U).reshape(i.U.shape[0], -1), -1) * M.tr(i.X @ M.T(i.X) / i.X.shape[-1])),
                        dims=tc.DimSpace({"dx": (1, 3), "d": (1, 3), "dy": (1, 3), "n": (3, 5)},
                                         where=lambda d: d["dx"] != d["dy"]))],
      aliases=("eq_b5",))

def _blocks_lhs(inst, ctx):
    """Per-sample Hessian blocks d^2 l/du_i du_i (rows of U) and d^2 l/dw_j dw_j (columns of W) by exact unit
    second differences of l + gamma(||U||^2 + ||W||^2): (b, n, dy + dx, d, d)."""
    U, W, X, Y, g = inst.U, inst.W, inst.X, inst.Y, inst.gamma
    dy, d, dx = U.shape[1], U.shape[2], W.shape[2]

    def loss(U_, W_):
        reg = np.sum((U_ * U_).reshape(U_.shape[0], -1), -1) + np.sum((W_ * W_).reshape(W_.shape[0], -1), -1)
        return M.mf_losses(U_, W_, X, Y) + g * reg[:, None]

    def unit(shape, idx):
        E = np.zeros(shape)
        E[(slice(None),) + idx] = 1
        return E

    l0 = loss(U, W)
    blocks = []
    for i in range(dy):                                  # row i of U
        H = [[None] * d for _ in range(d)]
        for a in range(d):
            for c in range(d):
                Ea, Ec = unit(U.shape, (i, a)), unit(U.shape, (i, c))
                H[a][c] = loss(U + Ea + Ec, W) - loss(U + Ea, W) - loss(U + Ec, W) + l0
        blocks.append(np.stack([np.stack(r, -1) for r in H], -2))
    for j in range(dx):                                  # column j of W
        H = [[None] * d for _ in range(d)]
        for a in range(d):
            for c in range(d):
                Ea, Ec = unit(W.shape, (a, j)), unit(W.shape, (c, j))
                H[a][c] = loss(U, W + Ea + Ec) - loss(U, W + Ea) - loss(U, W + Ec) + l0
        blocks.append(np.stack([np.stack(r, -1) for r in H], -2))
    return np.stack(blocks, axis=2)


def _blocks_rhs(inst, ctx, f=1):
    """Printed: Wxx^TW^T + 2 gamma I and x_j^2 sum_i u_i u_i^T + 2 gamma I (f = 2: the data terms doubled)."""
    U, W, X, g = inst.U, inst.W, inst.X, inst.gamma
    dy, d, _dx = U.shape[1], U.shape[2], W.shape[2]
    h = np.moveaxis(W @ X, -1, 1)                                          # (b, n, d)
    I = np.eye(d)
    bu = f * h[..., :, None] * h[..., None, :] + 2 * g * I                 # (b, n, d, d)
    UU = M.T(U) @ U                                                        # sum_i u_i u_i^T
    x2 = np.moveaxis(X * X, -1, 1)                                         # (b, n, dx)
    bw = f * x2[..., :, None, None] * UU[:, None, None] + 2 * g * I       # (b, n, dx, d, d)
    return np.concatenate([np.repeat(bu[:, :, None], dy, axis=2), bw], axis=2)


BLK_DIMS = tc.DimSpace({"dx": (1, 2), "d": (1, 3), "dy": (1, 2), "n": (2, 3)})
_blk = tc.Statement(r"\nabla^2_{\tilde u_i\tilde u_i}\ell=Wxx^\top W^\top+2\gamma I,\ \nabla^2_{\tilde w_j\tilde w_j}\ell=x_j^2\sum_iu_iu_i^\top+2\gamma I",
                    dims=BLK_DIMS, sample=sample_mf, lhs=_blocks_lhs, rhs=_blocks_rhs,
                    note=r"per-sample loss (12) with weight decay $\gamma = 0.3$; exact second differences")
claim("prop5_3_blocks", "Proof of Prop. 5.3: diagonal Hessian blocks of the per-sample loss (12)", "Appendix B.5",
      "proof of Prop. 5.3", r"\nabla_{\tilde{u}_{i},\tilde{u}_{i}}^{2}\ell=Wxx^{\top}W^{\top}+2\gamma I,\quad\nabla_{\tilde{w}_{j},\tilde{w}_{j}}^{2}\ell=x_{j}^{2}\sum_{i=1}^{d_{y}}\tilde{u}_{i}\tilde{u}_{i}^{\top}+2\gamma I",
      _blk, variants=[variant(_blk, r"corrected: $2 W x x^{\top} W^{\top} + 2 \gamma I$, $2 x_{j}^{2} U^{\top} U + 2 \gamma I$",
                              latex=r"2Wxx^\top W^\top+2\gamma I,\ 2x_j^2U^\top U+2\gamma I", rhs=lambda i, c: _blocks_rhs(i, c, 2))],
      controls=[control(_blk, r"corrected with $4 \gamma$", rhs=lambda i, c: _blocks_rhs(i, c, 2) * 1 + 2 * i.gamma * np.eye(i.U.shape[2]))])

# eq. 15: autoencoder with isotropic data, exact expectations
AE_DIMS = tc.DimSpace({"dx": (1, 3), "d": (1, 4), "c": (1, 3)})


def sample_ae(rng, d, batch):
    return {"KL": 0.6 * sampling.antisymmetric(rng, d["dx"], batch=batch),
            "KF": 0.6 * sampling.antisymmetric(rng, d["d"], batch=batch),
            "sU": rng.uniform(0.2, 1.5, size=batch), "sW": rng.uniform(0.2, 1.5, size=batch),
            "c": float(d["c"]) / 2, "s": 0.7}


def _ae_data(inst, ctx, dx):
    b = inst.KL.shape[0]
    return M.product_data(M.isotropic_root(dx, inst.c, b, ctx), M.isotropic_root(dx, inst.s, b, ctx),
                          np.repeat(M.eye(dx, ctx), b, 0), ctx)


def _S_init(inst, ctx, var_U, var_W):
    """``E[S]`` over Gaussian init: ``sum_j var_j S(e_j)`` (S is a quadratic form in theta), exact.

    ``S(e_j) = Tr Hess L(e_j)`` by the same exact unit second differences as ``_trace_hessian``, all ``P (2P + 1)``
    loss evaluations stacked on the batch axis in one call (one pass, which keeps the mp50 rung affordable).
    """
    dx, d = inst.KL.shape[-1], inst.KF.shape[-1]
    X, Y, E = _ae_data(inst, ctx, dx)
    b = X.shape[0]
    P = dx * d * 2
    eye = np.eye(P)
    pts = np.concatenate([eye[:, None, :], eye[:, None, :] + eye[None, :, :], eye[:, None, :] - eye[None, :, :]],
                         axis=1)                                           # (P, 2P + 1, P): e_j, e_j + e_k, e_j - e_k
    th = ctx.asarray(np.broadcast_to(pts.reshape(1, -1, P), (b, pts.shape[0] * pts.shape[1], P)).reshape(-1, P))
    U, W = M.mf_unflat(th, dx, d, dx)
    k = pts.shape[0] * pts.shape[1]
    # the mean loss from the data's second moments (the same finite data set, exactly):
    # E||U W x - y||^2 = Tr[V Sxx V^T] - 2 Tr[V Syx^T] + Tr Syy with V = U W
    n = X.shape[-1]
    Sxx, Syx = X @ M.T(X) / n, Y @ M.T(X) / n
    syy = np.sum(np.sum(Y * Y, axis=-1), axis=-1) / n
    V = U @ W
    Sxx_r, Syx_r = np.repeat(Sxx, k, axis=0), np.repeat(Syx, k, axis=0)
    L = (np.sum(np.sum((V @ Sxx_r) * V, -1), -1) - 2 * np.sum(np.sum(V * Syx_r, -1), -1)
         + np.repeat(syy, k, axis=0)).reshape(b, P, 2 * P + 1)
    trH = np.sum(L[:, :, 1:P + 1] + L[:, :, P + 1:], axis=-1) - 2 * P * L[:, :, 0]      # (b, P): S(e_j)
    tot = 0
    for j in range(P):
        tot = tot + (var_U if j < dx * d else var_W) * trH[:, j]
    return tot


def _S_end(inst, ctx):
    """S at the noise-equilibrium global minimum U W = I, W W^T = U^T U (d >= d_x)."""
    dx, _d = inst.KL.shape[-1], inst.KF.shape[-1]
    L = M.cayley(inst.KL, ctx)
    F = M.T(M.cayley(inst.KF, ctx)[:, :, :dx])
    U, W = L @ F, M.T(F) @ M.T(L)
    X, Y, E = _ae_data(inst, ctx, dx)
    return _trace_hessian(U, W, X, Y)


def _trSx(inst, ctx):
    return inst.KL.shape[-1] * inst.c


def _e15i_lhs(inst, ctx, half=False):
    out = _S_init(inst, ctx, inst.sU, inst.sW)
    return out / 2 if half else out


def _e15i_rhs(inst, ctx, factor=1):
    dx, d = inst.KL.shape[-1], inst.KF.shape[-1]
    return factor * dx * d * (inst.sU + inst.sW) * _trSx(inst, ctx)


_e15i = tc.Statement(r"S_{\rm init}=d_xd(\sigma_U^2+\sigma_W^2)\mathrm{Tr}[\Sigma_x]", dims=AE_DIMS, sample=sample_ae,
                     lhs=_e15i_lhs, rhs=_e15i_rhs,
                     note=r"autoencoder $y = x + \varepsilon (d_{y} = d_{x})$, exact expectation over the Gaussian init")
claim("eq15_init", r"Eq. 15: sharpness at a Gaussian initialisation, $S_{\mathrm{init}} = d_{x} d (\sigma_{U}^{2} + \sigma_{W}^{2}) \operatorname{Tr} \Sigma_x$",
      "5.2", "(15), first line", r"S_{\rm init}=d_{x}d(\sigma_{U}^{2}+\sigma_{W}^{2}){\rm Tr}[\Sigma_{x}]", _e15i,
      variants=[variant(_e15i, r"corrected (loss (12)): $2 d_{x} d (\sigma_{U}^{2} + \sigma_{W}^{2}) \operatorname{Tr} \Sigma_x$",
                        rhs=lambda i, c: _e15i_rhs(i, c, 2), latex=r"S_{\rm init}=2d_xd(\sigma_U^2+\sigma_W^2)\mathrm{Tr}\Sigma_x"),
                variant(_e15i, r"reading: loss $1/2\lVert r\rVert ^{2}$", kind="reading", lhs=lambda i, c: _e15i_lhs(i, c, True))],
      controls=[control(_e15i, "corrected with $d^{2}$", rhs=lambda i, c: _e15i_rhs(i, c, 2) * i.KF.shape[-1],
                        dims=tc.DimSpace({"dx": (1, 3), "d": (2, 4), "c": (1, 3)}))])

AE_END_DIMS = tc.DimSpace({"dx": (1, 3), "d": (1, 4), "c": (1, 3)}, where=lambda d: d["d"] >= d["dx"])


def _e15e_lhs(inst, ctx, half=False):
    out = _S_end(inst, ctx)
    return out / 2 if half else out


def _e15e_rhs(inst, ctx, factor=2):
    return inst.sU * 0 + factor * min(inst.KL.shape[-1], inst.KF.shape[-1]) * _trSx(inst, ctx)


_e15e = tc.Statement(r"S_{\rm end}=2\min(d,d_x)\mathrm{Tr}[\Sigma_x]", dims=AE_END_DIMS, sample=sample_ae,
                     lhs=_e15e_lhs, rhs=_e15e_rhs,
                     note=r"at the noise-equilibrium global minimum $U W = I$, $W W^{\top} = U^{\top} U$ (claims eq14$_{\mathrm{iso}}$), $d \ge d_{x}$")
claim("eq15_end", r"Eq. 15: sharpness at the end of training, $S_{\mathrm{end}} = 2 \min(d, d_{x}) \operatorname{Tr} \Sigma_x$", "5.2", "(15), second line",
      r"S_{\rm end}=2\min(d,d_{x}){\rm Tr}[\Sigma_{x}]", _e15e,
      variants=[variant(_e15e, r"corrected (loss (12)): $4 \min(d, d_{x}) \operatorname{Tr} \Sigma_x$", rhs=lambda i, c: _e15e_rhs(i, c, 4),
                        latex=r"S_{\rm end}=4\min(d,d_x)\mathrm{Tr}\Sigma_x"),
                variant(_e15e, r"reading: loss $1/2\lVert r\rVert ^{2}$", kind="reading", lhs=lambda i, c: _e15e_lhs(i, c, True))],
      controls=[control(_e15e, r"corrected with $d$ in place of $\min(d, d_{x})$",
                        rhs=lambda i, c: i.sU * 0 + 4 * i.KF.shape[-1] * _trSx(i, c),
                        dims=tc.DimSpace({"dx": (1, 3), "d": (2, 4), "c": (1, 3)}, where=lambda d: d["d"] > d["dx"]))])


def _xavier(inst, ctx, dx, d):
    return 1.0 / (dx + d), 1.0 / (d + dx)


def _ratio_violation(inst, ctx, init, sense):
    dx, d = inst.KL.shape[-1], inst.KF.shape[-1]
    vu, vw = init(dx, d)
    Si = _S_init(inst, ctx, ctx.scalar(vu), ctx.scalar(vw))
    Se = _S_end(inst, ctx)
    if sense == "le":
        return M.pos(Si - Se) / Se
    if sense == "ge":
        return M.pos(Se - Si) / Se
    return (Si - Se) / Se


def _one(v):
    return v * 0 + 0


_xav = tc.Statement(r"\text{Xavier: }S_{\rm init}\le S_{\rm end}", dims=AE_END_DIMS, sample=sample_ae,
                    lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1 / (dx + d), 1 / (d + dx)), "le"),
                    rhs=lambda i, c: _one(_ratio_violation(i, c, lambda dx, d: (1 / (dx + d), 1 / (d + dx)), "le")),
                    scale=lambda i, c: np.ones(i.KL.shape[0]), contexts=("float32", "float64"),
                    note=r"$S_{\mathrm{init}}/S_{\mathrm{end}} = \max(d, d_{x})/(d + d_{x})$ in [1/2, 1): '$S_{\mathrm{init}} \approx S_{\mathrm{end}}$' only when $d \gg d_{x}$ or $d \ll d_{x}$")
claim("eq15_xavier", r"Eq. 15 with Xavier init $(\sigma_{U}^{2} = 1/(d_{y}+d), \sigma_{W}^{2} = 1/(d+d_{x}))$: $S_{\mathrm{init}}$ is below $S_{\mathrm{end}}$",
      "5.2", "text after (15)", r"\text{Xavier: }S_{\rm init}\approx S_{\rm end}\ (S_{\rm init}\text{ slightly smaller})", _xav,
      controls=[control(_xav, r"$S_{\mathrm{init}} \ge S_{\mathrm{end}}$",
                        lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1 / (dx + d), 1 / (d + dx)), "ge"))])

def _kai_only_if(inst, ctx):
    """Violation of 'S_init <= S_end implies d = d_x' (d_y = d_x): (S_end - S_init)_+/S_end where d != d_x, else 0."""
    dx, d = inst.KL.shape[-1], inst.KF.shape[-1]
    v = _ratio_violation(inst, ctx, lambda dx_, d_: (1.0, 1 / dx_), "ge")
    return v * 0 if d == dx else v


KAI_DIMS = tc.DimSpace({"dx": (1, 4), "d": (1, 4), "c": (1, 2)}, where=lambda d: d["d"] == d["dx"])
_kai = tc.Statement(r"\text{Kaiming }(\sigma_U^2=1,\sigma_W^2=1/d_x),\ d=d_x=d_y:\ S_{\rm init}=S_{\rm end}",
                    dims=KAI_DIMS, sample=sample_ae,
                    lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1.0, 1 / dx), "eq"),
                    rhs=lambda i, c: _one(_ratio_violation(i, c, lambda dx, d: (1.0, 1 / dx), "eq")),
                    scale=lambda i, c: np.ones(i.KL.shape[0]), contexts=("float32", "float64"))
claim("eq15_kaiming", "Eq. 15, Kaiming init: 'no progressive flattening only when $d = d_{x} = d_{y}$'", "5.2",
      "text after (15)", r"\text{The only case when the Kaiming init. does not experience progressive flattening is when }d=d_{x}=d_{y}",
      _kai,
      variants=[variant(_kai, r"reading: strictly 'no flattening $\Rightarrow d = d_{x} = d_{y}$' (true: no flattening only at $d = d_{x} = 1$; $d \ge d_{x}$)",
                        kind="reading", latex=r"S_{\rm init}\le S_{\rm end}\Rightarrow d=d_x=d_y",
                        dims=AE_END_DIMS, lhs=lambda i, c: _kai_only_if(i, c), rhs=lambda i, c: _kai_only_if(i, c) * 0,
                        scale=lambda i, c: np.ones(i.KL.shape[0])),
                variant(_kai, r"corrected: fan-in Kaiming $\sigma_{U}^{2} = 1/d$", latex=r"\sigma_U^2=1/d,\ \sigma_W^2=1/d_x:\ S_{\rm init}=S_{\rm end}\iff d=d_x",
                        lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1 / d, 1 / dx), "eq"),
                        rhs=lambda i, c: _one(_ratio_violation(i, c, lambda dx, d: (1 / d, 1 / dx), "eq")))],
      controls=[control(_kai, r"fan-in Kaiming at $d \ne d_{x}$",
                        lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1 / d, 1 / dx), "eq"),
                        dims=tc.DimSpace({"dx": (1, 3), "d": (1, 4), "c": (1, 2)}, where=lambda d: d["d"] > d["dx"]))])

_kaif = tc.Statement(r"\text{Kaiming: }S_{\rm init}\ge S_{\rm end}", dims=AE_END_DIMS, sample=sample_ae,
                     lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1.0, 1 / dx), "ge"),
                     rhs=lambda i, c: _one(_ratio_violation(i, c, lambda dx, d: (1.0, 1 / dx), "ge")),
                     scale=lambda i, c: np.ones(i.KL.shape[0]), contexts=("float32", "float64"))
claim("eq15_kaiming_flat", r"Eq. 15, Kaiming init $(\sigma_{U}^{2} = 1, \sigma_{W}^{2} = 1/d_{x})$: $S_{\mathrm{init}} \ge S_{\mathrm{end}}$ (flattening)",
      "5.2", "text after (15)", r"\text{For Kaiming init.}\ S_{\rm init}\geq S_{\rm end}", _kaif,
      controls=[control(_kaif, r"$S_{\mathrm{init}} \le S_{\mathrm{end}}$", lhs=lambda i, c: _ratio_violation(i, c, lambda dx, d: (1.0, 1 / dx), "le"),
                        dims=tc.DimSpace({"dx": (1, 3), "d": (2, 4), "c": (1, 2)}, where=lambda d: d["d"] >= d["dx"]))])
