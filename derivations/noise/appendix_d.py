"""Noise paper, Appendix D: discrete-time GD and SGD (eqs. 93-108, Theorem D.1)."""

from __future__ import annotations

import numpy as np

import theorem_check as tc

from . import model as M
from .model import (
    ETA,
    F64,
    FP_DIMS,
    MF_DIMS,
    S_BATCH,
    _orbit,
    _orbit_point,
    claim,
    control,
    counted,
    exp_A,
    mf,
    mf_eig,
    mf_nu,
    sample_mf,
    sample_si,
    variant,
)
from .sec4_3_noise_equilibrium import _p4_check

S = S_BATCH


# ==============================================================================================
# Appendix D: discrete-time SGD (Theorem D.1, eqs. 93-108)
# ==============================================================================================
def _delta_C(inst, ctx, factor=1):
    """Per-minibatch ``C(theta - eta g_B) - C(theta)`` and ``eta^2 g_B^T A g_B`` (b, M)."""
    p = mf(inst, ctx)
    mb = M.minibatches(p.G.shape[1], S)
    gB = np.sum(p.G[:, mb, :], axis=2) / S
    th = p.th[:, None, :]
    new = th - inst.eta * gB
    Cn = np.sum(new * (new @ M.T(p.A)), -1)
    C0 = M.quad(p.th, p.A)[:, None]
    return Cn - C0, factor * inst.eta ** 2 * np.sum(gB * (gB @ M.T(p.A)), -1)


_e98 = tc.Statement(r"\Delta C_t=\eta^2\mathrm{Tr}[\tilde\Sigma_d(\theta)A],\ \tilde\Sigma_d=\nabla\ell\nabla^\top\ell",
                    dims=MF_DIMS, sample=sample_mf, lhs=lambda i, c: _delta_C(i, c)[0], rhs=lambda i, c: _delta_C(i, c)[1],
                    note=r"every minibatch of size $S = 2$ (with replacement), one SGD step, $\gamma = 0$")
claim("eq98", r"Discrete SGD: every step changes the charge by exactly $\eta^{2} g_{B}^{\top} A g_{B}$ (eqs. 93-98)", "Appendix D",
      "(96)-(98)", r"\Delta C_{t}=\eta^{2}{\rm Tr}[\tilde{\Sigma}_{d}(\theta)A]", _e98,
      aliases=("eq93", "eq95", "eq96", "eq97"), controls=[tc.double(_e98)])


def _sigma_d(G):
    """Minibatch second moment ``E_B[g_B g_B^T]`` over every minibatch (eq. 100)."""
    mb = M.minibatches(G.shape[1], S)
    gB = np.sum(G[:, mb, :], axis=2) / S
    return M.T(gB) @ gB / mb.shape[0]


def _e105_lhs(inst, ctx):
    return _sigma_d(_orbit(inst, ctx, inst.lam).G)


def _e105_rhs(inst, ctx, f=-1):
    p = mf(inst, ctx)
    N, _ = mf_eig(p, ctx)
    E = exp_A(N, mf_nu(inst, p), inst.lam * f, ctx)
    return E @ _sigma_d(p.G) @ E


_e105 = tc.Statement(r"\Sigma_d(\theta_\lambda)=e^{-\lambda A}\Sigma_d(\theta)e^{-\lambda A}", dims=MF_DIMS,
                     sample=sample_mf, lhs=_e105_lhs, rhs=_e105_rhs)
claim("eq105", r"Appendix D: the minibatch gradient second moment transforms as $e^{-\lambda A} \Sigma_{d} e^{-\lambda A}$",
      "Appendix D", "(104)-(107)", r"\Sigma_{d}(\theta_{\lambda})=e^{-\lambda A}\Sigma_{d}(\theta)e^{-\lambda A}", _e105,
      aliases=("eq104", "eq106", "eq107"), controls=[control(_e105, r"$e^{+\lambda A}$", rhs=lambda i, c: _e105_rhs(i, c, 1))])


