"""Noise paper, Section 5 and Appendices C and E: matrix factorization, sharpness, deep linear nets.

Drift matrices: for a double-rotation charge ``C_B`` the drift is ``Tr[B M]`` for every symmetric
``B``, with ``M`` computed from per-sample gradients (``_noise_models.pair_drift_matrix``);
"dC_B/dt = 0 for all B" is ``M = 0``.  Global minima are constructed on *product* data sets
(``_noise_models.product_data``), where ``x`` and ``eps`` are exactly independent and the
least-squares solution is exactly the planted ``V``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

import theorem_check as tc
from theorem_check import sampling

from . import _noise_models as M
from ._noise_common import (ETA, GAMMA, MF_DIMS, S_BATCH, boolean, claim, control, mf, refine, sample_mf, variant)

S = S_BATCH
SIGMA2 = ETA / (2 * S)


def _fro(a):
    return np.sqrt(np.sum((a * a).reshape(a.shape[0], -1), axis=-1).astype(float))


# ==============================================================================================
# eq. 11: conservation of W W^T - U^T U under gradient flow (ODE, tolerance refined)
# ==============================================================================================
def _eq11_check(sign=-1.0):
    def check(rng, d):
        dx, h, dy, n = d["dx"], d["d"], d["dy"], d["n"]
        X, Y = rng.standard_normal((dx, n)), rng.standard_normal((dy, n))
        U0, W0 = rng.standard_normal((dy, h)) * 0.7, rng.standard_normal((h, dx)) * 0.7

        def rhs(t, z):
            U, W = z[:dy * h].reshape(dy, h), z[dy * h:].reshape(h, dx)
            R = U @ W @ X - Y
            gU = 2 * R @ (W @ X).T / n
            gW = 2 * U.T @ R @ X.T / n
            return -np.concatenate([gU.ravel(), gW.ravel()])

        def Q(z):
            U, W = z[:dy * h].reshape(dy, h), z[dy * h:].reshape(h, dx)
            return W @ W.T + sign * U.T @ U

        z0 = np.concatenate([U0.ravel(), W0.ravel()])
        q0 = Q(z0)
        tols = (1e-5, 1e-8, 1e-11)
        res = []
        for tol in tols:
            sol = solve_ivp(rhs, (0, 1.0), z0, rtol=tol, atol=tol * 1e-2, method="DOP853")
            res.append(np.linalg.norm(Q(sol.y[:, -1]) - q0) / (np.linalg.norm(q0) + np.linalg.norm(Q(sol.y[:, -1]))))
        return refine(res, tols, [f"rtol={t:g}" for t in tols], detail="gradient flow on t in [0, 1] (DOP853)")
    return check


_eq11 = tc.Statement(r"W_tW_t^\top-U_t^\top U_t=W_0W_0^\top-U_0^\top U_0", dims=MF_DIMS, check=_eq11_check())
claim("eq11", r"Gradient flow conserves $W W^{\top} - U^{\top} U$ (matrix form of the GD conservation law)", "5.1", "(11)",
      r"(W_{t}W^{\top}_{t}-U_{t}^{\top}U_{t})=(W_{0}W^{\top}_{0}-U^{\top}_{0}U_{0})", _eq11,
      controls=[control(_eq11, r"$W W^{\top} + U^{\top} U$", check=_eq11_check(+1.0))])


# ==============================================================================================
# Proposition 5.1 and its proof (App. B.4)
# ==============================================================================================
def _prop51_lhs(inst, ctx, half=False):
    """dC_B/dt under SGD (exact minibatch enumeration), C_B = Tr[U B U^T] - Tr[W^T B W] = theta^T A theta."""
    p = mf(inst, ctx)
    out = M.flow_drift(p.th, p.G, p.A) + M.sgd_noise_drift(p.th, p.G, p.A, inst.eta, S)
    return out / 2 if half else out


def _prop51_rhs(inst, ctx, factor=1):
    """``factor sigma^2 (sum_i Tr[Sigma_{u_i} B] - sum_j Tr[Sigma_{w_j} B])`` from the covariance blocks."""
    p = mf(inst, ctx)
    Sg = M.covariance(p.G)
    b, dy, d, dx = Sg.shape[0], p.dy, p.d, p.dx
    nU = dy * d
    SU = Sg[:, :nU, :nU].reshape(b, dy, d, dy, d)
    SW = Sg[:, nU:, nU:].reshape(b, d, dx, d, dx)
    tot = 0
    for i in range(dy):
        tot = tot + M.tr(SU[:, i, :, i, :] @ p.B)
    for j in range(dx):
        tot = tot - M.tr(SW[:, :, j, :, j] @ p.B)
    return factor * inst.eta / (2 * S) * tot


_p51 = tc.Statement(r"\dot C_B=\sigma^2\Big(\sum_i\mathrm{Tr}[\Sigma_{\tilde u_i}B]-\sum_j\mathrm{Tr}[\Sigma_{\tilde w_j}B]\Big)",
                    dims=MF_DIMS, sample=sample_mf, lhs=_prop51_lhs, rhs=_prop51_rhs,
                    note=r"LHS: exact minibatch enumeration of SGD $(\eta = 0.5, S = 2)$; $\sigma^{2} = \eta/(2S)$")
claim("prop5_1", r"Proposition 5.1: Noether flow of $C_{B} = \operatorname{Tr}[U B U^{\top}] - \operatorname{Tr}[W^{\top} B W]$", "5.1", "Proposition 5.1",
      r"\dot{C}_{B}(\theta_{t})=\sigma^{2}\left(\sum_{i=1}^{d_{2}}{\rm Tr}[\Sigma_{\tilde{u}_{i}}(\theta_{t})B]-\sum_{j=1}^{d_{0}}{\rm Tr}[\Sigma_{\tilde{w}_{j}}(\theta_{t})B]\right)",
      _p51,
      variants=[variant(_p51, r"corrected: $2 \sigma^{2} (\dots )$", latex=r"\dot C_B=2\sigma^2\Big(\sum_i\mathrm{Tr}[\Sigma_{\tilde u_i}B]-\sum_j\mathrm{Tr}[\Sigma_{\tilde w_j}B]\Big)",
                        rhs=lambda i, c: _prop51_rhs(i, c, 2)),
                variant(_p51, r"reading: $C_{B}$ with a factor 1/2 (or the appendix noise scale $\sigma^{2} = \eta/S$)", kind="reading",
                        lhs=lambda i, c: _prop51_lhs(i, c, True))],
      controls=[tc.negate(_p51), control(_p51, r"corrected with $4 \sigma^{2}$", rhs=lambda i, c: _prop51_rhs(i, c, 4))])


def _hessC_lhs(inst, ctx):
    """Hessian of C_B = Tr[U B U^T] - Tr[W^T B W] by exact unit second differences (C is quadratic)."""
    p = mf(inst, ctx)

    def C(th):
        U, W = M.mf_unflat(th, p.dy, p.d, p.dx)
        return M.tr(U @ p.B @ M.T(U)) - M.tr(M.T(W) @ p.B @ W)

    P = p.th.shape[1]
    c0 = C(p.th)
    unit = [p.th * 0 for _ in range(P)]
    for k in range(P):
        unit[k][:, k] = unit[k][:, k] + 1
    rows = []
    for k in range(P):
        ck = C(p.th + unit[k])
        rows.append(np.stack([C(p.th + unit[k] + unit[l]) - ck - C(p.th + unit[l]) + c0 for l in range(P)], axis=-1))
    return np.stack(rows, axis=1)


HESS_DIMS = tc.DimSpace({"dx": (1, 2), "d": (1, 3), "dy": (1, 2), "n": (3, 3)})
_hess = tc.Statement(r"\nabla^2_{\tilde u_i\tilde u_i}C=B,\ \nabla^2_{\tilde w_j\tilde w_j}C=-B", dims=HESS_DIMS,
                     sample=sample_mf, lhs=_hessC_lhs, rhs=lambda i, c: mf(i, c).A)
claim("prop5_1_hessian", "Proof of Prop. 5.1: Hessian blocks of $C_{B}$ (printed $B$ and $-B$)", "Appendix B.4", "proof of Prop. 5.1",
      r"\nabla^{2}_{\tilde{u}_{i},\tilde{u}_{j}}C=B\ (i=j),\quad\nabla^{2}_{\tilde{w}_{i},\tilde{w}_{j}}C=-B\ (i=j)", _hess,
      variants=[variant(_hess, "corrected: 2B and -2B", latex=r"\nabla^2C=\mathrm{diag}(2B,\dots,-2B,\dots)",
                        rhs=lambda i, c: 2 * mf(i, c).A)],
      controls=[tc.negate(_hess)])


# ==============================================================================================
# the analytically solvable rank-1 case and Appendix C's charges
# ==============================================================================================
def _charges_kl(inst, ctx):
    """Matrix of C_{B^{(k,l)}} = Tr[U B^{kl} U^T] - Tr[W^T B^{kl} W] over k, l (B^{kl} = E_kl + E_lk)."""
    U, W = inst.U, inst.W
    d = U.shape[2]
    E = np.eye(d)
    rows = []
    for k in range(d):
        row = []
        for l in range(d):
            Bkl = ctx.asarray((np.outer(E[k], E[l]) + np.outer(E[l], E[k]))[None])
            row.append(M.tr(U @ Bkl @ M.T(U)) - M.tr(M.T(W) @ Bkl @ W))
        rows.append(np.stack(row, axis=-1))
    return np.stack(rows, axis=1)


R1_DIMS = tc.DimSpace({"dx": (1, 1), "d": (2, 4), "dy": (1, 1), "n": (3, 4)})
_r1c = tc.Statement(r"C_{B}=W_kW_l-U_kU_l", dims=R1_DIMS, sample=sample_mf, lhs=_charges_kl,
                    rhs=lambda i, c: i.W @ M.T(i.W) - M.T(i.U) @ i.U)
claim("rank1_charge", "Rank-1 case: $C_{B} = W_{k} W_{l} - U_{k} U_{l}$ for $B = E_{kl} + E_{lk}$", "5.1", "text after Prop. 5.1",
      r"C_{B}(\theta)=W_{k}W_{l}-U_{k}U_{l}", _r1c,
      variants=[variant(_r1c, "corrected: $2 (U_{k} U_{l} - W_{k} W_{l})$", latex=r"C_B=2(U_kU_l-W_kW_l)",
                        rhs=lambda i, c: 2 * (M.T(i.U) @ i.U - i.W @ M.T(i.W)))],
      controls=[control(_r1c, "$U_{k} U_{l} - W_{k} W_{l}$", rhs=lambda i, c: M.T(i.U) @ i.U - i.W @ M.T(i.W))])

_apc = tc.Statement(r"C_{B^{(k,l)}}=u_k^\top u_l-w_k^\top w_l", dims=MF_DIMS, sample=sample_mf, lhs=_charges_kl,
                    rhs=lambda i, c: M.T(i.U) @ i.U - i.W @ M.T(i.W))
claim("appc_charge", r"Appendix C: $C_{B^{(k,l)}} = u_{k}^{\top} u_{l} - w_{k}^{\top} w_{l}$ (eqs. 79-81)", "Appendix C", "(79)-(81)",
      r"C_{B^{(k,l)}}={u}_{k}^{\top}u_{l}-{w}_{k}^{\top}w_{l}", _apc, aliases=("eq79", "eq80", "eq81"),
      variants=[variant(_apc, r"corrected: $2 (u_{k}^{\top} u_{l} - w_{k}^{\top} w_{l})$", latex=r"C_{B^{(k,l)}}=2(u_k^\top u_l-w_k^\top w_l)",
                        rhs=lambda i, c: 2 * (M.T(i.U) @ i.U - i.W @ M.T(i.W)))],
      controls=[tc.negate(_apc)])


def _r1_drifts(inst, ctx):
    """dC_{B^{kl}}/dt for every (k, l) (exact enumeration), as a d x d matrix."""
    p = mf(inst, ctx)
    d = p.d
    E = np.eye(d)
    out = []
    for k in range(d):
        row = []
        for l in range(d):
            Bkl = np.repeat(ctx.asarray((np.outer(E[k], E[l]) + np.outer(E[l], E[k]))[None]), p.U.shape[0], 0)
            A = M.mf_A(Bkl, p.dy, p.dx, ctx)
            row.append(M.flow_drift(p.th, p.G, A) + M.sgd_noise_drift(p.th, p.G, A, inst.eta, S))
        out.append(np.stack(row, axis=-1))
    return np.stack(out, axis=1)


def _r1_rate_rhs(inst, ctx, which="common"):
    C = _charges_kl(inst, ctx)
    if which in ("common", "common_plus"):      # one common *decay* rate: minus |the (0, 1) pair's ratio|
        D = _r1_drifts(inst, ctx)
        kappa = ctx.abs(D[:, 0, 1] / C[:, 0, 1])
        return (1 if which == "common_plus" else -1) * kappa[:, None, None] * C
    # explicit: -(eta/S) Var[2 r x] with the scalar residual r = U W x - y
    R = (inst.U @ inst.W @ inst.X - inst.Y)[:, 0, :] * inst.X[:, 0, :]
    n = R.shape[-1]
    g = 2 * R
    var = np.sum(g * g, -1) / n - (np.sum(g, -1) / n) ** 2
    f = -1 if which == "explicit" else 1
    return f * (inst.eta / S) * var[:, None, None] * C


_r1r = tc.Statement(r"\dot C_B=-\mathrm{Var}[r(\theta)]\,C_B\ \text{(one rate for every }k,l)", dims=R1_DIMS,
                    sample=sample_mf, lhs=_r1_drifts, rhs=_r1_rate_rhs, cond=1e3,
                    note=r"'for some random variable $r'$: the ratio $\mathrm{d}C_{B}/C_{B}$ must be one negative number (a decay rate) for all $k$, $l$")
claim("rank1_rate", r"Rank-1 case: $\mathrm{d}C_{B}/\mathrm{d}t = -\operatorname{Var}[r] C_{B}$ for every $B = E_{kl} + E_{lk}$ (exponential decay)", "5.1",
      "text after Prop. 5.1", r"\dot{C}_{B}(\theta_{t})=-{\rm Var}[r(\theta_{t})]C_{B}(\theta_{t})", _r1r,
      variants=[variant(_r1r, r"reading: explicit rate $(\eta/S) \operatorname{Var}[2 r x]$, $r = U W x - y$", kind="reading",
                        latex=r"\dot C_B=-\frac{\eta}{S}\mathrm{Var}[2rx]\,C_B=-8\sigma^2\mathrm{Var}[rx]C_B",
                        rhs=lambda i, c: _r1_rate_rhs(i, c, "explicit"))],
      controls=[control(_r1r, "rate with + sign", rhs=lambda i, c: _r1_rate_rhs(i, c, "plus")),
                control(_r1r, "common rate with + sign (same code path)", rhs=lambda i, c: _r1_rate_rhs(i, c, "common_plus"))])


def _r1_sign_check(conclusion):
    def check(rng, d):
        h = d["d"]
        U = rng.standard_normal(h)
        U[0], U[1] = abs(U[0]) + 0.1, -abs(U[1]) - 0.1           # mixed signs
        s = rng.choice([-1.0, 1.0])
        W = s * U                                                  # W W^T = U^T U: every C_B = 0
        X = rng.standard_normal((1, d["n"]))
        Y = rng.standard_normal((1, d["n"]))
        res = []
        for ctx in (tc.FLOAT32, tc.FLOAT64):
            Uc, Wc = ctx.asarray(U[None, None, :]), ctx.asarray(W[None, :, None])
            Mm = M.mf_drift_matrix(Uc, Wc, ctx.asarray(X[None]), ctx.asarray(Y[None]), ctx.scalar(SIGMA2), parts=True)
            res.append(float(_fro(sum(Mm[:1]) + Mm[1] - Mm[2])[0] / M.scale_of(Mm)[0]))
        eq = tc.decide_refinement(res, [tc.FLOAT32.eps * 100, tc.FLOAT64.eps * 100])
        if conclusion == "printed":
            ok = bool(np.all(np.sign(U) == np.sign(U[0])))
        else:
            ok = bool(np.all(np.sign(U * W) == np.sign(U[0] * W[0])))
        if eq is not tc.Outcome.HOLDS:
            return boolean(False, f"constructed point is not an equilibrium (residuals {res})")
        return boolean(ok, f"equilibrium W = {s:+.0f} U^T with U = {np.round(U, 3).tolist()} (dC_B/dt = 0 for all B: "
                       f"{res[0]:.1e} -> {res[1]:.1e})")
    return check


R1S_DIMS = tc.DimSpace({"d": (2, 4), "n": (3, 4)})
_r1s = tc.Statement(r"W_kW_l=U_kU_l\ \forall k,l\Rightarrow\mathrm{sgn}(U_i)=\mathrm{sgn}(U_j)", dims=R1S_DIMS,
                    check=_r1_sign_check("printed"))
claim("rank1_sign", r"Rank-1 case: at the noise equilibrium 'all neurons have the same $\operatorname{sign} \operatorname{sgn}(U_{i}) = \operatorname{sgn}(U_{j})$'", "5.1",
      "text after Prop. 5.1", r"{\rm sgn}(U_{i})={\rm sgn}(U_{j})", _r1s,
      variants=[variant(_r1s, r"corrected: $\operatorname{sgn}(U_{i} W_{i}) = \operatorname{sgn}(U_{j} W_{j}) (W = \pm U^{\top})$",
                        latex=r"\mathrm{sgn}(U_iW_i)=\mathrm{sgn}(U_jW_j)", check=_r1_sign_check("corrected"))],
      controls=[control(_r1s, "printed at a mixed-sign equilibrium (same check)", check=_r1_sign_check("printed"))])


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
        res = []
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
            Mm = parts[0] + parts[1] - parts[2]
            res.append(float(_fro(Mm)[0] / M.scale_of(parts)[0]))
        cond = float(np.linalg.cond(GW[0]) * np.linalg.cond(GU[0]))
        floors = [tc.FLOAT32.eps * 100 * cond, tc.FLOAT64.eps * 100 * cond]
        return refine(res, floors, ["float32", "float64"], detail=f"|dC_B/dt| over all B at a point satisfying the "
                      f"condition (cond {cond:.1e}, gamma={gamma})")
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
    Up = inst.L * ctx.sqrt(inst.s)[:, None, :] @ inst.F
    Wp = M.T(inst.F) @ (ctx.sqrt(inst.s)[:, :, None] * inst.R)
    return np.concatenate([(Up @ Wp).reshape(Up.shape[0], -1), (Wp @ M.T(Wp) - M.T(Up) @ Up).reshape(Up.shape[0], -1)], 1)


def _eq92_rhs(inst, ctx, s_pow=1):
    V = (inst.L * inst.s[:, None, :] ** s_pow) @ inst.R
    z = inst.F[:, :1, :1] * 0
    return np.concatenate([V.reshape(V.shape[0], -1), np.zeros((V.shape[0], inst.F.shape[-1] ** 2)) * z[:, 0]], 1)


E92_DIMS = tc.DimSpace({"dy": (1, 4), "dx": (1, 4), "r": (1, 3), "d": (1, 4)},
                       where=lambda d: d["r"] <= min(d["dx"], d["dy"], d["d"]))


def sample_eq92(rng, d, batch):
    """SVD factors ``L (dy x r)``, ``s (r,)``, ``R (r x dx)`` and ``F (r x d)`` with orthonormal columns/rows."""
    return {"L": sampling.orthonormal_columns(rng, d["dy"], d["r"], batch=batch),
            "R": np.swapaxes(sampling.orthonormal_columns(rng, d["dx"], d["r"], batch=batch), -1, -2),
            "F": np.swapaxes(sampling.orthonormal_columns(rng, d["d"], d["r"], batch=batch), -1, -2),
            "s": rng.uniform(0.3, 2.0, size=(batch, d["r"]))}


_e92 = tc.Statement(r"U'=L\sqrt SF,\ W'=F^\top\sqrt SR\Rightarrow U'W'=V',\ W'W'^\top=U'^\top U'", dims=E92_DIMS,
                    sample=sample_eq92, lhs=_eq92_lhs, rhs=_eq92_rhs, contexts=("float32", "float64"),
                    note="L, R, F orthonormal to float64 precision (QR), so the mp50 level is not used")
claim("eq92", r"Appendix C: the balanced factorisation $U' = L \sqrt{S} F$, $W' = F^{\top} \sqrt{S} R$ solves eqs. 90-91",
      "Appendix C", "(92)", r"U^{\prime}=L\sqrt{S}F;\ W^{\prime}=F^{\top}\sqrt{S}R", _e92, aliases=("eq90", "eq91"),
      controls=[control(_e92, "$U'W' = L S^{2} R$", rhs=lambda i, c: _eq92_rhs(i, c, 2))])


# ----------------------------------------------------------------------------------------------
# global minima on product data sets (exact independence of x and eps)
# ----------------------------------------------------------------------------------------------
def sample_gmin(rng, d, batch):
    """Orthogonal frames (Cayley data) and spectra for Sigma_x, Sigma_eps, the SVD of V' and hidden frames."""
    dx, dy, r = d["dx"], d["dy"], d["r"]
    D = d.get("D", 2)
    widths = [dx] + [r + d.get(f"e{i}", 0) for i in range(1, D)] + [dy]
    out = {"Kx": 0.6 * sampling.antisymmetric(rng, dx, batch=batch), "sx": rng.uniform(0.3, 2.0, (batch, dx)),
           "Ke": 0.6 * sampling.antisymmetric(rng, dy, batch=batch), "se": rng.uniform(0.3, 2.0, (batch, dy)),
           "KL": 0.6 * sampling.antisymmetric(rng, dy, batch=batch), "KR": 0.6 * sampling.antisymmetric(rng, dx, batch=batch),
           "sp": rng.uniform(0.5, 2.0, (batch, r)),
           "KU": [0.6 * sampling.antisymmetric(rng, widths[i], batch=batch) for i in range(1, D)],
           "Bs": [sampling.symmetric(rng, widths[i], batch=batch) for i in range(1, D)]}
    return out


