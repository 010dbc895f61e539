"""Noise paper, Section 5.2: the noise balance of matrix factorization (Theorem 5.2, eq. 14) and Appendix C.

Drift matrices: for a double-rotation charge ``C_B`` the drift is ``Tr[B M]`` for every symmetric
``B``, with ``M`` computed from per-sample gradients (``model.pair_drift_matrix``);
"dC_B/dt = 0 for all B" is ``M = 0``.  Global minima are constructed on *product* data sets
(``model.product_data``), where ``x`` and ``eps`` are exactly independent and the
least-squares solution is exactly the planted ``V``.

Theorem 5.2 (eq. 13) with its proof in Appendix C (eqs. 82-92); eq. 14 at the global minimum with independent
noise and its isotropic case.
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc
from theorem_check import sampling

from . import model as M
from .model import (
    GAMMA,
    MF_DIMS,
    S_BATCH,
    SIGMA2,
    _roots,
    _svd_factors,
    claim,
    control,
    sample_gmin,
    sample_mf,
    variant,
)

S = S_BATCH


# ==============================================================================================
# Theorem 5.2 (eq. 13), App. C (eqs. 82-92), eq. 14
# ==============================================================================================
def _gammas(X, R, gamma_term, centred):
    """``Gamma_W = E||r||^2 x x^T (- M^T M) + g I``, ``Gamma_U = E||x||^2 r r^T (- M M^T) + g I``."""
    n = X.shape[-1]
    r2 = np.sum(R * R, axis=-2)                  # (b, n)
    x2 = np.sum(X * X, axis=-2)
    GW = (X * r2[:, None, :]) @ M.T(X) / n
    GU = (R * x2[:, None, :]) @ M.T(R) / n
    if centred:
        Mm = R @ M.T(X) / n
        GW = GW - M.T(Mm) @ Mm
        GU = GU - Mm @ M.T(Mm)
    dx, dy = X.shape[-2], R.shape[-2]
    return GW + gamma_term * np.eye(dx, dtype=GW.dtype), GU + gamma_term * np.eye(dy, dtype=GU.dtype)


def _sqrtm(S_, inv=False):
    w, V = np.linalg.eigh(S_)
    f = 1 / np.sqrt(w) if inv else np.sqrt(w)
    return (V * f[..., None, :]) @ np.swapaxes(V, -1, -2)


def _balanced(Vp, d, rng_seed):
    """``U' = L sqrt(S) F``, ``W' = F^T sqrt(S) R`` from the SVD of ``V'`` (eq. 92), F with orthonormal rows."""
    L, s, R = np.linalg.svd(Vp)
    r = int(np.sum(s > s[0] * 1e-6)) if s.size else 0
    r = min(r, d)
    F = np.linalg.qr(np.random.default_rng(rng_seed).standard_normal((d, r)))[0].T.astype(Vp.dtype)
    Up = (L[:, :r] * np.sqrt(s[:r])) @ F
    Wp = F.T @ (np.sqrt(s[:r])[:, None] * R[:r])
    return Up, Wp


