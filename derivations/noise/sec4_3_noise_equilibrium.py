"""Noise paper, Section 4.3: the noise equilibrium (eq. 9), the exponential map (eq. 8) and Theorem 4.3 (1)-(4).

The fixed point ``4 gamma C* = sigma^2 Tr[Sigma* A]`` (eq. 9) and the text before eq. 8, at the root of the
drift on the orbit; the exponential map (eq. 8 and its limit definition); Lemma B.1 and eqs. 35-37 of Appendix
B.2, on which Theorem 4.3 rests (they register here, before the theorem, as in the catalogue); Theorem 4.3,
parts 1-4, and the signs after Remark 4.4.  The proof's steps are :mod:`derivations.noise.appendix_b2`.

All quantities on the orbit ``theta_lambda = e^{lambda A} theta`` are recomputed from per-sample
gradients *at* ``theta_lambda`` (never through Lemma B.1 unless the claim is about something else).
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc

from . import model as M
from .model import (
    F64,
    FP_DIMS,
    GAMMA,
    MF_DIMS,
    S_BATCH,
    XTOLS,
    _drift_at,
    _mf_instance,
    _orbit,
    _orbit_point,
    _root,
    _sigma2,
    claim,
    control,
    counted,
    exp_A,
    mf,
    mf_absA,
    mf_eig,
    mf_nu,
    sample_mf,
    variant,
)

S = S_BATCH


# ----------------------------------------------------------------------------------------------
# fixed points on the orbit theta_lambda = e^{lambda A} theta (float64 root finding, tolerance refined)
# ----------------------------------------------------------------------------------------------
def _fixed_point_check(relation, gamma=GAMMA):
    """At lambda* (G(theta_lambda*) = 0, G from definitions), report ``relation(q, inst) -> (lhs, rhs, scale)``.

    The engine compares ``lhs`` (measured, e.g. ``4 gamma C(theta*)``) with ``rhs`` (the statement's prediction,
    e.g. ``sigma^2 Tr[Sigma(theta*) A]``) relative to ``scale``, the same two terms with ``|A|`` in place of ``A``
    (positive, and not vanishing at the root on FP9_DIMS).  Floors: a root located to ``xtol`` in lambda moves
    either side by at most ``2 max|nu| xtol`` relative to ``scale`` (``d/dlambda e^{2 lambda A}`` has norm
    ``<= 2 max|nu|`` relative to the ``|A|`` terms), plus float64 rounding of the traces (``1e3 eps``).
    """
    def check(rng, d):
        inst = _mf_instance(rng, d)
        nu_max = float(np.max(np.abs(inst.mu)))
        meas, pred, floors = [], [], []
        scale = None
        for xt in XTOLS:
            lam = _root(lambda l: _drift_at(inst, l, gamma), xt)
            lhs, rhs, scale = relation(_orbit_point(inst, lam), inst)
            meas.append(lhs)
            pred.append(rhs)
            floors.append(2 * nu_max * xt + 1e3 * np.finfo(float).eps)
        return tc.Refinement.of([f"xtol={x:g}" for x in XTOLS], measured=meas, predicted_levels=pred, floors=floors,
                                scale=scale, detail=f"lambda*={lam:.6g}; measured {meas[-1]:.6g}, predicted "
                                                    f"{pred[-1]:.6g}, scale {scale:.3g}")
    return check


def _eq9_relation(cg, cs, half=False):
    """``(cg gamma C, cs sigma^2 Tr[Sigma A], scale)``, scale = both terms with |A| in place of A (> 0)."""
    def rel(q, inst):
        h = 2 if half else 1
        C = float(M.quad(q.th, q.A)[0]) / h
        Sg = M.covariance(q.G)
        TrSA = float(M.tr(Sg @ q.A)[0])
        aA = mf_absA(inst, q, F64)
        s2 = _sigma2(inst)
        scale = abs(cg) * GAMMA * float(M.quad(q.th, aA)[0]) / h + abs(cs) * s2 * float(M.tr(Sg @ aA)[0])
        return cg * GAMMA * C, cs * s2 * TrSA, scale
    return rel


FP9_DIMS = tc.DimSpace({"dx": (1, 2), "d": (1, 2), "dy": (1, 2), "n": (3, 4)},
                       where=lambda d: d["dx"] + d["dy"] > 2)
"""Sizes for the relations between C* and Tr[Sigma* A] (eq. 9, Sec. 4.3 text).  d_x = d_y = 1 is excluded for every
d: there u, w are vectors, each B-charge's drift is proportional to the charge itself (noise.rank1_rate), so the
equilibrium has C* = 0 and Tr[Sigma* A] = 0 at once (both ~1e-13 of the scale) and any relation between them holds:
such instances are no evidence (issue 10)."""
_eq9 = tc.Statement(r"4\gamma C(\theta^*)=\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A],\ C=\tfrac12\theta^\top A\theta\ (\nabla C=J)",
                    dims=FP9_DIMS, check=_fixed_point_check(_eq9_relation(4, 1, half=True)),
                    note=r"$\theta^* = e^{\lambda^* A} \theta$ with $\lambda^*$ the root of the SDE drift of "
                         "the charge (computed from per-sample gradients), brentq tolerance refined; $C$ as Sec. 4 defines it")
claim("eq9", r"Noise equilibrium with weight decay: $4 \gamma C(\theta^*) = \sigma^{2} \operatorname{Tr}[\Sigma(\theta^*) A]$ ($C$ the antiderivative of $J$)",
      "4.3", "(9)", r"4\gamma C(\theta^{*})={\sigma^{2}}{\rm Tr}\left[\Sigma(\theta^{*})A\right]", _eq9,
      variants=[variant(_eq9, r"reading: $C = \theta^{\top} A \theta$ of eq. 6 with the printed constants", kind="reading",
                        latex=r"4\gamma C(\theta^*)=\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A],\ C=\theta^\top A\theta",
                        check=_fixed_point_check(_eq9_relation(4, 1))),
                variant(_eq9, r"reading: $C = \theta^{\top} A \theta$ of eq. 6: $2 \gamma C = \sigma^{2} \operatorname{Tr}[\Sigma A]$", kind="reading",
                        latex=r"2\gamma C(\theta^*)=\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A],\ C=\theta^\top A\theta",
                        check=_fixed_point_check(_eq9_relation(2, 1)))],
      controls=[control(_eq9, r"$\gamma C = \sigma^{2} \operatorname{Tr}[\Sigma A]$", check=_fixed_point_check(_eq9_relation(1, 1, half=True)))],
      assumptions=(r"$C$ defined by $\nabla C = J$ (Sec. 4); eq. 9 is the zero of eq. 7",))

_fp_text = tc.Statement(r"-\gamma C(\theta)+\eta\mathrm{Tr}[\Sigma(\theta)A]=0,\ C=\tfrac12\theta^\top A\theta", dims=FP9_DIMS,
                        check=_fixed_point_check(_eq9_relation(1, 2 * S, half=True)),
                        note=r"$C$ as Sec. 4 defines it; with eq. 6's $C = \theta^{\top} A \theta$ the printed relation fails too")
claim("sec4_3_stationary", r"Text of Sec. 4.3: the stationary point satisfies $-\gamma C + \eta \operatorname{Tr}[\Sigma A] = 0$", "4.3",
      "text before (8)", r"-\gamma C(\theta)+\eta{\rm Tr}[\Sigma(\theta)A]=0", _fp_text,
      variants=[variant(_fp_text, r"corrected: the zero of eq. 7, $-4 \gamma C + (\eta/(2S)) \operatorname{Tr}[\Sigma A] = 0$ (eq. 9)",
                        latex=r"-4\gamma C+\frac{\eta}{2S}\mathrm{Tr}[\Sigma A]=0,\ C=\tfrac12\theta^\top A\theta",
                        check=_fixed_point_check(_eq9_relation(4, 1, half=True))),
                variant(_fp_text, r"reading: $C = \theta^{\top} A \theta$ of eq. 6 with the printed constants", kind="reading",
                        check=_fixed_point_check(_eq9_relation(1, 2 * S)))],
      controls=[control(_fp_text, r"corrected with $\eta/S$", check=_fixed_point_check(_eq9_relation(4, 2, half=True)))],
      assumptions=(r"$\sigma^{2} = \eta/(2S)$ with $S = 2$ turns $\eta$ into $2 S \sigma^{2}$",))


# ==============================================================================================
# eq. 8 and its limit definition
# ==============================================================================================
def _eq8_rhs(inst, ctx, plus=False):
    p = mf(inst, ctx)
    lam = inst.lam
    if plus:
        e = M.sym(p.Q, ctx.exp(inst.mu * lam.reshape(-1, 1)))
        return M.mf_losses(p.U @ e, e @ p.W, inst.X, inst.Y)
    q = _orbit(inst, ctx, lam)
    return M.mf_losses(q.U, q.W, inst.X, inst.Y)


_eq8 = tc.Statement(r"\ell(\theta)=\ell(e^{\lambda A}\theta)", dims=MF_DIMS, sample=sample_mf,
                    lhs=lambda i, c: M.mf_losses(i.U, i.W, i.X, i.Y), rhs=_eq8_rhs,
                    note=r"double rotation, $e^{\lambda A} \theta = (U e^{\lambda B}, e^{-\lambda B} W)$, per-sample losses")
claim("eq8", r"The exponential map of the generator is a symmetry: $l(e^{\lambda A} \theta) = l(\theta)$", "4.3", "(8)",
      r"\ell(\theta)=\ell\left(e^{\lambda A}\theta\right)", _eq8,
      controls=[control(_eq8, r"$e^{\lambda B}$ on both factors", rhs=lambda i, c: _eq8_rhs(i, c, plus=True))])


def _eq8_limit_check(exponent=1.0):
    """``(I + rho A)^m theta`` with ``m = lambda/rho`` steps against ``e^{lambda A} theta``, m refined.

    Both are evaluated in A's eigenbasis (A = N diag(nu) N^T is symmetric, so ``(I + rho A)^m = N diag((1 + rho
    nu)^m) N^T`` exactly; ``(1 + rho nu)^m = exp(m log1p(rho nu))`` to float64 accuracy for any m), which lets m
    reach 1e8 without the ``m eps`` rounding of repeated products.  Floors: ``(1 + x/m)^m = e^x (1 - x^2/(2m) +
    O(m^-2))``, so a true limit leaves ``<= max(lambda^2 max nu^2, 1e-2)/m`` relative, plus 1e-13 of rounding.
    """
    def check(rng, d):
        inst = _mf_instance(rng, d)
        p = mf(inst, F64)
        N, _ = mf_eig(p, F64)
        nu = mf_nu(inst, p)
        lam = float(inst.lam[0])
        target = (exp_A(N, nu, lam, F64) @ p.th[:, :, None])[0, :, 0]
        c = max(lam ** 2 * float(np.max(nu ** 2)), 1e-2)
        ms = (1e2, 1e4, 1e6, 1e8)
        meas = []
        for m in ms:
            rho = lam / m
            k = round(m * exponent)
            powed = np.exp(k * np.log1p(rho * nu[0]))
            meas.append(N[0] @ (powed * (N[0].T @ p.th[0])))
        return tc.Refinement.of([f"m={m:g}" for m in ms], measured=meas, predicted=target,
                                floors=[c / m + 1e-13 for m in ms], detail=f"lambda={lam:.3g}, rho=lambda/m")
    return check


EXP_DIMS = tc.DimSpace({"dx": (1, 3), "d": (1, 3), "dy": (1, 3), "n": (3, 3)})
_eq8_lim = tc.Statement(r"e^{\lambda A}\theta=\lim_{\rho\to0}(I+\rho A)^{\lambda/\rho}\theta", dims=EXP_DIMS,
                        check=_eq8_limit_check(), note=r"error $O(\rho) = O(1/m)$, $m = \lambda/\rho$ steps")
claim("eq8_limit", r"The exponential map as the limit of $\lambda/\rho$ infinitesimal symmetry steps", "4.3",
      "definition before (8)", r"e^{\lambda A}\theta:=\lim_{\rho\to 0}(I+\rho A+o(\rho))^{\lambda/\rho}\theta", _eq8_lim,
      controls=[control(_eq8_lim, r"$2 \lambda/\rho$ steps", check=_eq8_limit_check(2.0))])


# ==============================================================================================
# Lemma B.1 and eqs. 34-37
# ==============================================================================================
def _eA(inst, ctx, lam_factor):
    p = mf(inst, ctx)
    N, _ = mf_eig(p, ctx)
    return exp_A(N, mf_nu(inst, p), inst.lam * lam_factor, ctx)


def _b1_lhs(inst, ctx):
    q = _orbit(inst, ctx, inst.lam)
    return M.tr(M.covariance(q.G) @ q.A)


def _b1_rhs(inst, ctx, factor=-2):
    p = mf(inst, ctx)
    return M.tr(_eA(inst, ctx, factor) @ M.covariance(p.G) @ p.A)


_b1 = tc.Statement(r"\mathrm{Tr}[\Sigma(\theta_\lambda)A]=\mathrm{Tr}[e^{-2\lambda A}\Sigma(\theta)A]", dims=MF_DIMS,
                   sample=sample_mf, lhs=_b1_lhs, rhs=_b1_rhs,
                   note=r"$\Sigma(\theta_{\lambda})$ recomputed from per-sample gradients at $\theta_{\lambda}$")
claim("lemma_b1", r"Lemma B.1: $\operatorname{Tr}[\Sigma(\theta_{\lambda}) A] = \operatorname{Tr}[e^{-2 \lambda A} \Sigma(\theta) A]$", "Appendix B.2",
      "Lemma B.1, (32)", r"{\rm Tr}[\Sigma(\theta_{\lambda})A]={\rm Tr}[e^{-2\lambda A}\Sigma(\theta)A]", _b1,
      aliases=("eq32", "eq39", "eq42"),
      controls=[control(_b1, r"$e^{+2 \lambda A}$", rhs=lambda i, c: _b1_rhs(i, c, 2)),
                control(_b1, r"$e^{-\lambda A}$", rhs=lambda i, c: _b1_rhs(i, c, -1))])


def _eq35_lhs(inst, ctx):
    return _orbit(inst, ctx, inst.lam).G


def _eq35_rhs(inst, ctx, factor=-1):
    p = mf(inst, ctx)
    return p.G @ _eA(inst, ctx, factor)


_eq35 = tc.Statement(r"e^{-\lambda A}\nabla_\theta\ell(\theta)=\nabla_{\theta_\lambda}\ell(\theta_\lambda)",
                     dims=MF_DIMS, sample=sample_mf, lhs=_eq35_lhs, rhs=_eq35_rhs)
claim("eq35", r"Per-sample gradients transform as $\nabla l(\theta_{\lambda}) = e^{-\lambda A} \nabla l(\theta)$ (eqs. 34-35, 102-103)",
      "Appendix B.2", "(35)", r"e^{-\lambda A}\nabla_{\theta}\ell(\theta)=\nabla_{\theta_{\lambda}}\ell(\theta_{\lambda})",
      _eq35, aliases=("eq34", "eq103"),
      controls=[control(_eq35, r"$e^{+\lambda A}$", rhs=lambda i, c: _eq35_rhs(i, c, 1))])


def _eq37_lhs(inst, ctx):
    return M.covariance(_orbit(inst, ctx, inst.lam).G)


def _eq37_rhs(inst, ctx, factor=-1):
    p = mf(inst, ctx)
    E = _eA(inst, ctx, factor)
    return E @ M.covariance(p.G) @ E


_eq37 = tc.Statement(r"\Sigma(\theta_\lambda)=e^{-\lambda A}\Sigma(\theta)e^{-\lambda A}", dims=MF_DIMS,
                     sample=sample_mf, lhs=_eq37_lhs, rhs=_eq37_rhs)
claim("eq37", r"The noise covariance transforms as $\Sigma(\theta_{\lambda}) = e^{-\lambda A} \Sigma(\theta) e^{-\lambda A}$",
      "Appendix B.2", "(37)", r"\Sigma(\theta_{\lambda})=e^{-\lambda A}\Sigma(\theta)e^{-\lambda A}", _eq37,
      controls=[control(_eq37, r"$e^{+\lambda A}$", rhs=lambda i, c: _eq37_rhs(i, c, 1))])


def _eq36_rhs(inst, ctx, centred=False):
    q = _orbit(inst, ctx, inst.lam)
    return M.covariance(q.G) if centred else M.second_moment(q.G)


_eq36 = tc.Statement(r"\Sigma(\theta_\lambda)=\mathbb{E}[\nabla\ell(\theta_\lambda)\nabla^\top\ell(\theta_\lambda)]",
                     dims=MF_DIMS, sample=sample_mf, lhs=_eq37_lhs, rhs=_eq36_rhs)
claim("eq36", r"Proof step (36): $\Sigma$ written as the uncentred second moment of the gradients", "Appendix B.2", "(36)",
      r"\Sigma(\theta_{\lambda})=\mathbb{E}[\nabla_{\theta_{\lambda}}\ell(\theta_{\lambda})\nabla_{\theta_{\lambda}}^{\top}\ell(\theta_{\lambda})]",
      _eq36,
      variants=[variant(_eq36, r"corrected: minus $\nabla L \nabla L^{\top}$ ($\Sigma$ is the covariance, Sec. 3)",
                        latex=r"\Sigma(\theta_\lambda)=\mathbb{E}[\nabla\ell\nabla^\top\ell]-\nabla L\nabla^\top L",
                        rhs=lambda i, c: _eq36_rhs(i, c, True))],
      controls=[tc.double(_eq36)],
      assumptions=(r"$\Sigma$ as defined in Sec. 3 (covariance); eq. 37 holds either way",))


# ==============================================================================================
# Theorem 4.3, part 1: G(theta_lambda) and -C(theta_lambda) decrease along the orbit
# ==============================================================================================
LAMS = tuple(np.linspace(-1.0, 1.0, 9))


def _G_C_on_grid(inst, ctx, gamma):
    Gs, Cs = [], []
    for lam in LAMS:
        q = _orbit(inst, ctx, lam)
        Gs.append(M.charge_drift(q.th, q.G, q.A, inst.eta, S, gamma))
        Cs.append(M.quad(q.th, q.A))
    return Gs, Cs


def _monotone_violation(inst, ctx, gamma, sign=1):
    """``sum pos(G_{k+1} - G_k) + pos(C_k - C_{k+1})`` (0 iff G decreases and C increases on the grid)."""
    Gs, Cs = _G_C_on_grid(inst, ctx, gamma)
    v = sum(M.pos(sign * (Gs[k + 1] - Gs[k])) + M.pos(sign * (Cs[k] - Cs[k + 1])) for k in range(len(LAMS) - 1))
    return v


def _monotone_scale(inst, ctx, gamma):
    Gs, Cs = _G_C_on_grid(inst, ctx, gamma)
    return sum(ctx.abs(g) for g in Gs) + sum(ctx.abs(c) for c in Cs)


P1_DIMS = tc.DimSpace({"dx": (1, 2), "d": (1, 3), "dy": (1, 2), "n": (3, 4)})


def _p1(gamma, name="as printed", kind="printed"):
    return tc.Statement(
        r"G(\theta_\lambda)\ \text{and}\ -C(\theta_\lambda)\ \text{decrease in}\ \lambda\ (\gamma=%g)" % gamma,
        name=name, kind=kind, dims=P1_DIMS, sample=sample_mf, lhs=lambda i, c: _monotone_violation(i, c, gamma),
        rhs=lambda i, c: _monotone_violation(i, c, gamma) * 0, scale=lambda i, c: _monotone_scale(i, c, gamma),
        contexts=("float32", "float64"),
        note=r"$\lambda$ on a 9-point grid in [-1, 1]; $G$ from exact minibatch enumeration at each "
             r"$\theta_{\lambda}$; residual = total increase of $G$ plus total decrease of $C$, over $\sum |G| + |C|$")


_thm43_p1 = _p1(GAMMA)
claim("thm4_3_p1", r"Theorem 4.3(1): $G(\theta_{\lambda})$ and $-C(\theta_{\lambda})$ are decreasing in $\lambda (\gamma \ge 0)$",
      "4.3", "Theorem 4.3 (1)", r"G(\theta_{\lambda})\text{ and }-C(\theta_{\lambda})\text{ are monotonically decreasing functions of }\lambda",
      _thm43_p1, variants=[_p1(0.0, r"reading: $\gamma = 0$", "reading")],
      controls=[control(_thm43_p1, "increasing", lhs=lambda i, c: _monotone_violation(i, c, GAMMA, -1))],
      assumptions=(r"$\gamma \ge 0$ (checked at 0.3 and 0)",))


# ==============================================================================================
# Theorem 4.3, parts 2-4
# ==============================================================================================
def _G_relation(gamma):
    def rel(q, inst):
        Sg = M.covariance(q.G)
        aA = mf_absA(inst, q, F64)
        s2 = _sigma2(inst)
        G = -4 * gamma * float(M.quad(q.th, q.A)[0]) + 2 * s2 * float(M.tr(Sg @ q.A)[0])
        scale = 4 * gamma * float(M.quad(q.th, aA)[0]) + 2 * s2 * float(M.tr(Sg @ aA)[0])
        return G, scale
    return rel


def _G_enum(inst, lam, gamma):
    """``G(theta_lam)`` from the exact minibatch enumeration of one SGD step (not the Ito formula used by ``_root``)."""
    q = _orbit_point(inst, lam)
    return float(M.charge_drift(q.th, q.G, q.A, inst.eta, S, gamma)[0])


def _bracket(fun, lam_max=32.0):
    """Adjacent grid points ``lo < hi`` with ``fun(lo) > 0 > fun(hi)`` on ``{0, +-0.5 * 2^k} within [-lam_max, lam_max]``.

    Returns ``((lo, hi) or None, {lambda: fun(lambda)})``.
    """
    k = int(np.log2(lam_max / 0.5))
    ls = sorted([0.0] + [sg * 0.5 * 2 ** j for j in range(k + 1) for sg in (-1, 1)])
    vals = {l: fun(l) for l in ls}
    for lo, hi in zip(ls[:-1], ls[1:]):
        if vals[lo] > 0 > vals[hi]:
            return (lo, hi), vals
    return None, vals


def _p2_check(gamma, offset=0.0):
    """Existence of lambda*: a sign change of G(theta_lambda) on a grid (or |G| -> 0 at one end: a root at
    +-infinity); the root is refined by brentq and G re-evaluated there by exact minibatch enumeration.

    Reports measured ``G(theta_lambda*)`` (enumeration) against the prediction 0 (``offset * scale`` for the
    control), with ``scale`` the |A|-magnitude of G's terms; floors as in noise.eq9 (``2 max|nu| xtol``).  Without a
    sign change on [-32, 32] the measured quantity is ``|G|`` at the grid's ends, relative to its largest value on
    the grid, which must vanish (a root at +-infinity) as the grid widens from 16 to 32.
    """
    def check(rng, d):
        from scipy.optimize import brentq  # here, not at import: `list` and `show` need no SciPy

        inst = _mf_instance(rng, d)
        fun = lambda l: _drift_at(inst, l, gamma)
        br, vals = _bracket(fun)
        if br is None:
            ends = sorted(vals)
            top = max(abs(v) for v in vals.values())
            meas = [min(abs(vals[16.0]), abs(vals[-16.0])) / top, min(abs(vals[ends[-1]]), abs(vals[ends[0]])) / top]
            return tc.Refinement.of(["|lambda|<=16", "|lambda|<=32"], measured=meas, predicted=0.0, scale=1.0,
                                    floors=[np.exp(-16 * 0.05), np.exp(-32 * 0.05)],
                                    detail="no sign change of G on lambda in [-32, 32]: |G| at the ends")
        nu_max = float(np.max(np.abs(inst.mu)))
        meas, floors, scale = [], [], None
        for xt in XTOLS:
            lam = brentq(fun, br[0], br[1], xtol=xt, rtol=4 * np.finfo(float).eps, maxiter=500)
            scale = _G_relation(gamma)(_orbit_point(inst, lam), inst)[1]
            meas.append(_G_enum(inst, lam, gamma))
            floors.append(2 * nu_max * xt + 1e3 * np.finfo(float).eps)
        return tc.Refinement.of([f"xtol={x:g}" for x in XTOLS], measured=meas, predicted=offset * scale, scale=scale,
                                floors=floors, detail=f"bracket [{br[0]:g}, {br[1]:g}], lambda*={lam:.6g}, "
                                                      f"G/scale = {meas[-1] / scale:.2e}")
    return check


_p2 = tc.Statement(r"\exists\lambda^*\in\mathbb{R}\cup\{\pm\infty\}:\ G(\theta_{\lambda^*})=0", dims=FP_DIMS,
                   check=_p2_check(GAMMA), note=r"sign change of $G(\theta_{\lambda})$ searched on a grid (the existence), root refined by brentq, $G$ re-evaluated there by exact minibatch enumeration")
claim("thm4_3_p2", r"Theorem 4.3(2): $G(\theta_{\lambda})$ has a zero $\lambda^*$ on every orbit", "4.3", "Theorem 4.3 (2)",
      r"\text{there exists a }\lambda^{*}\in\mathbb{R}\cup\{\pm\infty\}\text{ such that }G(\theta_{\lambda^{*}})=0", _p2,
      variants=[variant(_p2, r"reading: $\gamma = 0$", kind="reading", check=_p2_check(0.0))],
      controls=[control(_p2, "G = scale at the root (G by enumeration)",
                        check=_p2_check(GAMMA, offset=1.0))])


def _sign_changes(inst, gamma, lam0, width=3.0, k=25):
    lams = np.linspace(lam0 - width, lam0 + width, k)
    vals = np.array([_drift_at(inst, l, gamma) for l in lams])
    return int(np.sum(np.sign(vals[1:]) != np.sign(vals[:-1]))), vals


def _p3_check(gamma, require=1):
    """Counts on a grid around lambda*: [sign changes of G, non-decreasing steps of G] against [require, 0],
    on a 24-point and a refined 48-point grid of [lambda* - 3, lambda* + 3] (exact counts, see ``counted``)."""
    def check(rng, d):
        inst = _mf_instance(rng, d)
        lam = _root(lambda l: _drift_at(inst, l, gamma), 1e-12)
        meas = []
        for k in (24, 48):          # even: lambda* itself (G ~ 0, sign possibly 0) is not a grid point
            n, vals = _sign_changes(inst, gamma, lam, k=k)
            meas.append([n, int(np.sum(np.diff(vals) >= 0))])
        return counted(["24 points", "48 points"], meas, [require, 0],
                       detail=f"[sign changes, non-decreasing steps] of G on [lambda*-3, lambda*+3]: {meas[-1]}")
    return check


def _interpolation_instance(rng, d, dtype):
    """An interpolation minimum: Y = U W X exactly (Sigma = 0), gamma = 0, C = theta^T A theta != 0."""
    raw = sample_mf(rng, d, 1)
    U, W, X = (raw[k].astype(dtype) for k in ("U", "W", "X"))
    raw.update(U=U, W=W, X=X, Y=(U @ W @ X))
    ctx = tc.FLOAT32 if dtype == np.float32 else tc.FLOAT64
    return tc.Instance({k: (ctx.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in raw.items()}), ctx


def _p3_interp_check(rng, d):
    """The proof's hypothesis (Tr[Sigma A] != 0 or theta^T A theta != 0) at an interpolation minimum, gamma = 0.

    Measured: the number of grid points lambda (of LAMS) at which G(theta_lambda) vanishes to the working precision
    (|G|/scale <= 100 eps, float32 then float64), with theta^T A theta != 0 so the hypothesis holds; predicted: at
    most one zero, i.e. 1 (lambda* unique).  At an interpolation minimum Sigma = 0 on the whole orbit: every point
    is a zero.
    """
    seed = int(rng.integers(2**31))
    meas, Cs = [], []
    for dtype in (np.float32, np.float64):
        inst, ctx = _interpolation_instance(np.random.default_rng(seed), d, dtype)
        p = mf(inst, ctx)
        big = float(np.sum(p.th ** 2)) * float(np.sum(inst.X ** 2)) * float(np.sum(p.th ** 2)) / inst.X.shape[-1]
        zeros = 0
        for lam in LAMS:
            q = _orbit(inst, ctx, lam)
            g = abs(float(M.charge_drift(q.th, q.G, q.A, inst.eta, S, 0.0)[0])) / (_sigma2(inst) * big)
            zeros += int(g <= 100 * ctx.eps)
        meas.append(zeros)
        Cs.append(float(M.quad(p.th, p.A)[0]))
    return counted(["float32", "float64"], meas, 1.0 if abs(Cs[-1]) > 0 else float(len(LAMS)),
                   detail=f"G(theta_lambda) = 0 at {meas[-1]} of {len(LAMS)} grid points while theta^T A theta = "
                          f"{Cs[-1]:.3g}: lambda* not unique")


_p3 = tc.Statement(r"G(\theta_\cdot)\not\equiv0\Rightarrow\lambda^*\ \text{unique},\ G\ \text{strictly monotone}",
                   dims=FP_DIMS, check=_p3_check(GAMMA),
                   note=r"$G(\theta_{.}) \ne 0$ read as 'not identically zero in $\lambda'$")
claim("thm4_3_p3", r"Theorem 4.3(3): if $G(\theta_{.})$ is not identically 0, $\lambda^*$ is unique and $G$ strictly monotone",
      "4.3", "Theorem 4.3 (3)", r"\text{if }G(\theta_{\lambda})\neq 0,\ \lambda^{*}\text{ is unique and }G(\theta_{\lambda})\text{ is strictly monotonic}",
      _p3,
      variants=[variant(_p3, r"reading: $\gamma = 0$", kind="reading", check=_p3_check(0.0)),
                variant(_p3, r"reading: the proof's hypothesis $\operatorname{Tr}[\Sigma A] \ne 0$ or $\theta^{\top} A \theta \ne 0$", kind="reading",
                        latex=r"\mathrm{Tr}[\Sigma A]\ne0\ \vee\ \theta^\top A\theta\ne0\Rightarrow\lambda^*\ \text{unique}",
                        check=_p3_interp_check)],
      controls=[control(_p3, "two sign changes", check=_p3_check(GAMMA, require=2))],
      assumptions=(r"the proof's hypothesis fails at an interpolation minimum with $\gamma = 0$: $G$ is identically 0",))


def _p4_check(sign=1.0, drift=None):
    """IFT check of d lambda*/d theta; ``drift(inst, lam, gamma)`` defaults to the SDE drift of C."""
    drift = drift or _drift_at

    def check(rng, d):
        inst = _mf_instance(rng, d)
        p = mf(inst, F64)
        v = rng.standard_normal(p.th.shape[1])
        v /= np.linalg.norm(v)

        def at(th_vec):
            U, W = M.mf_unflat(th_vec[None], p.dy, p.d, p.dx)
            i2 = tc.Instance(dict(inst, U=U, W=W))
            return i2

        def lam_star(th_vec):
            i2 = at(th_vec)
            return _root(lambda l: drift(i2, l, GAMMA), 1e-14)

        th0 = p.th[0]
        l0 = lam_star(th0)
        hs = (1e-2, 1e-3, 1e-4)
        meas, pred = [], []
        for h in hs:
            fd = (lam_star(th0 + h * v) - lam_star(th0 - h * v)) / (2 * h)
            dJ_dth = (drift(at(th0 + h * v), l0, GAMMA) - drift(at(th0 - h * v), l0, GAMMA)) / (2 * h)
            dJ_dl = (drift(at(th0), l0 + h, GAMMA) - drift(at(th0), l0 - h, GAMMA)) / (2 * h)
            ift = -sign * dJ_dth / dJ_dl
            meas.append(fd)
            pred.append(ift)
        # central differences: relative error K h^2; brentq's xtol 1e-14 adds 1e-14/h.  K is each side's own
        # h^2 coefficient, estimated a posteriori from its two coarsest levels (Richardson: x(h) = x(0) + c h^2,
        # so c = (x(h1) - x(h2)) / (h1^2 - h2^2)), relative to its finest value, and never below 1 (the
        # unit constant used before).  It reads each side alone, never their difference, so a wrong
        # derivative formula (the minus-sign control) keeps its O(1) gap against these floors.
        K = max([1.0] + [abs(x[0] - x[1]) / ((hs[0] ** 2 - hs[1] ** 2) * max(abs(x[-1]), 1e-300))
                         for x in (meas, pred)])
        return tc.Refinement.of([f"h={h:g}" for h in hs], measured=meas, predicted_levels=pred,
                                floors=[K * h ** 2 + 1e-14 / h for h in hs],
                                detail=f"lambda*={l0:.5g}, d lambda*/dv = {meas[-1]:.6g} (finite differences), "
                                       f"{pred[-1]:.6g} (implicit function theorem)")
    return check


_p4 = tc.Statement(r"\partial_\theta\lambda^*=-\frac{\partial J/\partial\theta}{\partial J/\partial\lambda}",
                   dims=FP_DIMS, check=_p4_check(),
                   note=r"$\lambda^*(\theta \pm h v)$ by brentq (xtol 1e-14); central differences, error $O(h^{2})$")
claim("thm4_3_p4", r"Theorem 4.3(4): $\lambda^*(\theta)$ is differentiable, with the implicit-function derivative", "4.3",
      "Theorem 4.3 (4)", r"\lambda^{*}(\theta)\text{ is differentiable};\ \frac{\partial\lambda}{\partial\theta}=-\frac{\partial J/\partial\theta}{\partial J/\partial\lambda}",
      _p4, controls=[control(_p4, "without the minus sign", check=_p4_check(-1.0))])


def _signs_check(flip=False):
    """Signs [sgn(C - C*), sgn(dC/dt)] against [-sgn lambda*, sgn lambda*] (swapped for the control), with lambda*
    located to xtol 1e-6 and 1e-12 (exact signs, see ``counted``)."""
    def check(rng, d):
        inst = _mf_instance(rng, d)
        p = mf(inst, F64)
        G0 = _drift_at(inst, 0.0, GAMMA)
        meas, pred = [], []
        s = -1 if flip else 1
        for xt in (1e-6, 1e-12):
            lam = _root(lambda l: _drift_at(inst, l, GAMMA), xt)
            q = _orbit_point(inst, lam)
            dC = float(M.quad(p.th, p.A)[0] - M.quad(q.th, q.A)[0])
            meas.append([np.sign(dC), np.sign(G0)])
            pred.append([-s * np.sign(lam), s * np.sign(lam)])
        return counted(["xtol=1e-6", "xtol=1e-12"], meas, predicted_levels=pred, detail=f"lambda*={lam:.4g}, C-C*={dC:.3g}, dC/dt={G0:.3g}")
    return check


_signs = tc.Statement(r"\mathrm{sgn}(C-C^*)=-\mathrm{sgn}\lambda^*,\ \mathrm{sgn}\dot C=\mathrm{sgn}\lambda^*",
                      dims=FP_DIMS, check=_signs_check())
claim("remark4_4_signs", r"After Remark 4.4: $C - C^*$ has the sign of $-\lambda^*$, $\mathrm{d}C/\mathrm{d}t$ the sign of $\lambda^*$ (attractive fixed point)",
      "4.3", "text after Remark 4.4", r"C(\theta)-C^{*}\text{ has the opposite sign of }\lambda^{*},\ \tfrac{d}{dt}C(\theta)\text{ the same sign}",
      _signs, controls=[control(_signs, "signs swapped", check=_signs_check(True))])
