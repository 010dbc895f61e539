"""Training-dynamics claims of the cascade paper, checked by simulation (all ``slow=True``).

The cascade review's predictions for deep linear networks with weight decay ``beta``: trained
singular values against ``beta`` (one hidden layer: a cascade of continuous transitions at
``beta*_j = eta_j`` with ``s_j = sqrt((eta_j - beta)/kappa_j)``; two hidden layers: first-order
transitions with hysteresis between a spinodal ``beta_det_j`` and the level crossing
``beta*_j``), and critical slowing down at a continuous transition.  The full networks (all
weight matrices, generic random initialisations, hidden widths larger than the rank) are trained by
gradient descent on the exact population loss; predictions come from the one-variable Landau
potentials derived in :mod:`derivations._sim_cascade`.

Decisions are by refinement (``decide_refinement``): GD tolerance (trained values), grid spacing in
``beta`` (transition locations), and observation time (relaxation exponents), with floors equal
to the error a true statement leaves at that level.  Budget: ``THEOREM_CHECK_BUDGET``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import theorem_check as tc

from . import _sim_common as sc
from ._sim_cascade import beta_det, beta_star, gd_to_tolerance, n3_branch, per_layer_s

PAPER = "cascade"

ETA = np.array([0.95, 0.55])
"""Singular values of Sigma_yx in the aligned frame (the review's "what would settle it" setting)."""


def _child(rng):
    return np.random.default_rng(int(rng.integers(2 ** 63)))


def _aligned(rng, kappa, eta, dx, dy):
    """Aligned covariances ``Sxx = R diag(kappa) R^T``, ``Syx = L diag(eta) R^T`` with random orthogonal frames."""
    Rm = np.linalg.qr(rng.normal(size=(dx, dx)))[0]
    Lm = np.linalg.qr(rng.normal(size=(dy, dy)))[0]
    Sxx = Rm @ np.diag(kappa) @ Rm.T
    Syx = Lm[:, :len(eta)] @ np.diag(eta) @ Rm[:, :len(eta)].T
    return Sxx, Syx


def _init(rng, R, widths, scale):
    return [scale * rng.normal(size=(R, widths[i + 1], widths[i])) / np.sqrt(widths[i]) for i in range(len(widths) - 1)]


# ---------------------------------------------------------------------------------------------
# one hidden layer: trained singular values against beta (second-order cascade)
# ---------------------------------------------------------------------------------------------

N2 = dict(kappas=((1.0, 1.0), (1.0, 0.5)), hidden=4, lr=0.05, tols=(1e-4, 1e-9), n_beta=26, gap=0.03,
          max_steps=200000)


def _n2_check(law: str):
    """Trained per-layer singular values vs the Landau minimum (``law``: "sqrt", "linear", "half")."""

    def check(rng, dims):
        c = N2
        rng = _child(rng)
        betas = np.linspace(0.02, 1.1, sc.scaled(c["n_beta"], minimum=12))
        betas = np.array([b for b in betas if np.all(np.abs(b - ETA) > c["gap"])] + [0.60])
        configs = [(np.array(k), b) for k in c["kappas"] for b in betas]
        R = len(configs)
        beta = np.array([b for _, b in configs])
        kap = np.stack([k for k, _ in configs])
        Sxx = np.zeros((R, 2, 2))
        Syx = np.zeros((R, 2, 2))
        for r, (k, _) in enumerate(configs):
            Sxx[r], Syx[r] = _aligned(np.random.default_rng(r), k, ETA, 2, 2)
        if law == "sqrt":
            pred = np.sqrt(np.maximum(0, (ETA[None] - beta[:, None]) / kap))
        elif law == "linear":          # control: wrong exponent, s ~ (eta - beta)
            pred = np.maximum(0, (ETA[None] - beta[:, None]) / kap)
        else:                          # control: transition at eta/2
            pred = np.sqrt(np.maximum(0, (ETA[None] / 2 - beta[:, None]) / kap))
        pred = -np.sort(-pred, axis=1)
        # Hessian curvature of the potential at its minimum, per direction: the floor's denominator
        s2 = np.maximum(0, (ETA[None] - beta[:, None]) / kap)
        curv = np.where(s2 > 0, 8 * kap * s2, 4 * (beta[:, None] - ETA[None]))
        mu = np.min(np.abs(curv), axis=1)
        Ws = _init(rng, R, [2, c["hidden"], 2], 0.1)
        residuals, floors, steps_used = {}, [], []
        bar = sc.Progress("cascade n=2 sweep", len(c["tols"]))
        for k, tol in enumerate(c["tols"]):
            Ws, steps, g = gd_to_tolerance(Ws, Sxx, Syx, beta, lr=c["lr"], tol=tol, max_steps=c["max_steps"])
            steps_used.append(steps)
            s = per_layer_s(Ws)[:, :2]
            residuals[f"tol={tol:g}"] = float(np.max(np.abs(s - pred)))
            # a true statement leaves |s - s*| <~ sqrt(n) ||grad|| / L''(s*) (+ the off-aligned modes, same order)
            floors.append(float(np.max(10 * np.sqrt(2) * np.maximum(g, tol) / mu)))
            bar.update(k + 1)
        bar.close()
        outcome = tc.decide_refinement(list(residuals.values()), floors)
        why = ""
        if steps_used[-1] >= c["max_steps"]:
            outcome, why = tc.Outcome.GREY, f"GD did not reach tol={c['tols'][-1]:g} in {c['max_steps']} steps"
        s = per_layer_s(Ws)[:, :2]
        i60 = [r for r, (k, b) in enumerate(configs) if b == 0.60 and tuple(k) == (1.0, 1.0)][0]
        series = []
        for ki, kset in enumerate(c["kappas"]):
            rows = [r for r, (k, _) in enumerate(configs) if tuple(k) == tuple(kset)]
            order = sorted(rows, key=lambda r: beta[r])
            for j in range(2):
                series.append({"label": f"trained $s_{{{j + 1}}}$, $\\kappa$ = {kset}", "style": "points",
                               "x": beta[order].tolist(), "y": s[order, j].tolist()})
                bb = np.linspace(0, 1.1, 111)
                series.append({"label": f"Landau minimum, $\\kappa$ = {kset}", "style": "line", "x": bb.tolist(),
                               "y": np.sqrt(np.maximum(0, (ETA[j] - bb) / kset[j])).tolist()})
        return sc.measurement(
            outcome, residuals=residuals,
            predicted=f"s_j = sqrt(max(0, (eta_j - beta)/kappa_j)) [{law}], e.g. beta=0.60: ({pred[i60, 0]:.4f}, {pred[i60, 1]:.4f})",
            measured=f"beta=0.60: ({s[i60, 0]:.6f}, {s[i60, 1]:.2e}); max |s - s*| over {R} (beta, kappa) runs "
                     + " -> ".join(f"{v:.1e}" for v in residuals.values()),
            detail=f"GD to gradient norm {', '.join(f'{t:g}' for t in c['tols'])} ({', '.join(map(str, steps_used))} steps); "
                   f"floors {', '.join(f'{f:.1e}' for f in floors)}; hidden width {c['hidden']}, eta = {tuple(ETA)}, "
                   f"beta within {c['gap']} of a transition skipped" + (f"; {why}" if why else ""),
            figure={"title": r"Cascade n = 2: trained singular values against $\beta$",
                    "panels": [{"kind": "line", "xlabel": r"$\beta$", "ylabel": r"$s_j$", "series": series}]})

    return check


_DIMS_N2 = tc.DimSpace({"n": (2, 2), "hidden": (4, 4)})
_n2 = tc.Statement(r"s_j(\beta) = \sqrt{\max(0, (\eta_j - \beta)/\kappa_j)},\ \beta^*_j = \eta_j", dims=_DIMS_N2,
                   check=_n2_check("sqrt"),
                   note=r"Per-layer singular values $s_{j} = \sigma_{j}(W_{2} W_{1})^{1/2}$ of the trained network "
                        "(0-balanced at convergence), GD to gradient tolerance 1e-4 then 1e-9; two aligned data sets "
                        r"$(\kappa = (1, 1), (1, 0.5))$ in random orthogonal frames; includes the review's $\beta = 0.60$ point.")

tc.register(tc.Claim(
    id="cascade.sweep_n2_sim",
    title=r"One hidden layer: trained singular values follow $\sqrt{(\eta_{j} - \beta)/\kappa_{j}}$, transitions at $\eta_{j}$ (simulation)",
    source=tc.Source(PAPER, "III.A, 'What would settle it'", "Landau potential n = 2",
                     r"L_j(\sigma_j) = \kappa_j\sigma_j^4 - 2\eta_j\sigma_j^2 + 2\beta\sigma_j^2,\ "
                     r"\sigma_j \sim (\eta_j - \beta)^{1/2},\ \beta^*_j = \eta_j"),
    statement=_n2,
    controls=(tc.perturb(_n2, "exponent 1 instead of 1/2", check=_n2_check("linear")),
              tc.perturb(_n2, r"transition at $\eta_{j} / 2$", check=_n2_check("half"))),
    assumptions=(r"alignment: $\Sigma_{xx} = R \operatorname{diag}(\kappa) R^{\top}$, $\Sigma_{yx} = L \operatorname{diag}(\eta) R^{\top}$", "gradient flow (GD) on the population loss",
                 r"$\Sigma_{yx}$ singular values $\eta = (0.95, 0.55)$"),
    slow=True,
))


# ---------------------------------------------------------------------------------------------
# two hidden layers: first-order transitions and hysteresis
# ---------------------------------------------------------------------------------------------

N3 = dict(hidden=3, lr=0.05, tol=1e-8, dbetas=(0.02, 0.005), lo=0.02, hi=0.6, max_steps=400000)


def _sweep(Ws, Sxx, Syx, grid, *, lr, tol, max_steps):
    """Quasi-static sweep: at each beta of ``grid`` run GD to ``tol`` from the previous state."""
    s_out, worst = [], 0
    for b in grid:
        Ws, steps, g = gd_to_tolerance(Ws, Sxx, Syx, np.full(Ws[0].shape[0], b), lr=lr, tol=tol, max_steps=max_steps)
        worst = max(worst, steps)
        s_out.append(per_layer_s(Ws)[:, :2])
    return np.stack(s_out, 1), worst                        # (R, len(grid), 2)


def _n3_check(where: str):
    """Up-sweep jump of direction j at ``where`` = "det" (spinodal) or "star" (level crossing) of its potential."""

    def check(rng, dims):
        c = N3
        rng = _child(rng)
        R = 2
        Sxx, Syx = _aligned(rng, np.ones(2), ETA, 2, 2)
        Sxx, Syx = np.broadcast_to(Sxx, (R, 2, 2)).copy(), np.broadcast_to(Syx, (R, 2, 2)).copy()
        widths = [2, c["hidden"], c["hidden"], 2]
        bd = np.array([beta_det(e, 1.0) for e in ETA])
        bs = np.array([beta_star(e, 1.0) for e in ETA])
        target = bd if where == "det" else bs
        residuals, floors, figs, notes = {}, [], [], []
        worst_steps = 0
        bar = sc.Progress("cascade n=3 hysteresis", len(c["dbetas"]))
        for k, db in enumerate(c["dbetas"]):
            db = db / max(1.0, sc.budget()) ** 0.5 if k == len(c["dbetas"]) - 1 else db
            grid = np.arange(c["lo"], c["hi"] + 1e-12, db)
            # up: train at beta = 0 from an O(1) init (the origin is a saddle there), then raise beta
            W0 = _init(rng, R, widths, 1.0)
            W0, steps0, _ = gd_to_tolerance(W0, Sxx, Syx, np.zeros(R), lr=c["lr"], tol=1e-6, max_steps=c["max_steps"])
            up, st_up = _sweep(W0, Sxx, Syx, grid, lr=c["lr"], tol=c["tol"], max_steps=c["max_steps"])
            # down: from a tiny random init at the top of the grid, lower beta
            down, st_down = _sweep(_init(rng, R, widths, 1e-3), Sxx, Syx, grid[::-1], lr=c["lr"], tol=c["tol"],
                                   max_steps=c["max_steps"])
            down = down[:, ::-1]
            worst_steps = max(worst_steps, st_up, st_down)
            branch = np.array([[n3_branch(e, 1.0, b) for e in ETA] for b in grid])       # (len(grid), 2)
            jumps, branch_err = [], 0.0
            for j in range(2):
                s_m = (ETA[j] / 4.0) ** (1 / 3)
                below = np.where(up[:, :, j] < s_m / 2)
                first = np.array([grid[below[1][below[0] == r].min()] if np.any(below[0] == r) else np.inf
                                  for r in range(R)])
                jumps.append(first)
                on = grid < first.min()
                branch_err = max(branch_err, float(np.max(np.abs(up[:, on, j] - branch[on, j]))) if on.any() else 0.0)
            jumps = np.array(jumps)                                                         # (2, R)
            jump_err = float(np.max(np.abs(jumps - target[:, None]) / target[:, None]))
            down_max = float(np.max(down))
            residuals[f"dbeta={db:g}"] = max(jump_err, branch_err)
            floors.append(float(db / target.min() + 1e-4))
            notes.append(f"dbeta={db:g}: up-sweep jumps at beta = {', '.join(f'{v:.4f}' for v in jumps.max(1))} "
                         f"(branch error {branch_err:.1e}); down-sweep max s = {down_max:.1e}")
            if k == len(c["dbetas"]) - 1:
                for j in range(2):
                    figs.append({"label": f"up-sweep $s_{{{j + 1}}}$", "style": "points", "x": grid.tolist(), "y": up[0, :, j].tolist()})
                    figs.append({"label": f"down-sweep $s_{{{j + 1}}}$", "style": "points", "x": grid.tolist(),
                                 "y": down[0, :, j].tolist()})
                    figs.append({"label": f"nontrivial branch {j + 1}", "style": "line", "x": grid.tolist(),
                                 "y": branch[:, j].tolist()})
            bar.update(k + 1)
        bar.close()
        outcome = tc.decide_refinement(list(residuals.values()), floors)
        why = ""
        if worst_steps >= c["max_steps"]:
            outcome, why = tc.Outcome.GREY, f"GD did not converge at some beta within {c['max_steps']} steps"
        if down_max > 1e-3:
            outcome, why = tc.Outcome.GREY, f"down-sweep left the origin (max s {down_max:.2e}): no hysteresis seen"
        return sc.measurement(
            outcome, residuals=residuals,
            predicted=(f"up-sweep jumps at beta_det = ({bd[0]:.4f}, {bd[1]:.4f})" if where == "det"
                       else f"up-sweep jumps at beta* = ({bs[0]:.4f}, {bs[1]:.4f})")
                      + f"; down-sweep stays at s = 0 (hysteresis; beta* = ({bs[0]:.4f}, {bs[1]:.4f}))",
            measured="; ".join(notes[-1:]),
            detail=" | ".join(notes) + f"; relative error (jump, branch) vs floors (grid spacing) "
                   + ", ".join(f"{f:.1e}" for f in floors) + (f"; {why}" if why else ""),
            figure={"title": "Cascade n = 3: hysteresis of the trained singular values",
                    "panels": [{"kind": "line", "xlabel": r"$\beta$", "ylabel": r"$s_j$", "series": figs,
                                "vlines": [{"x": b, "label": f"$\\beta_{{\\det,{j + 1}}}$"} for j, b in enumerate(bd)]
                                + [{"x": b, "label": f"$\\beta^*_{{{j + 1}}}$"} for j, b in enumerate(bs)]}]})

    return check


_DIMS_N3 = tc.DimSpace({"n": (3, 3), "hidden": (3, 3)})
_n3 = tc.Statement(
    r"\text{up-sweep: } s_j \text{ follows } \kappa s^4 - \eta_j s + \beta = 0 \text{ and jumps to 0 at } "
    r"\beta^{(\mathrm{det})}_j = \tfrac{3\eta_j^{4/3}}{4^{4/3}\kappa_j^{1/3}};\ \text{down-sweep from } s \approx 0 \text{ stays at 0}",
    dims=_DIMS_N3, check=_n3_check("det"),
    note=r"Quasi-static sweeps of the full 3-layer network (GD to gradient 1e-8 at each $\beta$), grid spacing refined; "
         r"the origin is a local minimum for every $\beta > 0 (L''(0) = 6 \beta)$, so the down-sweep cannot leave it.")

tc.register(tc.Claim(
    id="cascade.sweep_n3_sim",
    title=r"Two hidden layers: first-order transitions with hysteresis between $\beta_{\det,j}$ and $\beta^*_{j}$ (simulation)",
    source=tc.Source(PAPER, "III.B, eqs. 25-26", "eqs. 25-26 / hysteresis",
                     r"L_j = \kappa_j s^6 - 2\eta_j s^3 + 3\beta s^2:\ \text{minimum appears at } \beta^{(\mathrm{det})}_j,"
                     r"\ \text{global at } \beta^*_j,\ \text{hysteresis when } \beta \text{ is annealed}"),
    statement=_n3,
    controls=(tc.perturb(_n3, r"jump at the level crossing $\beta^*$", check=_n3_check("star")),),
    assumptions=("n = 3 (two hidden layers of width 3), Sxx = I, Syx = diag(0.95, 0.55) in random frames",
                 r"noiseless gradient descent, quasi-static in $\beta$"),
    slow=True,
))


# ---------------------------------------------------------------------------------------------
# critical slowing down at beta = eta_1 (one hidden layer)
# ---------------------------------------------------------------------------------------------

SLOW = dict(hidden=4, lr=0.1, replicas=6, windows=(30.0, 300.0, 3000.0), span=4.0)


def _slowing_check(exponent: float, quantity: str):
    """Local log-log slope of ``quantity`` ("s" per layer, or "P" end-to-end) at beta = eta_1 vs ``exponent``."""

    def check(rng, dims):
        c = SLOW
        rng = _child(rng)
        R = sc.scaled(c["replicas"], minimum=4)
        Sxx, Syx = _aligned(rng, np.ones(2), ETA, 2, 2)
        Sxx, Syx = np.broadcast_to(Sxx, (R, 2, 2)).copy(), np.broadcast_to(Syx, (R, 2, 2)).copy()
        beta = np.full(R, ETA[0])
        Ws = _init(rng, R, [2, c["hidden"], 2], 1.0)
        from ._sim_cascade import gradients

        t_end = c["windows"][-1] * c["span"]
        n_steps = int(t_end / c["lr"])
        marks = sorted({int(w / c["lr"]) for w in c["windows"]} | {int(w * c["span"] / c["lr"]) for w in c["windows"]})
        record, traj_t, traj_s = {}, [], []
        bar = sc.Progress("cascade slowing down", n_steps)
        s0 = None
        for step in range(n_steps + 1):
            if step in marks or step % max(1, n_steps // 200) == 0:
                s = per_layer_s(Ws)[:, 0]
                val = s if quantity == "s" else s ** 2
                if s0 is None:
                    s0 = val
                if step in marks:
                    record[step] = val
                traj_t.append(step * c["lr"])
                traj_s.append(float(np.median(val)))
            if step == n_steps:
                break
            for W, g in zip(Ws, gradients(Ws, Sxx, Syx, beta)):
                W -= c["lr"] * g
            if step % 1000 == 0:
                bar.update(step)
        bar.close()
        residuals, floors, fits = {}, [], []
        for w in c["windows"]:
            a, b = int(w / c["lr"]), int(w * c["span"] / c["lr"])
            slope = np.log(record[b] / record[a]) / np.log(b / a)            # per replica
            m, se = sc.mean_se(slope)
            fits.append((w, float(m), float(se)))
            residuals[f"t in [{w:g}, {w * c['span']:g}]"] = float(abs(m - exponent))
            # exact balanced solution s^-2 = s0^-2 + 4 kappa t: |slope + 1/2| <= s(t)^2 / s(0)^2 (P: twice that),
            # plus the exponentially decaying transients (rate >= 4 (beta - eta_2)) -- a true statement's floor
            rel = float(np.max(record[a] / s0)) ** (2 if quantity == "s" else 1)
            f = (2.0 if quantity == "s" else 4.0) * rel + np.exp(-4 * (ETA[0] - ETA[1]) * w)
            floors.append(min(f, 0.999 * floors[-1]) if floors else f)     # refinement levels must tighten
        outcome = tc.decide_refinement(list(residuals.values()), floors)
        pred_exp = -0.5 if quantity == "s" else -1.0
        return sc.measurement(
            outcome, residuals=residuals,
            predicted=f"{'s_1' if quantity == 's' else 'sigma_1(W)'} ~ t^{exponent:g} at beta = eta_1 = {ETA[0]}",
            measured="; ".join(f"slope on t in [{w:g}, {w * c['span']:g}] = {m:.4f} +- {se:.4f}" for w, m, se in fits),
            detail=f"{R} random initialisations, GD lr = {c['lr']} (t = lr x steps); floors (exact Riccati solution) "
                   + ", ".join(f"{f:.1e}" for f in floors) + f"; theory exponent for this quantity {pred_exp:g}",
            figure={"title": "Critical slowing down at beta = eta_1 (one hidden layer)",
                    "panels": [{"kind": "line", "xlabel": "t", "ylabel": "s_1" if quantity == "s" else r"$\sigma_1(W)$",
                                "xscale": "log", "yscale": "log",
                                "series": [{"label": "median over runs", "x": traj_t[1:], "y": traj_s[1:]},
                                           {"label": f"$t^{{{exponent:g}}}$", "x": traj_t[1:],
                                            "y": [traj_s[-1] * (t / traj_t[-1]) ** exponent for t in traj_t[1:]]}]}]})

    return check


_DIMS_SLOW = tc.DimSpace({"n": (2, 2), "hidden": (4, 4)})
_slow = tc.Statement(r"s_1(t) \sim t^{-1/2} \text{ at } \beta = \eta_1", dims=_DIMS_SLOW, check=_slowing_check(-0.5, "s"),
                     note="Local log-log slope of the slowest per-layer singular value over windows [t, 4t] for later "
                          "and later t (the refinement); error bars from random initialisations.")
_slow_P = dataclasses.replace(_slow, kind="reading", name=r"reading: macrostate $\sigma_{1}(W) \approx t^{-1}$ (Riccati)",
                              latex=r"\sigma_1(W_2W_1)(t) \sim t^{-1} \text{ at } \beta = \eta_1",
                              check=_slowing_check(-1.0, "P"))

tc.register(tc.Claim(
    id="cascade.slowing_down_sim",
    title=r"Critical slowing down at a continuous transition: algebraic relaxation $s \approx t^{-1}/2$ (simulation)",
    source=tc.Source(PAPER, "App. E (Riccati solution)", "critical slowing down",
                     r"\text{at } \beta = \eta_j:\ \sigma_j(t) \sim t^{-1/2}\ (\text{macrostate: } t^{-1})"),
    statement=_slow,
    variants=(_slow_P,),
    controls=(tc.perturb(_slow, "exponent -1 for s", check=_slowing_check(-1.0, "s")),
              tc.perturb(_slow, "exponent -1/4", check=_slowing_check(-0.25, "s"))),
    assumptions=(r"$n = 2$, $\Sigma_{xx} = I$, $\Sigma_{yx} = \operatorname{diag}(0.95, 0.55)$ in random frames, $\beta = 0.95$", "gradient descent from O(1) random init"),
    slow=True,
    aliases=("slowing_down",),
))