def _thm52_check(mode):
    """mode: 'printed' (2 gamma I, uncentred, general theta), 'gmin' (gamma = 0 at the least-squares minimum),
    'corrected' (centred Gammas, gamma/(2 sigma^2) I), 'control' (corrected with gamma I)."""
    def check(rng, d):
        dx, h, dy, n = d["dx"], d["d"], d["dy"], d["n"]
        X = rng.standard_normal((dx, n))
        Y = rng.standard_normal((dy, n))
        gamma = 0.0 if mode in ("gmin", "printed0") else GAMMA
        if mode == "gmin":
            V = (Y @ X.T) @ np.linalg.inv(X @ X.T)
            if h < min(dx, dy):
                h = min(dx, dy)
        else:
            V = rng.standard_normal((dy, min(h, dx, dy))) @ rng.standard_normal((min(h, dx, dy), dx))
        seed = int(rng.integers(2**31))
        meas, pred, scales = [], [], []
        for dtype, ctx in ((np.float32, tc.FLOAT32), (np.float64, tc.FLOAT64)):
            Xc, Yc, Vc = X.astype(dtype), Y.astype(dtype), V.astype(dtype)
            R = (Vc @ Xc - Yc)[None]
            if mode in ("printed", "printed0"):
                GW, GU = _gammas(Xc[None], R, 2 * gamma, centred=False)
            elif mode == "gmin":
                GW, GU = _gammas(Xc[None], R, 0.0, centred=False)
            elif mode == "corrected":
                GW, GU = _gammas(Xc[None], R, gamma / (2 * SIGMA2), centred=True)
            else:
                GW, GU = _gammas(Xc[None], R, gamma, centred=True)
            sW, sU = _sqrtm(GW[0]), _sqrtm(GU[0])
            Up, Wp = _balanced(sU @ Vc @ sW, h, seed)
            U = _sqrtm(GU[0], inv=True) @ Up
            W = Wp @ _sqrtm(GW[0], inv=True)
            parts = M.mf_drift_matrix(ctx.asarray(U[None]), ctx.asarray(W[None]), ctx.asarray(Xc[None]),
                                      ctx.asarray(Yc[None]), ctx.scalar(SIGMA2), gamma=gamma, parts=True)
            meas.append(parts[0] + parts[1])
            pred.append(parts[2])
            scales.append(float(M.scale_of(parts)[0]))
        cond = float(np.linalg.cond(GW[0]) * np.linalg.cond(GU[0]))
        floors = [tc.FLOAT32.eps * 100 * cond, tc.FLOAT64.eps * 100 * cond]
        # measured: the drift matrix's first two parts, predicted: the part they must cancel (dC_B/dt = 0 for every
        # B), relative to the parts' common scale; floors eps * 100 * cond(Gamma_W) cond(Gamma_U) of each precision
        return tc.Refinement(tuple(tc.Level(nm, m, p, f, sc, nm) for nm, m, p, f, sc in
                                   zip(["float32", "float64"], meas, pred, floors, scales)),
                             detail=f"dC_B/dt over all B at a point satisfying the condition (cond {cond:.1e}, "
                                    f"gamma={gamma})")
    return check


T52_DIMS = tc.DimSpace({"dx": (1, 3), "d": (1, 3), "dy": (1, 3), "n": (8, 10)})
_t52 = tc.Statement(r"W\Gamma_WW^\top=U^\top\Gamma_UU\Rightarrow\dot C_B=0\ \forall B,\ "
                    r"\Gamma_W=\mathbb{E}[\|r\|^2xx^\top]+2\gamma I,\ \Gamma_U=\mathbb{E}[\|x\|^2rr^\top]+2\gamma I",
                    dims=T52_DIMS, check=_thm52_check("printed"),
                    note=r"$\theta$ built from eq. 92 so that (13) holds exactly (random $V, \gamma = 0.3$, not a "
                         r"minimum); $\mathrm{d}C_{B}/\mathrm{d}t$ from per-sample gradients (Ito generator of eq. $1, \Sigma$ = covariance)")
claim("thm5_2", r"Theorem 5.2: $\mathrm{d}C_{B}/\mathrm{d}t = 0$ for all $B$ at $W \Gamma_{W} W^{\top} = U^{\top} \Gamma_{U} U$ (eq. 13)", "5.2", "Theorem 5.2, (13)",
      r"W\Gamma_{W}W^{\top}=U^{\top}\Gamma_{U}U,\ \Gamma_{W}=\mathbb{E}[\|r\|^{2}xx^{\top}]+2\gamma I,\ \Gamma_{U}=\mathbb{E}[\|x\|^{2}rr^{\top}]+2\gamma I",
      _t52, aliases=("eq13", "eq88", "eq89"),
      variants=[variant(_t52, r"reading: $\gamma = 0$ at the global minimum (least-squares $V$)", kind="reading",
                        check=_thm52_check("gmin")),
                variant(_t52, r"reading: $\gamma = 0$ at an arbitrary $\theta$ (no weight decay, not a minimum)", kind="reading",
                        check=_thm52_check("printed0")),
                variant(_t52, r"corrected: centred Gammas (minus $M^{\top} M, M M^{\top}, M = \mathbb{E}[r x^{\top}]$) and $\gamma/(2 \sigma^{2}) = \gamma S/\eta$",
                        latex=r"\Gamma_W=\mathbb{E}[\|r\|^2xx^\top]-M^\top M+\frac{\gamma}{2\sigma^2}I,\ "
                              r"\Gamma_U=\mathbb{E}[\|x\|^2rr^\top]-MM^\top+\frac{\gamma}{2\sigma^2}I",
                        check=_thm52_check("corrected"))],
      controls=[control(_t52, r"corrected with $\gamma I$", check=_thm52_check("control"))],
      assumptions=(r"loss (12) without 1/2; $\sigma^{2} = \eta/(2S) = 0.125$", r"$\Sigma$ = covariance of per-sample gradients"))