# Theorem D.1 on the scale-invariant model (A = I): G_d = E_B[C(theta')] - C(theta), exactly
D1_LAMS = tuple(np.linspace(-3.0, 3.0, 13))


def sample_d1(rng, d, batch, lo=-1.0, hi=4.0):
    out = sample_si(rng, d, batch)
    out["gamma"] = rng.uniform(lo, hi, size=batch)
    return out


def _Gd(inst, ctx, lam):
    """``E_B[C(theta_l - eta (g_B + 2 gamma theta_l))] - C(theta_l)`` for C = ||theta||^2, theta_l = e^lam theta."""
    th = inst.th * ctx.exp(ctx.asarray(np.array(lam)))
    G = M.scale_inv_grads(th, inst.X, inst.y, ctx)
    P = th.shape[1]
    A = np.repeat(M.eye(P, ctx), th.shape[0], 0)
    g = inst.gamma[:, None, None] if isinstance(inst.gamma, np.ndarray) else inst.gamma
    return M.sgd_expected_charge(th, G, A, inst.eta, S, g) - M.quad(th, A)


def _d1_violation(inst, ctx, sign=1):
    vals = [_Gd(inst, ctx, l) for l in D1_LAMS]
    return sum(M.pos(sign * (vals[k + 1] - vals[k])) for k in range(len(vals) - 1))


def _d1_scale(inst, ctx):
    return sum(ctx.abs(_Gd(inst, ctx, l)) for l in D1_LAMS)


D1_DIMS = tc.DimSpace({"p": (2, 3), "n": (2, 4)})
_d1p1 = tc.Statement(r"\forall\gamma\in\mathbb{R}:\ G_d(\theta_\lambda)\ \text{decreasing in}\ \lambda", dims=D1_DIMS,
                     sample=sample_d1, lhs=_d1_violation, rhs=lambda i, c: _d1_violation(i, c) * 0, scale=_d1_scale,
                     contexts=("float32", "float64"),
                     note=r"scale-invariant model $(A = I)$, $\eta = 0.5$, $\gamma$ uniform in [-1, 4]; $G_{d}$ by exact enumeration")
claim("thmd1_p1", r"Theorem D.1(1): for any $\gamma$ in $R$, $G_{d}(\theta_{\lambda}) = \mathbb{E}[\Delta C]$ decreases in $\lambda$", "Appendix D",
      "Theorem D.1 (1)", r"\text{for any }\gamma\in\mathbb{R},\ G_{d}(\theta_{\lambda})\text{ is a monotonically decreasing function of }\lambda",
      _d1p1,
      variants=[variant(_d1p1, r"corrected: $0 \le \gamma \le 1/\eta (G_{d} = -4 \eta \gamma (1 - \eta \gamma) C + \eta^{2} \operatorname{Tr}[\Sigma_{d} A])$",
                        latex=r"0\le\gamma\le1/\eta:\ G_d(\theta_\lambda)\ \text{decreasing}",
                        sample=lambda r, d, b: sample_d1(r, d, b, 0.0, 2.0))],
      controls=[control(_d1p1, r"increasing, $\gamma$ in $[0, 1/\eta]$", sample=lambda r, d, b: sample_d1(r, d, b, 0.0, 2.0),
                        lhs=lambda i, c: _d1_violation(i, c, -1))],
      assumptions=(r"SGD on $l + \gamma\lVert \theta\rVert ^{2}$ with step $\eta$: the weight-decay coefficient becomes $\gamma (1 - \eta \gamma)$",))


def _d1_exists(inst, gamma, lam_max=8.0):
    """Sign change of G_d on a lambda grid of [-lam_max, lam_max] (step 0.5), or |G_d| -> 0 at one end (a root at
    +-infinity: |G_d| falling at least like e^{-lambda} over the last 4 grid steps, 2 units)."""
    i2 = tc.Instance(dict(inst, gamma=gamma))
    lams = np.linspace(-lam_max, lam_max, int(round(4 * lam_max)) + 1)
    vals = np.array([float(_Gd(i2, F64, l)[0]) for l in lams])
    if np.any(np.sign(vals[1:]) != np.sign(vals[:-1])) or np.any(vals == 0):
        return True
    return abs(vals[-1]) < abs(vals[-5]) * np.exp(-1) or abs(vals[0]) < abs(vals[4]) * np.exp(-1)


