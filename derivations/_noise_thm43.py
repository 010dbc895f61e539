"""Noise paper: the exponential map (eq. 8), Lemma B.1 (eqs. 32-39) and Theorem 4.3 with its proof steps.

All quantities on the orbit ``theta_lambda = e^{lambda A} theta`` are recomputed from per-sample
gradients *at* ``theta_lambda`` (never through Lemma B.1 unless the claim is about something else).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import brentq

import theorem_check as tc
from theorem_check import sampling

from . import _noise_models as M
from ._noise_common import (ETA, GAMMA, MF_DIMS, S_BATCH, boolean, claim, control, exp_A, mf, mf_absA, mf_eig,
                            mf_nu, refine, sample_mf, variant)
from .noise import F64, FP_DIMS, XTOLS, _drift_at, _mf_instance, _orbit_point, _root, _sigma2

S = S_BATCH


def _lam_arr(lam, ctx, b):
    """``lam`` (a Python float or a context array) as a context array of shape (b,)."""
    if isinstance(lam, np.ndarray) and (lam.dtype == object or not ctx.is_mp):
        return np.broadcast_to(lam, (b,)) if lam.dtype == object else ctx.asarray(np.broadcast_to(lam, (b,)))
    return ctx.asarray(np.full(b, float(lam)))


def _orbit(inst, ctx, lam):
    """``mf`` namespace at ``e^{lam A} theta``; ``lam`` scalar or (b,)."""
    p = mf(inst, ctx)
    lam = _lam_arr(lam, ctx, p.U.shape[0])
    U, W = M.mf_orbit(p.U, p.W, p.Q, inst.mu, lam, ctx)
    return mf(inst, ctx, U, W)


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
    def check(rng, d):
        inst = _mf_instance(rng, d)
        p = mf(inst, F64)
        N, _ = mf_eig(p, F64)
        nu = mf_nu(inst, p)
        lam = float(inst.lam[0])
        target = (exp_A(N, nu, lam, F64) @ p.th[:, :, None])[0, :, 0]
        res, ms = [], (10, 100, 1000, 10000)
        for m in ms:
            rho = lam / m
            step = np.eye(p.A.shape[-1]) + rho * p.A[0]
            v = np.linalg.matrix_power(step, int(round(m * exponent))) @ p.th[0]
            res.append(np.linalg.norm(v - target) / np.linalg.norm(target))
        return refine(res, [1.0 / m for m in ms], [f"m={m}" for m in ms], detail=f"lambda={lam:.3g}, rho=lambda/m")
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


def _p2_check(gamma):
    """Existence of lambda*: a sign change of G(theta_lambda) on a grid (or |G| -> 0 at one end: a root at
    +-infinity); the root is refined by brentq and G re-evaluated there by exact minibatch enumeration."""
    def check(rng, d):
        inst = _mf_instance(rng, d)
        fun = lambda l: _drift_at(inst, l, gamma)
        br, vals = _bracket(fun)
        if br is None:
            ends = sorted(vals)
            at_inf = abs(vals[ends[-1]]) < 1e-6 * abs(vals[ends[-2]]) or abs(vals[ends[0]]) < 1e-6 * abs(vals[ends[1]])
            return boolean(at_inf, f"no sign change of G on lambda in [-32, 32]; root at +-infinity: {at_inf}")
        res = []
        for xt in XTOLS:
            lam = brentq(fun, br[0], br[1], xtol=xt, rtol=4 * np.finfo(float).eps, maxiter=500)
            sc = _G_relation(gamma)(_orbit_point(inst, lam), inst)[1]
            res.append(abs(_G_enum(inst, lam, gamma)) / sc)
        return refine(res, XTOLS, [f"xtol={x:g}" for x in XTOLS], detail=f"bracket [{br[0]:g}, {br[1]:g}], lambda*={lam:.6g}")
    return check


def _p2_check_control(gamma):
    """Control: the root of the Ito drift, but the claim 'G(theta_lambda*) = scale' checked by enumeration."""
    def check(rng, d):
        inst = _mf_instance(rng, d)
        res = []
        for xt in XTOLS:
            lam = _root(lambda l: _drift_at(inst, l, gamma), xt)
            sc = _G_relation(gamma)(_orbit_point(inst, lam), inst)[1]
            res.append(abs(_G_enum(inst, lam, gamma) - sc) / sc)
        return refine(res, XTOLS, [f"xtol={x:g}" for x in XTOLS])
    return check


_p2 = tc.Statement(r"\exists\lambda^*\in\mathbb{R}\cup\{\pm\infty\}:\ G(\theta_{\lambda^*})=0", dims=FP_DIMS,
                   check=_p2_check(GAMMA), note=r"sign change of $G(\theta_{\lambda})$ searched on a grid (the existence), root refined by brentq, $G$ re-evaluated there by exact minibatch enumeration")
claim("thm4_3_p2", r"Theorem 4.3(2): $G(\theta_{\lambda})$ has a zero $\lambda^*$ on every orbit", "4.3", "Theorem 4.3 (2)",
      r"\text{there exists a }\lambda^{*}\in\mathbb{R}\cup\{\pm\infty\}\text{ such that }G(\theta_{\lambda^{*}})=0", _p2,
      variants=[variant(_p2, r"reading: $\gamma = 0$", kind="reading", check=_p2_check(0.0))],
      controls=[control(_p2, "G = scale at the root (G by enumeration)",
                        check=_p2_check_control(GAMMA))])


def _sign_changes(inst, gamma, lam0, width=3.0, k=25):
    lams = np.linspace(lam0 - width, lam0 + width, k)
    vals = np.array([_drift_at(inst, l, gamma) for l in lams])
    return int(np.sum(np.sign(vals[1:]) != np.sign(vals[:-1]))), vals


def _p3_check(gamma, require=1):
    def check(rng, d):
        inst = _mf_instance(rng, d)
        lam = _root(lambda l: _drift_at(inst, l, gamma), 1e-12)
        n, vals = _sign_changes(inst, gamma, lam)
        strict = bool(np.all(np.diff(vals) < 0))
        return boolean(n == require and strict, f"{n} sign change(s) of G on [lambda*-3, lambda*+3], "
                       f"strictly decreasing: {strict}")
    return check


def _interpolation_instance(rng, d, dtype):
    """An interpolation minimum: Y = U W X exactly (Sigma = 0), gamma = 0, C = theta^T A theta != 0."""
    raw = sample_mf(rng, d, 1)
    U, W, X = (raw[k].astype(dtype) for k in ("U", "W", "X"))
    raw.update(U=U, W=W, X=X, Y=(U @ W @ X))
    ctx = tc.FLOAT32 if dtype == np.float32 else tc.FLOAT64
    return tc.Instance({k: (ctx.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in raw.items()}), ctx


def _p3_interp_check(rng, d):
    """The proof's hypothesis (Tr[Sigma A] != 0 or theta^T A theta != 0) at an interpolation minimum, gamma = 0."""
    seed = int(rng.integers(2**31))
    res, Cs = [], []
    for dtype in (np.float32, np.float64):
        inst, ctx = _interpolation_instance(np.random.default_rng(seed), d, dtype)
        p = mf(inst, ctx)
        big = float(np.sum(p.th ** 2)) * float(np.sum(inst.X ** 2)) * float(np.sum(p.th ** 2)) / inst.X.shape[-1]
        Gmax = 0.0
        for lam in LAMS:
            q = _orbit(inst, ctx, lam)
            Gmax = max(Gmax, abs(float(M.charge_drift(q.th, q.G, q.A, inst.eta, S, 0.0)[0])))
        res.append(Gmax / (_sigma2(inst) * big))
        Cs.append(float(M.quad(p.th, p.A)[0]))
    zero = tc.decide_refinement(res, [tc.FLOAT32.eps * 100, tc.FLOAT64.eps * 100])
    hyp = abs(Cs[-1]) > 0
    unique_fails = zero is tc.Outcome.HOLDS and hyp
    return boolean(not unique_fails, f"G(theta_lambda) = 0 for every lambda on the grid (max |G|/scale "
                   f"{res[0]:.1e} -> {res[1]:.1e}) while theta^T A theta = {Cs[-1]:.3g}: lambda* not unique")


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
        res = []
        for h in hs:
            fd = (lam_star(th0 + h * v) - lam_star(th0 - h * v)) / (2 * h)
            dJ_dth = (drift(at(th0 + h * v), l0, GAMMA) - drift(at(th0 - h * v), l0, GAMMA)) / (2 * h)
            dJ_dl = (drift(at(th0), l0 + h, GAMMA) - drift(at(th0), l0 - h, GAMMA)) / (2 * h)
            ift = -sign * dJ_dth / dJ_dl
            res.append(abs(fd - ift) / max(abs(ift), abs(fd)))
        return refine(res, [h ** 2 for h in hs], [f"h={h:g}" for h in hs], detail=f"lambda*={l0:.5g}",
                      predicted=None)
    return check


