"""Noise paper, Section 5.4: approximate symmetry and the bias of SGD (eqs. 20-23)."""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc

from . import model as M
from .model import MF_DIMS, S_BATCH, claim, control, mf, sample_mf, variant

S = S_BATCH


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
        _inst = tc.Instance(X=X[None], Y=Y[None], K=K[None], mu=np.zeros((1, h)))
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
        grad2 = 2 * kap * (th - c)
        delta = rng.standard_normal(P)
        delta /= np.linalg.norm(delta)
        scale = zeta * (np.linalg.norm(2 * kap * (A @ th)) + np.linalg.norm(A @ grad2))
        # f(theta* + t delta) is a quadratic polynomial in t, so the difference quotient is exactly
        # f'(0) + t q with q = zeta (2 kap delta)^T A delta: a true first-order term leaves t |q| / scale
        # (floors 2 t |q| / scale).  Evaluated at mp50 (the inputs' float64 values exactly), so t can go to 1e-8.
        q = abs(zeta * float((2 * kap * delta) @ (A @ delta)))
        ctx = tc.MP50
        with ctx.active():
            th_m, c_m, kap_m, A_m, de_m = (ctx.asarray(v) for v in (th, c, kap, A, delta))
            z = ctx.scalar(zeta)

            def f(t):
                return z * np.dot(2 * kap_m * (t - c_m), np.dot(A_m, t))

            g2_m = 2 * kap_m * (th_m - c_m)
            lin = z * np.dot(2 * kap_m * de_m, np.dot(A_m, th_m))              # zeta delta^T H A theta*
            if mode == "only_grad":
                lin = z * np.dot(de_m, np.dot(A_m, g2_m))
            if mode == "corrected":
                lin = lin + z * np.dot(de_m, np.dot(A_m, g2_m))
            ts = (1e-2, 1e-4, 1e-6, 1e-8)
            f0 = f(th_m)
            meas = [(f(th_m + ctx.scalar(t) * de_m) - f0) / ctx.scalar(t) for t in ts]
        c2 = max(2 * q / scale, 1e-6)
        return tc.Refinement.of([f"t={t:g}" for t in ts], measured=meas, predicted=lin, scale=scale,
                                floors=[c2 * t + 1e-45 for t in ts], precision="mp50",
                                detail=f"|grad l_2(theta*)| = {np.linalg.norm(grad2):.3g}")
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