def _d1p2_check(gammas):
    """Indicators 'a root of G_d exists (possibly at +-infinity)' per gamma, on lambda grids of [-4, 4] and
    [-8, 8], against the statement's prediction 1 for every gamma (exact counts, see ``counted``)."""
    def check(rng, d):
        raw = sample_si(rng, d, 1)
        inst = tc.Instance({k: (F64.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in raw.items()})
        meas = [[float(_d1_exists(inst, g, lm)) for g in gammas] for lm in (4.0, 8.0)]
        bad = [g for g, ok in zip(gammas, meas[-1]) if not ok]
        return counted(["|lambda|<=4", "|lambda|<=8"], meas, np.ones(len(gammas)),
                       detail=f"gammas {list(gammas)} (eta = 0.5): no root of G_d, even at +-infinity, for {bad}"
                       if bad else f"gammas {list(gammas)}: a root (possibly at +-infinity) for each")
    return check


_d1p2 = tc.Statement(r"\forall\gamma\in\mathbb{R}\ \exists\lambda^*\in\mathbb{R}\cup\{\pm\infty\}:\ G_d(\theta_{\lambda^*})=0",
                     dims=D1_DIMS, check=_d1p2_check((-0.5, 0.0, 0.3, 1.0, 3.0)),
                     note=r"$A = I$: $G_{d} = -4 \eta \gamma (1 - \eta \gamma) e^{2 \lambda} \lVert \theta\rVert ^{2} + \eta^{2} e^{-2 \lambda} \operatorname{Tr} \Sigma_{d}$")
claim("thmd1_p2", r"Theorem D.1(2): for any $\gamma$ in $R$ a zero $\lambda^*$ of $G_{d}$ exists", "Appendix D", "Theorem D.1 (2)",
      r"\text{there exists a }\lambda^{*}\in\mathbb{R}\cup\{\pm\infty\}\text{ such that }G_{d}(\theta_{\lambda})=0", _d1p2,
      variants=[variant(_d1p2, r"corrected: $0 \le \gamma \le 1/\eta$", check=_d1p2_check((0.0, 0.3, 1.0, 2.0)))],
      controls=[control(_d1p2, r"$\gamma = -0.5$ alone", check=_d1p2_check((-0.5,)))])


def _d1p3_printed_check(rng, d):
    """At an interpolation point (y = x^T theta/||theta|| exactly) with gamma = 0: Tr[theta theta^T A] != 0 but G_d == 0.

    Measured: the number of grid points (D1_LAMS) at which G_d vanishes to the working precision (|G_d|/scale <=
    100 eps; float32, then float64); predicted: 1 (a unique lambda*), as the hypothesis theta^T A theta =
    ||theta||^2 > 0 holds."""
    raw = sample_si(rng, d, 1)
    meas = []
    for ctx in (tc.FLOAT32, F64):
        th, X = ctx.asarray(raw["th"]), ctx.asarray(raw["X"])
        nrm = ctx.sqrt(np.sum(th * th, axis=1))
        y = np.sum(X * th[:, :, None], axis=1) / nrm[:, None]
        inst = tc.Instance(th=th, X=X, y=y, eta=ETA, gamma=0.0)
        scale = float(np.sum(th * th)) * ETA ** 2 * float(np.sum(X * X)) / float(np.sum(th * th))
        meas.append(sum(int(abs(float(_Gd(inst, ctx, l)[0])) / scale <= 100 * ctx.eps) for l in D1_LAMS))
    return counted(["float32", "float64"], meas, 1.0,
                   detail=f"interpolation, gamma = 0: G_d = 0 at {meas[-1]} of {len(D1_LAMS)} points of lambda in "
                          f"[-3, 3] while theta^T A theta = ||theta||^2 > 0: every lambda is a zero")


def _d1p3_corrected_check(rng, d, require=1):
    """[sign changes, non-decreasing steps] of G_d (gamma = 0.3) on D1_LAMS and on a refined 25-point grid of
    [-3, 3], against [require, 0] (exact counts, see ``counted``)."""
    raw = sample_si(rng, d, 1)
    inst = tc.Instance({k: (F64.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in raw.items()})
    inst["gamma"] = 0.3
    meas = []
    for lams in (D1_LAMS, np.linspace(-3.0, 3.0, 25)):
        vals = np.array([float(_Gd(inst, F64, l)[0]) for l in lams])
        meas.append([int(np.sum(np.sign(vals[1:]) != np.sign(vals[:-1]))), int(np.sum(np.diff(vals) >= 0))])
    return counted([f"{len(D1_LAMS)} points", "25 points"], meas, [require, 0],
                   detail=f"[sign changes, non-decreasing steps] = {meas[-1]} (gamma = 0.3)")


_d1p3 = tc.Statement(r"\mathrm{Tr}[\Sigma_d(\theta)A]\ne0\ \text{or}\ \mathrm{Tr}[\theta\theta^\top A]\ne0\Rightarrow\lambda^*\ \text{unique}",
                     dims=D1_DIMS, check=_d1p3_printed_check)
claim("thmd1_p3", r"Theorem D.1(3): uniqueness of $\lambda^*$ if $\operatorname{Tr}[\Sigma_{d} A] \ne 0$ or $\operatorname{Tr}[\theta \theta^{\top} A] \ne 0$", "Appendix D",
      "Theorem D.1 (3)", r"\text{if }{\rm Tr}[\Sigma_{d}(\theta)A]\neq 0\text{ or }{\rm Tr}[\theta\theta^{\top}A]\neq 0,\ \lambda^{*}\text{ is unique}",
      _d1p3,
      variants=[variant(_d1p3, r"corrected: if $G_{d}(\theta_{.})$ is not identically zero (e.g. $\gamma$ in $(0, 1/\eta)$)",
                        latex=r"G_d(\theta_\cdot)\not\equiv0\Rightarrow\lambda^*\ \text{unique}", check=_d1p3_corrected_check)],
      controls=[control(_d1p3, "corrected, but requiring two sign changes",
                        check=lambda r, d: _d1p3_corrected_check(r, d, require=2))])



def _gd_mf(inst, lam, gamma):
    """Discrete G_d(theta_lam) = E_B[C(theta_lam - eta (g_B + 2 gamma theta_lam))] - C(theta_lam), exact (float64)."""
    q = _orbit_point(inst, lam)
    return float((M.sgd_expected_charge(q.th, q.G, q.A, inst.eta, S, gamma) - M.quad(q.th, q.A))[0])


def _d1p4(sign=1.0):
    return _p4_check(sign, drift=_gd_mf)


_d1p4s = tc.Statement(r"\lambda^*(\theta)\ \text{differentiable},\ \partial_\theta\lambda^*=-\frac{\partial_\theta G_d}{\partial_\lambda G_d}",
                      dims=FP_DIMS, check=_d1p4(),
                      note=r"two-layer net, $\gamma = 0.3$ in $(0, 1/\eta)$; $G_{d}$ by exact minibatch enumeration; central differences")
claim("thmd1_p4", r"Theorem D.1(4): $\lambda^*(\theta)$ of the discrete flow is differentiable (implicit function theorem)",
      "Appendix D", "Theorem D.1 (4)", r"\text{if }\Sigma_{d}(\theta)\text{ is differentiable, }\lambda^{*}(\theta)\text{ is a differentiable function of }\theta",
      _d1p4s, controls=[control(_d1p4s, "without the minus sign", check=_d1p4(-1.0))])