def _eq86(inst, ctx, form):
    """Sum_i Tr[Sigma_{u_i} B^{(k,l)}] and Sum_j Tr[Sigma_{w_j} B^{(k,l)}] over k, l (stacked): covariance blocks
    (lhs), the printed 2 w_k^T Sigma'_w w_l and 2 u_k^T Sigma'_u u_l (uncentred), or 8 (...) centred (corrected)."""
    U, W, X, Y = inst.U, inst.W, inst.X, inst.Y
    if form == "lhs":
        gW, gU = M.dln.per_sample_gradients([W, U], X, Y)
        n = X.shape[-1]
        dU = gU - np.sum(gU, axis=1)[:, None] / n
        dW = gW - np.sum(gW, axis=1)[:, None] / n
        # sum_i Tr[Sigma_{u_i} B] = Tr[B E[dG_U^T dG_U]], sum_j Tr[Sigma_{w_j} B] = Tr[B E[dG_W dG_W^T]]
        MU = np.sum(M.T(dU) @ dU, axis=1) / n
        MW = np.sum(dW @ M.T(dW), axis=1) / n
        # entry (k,l) of Tr[B^{kl} X] is X_kl + X_lk = 2 X_kl (X symmetric)
        return np.concatenate([2 * MU, 2 * MW], axis=1)
    R = U @ W @ X - Y
    if form == "printed":
        GW, GU = _gammas(X, R, 0, centred=False)
        return np.concatenate([2 * W @ GW @ M.T(W), 2 * M.T(U) @ GU @ U], axis=1)
    GW, GU = _gammas(X, R, 0, centred=True)
    return np.concatenate([8 * W @ GW @ M.T(W), 8 * M.T(U) @ GU @ U], axis=1)


_e86 = tc.Statement(r"\mathbb{E}\sum_i\mathrm{Tr}[\Sigma(\tilde u_i)B^{(k)}]=2w_k^\top\Sigma'_ww_l,\ "
                    r"\mathbb{E}\sum_j\mathrm{Tr}[\Sigma(\tilde w_j)B^{(k)}]=2u_k^\top\Sigma'_uu_l",
                    dims=MF_DIMS, sample=sample_mf, lhs=lambda i, c: _eq86(i, c, "lhs"), rhs=lambda i, c: _eq86(i, c, "printed"),
                    note=r"$\Sigma(u_{i})$, $\Sigma(w_{j})$: covariance blocks of the per-sample gradients of loss (12)")
claim("eq86", "Appendix C, eqs. 82-86: the $U$- and $W$-block noise traces against $B^{(k,l)}$", "Appendix C", "(82)-(86)",
      r"\mathbb{E}\sum_{i=1}^{d_{y}}{\rm Tr}\left[\Sigma(\tilde{u}_{i})B^{(k)}\right]=2w_{k}^{\top}\Sigma_{w}^{\prime}w_{l}", _e86,
      aliases=("eq82", "eq83", "eq84", "eq85"),
      variants=[variant(_e86, r"corrected: $8 w_{k}^{\top} \Gamma^{c}_{W} w_{l}$, $8 u_{k}^{\top} \Gamma^{c}_{U} u_{l}$ (factor 2 of the gradient, centred)",
                        latex=r"8w_k^\top\Gamma^c_Ww_l,\ 8u_k^\top\Gamma^c_Uu_l", rhs=lambda i, c: _eq86(i, c, "corrected"))],
      controls=[tc.negate(_e86)])