def _roots(inst, ctx, iso=False):
    """``sqrt(Sigma_x)``, its inverse, ``sqrt(Sigma_eps)``, its inverse (symmetric roots, in ctx)."""
    Qx, Qe = M.cayley(inst.Kx, ctx), M.cayley(inst.Ke, ctx)
    sx, se = inst.sx, inst.se
    return (M.sym(Qx, ctx.sqrt(sx)), M.sym(Qx, 1 / ctx.sqrt(sx)), M.sym(Qe, ctx.sqrt(se)), M.sym(Qe, 1 / ctx.sqrt(se)))


def _svd_factors(inst, ctx, r):
    L = M.cayley(inst.KL, ctx)[:, :, :r]
    R = M.T(M.cayley(inst.KR, ctx)[:, :, :r])
    return L, inst.sp, R


def _eq14_point(inst, ctx, iso_form=False):
    """A global minimum satisfying W Sbar_x W^T = U^T Sbar_eps U, and its product data set."""
    rx, rxi, re, rei = _roots(inst, ctx)
    L, sp_, R = _svd_factors(inst, ctx, inst.sp.shape[-1])
    tx, te = M.tr(rx @ rx), M.tr(re @ re)
    d = inst.KU[0].shape[-1]
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
    dy, dx, d = inst.KL.shape[-1], inst.KR.shape[-1], inst.KF.shape[-1]
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
    dy, d, dx = U.shape[1], U.shape[2], W.shape[2]
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
    """``E[S]`` over Gaussian init: ``sum_j var_j S(e_j)`` (S is a quadratic form in theta), exact."""
    dx, d = inst.KL.shape[-1], inst.KF.shape[-1]
    X, Y, E = _ae_data(inst, ctx, dx)
    b = X.shape[0]
    P = dx * d * 2
    tot = 0
    for k in range(P):
        th = ctx.asarray(np.zeros((b, P)))
        th[:, k] = th[:, k] + 1
        U, W = M.mf_unflat(th, dx, d, dx)
        var = var_U if k < dx * d else var_W
        tot = tot + var * _trace_hessian(U, W, X, Y)
    return tot


def _S_end(inst, ctx):
    """S at the noise-equilibrium global minimum U W = I, W W^T = U^T U (d >= d_x)."""
    dx, d = inst.KL.shape[-1], inst.KF.shape[-1]
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
                     lhs=_e15i_lhs, rhs=_e15i_rhs, contexts=("float32", "float64"),
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
                     lhs=_e15e_lhs, rhs=_e15e_rhs, contexts=("float32", "float64"),
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

from . import _noise_dln  # noqa: E402,F401  (Theorem 5.4, Theorem E.1, Section 5.3/5.4)