_p4 = tc.Statement(r"\partial_\theta\lambda^*=-\frac{\partial J/\partial\theta}{\partial J/\partial\lambda}",
                   dims=FP_DIMS, check=_p4_check(),
                   note=r"$\lambda^*(\theta \pm h v)$ by brentq (xtol 1e-14); central differences, error $O(h^{2})$")
claim("thm4_3_p4", r"Theorem 4.3(4): $\lambda^*(\theta)$ is differentiable, with the implicit-function derivative", "4.3",
      "Theorem 4.3 (4)", r"\lambda^{*}(\theta)\text{ is differentiable};\ \frac{\partial\lambda}{\partial\theta}=-\frac{\partial J/\partial\theta}{\partial J/\partial\lambda}",
      _p4, controls=[control(_p4, "without the minus sign", check=_p4_check(-1.0))])


def _signs_check(flip=False):
    def check(rng, d):
        inst = _mf_instance(rng, d)
        lam = _root(lambda l: _drift_at(inst, l, GAMMA), 1e-12)
        p = mf(inst, F64)
        q = _orbit_point(inst, lam)
        dC = float(M.quad(p.th, p.A)[0] - M.quad(q.th, q.A)[0])
        G0 = _drift_at(inst, 0.0, GAMMA)
        s = -1 if flip else 1
        ok = np.sign(dC) == -s * np.sign(lam) and np.sign(G0) == s * np.sign(lam)
        return boolean(bool(ok), f"lambda*={lam:.4g}, C-C*={dC:.3g}, dC/dt={G0:.3g}")
    return check


_signs = tc.Statement(r"\mathrm{sgn}(C-C^*)=-\mathrm{sgn}\lambda^*,\ \mathrm{sgn}\dot C=\mathrm{sgn}\lambda^*",
                      dims=FP_DIMS, check=_signs_check())
claim("remark4_4_signs", r"After Remark 4.4: $C - C^*$ has the sign of $-\lambda^*$, $\mathrm{d}C/\mathrm{d}t$ the sign of $\lambda^*$ (attractive fixed point)",
      "4.3", "text after Remark 4.4", r"C(\theta)-C^{*}\text{ has the opposite sign of }\lambda^{*},\ \tfrac{d}{dt}C(\theta)\text{ the same sign}",
      _signs, controls=[control(_signs, "signs swapped", check=_signs_check(True))])


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
        res = []
        for h in hs:
            fd = (float(_I_lhs(inst, F64, lam + h)[0]) - float(_I_lhs(inst, F64, lam - h)[0])) / (2 * h)
            res.append(abs(-fd / 2 - sign * printed) / max(abs(fd / 2), abs(printed)))
        return refine(res, [h ** 2 for h in hs], [f"h={h:g}" for h in hs])
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