def _eq87(inst, ctx, form):
    """2 x (drift matrix) of the paper's C_B = Tr[U B U^T] - Tr[W^T B W]: entry (k,l) = dC_{B^(kl)}/dt."""
    U, W, X, Y = inst.U, inst.W, inst.X, inst.Y
    s2 = inst.eta / (2 * S)
    g = inst.gamma
    if form == "lhs":
        return -2 * M.mf_drift_matrix(U, W, X, Y, s2, gamma=g)
    R = U @ W @ X - Y
    gterm = 0
    if form == "printed":
        GW, GU = _gammas(X, R, 0, centred=False)
        return -2 * g * (M.T(U) @ U - W @ M.T(W)) + 2 * s2 * (W @ GW @ M.T(W) - M.T(U) @ GU @ U)
    GW, GU = _gammas(X, R, gterm, centred=True)
    return -8 * g * (M.T(U) @ U - W @ M.T(W)) + 16 * s2 * (W @ GW @ M.T(W) - M.T(U) @ GU @ U)


_e87 = tc.Statement(r"\dot C_{B^{(k,l)}}=-2\gamma(u_k^\top u_l-w_k^\top w_l)+2\eta(w_k^\top\Sigma'_ww_l-u_k^\top\Sigma'_uu_l)",
                    dims=MF_DIMS, sample=sample_mf, lhs=lambda i, c: _eq87(i, c, "lhs"),
                    rhs=lambda i, c: _eq87(i, c, "printed"),
                    note=r"$\eta$ of App. $C$ read as the noise scale $\sigma^{2}$ (the kindest reading); entries $(k,l)$ of a $d \times d$ matrix")
claim("eq87", "Appendix C, eq. 87: the drift of $C_{B^{(k,l)}}$ with weight decay", "Appendix C", "(87)",
      r"\dot{C}_{B^{(k,l)}}=-2\gamma(u_{k}^{\top}u_{l}-w_{k}^{\top}w_{l})+2\eta(w_{k}^{\top}\Sigma_{w}^{\prime}w_{l}-u_{k}^{\top}\Sigma_{u}^{\prime}u_{l})",
      _e87,
      variants=[variant(_e87, r"corrected: $-8 \gamma (\dots ) + 16 \sigma^{2} (w^{\top} \Gamma^{c}_{W} w - u^{\top} \Gamma^{c}_{U} u)$, centred",
                        latex=r"\dot C_{B^{(k,l)}}=-8\gamma(u_k^\top u_l-w_k^\top w_l)+16\sigma^2(w_k^\top\Gamma^c_Ww_l-u_k^\top\Gamma^c_Uu_l)",
                        rhs=lambda i, c: _eq87(i, c, "corrected"))],
      controls=[tc.negate(_e87)])


def _eq92_lhs(inst, ctx):
    F, R = M.T(inst.Fc), M.T(inst.Rc)
    Up = inst.L * ctx.sqrt(inst.s)[:, None, :] @ F
    Wp = M.T(F) @ (ctx.sqrt(inst.s)[:, :, None] * R)
    return np.concatenate([(Up @ Wp).reshape(Up.shape[0], -1), (Wp @ M.T(Wp) - M.T(Up) @ Up).reshape(Up.shape[0], -1)], 1)


def _eq92_rhs(inst, ctx, s_pow=1):
    V = (inst.L * inst.s[:, None, :] ** s_pow) @ M.T(inst.Rc)
    z = inst.Fc[:, :1, :1] * 0
    return np.concatenate([V.reshape(V.shape[0], -1), np.zeros((V.shape[0], inst.Fc.shape[-2] ** 2)) * z[:, 0]], 1)


E92_DIMS = tc.DimSpace({"dy": (1, 4), "dx": (1, 4), "r": (1, 3), "d": (1, 4)},
                       where=lambda d: d["r"] <= min(d["dx"], d["dy"], d["d"]))


def sample_eq92(rng, d, batch):
    """SVD factors ``L (dy x r)``, ``s (r,)``, ``R = Rc^T (r x dx)`` and ``F = Fc^T (r x d)`` with orthonormal
    columns/rows.  ``Rc``, ``Fc`` are stored untransposed: they are exact samples (orthonormal at every context's
    precision, mp50 included), which a transposed copy would not be."""
    return {"L": sampling.orthonormal_columns(rng, d["dy"], d["r"], batch=batch),
            "Rc": sampling.orthonormal_columns(rng, d["dx"], d["r"], batch=batch),
            "Fc": sampling.orthonormal_columns(rng, d["d"], d["r"], batch=batch),
            "s": rng.uniform(0.3, 2.0, size=(batch, d["r"]))}


