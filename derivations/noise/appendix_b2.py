"""Noise paper, Appendix B.2: the proof of Theorem 4.3 (eigenvalues of ``e^{lA} A e^{lA}``, ``I(lambda)``, eqs. 40-43).

Lemma B.1 and eqs. 35-37, which the theorem rests on, register with Theorem 4.3 in
:mod:`derivations.noise.sec4_3_noise_equilibrium` (the catalogue's order).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import sampling

from . import model as M
from .model import (
    F64,
    FP_DIMS,
    MF_DIMS,
    _lam_arr,
    _mf_instance,
    _orbit,
    claim,
    control,
    mf,
    mf_eig,
    mf_nu,
    sample_mf,
    variant,
)
from .sec4_3_noise_equilibrium import LAMS, _eA

# ==============================================================================================
# proof of Theorem 4.3: eigenvalues of e^{lA} A e^{lA}, the decomposition I(lambda), its derivative
# ==============================================================================================
EIG_DIMS = tc.DimSpace({"p": (2, 5)})


def sample_sym(rng, d, batch):
    return {"K": 0.7 * sampling.antisymmetric(rng, d["p"], batch=batch),
            "mu": rng.standard_normal((batch, d["p"])), "lam": rng.uniform(-1, 1, size=batch)}


def _eig_lhs(inst, ctx):
    Q = M.cayley(inst.K, ctx)
    E = M.sym(Q, ctx.exp(inst.mu * inst.lam[:, None]))
    return ctx.eigvalsh(E @ M.sym(Q, inst.mu) @ E)


def _eig_rhs(inst, ctx, k=1):
    return np.sort(inst.mu * ctx.exp(k * inst.lam[:, None] * inst.mu), axis=-1)


def _eig_derivation(k):
    a, l = sp.symbols("a lambda", real=True)
    return tc.Derivation([tc.Step(sp.exp(l * a) * a * sp.exp(l * a), a * sp.exp(k * l * a),
                                  "eigenvalue of $e^{lA} A e^{lA}$ on an eigenvector of A with eigenvalue a")],
                         general=True)


_eig = tc.Statement(r"\mathrm{spec}(e^{\lambda A}Ae^{\lambda A})=\{a\,e^{\lambda a}\}", dims=EIG_DIMS, sample=sample_sym,
                    lhs=_eig_lhs, rhs=_eig_rhs, derivation=lambda: _eig_derivation(1))
claim("thm4_3_eig", r"Proof of Thm 4.3: eigenvalues of $e^{\lambda A} A e^{\lambda A}$ (printed a $e^{\lambda a}$)",
      "Appendix B.2", "after (41)", r"\text{the eigenvalues of }Z_{+}\text{ are }a_{+}e^{\lambda a_{+}}", _eig,
      variants=[variant(_eig, r"corrected: a $e^{2 \lambda a}$", latex=r"\{a\,e^{2\lambda a}\}",
                        rhs=lambda i, c: _eig_rhs(i, c, 2), derivation=lambda: _eig_derivation(2))],
      controls=[control(_eig, r"a $e^{-2 \lambda a}$", rhs=lambda i, c: _eig_rhs(i, c, -2))])


def _I_lhs(inst, ctx, lam=None):
    """``-gamma C(theta_l) + eta Tr[Sigma(theta_l) A]`` from definitions at theta_l."""
    lam = inst.lam if lam is None else lam
    q = _orbit(inst, ctx, lam)
    return -inst.gamma * M.quad(q.th, q.A) + inst.eta * M.tr(M.covariance(q.G) @ q.A)


def _I_pre(inst, ctx, printed_theta=False):
    """Eigen-data of the proof: ``nu`` (eigenvalues of A), ``sigma_i^2 = n_i^T Sigma(theta) n_i``, ``theta~_i^2``."""
    p = mf(inst, ctx)
    N, _ = mf_eig(p, ctx)
    nu = mf_nu(inst, p)
    s2 = np.sum(N * (M.covariance(p.G) @ N), axis=1)
    t = np.sum(N * p.th[:, :, None], axis=1)                      # n_i^T theta
    tt = (t * t) ** 2 if printed_theta else t * t                  # theta~_i^2
    return nu, s2, tt


def _I_parts(inst, ctx, lam=None, printed_theta=False, pre=None):
    """``I_1, I_2`` of the proof with sigma_i^2 = n_i^T Sigma(theta) n_i and theta~ as printed or corrected."""
    lam = inst.lam if lam is None else lam
    lam = _lam_arr(lam, ctx, inst.U.shape[0])[:, None]
    nu, s2, tt = pre if pre is not None else _I_pre(inst, ctx, printed_theta)
    a = ctx.abs(nu)
    em, ep = ctx.exp(-2 * lam * a), ctx.exp(2 * lam * a)
    posm, negm = (nu > 0), (nu < 0)
    I1 = np.sum(posm * inst.eta * em * a * s2 + negm * inst.gamma * em * a * tt, axis=-1)
    I2 = np.sum(negm * inst.eta * ep * a * s2 + posm * inst.gamma * ep * a * tt, axis=-1)
    return I1, I2


def _I_rhs(inst, ctx, printed_theta=True):
    I1, I2 = _I_parts(inst, ctx, printed_theta=printed_theta)
    return I1 - I2


_I = tc.Statement(r"-\gamma\theta_\lambda^\top A\theta_\lambda+\eta\mathrm{Tr}[\Sigma(\theta_\lambda)A]=I_1(\lambda)-I_2(\lambda),"
                  r"\ \tilde\theta_i=(n_i^\top\theta)^2", dims=MF_DIMS, sample=sample_mf, lhs=_I_lhs, rhs=_I_rhs)
claim("thm4_3_i", r"Proof of Thm 4.3: the decomposition $I(\lambda) = I_{1} - I_{2}$ in the eigenbasis of A", "Appendix B.2",
      "I(lambda) display",
      r"-\gamma\theta_{\lambda}^{\top}A\theta_{\lambda}+\eta{\rm Tr}[\Sigma(\theta_{\lambda})A]=I_1(\lambda)-I_2(\lambda),\ \tilde{\theta}_{i}=(n_{i}^{\top}\theta_{i})^{2}",
      _I, variants=[variant(_I, r"corrected: $\tilde{\theta}_{i} = n_{i}^{\top} \theta$", latex=r"\tilde\theta_i=n_i^\top\theta",
                            rhs=lambda i, c: _I_rhs(i, c, False))],
      controls=[control(_I, "$I_{1} + I_{2}$", rhs=lambda i, c: sum(_I_parts(i, c, printed_theta=False)))])


def _I12_violation(inst, ctx, which_increasing):
    """Total violation of 'I_1 increasing' (printed) or 'I_1 decreasing' (corrected); I_2 increasing in both."""
    pre = _I_pre(inst, ctx)
    vals = [_I_parts(inst, ctx, lam=l, pre=pre) for l in LAMS]
    v = 0
    for k in range(len(LAMS) - 1):
        d1 = vals[k + 1][0] - vals[k][0]
        d2 = vals[k + 1][1] - vals[k][1]
        v = v + M.pos(-d1 if which_increasing else d1) + M.pos(-d2)
    return v


def _I12_scale(inst, ctx):
    pre = _I_pre(inst, ctx)
    vals = [_I_parts(inst, ctx, lam=l, pre=pre) for l in LAMS]
    return sum(a + b for a, b in vals)


_I1 = tc.Statement(r"I_1\ \text{strictly increasing},\ I_2\ \text{strictly increasing}", dims=MF_DIMS, sample=sample_mf,
                   lhs=lambda i, c: _I12_violation(i, c, True), rhs=lambda i, c: _I12_violation(i, c, True) * 0,
                   scale=_I12_scale)
claim("thm4_3_i1", "Proof of Thm 4.3: '$I_{1}$ is strictly monotonically increasing' (it decreases)", "Appendix B.2",
      "after I(lambda)", r"I_{1}\text{ is either a zero function or strictly monotonically increasing function with }I_{1}(-\infty)=+\infty,I_{1}(+\infty)=0",
      _I1, variants=[variant(_I1, "corrected: $I_{1}$ decreasing, $I_{2}$ increasing",
                             latex=r"I_1\ \text{decreasing},\ I_2\ \text{increasing}",
                             lhs=lambda i, c: _I12_violation(i, c, False),
                             rhs=lambda i, c: _I12_violation(i, c, False) * 0)],
      controls=[control(_I1, "$I_{2}$ decreasing too",
                        lhs=lambda i, c: _I12_violation(i, c, False) + _I12_violation_I2dec(i, c))])


def _I12_violation_I2dec(inst, ctx):
    pre = _I_pre(inst, ctx)
    vals = [_I_parts(inst, ctx, lam=l, pre=pre) for l in LAMS]
    return sum(M.pos(vals[k + 1][1] - vals[k][1]) for k in range(len(LAMS) - 1))


def _dI_check(sign=1.0):
    def check(rng, d):
        inst = _mf_instance(rng, d)
        lam = float(inst.lam[0])
        p = mf(inst, F64)
        N, _ = mf_eig(p, F64)
        nu = mf_nu(inst, p)[0]
        s2 = np.sum(N * (M.covariance(p.G) @ N), axis=1)[0]
        t = np.sum(N * p.th[:, :, None], axis=1)[0]
        a, e, g = np.abs(nu), inst.eta, inst.gamma
        em, ep = np.exp(-2 * lam * a), np.exp(2 * lam * a)
        printed = np.sum((nu > 0) * (e * em * a ** 2 * s2 + g * ep * a ** 2 * t ** 2)
                         + (nu < 0) * (g * em * a ** 2 * t ** 2 + e * ep * a ** 2 * s2))
        hs = (1e-2, 1e-3, 1e-4)
        meas = []
        for h in hs:
            fd = (float(_I_lhs(inst, F64, lam + h)[0]) - float(_I_lhs(inst, F64, lam - h)[0])) / (2 * h)
            meas.append(-fd / 2)
        # central differences of e^{+-2 lambda a}: relative error <= (2 max a)^2 h^2 / 6 (Taylor), float64
        # rounding of the difference quotient ~ 1e-15 / h (relative)
        c = (2 * float(np.max(a))) ** 2 / 6 + 1.0
        return tc.Refinement.of([f"h={h:g}" for h in hs], measured=meas, predicted=sign * printed,
                                floors=[c * h ** 2 + 1e-14 / h for h in hs],
                                detail=f"-dJ/(2 dlambda) = {meas[-1]:.6g} (finite differences), {printed:.6g} (printed)")
    return check


_dI = tc.Statement(r"-\frac{\partial J}{2\partial\lambda}=\eta\sum_{\mu_i>0}e^{-2\lambda|\mu_i|}|\mu_i|^2\sigma_i^2+\dots",
                   dims=FP_DIMS, check=_dI_check(),
                   note=r"$\tilde{\theta}_{i} = n_{i}^{\top} \theta$ (the reading under which $I(\lambda)$ holds, claim noise.thm4_3_i)")
claim("thm4_3_di", "Proof of Thm 4.3(4): -dJ/(2 dlambda) as a sum of four nonnegative terms", "Appendix B.2",
      "proof of (4)",
      r"-\frac{\partial J}{2\partial\lambda}=\eta\sum_{\mu_{i}>0}e^{-2\lambda|\mu_{i}|}|\mu_{i}|^{2}\sigma_{i}^{2}+\gamma\sum_{\mu_{i}<0}e^{-2\lambda|\mu_{i}|}|\mu_{i}|^{2}\tilde{\theta}_{i}^{2}+\eta\sum_{\mu_{i}<0}e^{2\lambda|\mu_{i}|}|\mu_{i}|^{2}\sigma_{i}^{2}+\gamma\sum_{\mu_{i}>0}e^{2\lambda|\mu_{i}|}|\mu_{i}|^{2}\tilde{\theta}_{i}^{2}",
      _dI, controls=[control(_dI, "sign flipped", check=_dI_check(-1.0))])


# eqs. 40, 43, 108: the charge and the regularisation term along the orbit
def _e43_lhs(inst, ctx):
    q = _orbit(inst, ctx, inst.lam)
    return M.quad(q.th, q.A)


def _e43_rhs(inst, ctx, k=2):
    p = mf(inst, ctx)
    return M.tr(p.th[:, :, None] * p.th[:, None, :] @ p.A @ _eA(inst, ctx, k))


_e43 = tc.Statement(r"\theta_\lambda^\top A\theta_\lambda=\mathrm{Tr}[\theta\theta^\top Ae^{2\lambda A}]", dims=MF_DIMS,
                    sample=sample_mf, lhs=_e43_lhs, rhs=_e43_rhs)
claim("eq43", r"The charge along the orbit: $C(\theta_{\lambda}) = \operatorname{Tr}[\theta \theta^{\top} A e^{2 \lambda A}]$ (eqs. 40, 43, 108)",
      "Appendix B.2", "(40), (43)", r"\gamma\theta_{\lambda}^{\top}A\theta_{\lambda}=\gamma{\rm Tr}[\theta\theta^{\top}Ae^{2\lambda A}]",
      _e43, aliases=("eq40", "eq108"), controls=[control(_e43, r"$e^{\lambda A}$", rhs=lambda i, c: _e43_rhs(i, c, 1))])
