"""The review's "What would settle it": Sigma_xx = 1, Sigma_yx = diag(0.95, 0.55), beta = 0.60, n = 2.

``cascade.settle_it`` (the trained singular values at ``beta = 0.60``) and ``cascade.settle_crossing`` (the
second singular value switches on continuously as ``beta`` crosses 0.55), by gradient flow of the full network.

Model, conventions and closed forms (``th``): :mod:`derivations.cascade.model`; minimisation and
gradient flow of the full network (``sims``): :mod:`derivations.cascade.training`.
"""

from __future__ import annotations

import math

import numpy as np

import theorem_check as tc

from . import model as th
from . import training as sims
from .model import LOSS, _fmt, _src

# =======================================================================================
# The review's "what would settle it": Sigma_xx = 1, Sigma_yx = diag(0.95, 0.55), beta = 0.60, n = 2
# =======================================================================================
_SETTLE_ETA = np.array([0.95, 0.55])


def _settle_levels(mu):
    """(T, rtol) levels and floors 10 exp(-mu T) + 100 rtol: mu = slowest nonzero Hessian eigenvalue at the minimum."""
    Ts = [10.0 / mu, 20.0 / mu, 30.0 / mu]
    tols = [1e-6, 1e-9, 1e-12]
    return Ts, tols, [10 * np.exp(-mu * T) + 100 * r for T, r in zip(Ts, tols)]


def _settle_mu(beta, dh):
    """Smallest nonzero eigenvalue of the closed-form Hessian spectrum at the n = 2 minimum of the experiment."""
    act = _SETTLE_ETA > beta
    sig = th.n2_layer_sigma(_SETTLE_ETA[act], np.ones(int(act.sum())), beta)
    spec = np.array(th.predicted_hessian_spectrum(2, [2, dh, 2], sig, np.ones(2), _SETTLE_ETA[~act], beta))
    return float(np.min(spec[np.abs(spec) > 1e-9]))


def _settle_run(rng, beta, dh, which, T_levels, tols):
    Sxx, Syx = np.eye(2), np.diag(_SETTLE_ETA)
    Ws0 = sims.random_init(rng, [2, dh, 2], 0.1)
    out = []
    for T, tol in zip(T_levels, tols):
        _, traj = sims.flow(Ws0, Sxx, Syx, beta, np.array([0.0, T]), rtol=tol, atol=tol * 1e-4)
        W = traj[-1]
        out.append(sims.product_svals(W) if which == "product" else sims.layer_svals(W[0])[:2])
    return out


def _settle_check(pred_product=None, pred_layer=None):
    """Gradient flow (LSODA) from a small random start at beta = 0.60; compare singular values with predictions.

    Measured: the product's and/or a layer's singular values after the flow (one vector); predicted: the
    statement's values.  Floors (relative to ``|prediction|``): each value is off by at most
    ``10 exp(-mu T) + 100 rtol`` (linear convergence at the slowest rate mu, closed form; integration
    error), the vector by ``sqrt(#values)`` times that.
    """
    def check(rng, d):
        beta, dh = 0.60, d["dh"]
        mu = _settle_mu(beta, dh)
        Ts, tols, floors = _settle_levels(mu)
        meas, preds = [[], [], []], []
        for which, pred in (("product", pred_product), ("layer", pred_layer)):
            if pred is None:
                continue
            vals = _settle_run(np.random.default_rng(rng.integers(2**32)), beta, dh, which, Ts, tols)
            for k, v in enumerate(vals):
                meas[k].append(np.asarray(v[:len(pred)], dtype=float))
            preds.append(np.asarray(pred, dtype=float))
        pred = np.concatenate(preds)
        amp = math.sqrt(pred.size) / float(np.linalg.norm(pred))
        return tc.Refinement.of([f"T={T:.0f},rtol={t:g}" for T, t in zip(Ts, tols)],
                                measured=[np.concatenate(m) for m in meas], predicted=pred,
                                floors=[amp * f for f in floors], resolution=1e-4,
                                detail=f"hidden width {dh}, slowest rate mu={mu:.3g} (closed-form spectrum); measured "
                                       f"{_fmt(np.concatenate(meas[-1]))}, predicted {_fmt(pred)}")
    return check


_settle_dims = tc.DimSpace({"dh": (2, 4)})
_SETTLE_QUOTE = ('review, \'What would settle it\': "the predicted minimal macrostate has only one nonzero singular value, '
                 r'$\sigma_{1}=\sqrt{0.35}\approx 0.59$, and $\sigma_{2}=0$ exactly". In the review $\sigma_{j}$ is '
                 r"the Landau variable of $L_{j}(\sigma_{j}) = \kappa \sigma^{2n} - 2 \eta \sigma^{n} + n \beta \sigma^{2}$ ('the "
                 r"singular values $\sigma_{j}$ of the weight matrices', cascade.landau), i.e. a layer's singular value; the "
                 r"macrostate $W = W_{2} W_{1}$ then has rank one, singular values $(\sigma_{1}^{2}, 0) = (0.35, 0)$. Read "
                 r"literally as $W$'s own singular value, $\sqrt{0.35}$ is wrong (the reading below).")
