"""Sec. III.B, eqs. (25)-(26): n >= 3, the bifurcation and level-crossing strengths.

``cascade.bifurcation`` (where a nonzero minimum of ``L_j`` first appears) and ``cascade.level_crossing``
(where it becomes global, and the jump of the order parameter), closed forms in ``n``, ``eta``, ``kappa``.

Model, conventions and closed forms (``th``): :mod:`derivations.cascade.model`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import theorem_check as tc

from . import model as th
from .model import ALIGNED, _src

# =======================================================================================
# n >= 3: bifurcation (eq. 25) and level crossing (eq. 26), closed forms in n, eta, kappa
# =======================================================================================
_n, _u = sp.Symbol("n", positive=True), sp.Symbol("u", positive=True)
_eta, _kap, _beta, _sig = sp.symbols("eta_j kappa_j beta sigma", positive=True)
_g_u = _u ** ((_n - 2) / _n) * (_eta - _kap * _u)          # beta on the branch of nonzero critical points, u = sigma^n
_u_det = (_n - 2) * _eta / (2 * (_n - 1) * _kap)
_u_star = (_n - 2) * _eta / ((_n - 1) * _kap)
_BETA_DET = _eta * _n / (2 * (_n - 1)) * _u_det ** ((_n - 2) / _n)
_BETA_STAR = _eta / (_n - 1) * _u_star ** ((_n - 2) / _n)


def _bifurcation_derivation():
    L = th.landau(_sig, _eta, _kap, _beta, _n)
    return tc.Derivation([
        tc.Step(sp.simplify(sp.diff(L, _sig) / (2 * _n * _sig)),
                _kap * _sig ** (2 * _n - 2) - _eta * _sig ** (_n - 2) + _beta,
                r"$L_{j}'(\sigma) = 2 n \sigma (\kappa \sigma^{2n-2} - \eta \sigma^{n-2} + \beta)$: nonzero critical "
                r"points lie on $\beta = g(\sigma) = \sigma^{n-2} (\eta - \kappa \sigma^{n})$"),
        tc.Step(sp.diff(_g_u, _u).subs(_u, _u_det), 0,
                r"$g$, written in $u = \sigma^{n}$, is stationary at $u_{\det} = (n-2) \eta / (2 (n-1) \kappa)$ (its maximum)"),
        tc.Step(_g_u.subs(_u, _u_det), _BETA_DET,
                r"$\beta_{\det} = \max g = \eta n/(2(n-1)) ((n-2) \eta/(2(n-1) \kappa))^{(n-2)/n}$: below it a nonzero minimum exists"),
    ], general=True)


def _level_crossing_derivation():
    Lu = _kap * _u ** 2 - 2 * _eta * _u + _n * _beta * _u ** (2 / _n)     # potential in the product variable
    on_branch = sp.powsimp(sp.expand(Lu.subs(_beta, _g_u)), force=True)
    return tc.Derivation([
        tc.Step(on_branch, _u * ((_n - 2) * _eta - (_n - 1) * _kap * _u),
                r"on the branch $\beta = g(u)$: $L_{j} = u ((n-2) \eta - (n-1) \kappa u)$, zero at $u^* = (n-2) \eta / ((n-1) \kappa)$"),
        tc.Step(_g_u.subs(_u, _u_star), _BETA_STAR,
                r"$\beta^* = g(u^*) = \eta/(n-1) ((n-2) \eta/((n-1) \kappa))^{(n-2)/n}$: below it the nonzero minimum is global"),
        tc.Step(sp.cancel(_u_star / _u_det), 2, r"$u^* / u_{\det} = 2$"),
        tc.Step((2 / _n) * 2 ** ((_n - 2) / _n), 2 ** (2 - 2 / _n) / _n,
                r"$\beta^*/\beta_{\det} = (2/n)(u^*/u_{\det})^{(n-2)/n} = 2^{2-2/n}/n < 1$ for $n \ge 3$: first order, metastable window"),
        tc.Step(_u_star, (_n - 2) * _eta / ((_n - 1) * _kap),
                r"the product's singular value jumps from 0 to $(n-2) \eta/((n-1) \kappa)$ at $\beta^*$ (layer: its $n$-th root)"),
    ], general=True)


_XATOLS = (1e-4, 1e-6, 1e-9)
_THR_RESOLUTION = 1e-4
"""Relative perturbation of the thresholds the scan resolves: the floors 2n (xatol + 2 sqrt(eps)) have a geometric
mean (first and last level) of at most 12 * 1.8e-6 = 2.1e-5 (n <= 6), five times below it."""


def _scan_max(fun, lo, hi, xatol):
    """Maximise a smooth 1-D function: grid bracket, then bounded Brent to ``xatol`` (relative)."""
    from scipy.optimize import minimize_scalar

    grid = np.linspace(lo, hi, 2001)
    vals = fun(grid)
    i = int(np.argmax(vals))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    res = minimize_scalar(lambda x: -fun(x), bounds=(a, b), method="bounded", options={"xatol": xatol * max(b, 1e-12)})
    return float(res.x), float(-res.fun)


def _threshold_check(kind: str, formula):
    """Scan beta numerically (independently of the closed forms) and compare with ``formula(eta, kappa, n)``.

    ``kind="det"``: the largest beta at which L_j'(sigma)/(2 n sigma) = kappa sigma^{2n-2} - eta sigma^{n-2}
    + beta has a negative value (a local minimum at sigma > 0 exists) = max_sigma (eta sigma^{n-2} -
    kappa sigma^{2n-2}).  ``kind="star"``: the largest beta at which min_{sigma > 0} L_j < 0 =
    max_sigma (2 eta sigma^{n-2} - kappa sigma^{2n-2}) / n; also the jump sigma^n there.
    The check reports the measured (beta, and for "star" the jump) and the prediction; the engine
    computes the relative gap (never signed).  Refinement: maximiser tolerance 1e-3 -> 1e-6 -> 1e-9
    (relative to the bracket).  Floors: the maximum *value* is off by O(xatol^2) (the maximum is
    quadratic), the maximiser sigma by ``xatol * b`` (b the bracket's upper end, ``b <= 1.002 sigma``
    on the 2001-point grid) plus Brent's own ``sqrt(eps)`` relative limit (a maximiser is located to
    ``sqrt(eps)`` at best), so ``sigma^n`` by ``n (xatol + sqrt(eps)) b / sigma``; floor
    ``2 n (xatol + 2 sqrt(eps))``.
    """
    def check(rng, d):
        n = d["n"]
        eta, kappa = rng.uniform(0.2, 2.0), float(np.exp(rng.uniform(-1.0, 1.0)))
        hi = 2.0 * (eta / kappa) ** (1.0 / n)
        if kind == "det":
            fun = lambda s: eta * s ** (n - 2) - kappa * s ** (2 * n - 2)
        else:
            fun = lambda s: (2 * eta * s ** (n - 2) - kappa * s ** (2 * n - 2)) / n
        pred = np.array(formula(eta, kappa, n), dtype=float)
        meas = []
        for tol in _XATOLS:
            s_opt, b_num = _scan_max(fun, 0.0, hi, tol)
            meas.append(np.array([b_num, s_opt ** n][:len(pred)]))
        return tc.Refinement.of([f"xatol={t:g}" for t in _XATOLS], measured=meas, predicted=pred,
                                floors=[2 * n * (t + 2 * math.sqrt(np.finfo(float).eps)) for t in _XATOLS],
                                resolution=_THR_RESOLUTION,
                                detail=f"n={n}, eta={eta:.3g}, kappa={kappa:.3g}")
    return check


def _f_det(eta, kappa, n, *, expo=None, factor=1.0):
    e = (n - 2) / n if expo is None else expo(n)
    return (factor * eta * n / (2 * (n - 1)) * th.u_det(eta, kappa, n) ** e,)


def _f_star(eta, kappa, n, *, expo=None, factor=1.0):
    e = (n - 2) / n if expo is None else expo(n)
    return (factor * eta / (n - 1) * th.u_star(eta, kappa, n) ** e, th.u_star(eta, kappa, n))


_thr_dims = tc.DimSpace({"n": (3, 6)})
_thr_dims_expo = tc.DimSpace({"n": (4, 6)})
"""For the 'exponent 1/n' controls: at n = 3, 1/n = (n-2)/n, so the control IS the statement there."""
_bif = tc.Statement(
    r"\beta^{(\mathrm{det})}_j=\frac{n\,\eta_j}{2(n-1)}\Big(\frac{(n-2)\eta_j}{2(n-1)\kappa_j}\Big)^{\frac{n-2}{n}}\quad(n\ge 3)",
    dims=_thr_dims, check=_threshold_check("det", _f_det), derivation=_bifurcation_derivation,
    note=r"$n = 3$: $(3/4) \eta (\eta/(4 \kappa))^{1/3}$")
tc.register(tc.Claim(
    id="cascade.bifurcation", title=r"$n \ge 3$: strength where a nonzero minimum of $L_{j}$ first appears (bifurcation), closed form in $n$, $\eta$, $\kappa$",
    source=_src("III.B", "(25)", r"\beta^{(\mathrm{det})}_j\ \text{(bifurcation: a nontrivial minimum appears)},\ n\ge 3"),
    statement=_bif,
    controls=(tc.perturb(_bif, "exponent 1/n", dims=_thr_dims_expo,
                            check=_threshold_check("det", lambda e, k, n: _f_det(e, k, n, expo=lambda m: 1 / m))),
              tc.perturb(_bif, "factor 2", predicted=lambda p: 2.0 * np.asarray(p)),
              tc.perturb(_bif, "swapped with the level crossing", check=_threshold_check("det", lambda e, k, n: _f_star(e, k, n)[:1]))),
    aliases=("eq25",),
    assumptions=(ALIGNED, r"$n \ge 3$ weight matrices", r"$\sigma$ = layer singular value; eq. (25) read as the bifurcation strength "
                 "(the review lists 'bifurcation and level-crossing strengths (25)-(26)')"),
))

_lc = tc.Statement(
    r"\beta^{*}_j=\frac{\eta_j}{n-1}\Big(\frac{(n-2)\eta_j}{(n-1)\kappa_j}\Big)^{\frac{n-2}{n}},\quad "
    r"\Delta s_j=\frac{(n-2)\eta_j}{(n-1)\kappa_j}\quad(n\ge 3)",
    dims=_thr_dims, check=_threshold_check("star", _f_star), derivation=_level_crossing_derivation,
    note=r"$n = 3$: $\beta^* = (\eta/2)(\eta/(2 \kappa))^{1/3}$, jump of the product's singular value $\eta/(2 \kappa)$")
tc.register(tc.Claim(
    id="cascade.level_crossing",
    title=r"$n \ge 3$: strength where the nonzero minimum becomes global (level crossing) and the jump of the order parameter",
    source=_src("III.B", "(26)", r"\beta^{*}_j\ \text{(level crossing: the nontrivial minimum becomes global)},\ n\ge 3"),
    statement=_lc,
    controls=(tc.perturb(_lc, "exponent 1/n", dims=_thr_dims_expo,
                            check=_threshold_check("star", lambda e, k, n: _f_star(e, k, n, expo=lambda m: 1 / m))),
              tc.perturb(_lc, "factor 2", predicted=lambda p: np.asarray(p) * np.array([2.0, 1.0])),   # beta* only
              tc.perturb(_lc, "swapped with the bifurcation",
                         check=_threshold_check("star", lambda e, k, n: _f_det(e, k, n) + (th.u_det(e, k, n),)))),
    aliases=("eq26",),
    assumptions=(ALIGNED, r"$n \ge 3$ weight matrices ($n = 3$ included: the review's minor comment 1)",
                 r"$\Delta s$ = jump of the product's singular value $\sigma^{n}$ at $\beta^*$"),
))
