"""Noise paper, Appendix A, by simulation (slow): Figure 8 (A.3) and eq. 24 on Net-A and Net-B (A.1).

Figure 8: convergence to the noise equilibrium of Theorem 5.2 across eta, width and batch size; eq. 24: the
norm growth of scale-invariant networks.  How the simulation claims measure and report (trust model 2):
:mod:`derivations.noise.simulators`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import theorem_check as tc

from .. import simulation as sc
from .model import PAPER
from .simulators import MFProblem, _child, _thin, run_mf

# ---------------------------------------------------------------------------------------------
# Figure 8 (Appendix A.3): convergence to the noise equilibrium across eta, width and batch size
# ---------------------------------------------------------------------------------------------

FIG8 = dict(dim=100, phi=0.5, eta=0.1, S=100, width=2000, width_ci=200, replicas=4, steps=600)
"""Figure 8: autoencoding y = x + eps in dimension 100, x_{1:50} ~ N(0, phi), x_{51:100} ~ N(0, 2 - phi),
Sigma_eps = I; defaults eta = 0.1, S = 100, width 2000 (the caption's "d = 2000"; its "d_x = d_y = d"
for the middle panel is read as the hidden width).  phi = 0.5 (non-isotropic: the balance is not
the norm balance).  Budget "ci" runs the default point at width 200; "paper" runs width 2000 and the
sweeps eta in {0.07, 0.05} at width 2000 (0.1 diverges there with the sum-of-squares loss (12); the
paper's eta presumably refers to a loss averaged over outputs), width in {500, 1000, 2000}, S in
{50, 100, 200} (4 replicas per point; about an hour on one core, smoke-tested only)."""


def _fig8_points():
    c = FIG8
    if not sc.paper_scale():
        return [dict(eta=c["eta"], S=c["S"], width=c["width_ci"], label=f"default (width {c['width_ci']})")]
    # width 2000: eta = 0.1 diverges with the sum-of-squares loss (12); 0.07 and 0.05 train
    pts = [dict(eta=e, S=c["S"], width=c["width"], label=f"eta={e:g}") for e in (0.07, 0.05)]
    pts += [dict(eta=0.05, S=c["S"], width=w, label=f"width={w}") for w in (500, 1000)]
    pts += [dict(eta=0.05, S=S, width=1000, label=f"S={S}") for S in (50, 200)]
    return pts


def fig8_resolution(floors, residual_last):
    """The smallest relative mutant of the prediction the Figure 8 refinement can refute, from its own run.

    The prediction is ``(rho, perp) = (1, 0)`` at every sweep point; a relative change ``delta`` of it
    leaves a gap ``delta / (1 + delta)`` to a true statement's exact value, and the refinement rule refutes
    a stall only above ``f_last sqrt(rho) = sqrt(f_0 f_1)`` (docs/verdicts.md).  The measured imbalance
    ``residual_last`` (finite-step bias and replica noise at eta/2) can hide that much of the gap, so the
    mutant is resolved when ``delta / (1 + delta) > sqrt(f_0 f_1) + residual_last``:
    ``delta = t / (1 - t)`` with ``t`` that sum, at most 0.99 (a resolution lies in (0, 1)): where the run
    cannot resolve that much (``t > 0.497``), the engine's ``1 + 0.99`` mutant survives and the claim says
    so.  Replaces the hand-set 0.9 of trust model 2.
    """
    t = float(np.sqrt(floors[0] * floors[1])) + float(residual_last)
    return 0.99 if t >= 0.99 / 1.99 else t / (1 - t)


def _fig8_check():
    """Output-space balance ``P Gamma_W P^T = G Gamma_U G`` at each sweep point, eta halved once (a Refinement).

    Measured per level: ``(rho, perp)`` of :func:`derivations.simulation.ratio_perp` for the replica-mean
    output-space matrices of every sweep point, predicted ``(1, 0)`` each (so that the relative gap is
    ``||A - B|| / max(||A||, ||B||)`` and the prediction's mutants are the statements ``A = c B``).
    """
    from .simulators import output_balance_terms

    def check(rng, dims):
        c = FIG8
        rng = _child(rng)
        R = c["replicas"] if sc.paper_scale() else sc.scaled(c["replicas"], minimum=3)   # width 2000 is costly
        sx = np.r_[np.full(c["dim"] // 2, c["phi"]), np.full(c["dim"] - c["dim"] // 2, 2 - c["phi"])]
        prob = MFProblem(sx, np.ones(c["dim"]), np.eye(c["dim"]))
        obs = lambda U, W: dict(zip("AB", output_balance_terms(prob, U, W)))   # noqa: E731
        pts = _fig8_points()
        parts, series = [], []
        meas = [[], []]
        floors = [0.0, 0.0]
        n1 = c["steps"] if sc.paper_scale() else sc.scaled(c["steps"], minimum=400)
        bar = sc.Progress("noise.fig8 sweep", len(pts) * 3 * n1)
        drifts = {}
        for k, p in enumerate(pts):
            W = rng.normal(0, np.sqrt(1 / p["width"]), (R, p["width"], c["dim"]))   # both layers O(1) singular values
            U = rng.normal(0, np.sqrt(1 / p["width"]), (R, c["dim"], p["width"]))
            # equilibration time scales as 1/eta^2 (Noether flow ~ eta^2/S per step): steps scaled with (0.1/eta)^2 S/100
            n = int(n1 * (c["eta"] / p["eta"]) ** 2 * p["S"] / c["S"])
            a = run_mf(rng, prob, U, W, eta=p["eta"], S=p["S"], steps=n, burn=n // 3, observe=obs, every=5)
            b = run_mf(rng, prob, a["U"], a["W"], eta=p["eta"] / 2, S=p["S"], steps=4 * n, burn=4 * n // 3, observe=obs,
                       every=10)
            bar.update((k + 1) * 3 * n1)
            res = []
            for lvl, (e, o) in enumerate(((p["eta"], a), (p["eta"] / 2, b))):
                scale = float(np.mean(np.linalg.norm(o["A"], axis=(1, 2))))
                rho, perp = sc.ratio_perp(o["A"].mean(0)[None], o["B"].mean(0)[None])
                meas[lvl] += [float(rho[0]), float(perp[0])]
                res.append(float(np.hypot(rho[0] - 1, perp[0])))
                drifts[f"{p['label']} eta={e:g}"] = sc.drift_test(np.concatenate([o["A_1"], o["B_1"]], 1),
                                                                   np.concatenate([o["A_2"], o["B_2"]], 1), scale)
            # first-order finite-step bias of a true statement: relative imbalance <~ eta lambda_max(H) / 2 with
            # lambda_max(H) ~ 2 max(Sigma_x) (||U||_op^2 + ||W||_op^2) at the end state; the combined gap over the
            # sweep points (relative to their rms scale) is at most the largest point's
            lam = float(np.mean(2 * sx.max() * (np.linalg.norm(b["U"], 2, axis=(1, 2)) ** 2
                                                + np.linalg.norm(b["W"], 2, axis=(1, 2)) ** 2)))
            floors = [max(floors[0], p["eta"] * lam / 2), max(floors[1], p["eta"] * lam / 4)]
            parts.append(f"{p['label']} (eta={p['eta']:g}, S={p['S']}, width={p['width']}): imbalance {res[0]:.3f} -> "
                         f"{res[1]:.4f} at eta/2 (floors {p['eta'] * lam / 2:.2f}, {p['eta'] * lam / 4:.2f})")
            series.append({"label": p["label"], "x": [p["eta"], p["eta"] / 2], "y": res})
        bar.close()
        sc.require_converged(drifts)
        pred = [1.0, 0.0] * len(pts)
        r_last = float(np.sqrt(np.mean([sr["y"][1] ** 2 for sr in series])))   # rms over the sweep points
        return sc.refinement(["eta", "eta/2"], measured=meas, predicted=pred, floors=floors,
                             resolution=fig8_resolution(floors, r_last),
                             detail=" | ".join(parts) + f"; {R} replicas per point; (rho, perp) of the replica-mean "
                             "matrices, A = rho B + perp part, against (1, 0)",
                             figure={"title": "Fig. 8: distance to the noise equilibrium vs learning rate",
                                     "panels": [{"kind": "line", "xlabel": r"$\eta$", "ylabel": "relative imbalance",
                                                 "xscale": "log", "yscale": "log", "series": series}]})

    return check


_DIMS_FIG8 = tc.DimSpace({"dim": (100, 100)})
_fig8 = tc.Statement(r"W\Gamma_W W^\top = U^\top\Gamma_U U \text{ (output space: } P\Gamma_W P^\top = G\Gamma_U G)"
                     r"\text{ for every } \eta, S, d", dims=_DIMS_FIG8, check=_fig8_check(),
                     note=r"The finite step leaves an $O(\eta)$ imbalance (the paper's Figure 3 remark); refinement "
                          r"$\eta \to \eta/2$ at each sweep point with floors $\eta \lambda_{\max}(H)/2$.")

tc.register(tc.Claim(
    id="noise.fig8_sweep_sim",
    title=r"Matrix factorisation reaches the noise equilibrium for every $\eta$, width and batch size (simulation)",
    source=tc.Source(PAPER, "Appendix A.3, Figure 8", "Theorem 5.2 / Figure 8",
                     r"W\Gamma_W W^\top = U^\top\Gamma_U U \text{ robust in } \eta, d, S"),
    statement=_fig8,
    controls=(tc.double(_fig8, same_measurement=True),),
    assumptions=(r"autoencoding $y = x + \varepsilon$ in dimension 100, $\phi_{x} = 0.5$, $\Sigma_{\varepsilon} = I$", r"online SGD, $\gamma = 0$",
                 "ci budget: width 200 at the default point only; paper budget: width 2000 and the three sweeps"),
    slow=True,
    aliases=("fig8",),
))


# ---------------------------------------------------------------------------------------------
# Appendix A.1 / eq. 24: scale invariance, Net-A and Net-B
# ---------------------------------------------------------------------------------------------

EQ24 = dict(n=128, dx=8, h=16, dy=2, noise=0.5, S=1, eta=0.05, burn=1000, window=1500, replicas=8)
"""Appendix A.1: "simple linear Gaussian data" (x ~ N(0, I_8), y = V x + 0.5 xi, n = 128 samples, a
finite training set so that Sigma(theta) is exact); widths not given in the paper: h = 16, dy = 2."""


def _scale_run(rng, net, u, w, X, Y, *, eta, S, steps, gd=False, every=5):
    """SGD (minibatches with replacement) or GD on Net-A/B; accumulates the eq. 24 bookkeeping per replica.

    ``Tr Sigma(theta_t)`` (exact on the data set) is evaluated every ``every`` steps and counted
    for ``every`` steps (an unbiased systematic sample of the window's integral).
    """
    from .simulators import per_sample_grads

    R, n = u.shape[0], X.shape[0]
    u, w = u.copy(), w.copy()
    sig2 = eta / (2 * S)
    acc = {"pred": np.zeros(R), "dec": np.zeros(R), "dec_u": np.zeros(R), "dec_w": np.zeros(R),
           "pred_1": np.zeros(R), "pred_2": np.zeros(R)}
    nu_prev, nw_prev = np.sum(u * u, (1, 2)), np.sum(w * w, (1, 2))
    norms = [nu_prev + nw_prev]
    mid = None
    for t in range(steps):
        if t % every == 0 or gd:
            gu, gw, _ = per_sample_grads(net, u, w, X, Y)
            Gu, Gw = gu.mean(1), gw.mean(1)
            if t % every == 0:
                g2 = np.sum(gu ** 2, (2, 3)) + np.sum(gw ** 2, (2, 3))      # (R, n)
                trSigma = g2.mean(1) - np.sum(Gu ** 2, (1, 2)) - np.sum(Gw ** 2, (1, 2))
                step_pred = min(every, steps - t) * eta * sig2 * trSigma    # dt * sigma^2 Tr Sigma, dt = eta
                acc["pred"] += step_pred
                acc["pred_1" if t < steps // 2 else "pred_2"] += step_pred
        if t == steps // 2:
            mid = np.sum(u * u, (1, 2)) + np.sum(w * w, (1, 2))
        if gd:
            du, dw = Gu, Gw
        else:
            idx = rng.integers(n, size=(R, S))
            du, dw, _ = per_sample_grads(net, u, w, X[idx], Y[idx])
            du, dw = du.mean(1), dw.mean(1)
        u -= eta * du
        w -= eta * dw
        nu, nw = np.sum(u * u, (1, 2)), np.sum(w * w, (1, 2))
        tot = nu + nw
        acc["dec"] += (tot < norms[-1] * (1 - 1e-12))
        acc["dec_u"] += (nu < nu_prev * (1 - 1e-12))
        acc["dec_w"] += (nw < nw_prev * (1 - 1e-12))
        nu_prev, nw_prev = nu, nw
        norms.append(tot)
    return u, w, acc, np.array(norms), mid


def _eq24_check(k: float):
    """Check ``d||theta||^2/dt = k sigma^2 Tr Sigma(theta)`` (gamma = 0) on Net-A and Net-B under SGD."""

    def check(rng, dims):
        c = EQ24
        rng = _child(rng)
        R = sc.scaled(c["replicas"], minimum=4)
        window = sc.scaled(c["window"], minimum=1000)
        V = rng.normal(0, 1 / np.sqrt(c["dx"]), (c["dy"], c["dx"]))
        X = rng.standard_normal((c["n"], c["dx"]))
        Y = X @ V.T + c["noise"] * rng.standard_normal((c["n"], c["dy"]))
        eta = c["eta"]
        bar = sc.Progress("noise.eq24 Net-A/B", 2 * (c["burn"] + 3 * window))
        done = 0
        parts, figs, est, errs, drifts = [], [], [], [], {}
        for net in "AB":
            u0 = rng.normal(0, 1 / np.sqrt(c["h"]), (R, c["dy"], c["h"]))
            w0 = rng.normal(0, 1 / np.sqrt(c["dx"]), (R, c["h"], c["dx"]))
            u, w, acc_b, norms_b, _ = _scale_run(rng, net, u0, w0, X, Y, eta=eta, S=c["S"], steps=c["burn"])
            levels = {}
            for e, steps in ((eta, window), (eta / 2, 2 * window)):
                n_start = np.sum(u * u, (1, 2)) + np.sum(w * w, (1, 2))
                u, w, acc, norms, mid = _scale_run(rng, net, u, w, X, Y, eta=e, S=c["S"], steps=steps)
                levels[e] = dict(ratio=(norms[-1] - n_start) / acc["pred"],
                                 r1=(mid - n_start) / acc["pred_1"], r2=(norms[-1] - mid) / acc["pred_2"], acc=acc,
                                 norms=norms)
                done += steps
                bar.update(done)
            m0, se0 = sc.extrapolated_estimate(levels[eta]["ratio"], levels[eta / 2]["ratio"])
            drifts[f"Net-{net}"] = sc.drift_test(levels[eta / 2]["r1"], levels[eta / 2]["r2"])
            est.append(float(m0))
            errs.append(float(se0))
            dec = int(sum(levels[e]["acc"]["dec"].sum() for e in levels) + acc_b["dec"].sum())
            dec_u = int(sum(levels[e]["acc"]["dec_u"].sum() for e in levels))
            dec_w = int(sum(levels[e]["acc"]["dec_w"].sum() for e in levels))
            parts.append(f"Net-{net}: Delta||theta||^2 / int sigma^2 Tr Sigma dt = {est[-1]:.3f} +- {errs[-1]:.3f} "
                         f"(eta={eta:g}: {np.mean(levels[eta]['ratio']):.3f}, eta/2: "
                         f"{np.mean(levels[eta / 2]['ratio']):.3f}); steps with ||theta|| decreasing: {dec}; "
                         f"layer norm decreases ||u||: {dec_u}, ||w||: {dec_w}")
            # GD from the same initialisation, for the figure: the norm stays (nearly) fixed
            _, _, _, norms_gd, _ = _scale_run(rng, net, u0[:2], w0[:2], X, Y, eta=eta, S=c["S"], steps=c["burn"],
                                              gd=True)
            all_sgd = np.concatenate([norms_b[:, 0], levels[eta]["norms"][1:, 0], levels[eta / 2]["norms"][1:, 0]])
            figs.append({"label": f"Net-{net} SGD", "x": _thin(range(len(all_sgd))), "y": _thin(all_sgd.tolist())})
            figs.append({"label": f"Net-{net} GD", "x": _thin(range(len(norms_gd))), "y": _thin(norms_gd[:, 0].tolist())})
        bar.close()
        sc.require_converged(drifts)
        # estimate per net: the eta -> 0 ratio Delta||theta||^2 / int sigma^2 Tr Sigma dt; prediction k for both
        return sc.montecarlo(est, [k, k], errs,
                             detail=" | ".join(parts) + f"; {R} replicas per net, sigma^2 = eta/(2S)",
                             figure={"title": "App. A.1: parameter norm under SGD and GD (replica 0)",
                                     "panels": [{"kind": "line", "xlabel": "step", "ylabel": r"$\|\theta\|^2$",
                                                  "series": figs}]})

    return check


_DIMS_EQ24 = tc.DimSpace({"dx": (8, 8), "h": (16, 16), "dy": (2, 2)})

_eq24_printed = tc.Statement(r"\frac{d}{dt}\|\theta_t\|^2 = -\gamma\|\theta_t\|^2 + \sigma^2\mathrm{Tr}[\Sigma(\theta_t)],"
                             r"\ \gamma = 0", dims=_DIMS_EQ24, check=_eq24_check(1.0),
                             note=r"Measured: the growth of $\lVert \theta\rVert ^{2}$ over a window divided by "
                                  r"the integral of $\sigma^{2} \operatorname{Tr} \Sigma(\theta_{t}) \mathrm{d}t$ "
                                  r"($\mathrm{d}t = \eta$ per step, $\sigma^{2} = \eta/(2S), \operatorname{Tr} \Sigma$ exact on the finite data set), extrapolated to $\eta \to 0$; Net-A and Net-B must both agree.")
_eq24_corrected = dataclasses.replace(_eq24_printed, check=_eq24_check(2.0), kind="corrected",
                             name=r"corrected: $2 \sigma^{2} \operatorname{Tr} \Sigma$",
                             latex=r"\frac{d}{dt}\|\theta_t\|^2 = -4\gamma\|\theta_t\|^2 + 2\sigma^2\mathrm{Tr}[\Sigma(\theta_t)]",
                             note=r"Ito with eq. 1: $\mathrm{d}C = \sigma^{2} \operatorname{Tr}[\Sigma \operatorname{Hess} C] \mathrm{d}t$ and $\operatorname{Hess} \lVert \theta\rVert ^{2} = 2I$.")

tc.register(tc.Claim(
    id="noise.eq24_norm_growth_sim",
    title=r"Scale invariance: SGD grows $\lVert \theta\rVert ^{2}$ at the rate of eq. 24 (Net-A, Net-B; simulation)",
    source=tc.Source(PAPER, "Appendix A.1, Figure 7", "eq. 24",
                     r"\frac{d}{dt}\|\theta_t\|^2 = -\gamma\|\theta_t\|^2 + \sigma^2\mathrm{Tr}[\Sigma(\theta_t)]"),
    statement=_eq24_printed,
    variants=(_eq24_corrected,),
    controls=(tc.perturb(_eq24_printed, "no growth (GD's law)", predicted=lambda p: 0.0 * np.asarray(p),
                         same_measurement=True),
              tc.negate(_eq24_printed, same_measurement=True)),
    assumptions=(r"$\gamma = 0$ (Figure 7 trains without weight decay)", "SGD with minibatches of S = 1 drawn with replacement",
                 r"$\sigma^{2} = \eta / (2 S)$ as below eq. 1; $t = \eta x$ steps"),
    slow=True,
))