_settle = tc.Statement(r"\Sigma_{xx}=1,\ \Sigma_{yx}=\mathrm{diag}(0.95,0.55),\ \beta=0.60:\ "
                       r"\sigma_1=\sqrt{0.35}\approx0.59,\ \sigma_2=0\ (\sigma_j\text{ the Landau variable, a layer's singular value});\ "
                       r"\text{macrostate } W=W_2W_1 \text{ of rank one: } (\sigma_1^2,\,0)=(0.35,\,0)",
                       dims=_settle_dims, note=_SETTLE_QUOTE,
                       check=_settle_check(pred_product=np.array([0.35, 0.0]), pred_layer=np.array([np.sqrt(0.35), 0.0])))
tc.register(tc.Claim(
    id="cascade.settle_it",
    title=r"Review's decisive experiment at $\beta = 0.60$: $\sigma_{1} = \sqrt{0.35}$ (layers), macrostate of rank one with value 0.35",
    source=_src("What would settle it", "review", r"\text{the predicted minimal macrostate has only one nonzero singular value, }"
                r"\sigma_1=\sqrt{0.35}\approx 0.59,\ \text{and } \sigma_2=0 \text{ exactly}"),
    statement=_settle,
    variants=(tc.Statement(r"\text{macrostate } W=W_2W_1 \text{ itself has } \sigma_1(W)=\sqrt{0.35},\ \sigma_2(W)=0",
                           name="reading: sqrt(0.35) is the macrostate's singular value", kind="reading", dims=_settle_dims,
                           check=_settle_check(pred_product=np.array([np.sqrt(0.35), 0.0]))),),
    controls=(tc.perturb(_settle, r"$\sigma_{2} = 0.05$",   # prediction (product s_1, s_2, layer sigma_1, sigma_2)
                         predicted=lambda p: np.asarray(p) + np.array([0.0, 0.05, 0.0, 0.0])),),
    aliases=("settle_it",),
    assumptions=(r"population covariances (infinite Gaussian data): $\Sigma_{xx} = 1$, $\Sigma_{yx} = \operatorname{diag}(0.95, 0.55)$", LOSS,
                 "one hidden layer of width 2-4, gradient flow (LSODA) from a small random start"),
))


def _crossing_check(deltas=(0.05, 0.02)):
    """Train at beta = 0.55 -+ delta: predicted s_2 = (0.55 - beta)_+ (continuous, exponent 1 for the product).

    Measured: s_2 at the four strengths (one vector); predicted ``(0.55 - beta)_+``.  Levels: T = c/mu
    with mu the slowest rate (closed form) at each beta, c = 10, 20, 30, and rtol 1e-6, 1e-9, 1e-12.
    Floors (relative to ``|prediction|``): each value off by at most the largest ``10 exp(-mu T) + 100
    rtol`` of the four runs, the vector by twice that.
    """
    def check(rng, d):
        dh = d["dh"]
        floors = [0.0, 0.0, 0.0]
        meas, pred_all = [[], [], []], []
        for delta in deltas:
            for beta in (0.55 - delta, 0.55 + delta):
                mu = _settle_mu(beta, dh)
                Ts, tols, fl = _settle_levels(mu)
                vals = _settle_run(np.random.default_rng(rng.integers(2**32)), beta, dh, "product", Ts, tols)
                for k, v in enumerate(vals):
                    meas[k].append(float(v[1]))
                floors = [max(f, x) for f, x in zip(floors, fl)]
                pred_all.append(max(0.55 - beta, 0.0))
        pred = np.array(pred_all)
        amp = 2.0 / float(np.linalg.norm(pred))
        return tc.Refinement.of(["T=10/mu", "T=20/mu", "T=30/mu"], measured=[np.array(m) for m in meas],
                                predicted=pred, floors=[amp * f for f in floors], resolution=1e-4,
                                detail=f"s_2 at beta = 0.55 -+ {deltas}, hidden width {dh}: measured {_fmt(meas[-1])}")
    return check


_cross = tc.Statement(r"s_2(\beta)=(0.55-\beta)_+\ \ (\text{continuous at } \beta=0.55;\ \text{layer } \sqrt{(0.55-\beta)_+})",
                      dims=_settle_dims, check=_crossing_check())
tc.register(tc.Claim(
    id="cascade.settle_crossing",
    title=r"Review's decisive experiment: the second singular value switches on continuously as $\beta$ crosses 0.55",
    source=_src("What would settle it", "review", r"\text{observing } \sigma_2 \text{ to jump discontinuously when } \beta "
                r"\text{ crosses } 0.55 \text{ would contradict the second-order cascade}"),
    statement=_cross,
    controls=(tc.perturb(_cross, "jump of 0.05 at 0.55",    # betas 0.55 -+ 0.05, 0.55 -+ 0.02: + 0.05 below 0.55
                         predicted=lambda p: np.asarray(p) + np.array([0.05, 0.0, 0.05, 0.0])),),
    aliases=("settle_crossing",),
    assumptions=(r"$\Sigma_{xx} = 1$, $\Sigma_{yx} = \operatorname{diag}(0.95, 0.55)$, $n = 2$", LOSS, "gradient flow from a small random start"),
))