_e92 = tc.Statement(r"U'=L\sqrt SF,\ W'=F^\top\sqrt SR\Rightarrow U'W'=V',\ W'W'^\top=U'^\top U'", dims=E92_DIMS,
                    sample=sample_eq92, lhs=_eq92_lhs, rhs=_eq92_rhs,
                    note=r"$L$, $R$, $F$ exact orthonormal samples (orthonormal at every precision, mp50 included)")
claim("eq92", r"Appendix C: the balanced factorisation $U' = L \sqrt{S} F$, $W' = F^{\top} \sqrt{S} R$ solves eqs. 90-91",
      "Appendix C", "(92)", r"U^{\prime}=L\sqrt{S}F;\ W^{\prime}=F^{\top}\sqrt{S}R", _e92, aliases=("eq90", "eq91"),
      controls=[control(_e92, "$U'W' = L S^{2} R$", rhs=lambda i, c: _eq92_rhs(i, c, 2))])


# ----------------------------------------------------------------------------------------------
# global minima on product data sets (exact independence of x and eps)
# ----------------------------------------------------------------------------------------------
def _eq14_point(inst, ctx, iso_form=False):
    """A global minimum satisfying W Sbar_x W^T = U^T Sbar_eps U, and its product data set."""
    rx, rxi, re, rei = _roots(inst, ctx)
    L, sp_, R = _svd_factors(inst, ctx, inst.sp.shape[-1])
    tx, te = M.tr(rx @ rx), M.tr(re @ re)
    F = M.T(M.cayley(inst.KU[0], ctx)[:, :, :sp_.shape[-1]])              # r x d, orthonormal rows
    Up = (L * ctx.sqrt(sp_)[:, None, :]) @ F                               # sqrt(Sbar_e) U
    Wp = M.T(F) @ (ctx.sqrt(sp_)[:, :, None] * R)                          # W sqrt(Sbar_x)
    U = rei @ Up * ctx.sqrt(te)[:, None, None]
    W = Wp @ rxi * ctx.sqrt(tx)[:, None, None]
    X, Y, E = M.product_data(rx, re, U @ W, ctx)
    return U, W, X, Y


GMIN2_DIMS = tc.DimSpace({"dx": (1, 3), "dy": (1, 3), "r": (1, 3), "e1": (0, 1)},
                         where=lambda d: d["r"] <= min(d["dx"], d["dy"]))


def _eq14_lhs(inst, ctx):
    U, W, X, Y = _eq14_point(inst, ctx)
    parts = M.mf_drift_matrix(U, W, X, Y, ctx.scalar(SIGMA2), parts=True)
    return parts[0] + parts[1] - parts[2]


def _eq14_scale(inst, ctx):
    U, W, X, Y = _eq14_point(inst, ctx)
    return M.scale_of(M.mf_drift_matrix(U, W, X, Y, ctx.scalar(SIGMA2), parts=True))


_e14 = tc.Statement(r"W\bar\Sigma_xW^\top=U^\top\bar\Sigma_\epsilon U\Rightarrow\dot C_B=0\ \forall B", dims=GMIN2_DIMS,
                    sample=sample_gmin, lhs=_eq14_lhs, rhs=lambda i, c: _eq14_lhs(i, c) * 0, scale=_eq14_scale,
                    note=r"product data set: $x$, $\varepsilon$ exactly independent; $U W = V$ is the least-squares solution")
claim("eq14", r"At the global minimum with independent noise: $W \bar\Sigma_{x} W^{\top} = U^{\top} \bar\Sigma_{\varepsilon} U$ is a noise equilibrium",
      "5.2", "(14)", r"W\bar{\Sigma}_{x}W^{\top}=U^{\top}\bar{\Sigma}_{\epsilon}U", _e14,
      controls=[control(_e14, r"unnormalised $W \Sigma_{x} W^{\top} = U^{\top} \Sigma_{\varepsilon} U$",
                        lhs=lambda i, c: _eq14_unnorm(i, c))],
      assumptions=(r"global minimum, $\gamma = 0$, $\varepsilon$ independent of $x$",))


