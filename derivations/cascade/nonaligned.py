"""Sec. IV.B and the review's major comment 1: non-aligned covariances.

``cascade.onset_nonaligned`` (``W = 0`` stops being a minimum at ``beta = eta_max`` for n = 2, never for
n >= 3) and ``cascade.later_thresholds`` (the second transition is the KKT threshold of the convex
nuclear-norm problem, not ``eta_2``).

Model and conventions: :mod:`derivations.cascade.model`.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import dln, sampling

from . import model as th
from . import training as sims
from .model import LOSS, _fmt, _net_space, _sqrt, _src, _widths


# =======================================================================================
# Non-aligned covariances: the onset (where W = 0 stops being a minimum) and the later thresholds
# =======================================================================================
def _onset_sample(rng, d, batch):
    w, _n = _widths(d), d["n"]
    return {"Sxx": sampling.spd(rng, w[0], cond=8.0, batch=batch), "Syx": rng.standard_normal((batch, w[-1], w[0])),
            "beta": float(rng.uniform(0.1, 1.5)), "w": w}


def _zero_weights(inst, ctx):
    w, b = inst.w, inst.Sxx.shape[0]
    return [ctx.zeros((b, w[i + 1], w[i])) for i in range(len(w) - 1)]


def _onset_lhs(inst, ctx):
    return ctx.eigvalsh(dln.population_hessian(_zero_weights(inst, ctx), inst.Sxx, inst.Syx, beta=inst.beta))


def _onset_rhs(inst, ctx, *, factor=2.0):
    """n = 2: per hidden unit {2 beta +- 2 varsigma_j(Sigma_yx)} and 2 beta for |d_x - d_y| more; n >= 3: 2 beta I."""
    w = inst.w
    n = len(w) - 1
    b = inst.Sxx.shape[0]
    P = sum(w[i] * w[i + 1] for i in range(n))
    rows = []
    for k in range(b):
        if n == 2:
            S = inst.Syx[k]
            gram = S.T @ S if S.shape[1] <= S.shape[0] else S @ S.T
            svals = [_sqrt(ctx)(abs(x)) for x in ctx.eigvalsh(gram[None])[0]]
            unit = [2 * inst.beta - factor * x for x in svals] + [2 * inst.beta + factor * x for x in svals]
            unit += [2 * inst.beta] * (w[0] + w[2] - 2 * len(svals))
            vals = unit * w[1]
        else:
            vals = [2 * inst.beta] * P
        rows.append(sorted(vals))
    return np.array(rows, dtype=ctx.dtype)


def _onset_derivation():
    beta, vs, lam = sp.symbols("beta varsigma lambda", positive=True)
    H = sp.Matrix([[2 * beta, -2 * vs], [-2 * vs, 2 * beta]])
    return tc.Derivation([
        tc.Step(th.charpoly(H, lam), sp.expand((2 * beta - 2 * vs - lam) * (2 * beta + 2 * vs - lam)),
                r"$W = 0$, $n = 2$: $Q = \beta(|a|^{2} + |b|^{2}) - 2 a^{\top} \Sigma_{yx} b$ per hidden unit; in "
                r"$\Sigma_{yx}$'s singular basis each pair $(a_{j}, b_{j})$ has Hessian $[[2 \beta, -2 \varsigma_{j}], [-2 \varsigma_{j}, 2 \beta]]$: $\Sigma_{xx}$ drops out"),
        tc.Step(sp.solve(sp.Eq(2 * beta - 2 * vs, 0), beta)[0], vs,
                r"$\lambda_{\min} = 2 (\beta - \varsigma_{\max})$ changes sign at $\beta_{\mathrm{onset}} = \lVert \Sigma_{yx}\rVert _{op} = \eta_{\max}$"),
    ], general=True)


_onset_dims = _net_space((2, 2), (1, 3))
_onset = tc.Statement(r"n=2,\ \text{any } \Sigma_{xx}\succ0,\Sigma_{yx}:\ \mathrm{spec}\,\nabla^2L(0)=\{2\beta\pm2\varsigma_j(\Sigma_{yx})\}^{d_1}"
                      r"\cup\{2\beta\}\ \Rightarrow\ \beta_{\mathrm{onset}}=\eta_{\max}=\|\Sigma_{yx}\|_{op}",
                      dims=_onset_dims, sample=_onset_sample, lhs=_onset_lhs, rhs=_onset_rhs, derivation=_onset_derivation,
                      note=r"non-aligned random covariances; the Hessian at $W = 0$ does not involve $\Sigma_{xx}$")
tc.register(tc.Claim(
    id="cascade.onset_nonaligned",
    title=r"Non-aligned data: $W = 0$ stops being a minimum at $\beta_{\mathrm{onset}} = \eta_{\max} (n = 2)$; for $n \ge 3$ it never does (Hessian $2 \beta I$)",
    source=_src("IV.B", "Sec. IV.B", r"\text{only the onset } \beta_{\mathrm{onset}}=\eta_{\max} \text{ is established in the generic case}"),
    statement=_onset,
    variants=(tc.Statement(r"n\ge3:\ \nabla^2L(0)=2\beta I\ \ (W=0 \text{ is a strict local minimum for every } \beta>0)",
                           name="reading: deeper networks", kind="reading", dims=_net_space((3, 4), (1, 3)),
                           sample=_onset_sample, lhs=_onset_lhs, rhs=_onset_rhs),),
    controls=(tc.double(_onset), tc.perturb(_onset, r"$\beta \pm \varsigma$", rhs=lambda v, inst, ctx: _onset_rhs(inst, ctx, factor=1.0))),
    aliases=("onset",),
    assumptions=(LOSS, r"$\Sigma_{xx}$ invertible, any $\Sigma_{yx}$ (no alignment)"),
))


def _rank1_min(Sxx, Syx, beta):
    """Best rank-1 W = s u v^T of  tr(W Sxx W^T) - 2 tr(W Syx^T) + 2 beta ||W||_*  (d_x = 2: v on a half circle).

    For fixed unit v: u = Syx v/|Syx v|, s = (|Syx v| - beta)_+ / (v^T Sxx v), value -(|Syx v| - beta)_+^2/(v^T Sxx v).
    Returns (W, u, v).
    """
    from scipy.optimize import minimize_scalar

    def f(th_):
        v = np.stack([np.cos(th_), np.sin(th_)])
        a = np.maximum(np.linalg.norm(Syx @ v, axis=0) - beta, 0.0)
        return -a * a / np.einsum("i...,ij,j...->...", v, Sxx, v)
    def df(th_):
        # stationarity of (g - beta)^2 / q at g = |Syx v| > beta, q = v^T Sxx v: 2 g' q - (g - beta) q' = 0
        v, dv = np.array([np.cos(th_), np.sin(th_)]), np.array([-np.sin(th_), np.cos(th_)])
        sv, sdv = Syx @ v, Syx @ dv
        g = np.linalg.norm(sv)
        return 2 * (sv @ sdv / g) * (v @ Sxx @ v) - (g - beta) * 2 * (v @ Sxx @ dv)

    grid = np.linspace(0, np.pi, 721)
    i = int(np.argmin(f(grid)))
    # f has period pi (v and -v are one direction): bracket around the grid point without clamping to
    # [0, pi], or an optimum just below 0 (just below pi) is cut off at the end of the grid
    lo, hi = grid[i] - np.pi / 720, grid[i] + np.pi / 720
    r = minimize_scalar(lambda x: float(f(np.array(x))), bounds=(lo, hi), method="bounded", options={"xatol": 1e-13})
    th = r.x
    # a minimiser of a smooth f is located only to ~sqrt(eps) by comparing values: refine it as a root of the
    # derivative (to ~eps) where the bracket has a sign change, so that the KKT threshold is good to ~1e-12
    if np.linalg.norm(Syx @ np.array([np.cos(th), np.sin(th)])) > beta:
        from scipy.optimize import brentq

        a, b = max(lo, th - 1e-6), min(hi, th + 1e-6)
        if df(a) * df(b) < 0:
            th = brentq(df, a, b, xtol=1e-15)
    v = np.array([np.cos(th), np.sin(th)])
    u = Syx @ v / np.linalg.norm(Syx @ v)
    s = max(np.linalg.norm(Syx @ v) - beta, 0.0) / (v @ Sxx @ v)
    return s * np.outer(u, v), u, v


def _beta2_kkt(Sxx, Syx):
    """Second threshold of the non-aligned n = 2 cascade, from the KKT conditions of the convex problem.

    The n = 2 problem is convex in W (min over factorizations of ||W_1||^2 + ||W_2||^2 is 2 ||W||_*).  The best
    rank-1 W_1 = s u v^T leaves the gradient G = Syx - W_1 Sxx = beta u v^T + (complement); it is the global
    minimiser iff the complement's norm ||(I - uu^T) G (I - vv^T)|| is <= beta.  beta_2 is the largest beta where
    the complement's norm equals beta.
    """
    from scipy.optimize import brentq

    def h(b):
        W1, u, v = _rank1_min(Sxx, Syx, b)
        G = Syx - W1 @ Sxx
        C = (np.eye(2) - np.outer(u, u)) @ G @ (np.eye(2) - np.outer(v, v))
        return np.linalg.norm(C, 2) - b
    top = np.linalg.svd(Syx, compute_uv=False)[0]
    grid = np.linspace(top * (1 - 1e-9), 1e-3 * top, 60)
    vals = [h(b) for b in grid]
    for k in range(len(grid) - 1):
        if vals[k] < 0 <= vals[k + 1]:
            return brentq(h, grid[k + 1], grid[k], xtol=1e-14)
    return float("nan")


def _nonaligned_problem(rng):
    """Random non-aligned 2x2 moments whose second threshold differs from eta_2 by > 5% (search heuristic)."""
    for _ in range(200):
        Sxx = sampling.spd(rng, 2, cond=float(rng.uniform(2.0, 5.0)))
        Syx = sampling.with_singular_values(rng, 2, 2, np.array([rng.uniform(1.2, 2.0), rng.uniform(0.4, 0.9)]))
        b2 = _beta2_kkt(Sxx, Syx)
        eta2 = np.linalg.svd(Syx, compute_uv=False)[1]
        if b2 == b2 and b2 > 0.1 and abs(b2 - eta2) > 0.05 * eta2:
            return Sxx, Syx, b2, eta2
    raise RuntimeError("no configuration")  # pragma: no cover


_DELTAS = (0.04, 0.01, 0.0025)


def _threshold2_check(which: str):
    """Locate where the trained macrostate's 2nd singular value switches on (full n = 2 network, trust-region Newton).

    Below a second-order threshold beta_c, s_2(beta) = c (beta_c - beta) + O((beta_c - beta)^2): from the two points
    beta_c (1 - delta), beta_c (1 - 2 delta) the linear extrapolation of s_2 to zero lands within O(delta^2) of
    beta_c.  Measured: the extrapolated threshold; predicted: beta_c; the engine computes the relative gap.
    Refined delta = 0.04 -> 0.01 -> 0.0025, floors delta^2 (geometric mean of the first and last 1e-4, so the
    1 + 1e-3 mutant is resolved).  Where s_2 does not switch on inside the probed window (it is zero at both
    points: the threshold lies below it) the threshold is not located and the check reports 0 (a gap of 1).
    """
    def check(rng, d):
        Sxx, Syx, b2, eta2 = _nonaligned_problem(rng)
        bc = {"kkt": b2, "eta": eta2, "half": eta2 / 2}[which]
        ext = []
        for delta in _DELTAS:
            s2 = []
            for beta in (bc * (1 - delta), bc * (1 - 2 * delta)):
                best = None
                for _ in range(2):                                   # two random starts, keep the lower loss
                    (Ws, gn), = sims.minimize_network(sims.random_init(rng, [2, 2, 2], 0.7), Sxx, Syx, beta, (1e-11,))
                    lv = sims.loss_and_grad(dln.flatten_weights(Ws), [2, 2, 2], Sxx, Syx, beta)[0]
                    if best is None or lv < best[0]:
                        best = (lv, sims.product_svals(Ws)[1])
                s2.append(best[1])
            ba, bb = bc * (1 - delta), bc * (1 - 2 * delta)
            if s2[1] - s2[0] <= 1e-9:
                ext.append(0.0)                                      # s_2 not switching on below beta_c
                continue
            ext.append(ba + s2[0] * (ba - bb) / (s2[1] - s2[0]))
        return tc.Refinement.of([f"delta={x:g}" for x in _DELTAS], measured=ext, predicted=bc,
                                floors=[x * x for x in _DELTAS], resolution=1e-3,
                                detail=f"extrapolated {_fmt(ext)}; eta_2 = {eta2:.4g}, KKT beta_2 = {b2:.4g}, "
                                       f"||Sigma_yx|| = {np.linalg.norm(Syx, 2):.4g}")
    return check


_lt_dims = tc.DimSpace({"d": (2, 2)})
_LT_QUOTE = (r'review, major comment 1: "Section IV.B concedes that the singular vectors of $W^*$ become $\beta$-dependent, '
             r"that the decoupled Landau picture (15) no longer holds, and that only the onset $\beta_{\mathrm{onset}}=\eta_{\max}$ "
             "is established in the generic case. The abstract and Key Findings nevertheless present the cascade as an analytic "
             r'prediction of the model without this qualification". The paper prints $\beta^*_{j} = \eta_{j}$ only under '
             "alignment (eq. 17); the review's point is that it does not carry over. Checked: the later threshold moves "
             r"off $\eta_{2}$ (to the KKT threshold, located on the trained full network); the abstract read without the qualification is the reading.")
_later = tc.Statement(r"\text{generic (non-aligned) } \Sigma_{xx},\Sigma_{yx}:\ \text{only the onset } \eta_{\max} \text{ carries over; "
                      r"direction 2 turns on at } \beta_2\ne\eta_2:\ \|(I-uu^\top)G(I-vv^\top)\|=\beta_2,\ "
                      r"G=\Sigma_{yx}-W_1(\beta)\Sigma_{xx},\ W_1=s\,uv^\top\text{ best rank-1 of }"
                      r"\operatorname{tr}W\Sigma_{xx}W^\top-2\operatorname{tr}W\Sigma_{yx}^\top+2\beta\|W\|_*",
                      dims=_lt_dims, check=_threshold2_check("kkt"), note=_LT_QUOTE)
tc.register(tc.Claim(
    id="cascade.later_thresholds",
    title=r"Non-aligned data (major comment 1): the second transition is not at $\eta_{2}$; it is the KKT threshold of the convex (nuclear-norm) problem",
    source=_src("Major comment 1 (Abstract / Key Findings; Sec. IV.B)", "Sec. IV.B",
                r"\text{only the onset } \beta_{\mathrm{onset}}=\eta_{\max} \text{ is established in the generic case}"),
    statement=_later,
    variants=(tc.Statement(r"\text{abstract read without the alignment qualification: generic } \Sigma_{xx},\Sigma_{yx}:\ "
                           r"\text{direction 2 turns on at } \beta^*_2=\eta_2",
                           name=r"reading: $\beta^*_{j} = \eta_{j}$ for generic data", kind="reading", dims=_lt_dims,
                           check=_threshold2_check("eta")),),
    controls=(tc.perturb(_later, r"threshold $\eta_{2} / 2$", check=_threshold2_check("half")),
              tc.perturb(_later, r"threshold $\eta_{2}$ (the aligned value)", check=_threshold2_check("eta"))),
    aliases=("later_thresholds",),
    assumptions=(LOSS, r"$n = 2$, $d = 2$, non-aligned random $\Sigma_{xx}$ (cond 2-5) and $\Sigma_{yx}$",
                 r"the configuration is drawn where the KKT threshold differs from $\eta_{2}$ by > 5% (search heuristic)"),
))
