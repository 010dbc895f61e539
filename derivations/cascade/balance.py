"""Sec. II.C / App. A1, eqs. (10)-(11): 0-balance.

``cascade.balance_identity`` (the gradient identity behind it), ``cascade.balance_critical`` (0-balance at
every critical point for ``beta > 0``) and ``cascade.balance_flow`` (the imbalance decays as ``exp(-4 beta t)``).

Model and conventions: :mod:`derivations.cascade.model`; minimisation and gradient flow of the full
network (``sims``): :mod:`derivations.cascade.training`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import dln, sampling

from . import training as sims
from .model import _GTOLS, LOSS, _net_space, _src, _widths


# =======================================================================================
# 0-balance: the identity, at critical points, and along gradient flow (eqs. 10-11, App. A1)
# =======================================================================================
def _bal_sample(rng, d, batch):
    w, n = _widths(d), d["n"]
    return {"W": [rng.standard_normal((batch, w[i + 1], w[i])) for i in range(n)],
            "Sxx": sampling.spd(rng, w[0], cond=5.0, batch=batch), "Syx": rng.standard_normal((batch, w[-1], w[0])),
            "beta": float(rng.uniform(0.05, 1.0))}


def _bal_lhs(inst, ctx):
    G = dln.population_gradients(inst.W, inst.Sxx, inst.Syx, beta=inst.beta)
    W = inst.W
    return np.concatenate([(G[i] @ ctx.T(W[i]) - ctx.T(W[i + 1]) @ G[i + 1]).reshape(W[0].shape[0], -1)
                           for i in range(len(W) - 1)], axis=-1)


def _bal_rhs(inst, ctx, *, factor=2.0, transposed=False):
    W = inst.W
    if transposed:
        blocks = [ctx.T(W[i]) @ W[i] - W[i + 1] @ ctx.T(W[i + 1]) for i in range(len(W) - 1)]
    else:
        blocks = [W[i] @ ctx.T(W[i]) - ctx.T(W[i + 1]) @ W[i + 1] for i in range(len(W) - 1)]
    return np.concatenate([(factor * inst.beta * b).reshape(W[0].shape[0], -1) for b in blocks], axis=-1)


def _bal_derivation():
    dx, di, dj, dk, dy = sp.symbols("d_x d_{i-1} d_i d_{i+1} d_y", integer=True, positive=True)
    A = sp.MatrixSymbol("A_{i+1}", dy, dk)          # W_n ... W_{i+2}
    Wn = sp.MatrixSymbol("W_{i+1}", dk, dj)
    Wi = sp.MatrixSymbol("W_i", dj, di)
    B = sp.MatrixSymbol("B_i", di, dx)              # W_{i-1} ... W_1
    E = sp.MatrixSymbol("E", dy, dx)                # P Sigma_xx - Sigma_yx
    b = sp.Symbol("beta", positive=True)
    Gi = 2 * (A * Wn).T * E * B.T + 2 * b * Wi
    Gn = 2 * A.T * E * (Wi * B).T + 2 * b * Wn
    D = Wi * Wi.T - Wn.T * Wn
    return tc.Derivation([
        tc.Step(sp.expand(Gi * Wi.T - Wn.T * Gn), sp.expand(2 * b * D),
                r"$\mathrm{d}L/\mathrm{d}W_{i} = 2 A_{i}^{\top} E B_{i}^{\top} + 2 \beta W_{i}$ with $A_{i} = A_{i+1} W_{i+1}$, $B_{i+1} = W_{i} B_{i}$: data terms cancel"),
        tc.Step(sp.expand(-(2 * b * D + (2 * b * D).T)), sp.expand(-4 * b * D),
                r"along gradient flow $\mathrm{d}D/\mathrm{d}t = -(G_{i} W_{i}^{\top} + W_{i} G_{i}^{\top}) + (W_{i+1}^{\top} G_{i+1} + G_{i+1}^{\top} W_{i+1}) = -4 \beta D$"),
    ], general=True)


_bal_dims = _net_space((2, 4), (1, 3))
_bal = tc.Statement(r"\frac{\partial L}{\partial W_i}W_i^\top-W_{i+1}^\top\frac{\partial L}{\partial W_{i+1}}"
                    r"=2\beta\big(W_iW_i^\top-W_{i+1}^\top W_{i+1}\big)",
                    dims=_bal_dims, sample=_bal_sample, lhs=_bal_lhs, rhs=_bal_rhs, derivation=_bal_derivation,
                    note=r"any weights, any (non-aligned)$\Sigma_{xx}$, $\Sigma_{yx}$")
tc.register(tc.Claim(
    id="cascade.balance_identity",
    title=r"Gradient identity behind 0-balance: $G_{i} W_{i}^{\top} - W_{i+1}^{\top} G_{i+1} = 2 \beta (W_{i} W_{i}^{\top} - W_{i+1}^{\top} W_{i+1})$",
    source=_src("App. A1", "App. A1 (critical points)", r"2\beta W^{(i)}W^{(i)T} = -(W^{(n)}\cdots W^{(i+1)})^TN(W^{(i)}\cdots W^{(1)})^T"
                r" = 2\beta W^{(i+1)T}W^{(i+1)}"),
    statement=_bal,
    controls=(tc.double(_bal), tc.negate(_bal),
              tc.perturb(_bal, "transposed balance", rhs=lambda v, inst, ctx: _bal_rhs(inst, ctx, transposed=True))),
    aliases=("balance_identity",),
    assumptions=(LOSS, "any weights and covariances (no alignment needed)"),
))


def _balance_critical_check(transposed=False):
    """Minimise the full network (non-aligned data) to gtol 1e-4 -> 1e-7 -> 1e-10 and measure the imbalance.

    Measured: the stacked imbalances ``D_i = W_i W_i^T - W_{i+1}^T W_{i+1}``; predicted: 0 ("x = 0"), with
    the positive reference scale ``max_i ||W_i||^2`` at the level (it does not vanish: beta <= 0.15 and
    ||Sigma_yx|| >= 1.5 / 3 keep the minimiser away from W = 0).  Floors from the identity
    ``G_i W_i^T - W_{i+1}^T G_{i+1} = 2 beta D_i`` (cascade.balance_identity):
    ``||D|| <= ||G|| max ||W|| / beta``, relative to the scale ``gtol / (beta max ||W||)``; the optimiser
    polishes to ``||G|| <= gtol`` (a level it does not reach leaves a residual above its floor).
    """
    def check(rng, d):
        n, w = d["n"], d["d"]
        dims = [w] * (n + 1)
        Sxx = sampling.spd(rng, w, cond=4.0)
        Syx = 1.5 * sampling.invertible(rng, w, cond=3.0)
        beta = float(rng.uniform(0.02, 0.15))
        levels = sims.minimize_network(sims.random_init(rng, dims, 0.8), Sxx, Syx, beta, _GTOLS)
        big = max(float(np.linalg.norm(W, 2)) for Ws, _ in levels for W in Ws)
        meas = []
        for Ws, gn in levels:
            if transposed:
                D = [Ws[i].T @ Ws[i] - Ws[i + 1] @ Ws[i + 1].T for i in range(n - 1)]
            else:
                D = [Ws[i] @ Ws[i].T - Ws[i + 1].T @ Ws[i + 1] for i in range(n - 1)]
            meas.append(np.stack(D))
        return tc.Refinement.of([f"gtol={g:g}" for g in _GTOLS], measured=meas, predicted=np.zeros_like(meas[0]),
                                floors=[g / (beta * big) for g in _GTOLS], scale=big ** 2, resolution=1e-4,
                                detail=f"n={n}, width {w}, beta={beta:.3g}, |W|_op max {big:.3g} (non-aligned data); "
                                       f"|grad| {', '.join(f'{gn:.1e}' for _, gn in levels)}")
    return check


_balc = tc.Statement(r"\nabla L=0,\ \beta>0\ \Rightarrow\ W_iW_i^\top=W_{i+1}^\top W_{i+1}",
                     dims=tc.DimSpace({"n": (2, 4), "d": (2, 3)}), check=_balance_critical_check(),
                     derivation=_bal_derivation, note="critical points reached by trust-region Newton, non-aligned data")
tc.register(tc.Claim(
    id="cascade.balance_critical", title=r"0-balance at every critical point for $\beta > 0$ (any data, any depth)",
    source=_src("II.C / App. A1", "(11)", r"\beta>0:\ \nabla L = 0 \Rightarrow W^{(i)}W^{(i)T}=W^{(i+1)T}W^{(i+1)}"),
    statement=_balc,
    controls=(tc.perturb(_balc, "transposed balance", check=_balance_critical_check(transposed=True)),),
    aliases=("eq11",),
    assumptions=(LOSS, r"$\beta > 0$", "non-aligned random covariances"),
))


_TOL_FLOW = (1e-5, 1e-8, 1e-11)


def _balance_flow_check(rate=4.0):
    """Integrate gradient flow (DOP853, rtol 1e-5 -> 1e-8 -> 1e-11) and compare D_i(t) with D_i(0) exp(-rate beta t).

    Measured: the stacked imbalances ``D_i(t)`` at t = 0.5, 1, 2; predicted ``D_i(0) e^{-rate beta t}``.
    Floors: ``D`` is quadratic in the weights, so an integration error ``|dW| <= C rtol |W|`` moves it by
    ``2 C rtol |W|^2``; with ``C = 100`` (global error over t <= 2 of a method that controls the local
    error to rtol) and relative to ``|prediction|``: ``200 rtol max_t |W(t)|^2 sqrt(#entries) / |prediction|``.
    """
    def check(rng, d):
        n, w = d["n"], _widths(d)
        Ws0 = sims.random_init(rng, w, 0.7)
        Sxx, Syx = sampling.spd(rng, w[0], cond=4.0), rng.standard_normal((w[-1], w[0]))
        beta = float(rng.uniform(0.1, 0.5))
        times = np.array([0.0, 0.5, 1.0, 2.0])
        D = lambda Ws: np.concatenate([(Ws[i] @ Ws[i].T - Ws[i + 1].T @ Ws[i + 1]).ravel() for i in range(n - 1)])
        D0 = D(Ws0)
        pred = np.stack([D0 * np.exp(-rate * beta * tk) for tk in times[1:]])
        meas, big = [], 0.0
        for tol in _TOL_FLOW:
            t, traj = sims.flow(Ws0, Sxx, Syx, beta, times, rtol=tol, atol=tol * 1e-3, method="DOP853")
            meas.append(np.stack([D(Wt) for Wt in traj[1:]]))
            big = max(big, max(float(np.linalg.norm(W)) ** 2 for Wt in traj for W in Wt))
        amp = big * math.sqrt(pred.size) / float(np.linalg.norm(pred))
        return tc.Refinement.of([f"rtol={x:g}" for x in _TOL_FLOW], measured=meas, predicted=pred,
                                floors=[200 * x * amp for x in _TOL_FLOW], resolution=1e-4,
                                detail=f"n={n}, widths {w}, beta={beta:.3g}, D(t) = D(0) e^(-{rate:g} beta t) at t = 0.5, 1, 2")
    return check


_balf = tc.Statement(r"W_iW_i^\top-W_{i+1}^\top W_{i+1}\big|_t=\big(W_iW_i^\top-W_{i+1}^\top W_{i+1}\big)\big|_0\,e^{-4\beta t}",
                     dims=_net_space((2, 3), (1, 3)), check=_balance_flow_check(),
                     note=r"gradient flow of the full loss (no 1/2): the rate is $4 \beta$")
tc.register(tc.Claim(
    id="cascade.balance_flow", title=r"Imbalance decays exactly as $\exp(-4 \beta t)$ along gradient flow (any data)",
    source=_src("II.C", "(10)", r"\text{exponential convergence to the 0-balanced manifold}"),
    statement=_balf,
    controls=(tc.perturb(_balf, r"rate $2 \beta$", check=_balance_flow_check(rate=2.0)),),
    aliases=("eq10",),
    assumptions=(LOSS, r"gradient flow $\mathrm{d}W/\mathrm{d}t = -\nabla L$ (a loss with a factor 1/2 would give $\exp(-2 \beta t)$)"),
))