def _eq14_unnorm(inst, ctx):
    rx, rxi, re, rei = _roots(inst, ctx)
    L, sp_, R = _svd_factors(inst, ctx, inst.sp.shape[-1])
    F = M.T(M.cayley(inst.KU[0], ctx)[:, :, :sp_.shape[-1]])
    U = rei @ ((L * ctx.sqrt(sp_)[:, None, :]) @ F)
    W = (M.T(F) @ (ctx.sqrt(sp_)[:, :, None] * R)) @ rxi
    X, Y, E = M.product_data(rx, re, U @ W, ctx)
    parts = M.mf_drift_matrix(U, W, X, Y, ctx.scalar(SIGMA2), parts=True)
    return parts[0] + parts[1] - parts[2]


ISO_DIMS = tc.DimSpace({"dx": (1, 3), "dy": (1, 3), "d": (1, 3), "cx": (1, 3), "ce": (1, 3)},
                       where=lambda d: d["d"] >= min(d["dx"], d["dy"]))


def sample_iso(rng, d, batch):
    out = {"KL": 0.6 * sampling.antisymmetric(rng, d["dy"], batch=batch),
           "KR": 0.6 * sampling.antisymmetric(rng, d["dx"], batch=batch),
           "KF": 0.6 * sampling.antisymmetric(rng, d["d"], batch=batch),
           "sp": rng.uniform(0.5, 2.0, (batch, min(d["dx"], d["dy"]))),
           "cx": float(d["cx"]) / 2, "ce": float(d["ce"]) / 2}
    return out


def _iso_point(inst, ctx, ratio=True):
    """U, W with U W = V (rank r) and W W^T / d_x = U^T U / d_y (ratio=False: W W^T = U^T U)."""
    b = inst.KL.shape[0]
    dy, dx, _d = inst.KL.shape[-1], inst.KR.shape[-1], inst.KF.shape[-1]
    r = inst.sp.shape[-1]
    L = M.cayley(inst.KL, ctx)[:, :, :r]
    R = M.T(M.cayley(inst.KR, ctx)[:, :, :r])
    F = M.T(M.cayley(inst.KF, ctx)[:, :, :r])
    k = ctx.sqrt(ctx.sqrt(ctx.scalar(dx) / ctx.scalar(dy))) if ratio else ctx.scalar(1)
    U = (L * ctx.sqrt(inst.sp)[:, None, :]) @ F / k
    W = M.T(F) @ (ctx.sqrt(inst.sp)[:, :, None] * R) * k
    rx = M.isotropic_root(dx, inst.cx, b, ctx)
    re = M.isotropic_root(dy, inst.ce, b, ctx)
    X, Y, E = M.product_data(rx, re, U @ W, ctx)
    return U, W, X, Y


def _iso_lhs(inst, ctx, ratio=True):
    U, W, X, Y = _iso_point(inst, ctx, ratio)
    parts = M.mf_drift_matrix(U, W, X, Y, ctx.scalar(SIGMA2), parts=True)
    return parts[0] + parts[1] - parts[2]


def _iso_scale(inst, ctx):
    U, W, X, Y = _iso_point(inst, ctx)
    return M.scale_of(M.mf_drift_matrix(U, W, X, Y, ctx.scalar(SIGMA2), parts=True))


_e14i = tc.Statement(r"WW^\top/d_x=U^\top U/d_y\Rightarrow\dot C_B=0\ \forall B\ (\text{isotropic }\Sigma_x,\Sigma_\epsilon)",
                     dims=ISO_DIMS, sample=sample_iso, lhs=_iso_lhs, rhs=lambda i, c: _iso_lhs(i, c) * 0, scale=_iso_scale)
claim("eq14_iso", r"Isotropic input and noise: the equilibrium is $W W^{\top} / d_{x} = U^{\top} U / d_{y}$", "5.2", "text after (14)",
      r"WW^{\top}/d_{x}=U^{\top}U/d_{y}", _e14i,
      controls=[control(_e14i, r"$W W^{\top} = U^{\top} U$ when $d_{x} \ne d_{y}$", lhs=lambda i, c: _iso_lhs(i, c, False),
                        dims=tc.DimSpace({"dx": (1, 3), "dy": (1, 3), "d": (1, 3), "cx": (1, 3), "ce": (1, 3)},
                                         where=lambda d: d["d"] >= min(d["dx"], d["dy"]) and d["dx"] != d["dy"]))])
