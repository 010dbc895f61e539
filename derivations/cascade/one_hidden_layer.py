"""Sec. III.A: one hidden layer, the cascade of continuous transitions.

``cascade.n2_cascade``: direction ``j`` turns on at ``beta = eta_j``; the layer value grows as
``(eta_j - beta)^{1/2}``, the product's as ``(eta_j - beta)^1`` (full network minimised by trust-region Newton).

Model, conventions and closed forms (``th``): :mod:`derivations.cascade.model`; minimisation and
gradient flow of the full network (``sims``): :mod:`derivations.cascade.training`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import theorem_check as tc

from . import model as th
from . import training as sims
from .model import _GTOLS, ALIGNED, LOSS, _aligned_problem, _fmt, _src


# =======================================================================================
# One hidden layer: the cascade of continuous transitions, order parameters and exponents
# =======================================================================================
def _n2_check(which: str, *, exponent: float = 0.5, factor: float = 1.0):
    """Check factory: minimise the full n = 2 network and compare singular values with a prediction.

    ``which`` = ``"layer"`` (singular values of W_1 and of W_2) or ``"product"`` (of W_2 W_1); the
    prediction is ``factor * ((eta_j - beta)_+ / kappa_j)^exponent``.  Each instance is checked at two
    aligned problems: one as drawn (beta may leave every direction off, testing the zero branch) and one
    with ``beta <= eta_1 - 0.15`` (at least one direction on, so the nonzero branch, where the exponent and
    the factor matter, is tested on every instance).  The check reports the measured singular values of
    both problems (one vector) and the prediction; the engine decides.  Refinement: optimiser gradient
    tolerance ``1e-4 -> 1e-7 -> 1e-10``.  Floors (relative, Frobenius): near the minimum manifold the
    distance is ``|theta - theta*| <= 2 gtol / mu`` (``mu`` the smallest nonzero Hessian eigenvalue at the
    predicted minimum, closed form of cascade.hessian_*; the factor 2 allows the curvature to drop to
    ``mu/2`` in the neighbourhood; the zero modes are symmetry orbits that leave singular values fixed).
    Mirsky's inequality bounds the layer singular values' error by ``|theta - theta*|``; the product's by
    ``sqrt(2) (1 + max sqrt(s)) |theta - theta*|``.  Two problems: a further ``sqrt(2)``.  Relative to
    ``|prediction|``.
    """
    def one(rng, d, pb):
        dx, dy = d["dx"], d["dy"]
        dh = max(d["dh"], min(dx, dy))
        eta, kappa, beta = pb["eta"], pb["kappa"], pb["beta"]
        k = len(eta)
        pred = factor * (np.maximum(eta - beta, 0.0) / kappa[:k]) ** exponent
        pred = np.sort(np.concatenate([pred, np.zeros(max(0, min(dh, dx, dy) - k))]))[::-1][:min(dh, dx, dy)]
        # curvature: smallest nonzero eigenvalue of the predicted Hessian spectrum at the minimum
        act = [j for j in range(k) if eta[j] > beta]
        sig = th.n2_layer_sigma(eta[act], kappa[act], beta)
        spec = np.array(th.predicted_hessian_spectrum(2, [dx, dh, dy], sig, kappa, eta[len(act):], beta))
        mu = float(np.min(spec[np.abs(spec) > 1e-9 * np.abs(spec).max()]))
        s_max = float(np.max(np.maximum(eta - beta, 0.0) / kappa[:k]))
        lip = 1.0 if which == "layer" else math.sqrt(2.0) * (1.0 + math.sqrt(s_max))
        Ws0 = sims.random_init(rng, [dx, dh, dy], 0.5)
        levels = sims.minimize_network(Ws0, pb["Sxx"], pb["Syx"], beta, _GTOLS)
        meas = []
        for Ws, gn in levels:
            if which == "layer":
                meas.append(np.concatenate([sims.layer_svals(W)[:len(pred)] for W in Ws]))
            else:
                meas.append(sims.product_svals(Ws)[:len(pred)])
        p = np.tile(pred, 2) if which == "layer" else pred
        return meas, p, mu, lip, f"beta={beta:.3g}, eta={_fmt(eta)}, kappa={_fmt(kappa[:k])}, mu={mu:.3g}"

    def check(rng, d):
        pb = _aligned_problem(rng, d["dx"], d["dy"])
        on = _aligned_problem(rng, d["dx"], d["dy"], active=True)
        runs = [one(rng, d, p) for p in (pb, on)]
        pred = np.concatenate([r[1] for r in runs])
        meas = [np.concatenate(ms) for ms in zip(*(r[0] for r in runs))]
        mu, lip = min(r[2] for r in runs), max(r[3] for r in runs)
        norm = float(np.linalg.norm(pred))          # > 0: the second problem has a direction on
        floors = [2.0 * math.sqrt(2.0) * lip * g / (mu * norm) for g in _GTOLS]
        return tc.Refinement.of([f"gtol={g:g}" for g in _GTOLS], measured=meas, predicted=pred, floors=floors,
                                resolution=1e-4, detail=f"{runs[1][4]}; other beta: {runs[0][4]}")
    return check


_n2_dims = tc.DimSpace({"dx": (1, 3), "dh": (1, 3), "dy": (1, 3)})


def _n2_derivation():
    sig, eta, kap, beta = sp.symbols("sigma eta kappa beta", positive=True)
    L = th.landau(sig, eta, kap, beta, 2)
    s2 = (eta - beta) / kap
    return tc.Derivation([
        tc.Step(sp.factor(sp.diff(L, sig)), 4 * sig * (kap * sig ** 2 - (eta - beta)),
                r"$L_{j}'(\sigma) = 4 \sigma (\kappa \sigma^{2} - (\eta_{j} - \beta))$: nonzero root iff $\beta < \eta_{j}$"),
        tc.Step(sp.diff(L, sig, 2).subs(sig ** 2, s2), 8 * (eta - beta),
                r"$L_{j}'' = 8 (\eta_{j} - \beta) > 0$ at $\sigma^{2} = (\eta_{j} - \beta)/\kappa_{j}$ (and $L_{j}''(0) = 4(\beta - \eta_{j}) < 0$)"),
        tc.Step(L.subs(sig, sp.sqrt(s2)), -(eta - beta) ** 2 / kap,
                r"minimum value $-(\eta_{j} - \beta)^{2}/\kappa_{j} < 0 = L_{j}(0)$: the transition is at $\beta^*_{j} = \eta_{j}$"),
        tc.Step(sp.sqrt(s2) ** 2, (eta - beta) / kap,
                r"layer $\sigma_{j} = ((\eta_{j}-\beta)/\kappa_{j})^{1/2}$; product $s_{j} = \sigma_{j}^{2} = (\eta_{j}-\beta)/\kappa_{j}$ (exponent 1)"),
    ], general=True)


_n2_printed = tc.Statement(
    r"n=2:\ \beta^*_j=\eta_j,\quad \sigma_j=\big((\eta_j-\beta)_+/\kappa_j\big)^{1/2}\ (\text{layer singular value})",
    dims=_n2_dims, check=_n2_check("layer"), derivation=_n2_derivation,
    note=r"full network minimised by trust-region Newton from a random start; hidden width ≥ $\min(d_{x}, d_{y})$")
tc.register(tc.Claim(
    id="cascade.n2_cascade",
    title=r"One hidden layer: direction $j$ turns on at $\beta = \eta_{j}$; layer value ~ $(\eta_{j} - \beta)^{1/2}$, product ~ $(\eta_{j} - \beta)^{1}$",
    source=_src("III.A", "Sec. III.A (Fig. 3-4)",
                r"\beta^*_j=\eta_j,\qquad \sigma_j\sim(\eta_j-\beta)^{1/2},\qquad \sigma_j^{*2}=(\eta_j-\beta)/\kappa_j"),
    statement=_n2_printed,
    variants=(
        tc.Statement(r"\text{product } s_j = (\eta_j-\beta)_+/\kappa_j\ (\text{exponent } 1)", name="reading: product singular value, exponent 1",
                     kind="reading", dims=_n2_dims, check=_n2_check("product", exponent=1.0)),
        tc.Statement(r"\text{product } s_j = ((\eta_j-\beta)_+/\kappa_j)^{1/2}", name="reading: product singular value, exponent 1/2",
                     kind="reading", dims=_n2_dims, check=_n2_check("product", exponent=0.5)),
    ),
    controls=(tc.perturb(_n2_printed, "factor 2", predicted=lambda p: 2.0 * p),
              # p = ((eta - beta)_+/kappa)^{1/2}, so p^2 is the same prediction with exponent 1
              tc.perturb(_n2_printed, "exponent 1 for the layer", predicted=lambda p: np.asarray(p) ** 2)),
    aliases=("n2",),
    assumptions=(ALIGNED, LOSS, r"$n = 2$ (one hidden layer), hidden width ≥ $\min(d_{x}, d_{y})$",
                 r"distinct $\eta_{j}$, $|\eta_{j} - \beta| \ge 0.15$"),
))
