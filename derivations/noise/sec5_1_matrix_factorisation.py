"""Noise paper, Section 5.1: generalized matrix factorization (eq. 11, Proposition 5.1, the rank-1 case).

Eq. 11 (gradient flow conserves ``W W^T - U^T U``), Proposition 5.1 and its proof (Appendix B.4), the
analytically solvable rank-1 case and Appendix C's charges (eqs. 79-81).
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc

from . import model as M
from .model import MF_DIMS, S_BATCH, SIGMA2, claim, control, mf, sample_mf, variant

S = S_BATCH


def _fro(a):
    return np.sqrt(np.sum((a * a).reshape(a.shape[0], -1), axis=-1).astype(float))


# ==============================================================================================
# eq. 11: conservation of W W^T - U^T U under gradient flow (ODE, tolerance refined)
# ==============================================================================================
def _eq11_check(sign=-1.0):
    def check(rng, d):
        from scipy.integrate import solve_ivp  # here, not at import: `list` and `show` need no SciPy

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
        meas = []
        for tol in tols:
            sol = solve_ivp(rhs, (0, 1.0), z0, rtol=tol, atol=tol * 1e-2, method="DOP853")
            meas.append(Q(sol.y[:, -1]))
        # measured: the matrix at t = 1; predicted: its value at t = 0 (conserved).  A true conservation law leaves
        # the integrator's relative error, <= rtol per unit time (the floors).
        return tc.Refinement.of([f"rtol={t:g}" for t in tols], measured=meas, predicted=q0, floors=list(tols),
                                detail="gradient flow on t in [0, 1] (DOP853)")
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
    """At a constructed equilibrium W = +-U^T with mixed signs of U: measured [drift of every C_B / scale, signs of
    U_i (printed) or U_i W_i (corrected) relative to neuron 0], predicted [0, 1, ..., 1]; float32 then float64.

    The drift part vanishes to the working precision (floors ``100 eps``: the point is an equilibrium); the sign
    part is exact, so the conclusion's sign pattern decides."""
    def check(rng, d):
        h = d["d"]
        U = rng.standard_normal(h)
        U[0], U[1] = abs(U[0]) + 0.1, -abs(U[1]) - 0.1           # mixed signs
        s = rng.choice([-1.0, 1.0])
        W = s * U                                                  # W W^T = U^T U: every C_B = 0
        X = rng.standard_normal((1, d["n"]))
        Y = rng.standard_normal((1, d["n"]))
        if conclusion == "printed":
            signs = np.sign(U) * np.sign(U[0])
        else:
            signs = np.sign(U * W) * np.sign(U[0] * W[0])
        meas, res = [], []
        for ctx in (tc.FLOAT32, tc.FLOAT64):
            Uc, Wc = ctx.asarray(U[None, None, :]), ctx.asarray(W[None, :, None])
            Mm = M.mf_drift_matrix(Uc, Wc, ctx.asarray(X[None]), ctx.asarray(Y[None]), ctx.scalar(SIGMA2), parts=True)
            r = float(_fro(sum(Mm[:1]) + Mm[1] - Mm[2])[0] / M.scale_of(Mm)[0])
            res.append(r)
            meas.append(np.concatenate([[r], signs]))
        pred = np.concatenate([[0.0], np.ones(h)])
        return tc.Refinement.of(["float32", "float64"], measured=meas, predicted=pred,
                                floors=[tc.FLOAT32.eps * 100, tc.FLOAT64.eps * 100],
                                detail=f"equilibrium W = {s:+.0f} U^T with U = {np.round(U, 3).tolist()} (dC_B/dt = 0 for "
                                       f"all B: {res[0]:.1e} -> {res[1]:.1e}); relative signs {signs.tolist()}")
    return check


R1S_DIMS = tc.DimSpace({"d": (2, 4), "n": (3, 4)})
_r1s = tc.Statement(r"W_kW_l=U_kU_l\ \forall k,l\Rightarrow\mathrm{sgn}(U_i)=\mathrm{sgn}(U_j)", dims=R1S_DIMS,
                    check=_r1_sign_check("printed"))
claim("rank1_sign", r"Rank-1 case: at the noise equilibrium 'all neurons have the same $\operatorname{sign} \operatorname{sgn}(U_{i}) = \operatorname{sgn}(U_{j})$'", "5.1",
      "text after Prop. 5.1", r"{\rm sgn}(U_{i})={\rm sgn}(U_{j})", _r1s,
      variants=[variant(_r1s, r"corrected: $\operatorname{sgn}(U_{i} W_{i}) = \operatorname{sgn}(U_{j} W_{j}) (W = \pm U^{\top})$",
                        latex=r"\mathrm{sgn}(U_iW_i)=\mathrm{sgn}(U_jW_j)", check=_r1_sign_check("corrected"))],
      controls=[control(_r1s, "printed at a mixed-sign equilibrium (same check)", check=_r1_sign_check("printed"))])
