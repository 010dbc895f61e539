"""Training-dynamics claims of the cascade paper, checked by simulation (all ``slow=True``).

The cascade review's predictions for deep linear networks with weight decay ``beta``: trained
singular values against ``beta`` (one hidden layer: a cascade of continuous transitions at
``beta*_j = eta_j`` with ``s_j = sqrt((eta_j - beta)/kappa_j)``; two hidden layers: first-order
transitions with hysteresis between a spinodal ``beta_det_j`` and the level crossing
``beta*_j``), and critical slowing down at a continuous transition.  The full networks (all
weight matrices, generic random initialisations, hidden widths larger than the rank) are trained by
gradient descent on the exact population loss; predictions come from the one-variable Landau
potentials derived in :mod:`derivations.cascade.simulators`.

Each check reports a ``tc.Refinement`` (measured and predicted per level; the engine decides and
evaluates the automatic mutants): GD tolerance (trained values), grid spacing in ``beta``
(transition locations), and observation time (relaxation exponents), with floors equal to the error
a true statement leaves at that level and the ``resolution`` the refinement resolves
(:func:`derivations.simulation.resolvable`).  Budget: ``THEOREM_CHECK_BUDGET``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import theorem_check as tc

from .. import simulation as sc
from .simulators import beta_det, beta_star, gd_to_tolerance, n3_branch, per_layer_s

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

N2 = dict(kappas=((1.0, 1.0), (1.0, 0.5)), hidden=4, lr=0.05, tols=(1e-4, 1e-7, 1e-10), n_beta=26, gap=0.03,
          max_steps=200000)


def _n2_check(law: str):
    """Trained per-layer singular values vs the Landau minimum (``law``: "sqrt", or the control "half").

    A Refinement over the GD tolerance: measured the per-layer singular values ``s`` of every (beta, kappa)
    run, predicted the Landau minima, relative to ``||s*||_F``; floor of a true statement at tolerance
    ``tol``: ``|s - s*| <= 10 sqrt(2) max(||grad||, tol) / L''(s*)`` per run (Frobenius over the runs).
    """

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
        else:                          # control: transition at eta/2
            pred = np.sqrt(np.maximum(0, (ETA[None] / 2 - beta[:, None]) / kap))
        pred = -np.sort(-pred, axis=1)
        # Hessian curvature of the potential at its minimum, per direction: the floor's denominator
        s2 = np.maximum(0, (ETA[None] - beta[:, None]) / kap)
        curv = np.where(s2 > 0, 8 * kap * s2, 4 * (beta[:, None] - ETA[None]))
        mu = np.min(np.abs(curv), axis=1)
        Ws = _init(rng, R, [2, c["hidden"], 2], 0.1)
        scale = float(np.linalg.norm(pred))
        names, measured, floors, steps_used, errs = [], [], [], [], []
        bar = sc.Progress("cascade n=2 sweep", len(c["tols"]))
        for k, tol in enumerate(c["tols"]):
            Ws, steps, g = gd_to_tolerance(Ws, Sxx, Syx, beta, lr=c["lr"], tol=tol, max_steps=c["max_steps"])
            steps_used.append(steps)
            s = per_layer_s(Ws)[:, :2]
            names.append(f"tol={tol:g}")
            measured.append(s)
            errs.append(float(np.max(np.abs(s - pred))))
            # a true statement leaves |s - s*| <~ sqrt(n) ||grad|| / L''(s*) (+ the off-aligned modes, same order)
            floors.append(float(np.linalg.norm(10 * np.sqrt(2) * np.maximum(g, tol) / mu)) / scale)
            bar.update(k + 1)
        bar.close()
        if steps_used[-1] >= c["max_steps"]:
            raise sc.NotConverged(f"GD did not reach tol={c['tols'][-1]:g} in {c['max_steps']} steps")
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
        return sc.refinement(
            names, measured=measured, predicted=pred, floors=floors, scale=scale,
            resolution=min(0.5, sc.resolvable(floors)),
            detail=f"beta=0.60: ({s[i60, 0]:.6f}, {s[i60, 1]:.2e}), predicted ({pred[i60, 0]:.4f}, {pred[i60, 1]:.4f}); "
                   f"max |s - s*| over {R} (beta, kappa) runs " + " -> ".join(f"{v:.1e}" for v in errs)
                   + f"; GD to gradient norm {', '.join(f'{t:g}' for t in c['tols'])} ({', '.join(map(str, steps_used))} "
                   f"steps); floors {', '.join(f'{f:.1e}' for f in floors)}; hidden width {c['hidden']}, eta = {tuple(float(e) for e in ETA)}, "
                   f"beta within {c['gap']} of a transition skipped",
            figure={"title": r"Cascade n = 2: trained singular values against $\beta$",
                    "panels": [{"kind": "line", "xlabel": r"$\beta$", "ylabel": r"$s_j$", "series": series}]})

    return check


_DIMS_N2 = tc.DimSpace({"n": (2, 2), "hidden": (4, 4)})
_n2 = tc.Statement(r"s_j(\beta) = \sqrt{\max(0, (\eta_j - \beta)/\kappa_j)},\ \beta^*_j = \eta_j", dims=_DIMS_N2,
                   check=_n2_check("sqrt"),
                   note=r"Per-layer singular values $s_{j} = \sigma_{j}(W_{2} W_{1})^{1/2}$ of the trained network "
                        "(0-balanced at convergence), GD to gradient tolerance 1e-4, 1e-7, 1e-10; two aligned data sets "
                        r"$(\kappa = (1, 1), (1, 0.5))$ in random orthogonal frames; includes the review's $\beta = 0.60$ point.")

tc.register(tc.Claim(
    id="cascade.sweep_n2_sim",
    title=r"One hidden layer: trained singular values follow $\sqrt{(\eta_{j} - \beta)/\kappa_{j}}$, transitions at $\eta_{j}$ (simulation)",
    source=tc.Source(PAPER, "III.A, 'What would settle it'", "Landau potential n = 2",
                     r"L_j(\sigma_j) = \kappa_j\sigma_j^4 - 2\eta_j\sigma_j^2 + 2\beta\sigma_j^2,\ "
                     r"\sigma_j \sim (\eta_j - \beta)^{1/2},\ \beta^*_j = \eta_j"),
    statement=_n2,
    controls=(tc.perturb(_n2, "exponent 1 instead of 1/2", predicted=lambda p: np.asarray(p) ** 2, same_measurement=True),
              tc.perturb(_n2, r"transition at $\eta_{j} / 2$", check=_n2_check("half"))),
    assumptions=(r"alignment: $\Sigma_{xx} = R \operatorname{diag}(\kappa) R^{\top}$, $\Sigma_{yx} = L \operatorname{diag}(\eta) R^{\top}$", "gradient flow (GD) on the population loss",
                 r"$\Sigma_{yx}$ singular values $\eta = (0.95, 0.55)$"),
    slow=True,
))


# ---------------------------------------------------------------------------------------------
# two hidden layers: first-order transitions and hysteresis
# ---------------------------------------------------------------------------------------------

N3 = dict(hidden=3, lr=0.05, tol=1e-8, dbeta=0.005, lo=0.02, hi=0.6, local=(8, 3), max_steps=400000)
"""Two hidden layers: a global quasi-static sweep at spacing ``dbeta``, then ``local[1]`` local sweeps, each
``local[0]`` times finer, inside the bracket where each run left the branch (the refinement levels)."""


def _sweep(Ws, Sxx, Syx, grid, *, lr, tol, max_steps, keep=False):
    """Quasi-static sweep: at each beta of ``grid`` run GD to ``tol`` from the previous state.

    ``grid`` has shape ``(G,)`` (one beta for every replica) or ``(G, R)`` (per replica).  Returns
    ``(s (R, G, 2), worst steps)`` and, with ``keep=True``, the states after every grid point.
    """
    s_out, worst, states = [], 0, []
    R = Ws[0].shape[0]
    for b in grid:
        Ws, steps, g = gd_to_tolerance(Ws, Sxx, Syx, np.broadcast_to(np.asarray(b, float), (R,)).copy(), lr=lr, tol=tol,
                                       max_steps=max_steps)
        worst = max(worst, steps)
        s_out.append(per_layer_s(Ws)[:, :2])
        if keep:
            states.append([W.copy() for W in Ws])
    out = (np.stack(s_out, 1), worst)
    return out + (states,) if keep else out


def _first_below(s, thresh):
    """Index of the first grid point where each replica's ``s`` (R, G) is below ``thresh`` (G if never)."""
    below = s < thresh
    return np.where(below.any(1), below.argmax(1), s.shape[1])


def _n3_check(where: str):
    """Up-sweep jump of direction j at ``where`` = "det" (spinodal) or "star" (level crossing) of its potential.

    A Refinement over the beta spacing: a global up-sweep at spacing ``dbeta`` brackets, per run and
    direction, the beta where ``s_j`` leaves the branch (falls below ``s_m / 2``); local sweeps inside the
    bracket, each ``local[0]`` times finer, narrow it.  Measured per level: the upper end of every bracket
    (``2R`` values), the largest distance of the up-sweep from the quartic's branch before the jump, and the
    largest ``s`` of the down-sweep; predicted: the jump location, 0 and 0.  Floor of a true statement: a
    jump lies in ``(beta_det, beta_det + spacing]`` (``sqrt(2R) spacing`` for the jumps), plus ``10 tol / L''``
    for the branch (its smallest curvature ``30 kappa s^4 - 12 eta s + 6 beta``) and ``10 tol / (6 beta_min)``
    for the origin, relative to the jumps' norm.
    """

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
        s_m = (ETA / 4.0) ** (1 / 3)                     # the branch minimum at the spinodal; "left" = below s_m / 2
        db = c["dbeta"]
        grid = np.arange(c["lo"], c["hi"] + 1e-12, db)
        nsteps = 1 + c["local"][1]
        bar = sc.Progress("cascade n=3 hysteresis", nsteps)
        # up: train at beta = 0 from an O(1) init (the origin is a saddle there), then raise beta
        W0 = _init(rng, R, widths, 1.0)
        W0, _, _ = gd_to_tolerance(W0, Sxx, Syx, np.zeros(R), lr=c["lr"], tol=1e-6, max_steps=c["max_steps"])
        up, worst, states = _sweep(W0, Sxx, Syx, grid, lr=c["lr"], tol=c["tol"], max_steps=c["max_steps"], keep=True)
        # down: from a tiny random init at the top of the grid, lower beta
        down, st_down = _sweep(_init(rng, R, widths, 1e-3), Sxx, Syx, grid[::-1], lr=c["lr"], tol=c["tol"],
                               max_steps=c["max_steps"])
        down = down[:, ::-1]
        worst = max(worst, st_down)
        branch = np.array([[n3_branch(e, 1.0, b) for e in ETA] for b in grid])           # (G, 2)
        down_max = float(np.max(down))
        jumps = np.zeros((2, R))
        lo_beta, lo_state = np.zeros((2, R)), [None, None]
        branch_err, curv = 0.0, np.inf
        for j in range(2):
            i_jump = _first_below(up[:, :, j], s_m[j] / 2)
            # a run that never leaves the branch on the grid is recorded as jumping past its end (a gap
            # that does not shrink with the spacing: refuted, not excused)
            jumps[j] = np.where(i_jump < len(grid), grid[np.minimum(i_jump, len(grid) - 1)], grid[-1] + db)
            i_lo = np.maximum(i_jump - 1, 0)
            lo_beta[j] = grid[i_lo]
            lo_state[j] = [np.stack([states[i_lo[r]][li][r] for r in range(R)]) for li in range(len(widths) - 1)]
            on = grid < jumps[j].min()
            if on.any():
                branch_err = max(branch_err, float(np.max(np.abs(up[:, on, j] - branch[on, j]))))
                sb = branch[on, j]
                curv = min(curv, float(np.min(30 * sb ** 4 - 12 * ETA[j] * sb + 6 * grid[on])))
        names, measured, spacings = [f"dbeta={db:g}"], [jumps.ravel().copy()], [db]
        notes = [f"dbeta={db:g}: up-sweep jumps at beta = {', '.join(f'{v:.6f}' for v in jumps.max(1))}"]
        bar.update(1)
        w = db
        for k in range(c["local"][1]):
            w = w / c["local"][0]
            for j in range(2):
                fine = lo_beta[j][None, :] + w * np.arange(1, c["local"][0] + 1)[:, None]     # (local, R)
                s_loc, st, st_states = _sweep(lo_state[j], Sxx, Syx, fine, lr=c["lr"], tol=c["tol"],
                                              max_steps=c["max_steps"], keep=True)
                worst = max(worst, st)
                i_jump = _first_below(s_loc[:, :, j], s_m[j] / 2)
                # the bracket's upper end (a run still on the branch at its old upper end cannot happen for a true
                # statement; it is recorded there)
                jumps[j] = fine[np.minimum(i_jump, len(fine) - 1), np.arange(R)]
                i_lo = i_jump - 1
                for r in range(R):
                    if i_lo[r] >= 0:
                        lo_beta[j][r] = fine[i_lo[r], r]
                        for li in range(len(widths) - 1):
                            lo_state[j][li][r] = st_states[i_lo[r]][li][r]
                on_pts = np.arange(len(fine))[:, None] < i_jump[None, :]                     # (local, R)
                if on_pts.any():
                    ref = np.array([[n3_branch(ETA[j], 1.0, b) for b in fine[:, r]] for r in range(R)])   # (R, local)
                    err = np.abs(s_loc[:, :, j] - ref)[on_pts.T]
                    branch_err = max(branch_err, float(err.max()))
                    sb, bb = ref[on_pts.T], fine.T[on_pts.T]
                    curv = min(curv, float(np.min(30 * sb ** 4 - 12 * ETA[j] * sb + 6 * bb)))
            names.append(f"dbeta={w:.3g}")
            measured.append(jumps.ravel().copy())
            spacings.append(w)
            notes.append(f"dbeta={w:.3g}: jumps at beta = {', '.join(f'{v:.6f}' for v in jumps.max(1))}")
            bar.update(2 + k)
        bar.close()
        if worst >= c["max_steps"]:
            raise sc.NotConverged(f"GD did not converge at some beta within {c['max_steps']} steps")
        pred = np.r_[np.repeat(target, R), 0.0, 0.0]
        extra = 10 * c["tol"] / max(curv, 1e-300) + 10 * c["tol"] / (6 * c["lo"])
        floors = [float((np.sqrt(2 * R) * sp + extra) / np.linalg.norm(pred)) for sp in spacings]
        meas = [np.r_[m, branch_err, down_max] for m in measured]
        what = (f"up-sweep jumps at beta_det = ({bd[0]:.6f}, {bd[1]:.6f})" if where == "det"
                else f"up-sweep jumps at beta* = ({bs[0]:.6f}, {bs[1]:.6f})")
        figs = []
        for j in range(2):
            figs.append({"label": f"up-sweep s_{j + 1}", "style": "points", "x": grid.tolist(), "y": up[0, :, j].tolist()})
            figs.append({"label": f"down-sweep s_{j + 1}", "style": "points", "x": grid.tolist(),
                         "y": down[0, :, j].tolist()})
            figs.append({"label": f"nontrivial branch {j + 1}", "style": "line", "x": grid.tolist(),
                         "y": branch[:, j].tolist()})
        return sc.refinement(
            names, measured=meas, predicted=pred, floors=floors,
            resolution=min(0.5, sc.resolvable(floors)),
            detail=f"predicted: {what}, branch followed, down-sweep stays at s = 0 (hysteresis; beta* = ({bs[0]:.4f}, "
                   f"{bs[1]:.4f})) | " + " | ".join(notes) + f" | branch error {branch_err:.1e}, down-sweep max s "
                   f"{down_max:.1e}; floors (spacing, GD tolerance) " + ", ".join(f"{f:.1e}" for f in floors),
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
    note=r"Quasi-static sweeps of the full 3-layer network (GD to gradient 1e-8 at each $\beta$), $\beta$ spacing refined "
         r"locally inside each run's jump bracket (0.005 -> 1e-5); "
         r"the origin is a local minimum for every $\beta > 0$ ($L''(0) = 6 \beta$), so the down-sweep cannot leave it.")

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

SLOW = dict(hidden=4, lr=0.1, replicas=6, windows=(30.0, 300.0, 3000.0), points=(1.0, 2.0, 4.0), margin=2.0,
            eps_per_step=10.0)
"""Critical slowing down: GD at step ``lr`` to ``t = windows[-1] * points[-1]``; the exponent is fitted on the three
times ``w * points`` of every window ``w`` (the refinement levels); floors are ``margin`` times the leading GD bias
of the fit plus the transients and ``eps_per_step`` round-offs per GD step (see :func:`_slowing_check`)."""


def _shift_fit(t, s):
    """Exponent ``e`` of ``s = C (t + t0)^e`` through three points, ``de / d log s_i``, and whether such a law passes.

    ``t`` (3,) increasing and positive, ``s`` (3,) positive.  ``C``, ``t0`` and ``e`` are all free: the fit is exact
    for every solution of an autonomous power-law flow ``ds/dt = -a s^m`` (``e = 1/(1 - m)``, any ``m > 1``), whose
    leading correction to a pure power law is the time shift ``t0`` that a log-log slope mistakes for a wrong exponent.
    Solves ``(s_c^g - s_a^g) / (s_b^g - s_a^g) = (t_c - t_a) / (t_b - t_a)`` for ``g = 1/e < 0`` (Brent); the
    derivatives follow by implicit differentiation.  Where no decreasing power law passes through the points (``s``
    not decreasing, a decay at least exponential, or one that has stopped) it returns the log-log slope
    ``log(s_c / s_a) / log(t_c / t_a)`` instead, with ``shifted=False``.  Raises ``sc.NotConverged`` for non-finite ``s``.

    >>> e, _, shifted = _shift_fit(np.array([30.0, 60.0, 120.0]), (0.7 + 4 * np.array([30.0, 60.0, 120.0])) ** -0.5)
    >>> round(e, 12), shifted
    (-0.5, True)
    """
    from scipy.optimize import brentq

    with np.errstate(divide="ignore", invalid="ignore"):
        la, lb, lc = np.log(np.asarray(s, float))
    if not np.isfinite(la + lb + lc):
        raise sc.NotConverged(f"s = {np.asarray(s)} at t = {tuple(t)} is not finite and positive")
    r = (t[2] - t[0]) / (t[1] - t[0])

    def F(g):
        return np.expm1(g * (lc - la)) / np.expm1(g * (lb - la)) - r

    if lc < lb < la:
        lo, hi = -700.0 / (la - lc), -1e-6 / (la - lc)                  # |g log(s_a / s_c)| in [1e-6, 700]
        if F(lo) > 0 > F(hi):
            g = brentq(F, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500)
            Ec, Eb = np.exp(g * (lc - la)), np.exp(g * (lb - la))
            G_l = np.array([-g * Ec + r * g * Eb, -r * g * Eb, g * Ec])  # dG/d(la, lb, lc), G = (Ec - 1) - r (Eb - 1)
            G_g = (lc - la) * Ec - r * (lb - la) * Eb
            return 1.0 / g, G_l / G_g / g ** 2, True                    # de/dl = -g^-2 dg/dl = g^-2 G_l / G_g
    span = np.log(t[2] / t[0])
    return (lc - la) / span, np.array([-1.0, 0.0, 1.0]) / span, False


def _d2(t, f):
    """Second divided difference of ``f`` at the three times ``t``."""
    return ((f[2] - f[1]) / (t[2] - t[1]) - (f[1] - f[0]) / (t[1] - t[0])) / (t[2] - t[0])


def _slowing_check(exponent: float, quantity: str):
    """Relaxation exponent of ``quantity`` ("s" per layer, or "P" end-to-end) at beta = eta_1 vs ``exponent``.

    A Refinement over the observation window: GD (step ``lr``) on the full network from random O(1) inits; per
    window ``w`` and replica, the exponent of ``s = C (t + t0)^e`` through ``t = w, 2w, 4w`` (:func:`_shift_fit`;
    for ``P = s^2`` it is twice that of ``s``, exactly), mean over replicas.

    Floor of a true statement (derived; per replica, the largest taken, relative to ``|exponent|``):

    * gradient flow.  ``{W_1 = x v_1^T, W_2 = u_1 x^T}`` (balanced, rank one on the top data pair) is invariant
      under the flow and under GD, with ``ds/dt = -2 kappa s^3`` on it (``kappa = 1``): the exact Riccati solution
      ``s^-2 = s0^-2 + 4 kappa t``, for which the fit is exact.  Every other direction decays at a rate
      ``>= 2 (eta_1 - eta_2)``; the distance ``d`` of the state from the manifold (measured at every fit time) moves
      ``s`` by ``O(d)`` and the fit by at most ``K d / s`` (``K = sum_i |de / d log s_i|``).
    * GD.  On the manifold ``s <- s (1 - 2 lr s^2)``, so ``y = s^-2`` gains ``4 lr + 12 lr^2 / y + O(lr^3 / y^2)`` per
      step: ``y = 4 (t + t0) + 3 lr log y + O(lr^2 / y)`` with ``t0 >= 0`` (``y`` gains at least ``4 lr`` a step from
      ``y(0) > 0``).  The fit solves ``D2[s^(1/e)] = 0`` (second divided difference over the three times); with
      ``e = -1/2 + delta``, ``s^(1/e) = y (1 + 2 delta log y + ...)``, so ``delta = -3 lr D2[log y] / (2 D2[y log y])``,
      largest at ``t0 = 0`` (``y = 4 t``: ``3 lr / (16 w)`` for ``t = w, 2w, 4w``): the floor takes that, whatever
      the data.  Its remainder (the ``O(lr^2 / y)`` terms, sum against integral, the linearisation in ``delta``) is a
      fraction ``O(lr / w)`` of it (0.8% at ``w = 30``): the floor takes ``margin = 2`` times it.
    * round-off: ``eps_per_step`` units of ``eps`` in ``s`` per GD step, not damped along the marginal direction:
      ``K * steps * eps_per_step * eps``.
    """

    def check(rng, dims):
        c = SLOW
        rng = _child(rng)
        R = sc.scaled(c["replicas"], minimum=4)
        Sxx, Syx = _aligned(rng, np.ones(2), ETA, 2, 2)
        U, _, Vt = np.linalg.svd(Syx)
        u1, v1 = U[:, 0], Vt[0]                                          # the critical data pair (eta_1)
        Sxx, Syx = np.broadcast_to(Sxx, (R, 2, 2)).copy(), np.broadcast_to(Syx, (R, 2, 2)).copy()
        beta = np.full(R, ETA[0])
        Ws = _init(rng, R, [2, c["hidden"], 2], 1.0)
        from .simulators import gradients

        lr, pts = c["lr"], c["points"]
        power = 1 if quantity == "s" else 2                              # quantity = s ** power
        step_of = {(w, f): int(round(w * f / lr)) for w in c["windows"] for f in pts}
        marks = set(step_of.values())
        n_steps = max(marks)
        record, traj_t, traj_s = {}, [], []
        bar = sc.Progress("cascade slowing down", n_steps)
        for step in range(n_steps + 1):
            if step in marks or step % max(1, n_steps // 200) == 0:
                s = per_layer_s(Ws)[:, 0]
                if step in marks:
                    W1, W2 = Ws
                    a1, b1 = W1 @ v1, np.swapaxes(W2, 1, 2) @ u1          # (R, hidden): columns on v_1, rows on u_1
                    d2 = (np.sum((W1 - a1[:, :, None] * v1) ** 2, axis=(1, 2))
                          + np.sum((W2 - u1[:, None] * b1[:, None, :]) ** 2, axis=(1, 2)) + np.sum((a1 - b1) ** 2, 1))
                    record[step] = (s, np.sqrt(d2))
                traj_t.append(step * lr)
                traj_s.append(float(np.median(s ** power)))
            if step == n_steps:
                break
            for W, g in zip(Ws, gradients(Ws, Sxx, Syx, beta)):
                W -= lr * g
            if step % 1000 == 0:
                bar.update(step)
        bar.close()
        eps = float(np.finfo(float).eps)
        names, measured, floors, fits, biases = [], [], [], [], []
        for w in c["windows"]:
            ks = [step_of[(w, f)] for f in pts]
            t = np.array([k * lr for k in ks])
            s = np.stack([record[k][0] for k in ks], 1)                  # (R, 3)
            d = np.stack([record[k][1] for k in ks], 1)
            y4 = 4 * t                                                   # the true statement's worst case, t0 = 0
            bias = abs(3 * lr * _d2(t, np.log(y4)) / (2 * _d2(t, y4 * np.log(y4))))
            e_r, bound_r, n_loglog = np.zeros(R), np.zeros(R), 0
            for r in range(R):
                e, de, shifted = _shift_fit(t, s[r])
                n_loglog += not shifted
                K = float(np.sum(np.abs(de)))
                e_r[r] = power * e
                bound_r[r] = power * (c["margin"] * bias + K * (float(np.max(d[r] / s[r]))
                                                                  + ks[-1] * c["eps_per_step"] * eps))
            m, se = sc.mean_se(e_r)
            fits.append((t, float(m), float(se), n_loglog))
            biases.append(float(power * bias))
            names.append("t = " + ", ".join(f"{x:g}" for x in t))
            measured.append(float(m))
            f = float(np.max(bound_r)) / abs(exponent)
            floors.append(min(f, 0.999 * floors[-1]) if floors else f)     # refinement levels must tighten
        pred_exp = -0.5 * power
        label = "s_1" if quantity == "s" else "sigma_1(W)"
        return sc.refinement(
            names, measured=measured, predicted=exponent, floors=floors,
            resolution=min(0.5, sc.resolvable(floors)),
            detail=f"{label} ~ t^{exponent:g} at beta = eta_1 = {ETA[0]}: exponent of {label} = C (t + t0)^e through "
                   + "; ".join(f"t = {', '.join(f'{x:g}' for x in t)}: {m:.7f} +- {se:.1e}"
                               + (f" ({n} runs through no shifted power law: log-log slope)" if n else "")
                               for t, m, se, n in fits)
                   + f"; {R} random initialisations, GD lr = {lr} (t = lr x steps), leading GD bias of the fit (t0 = 0) "
                   + ", ".join(f"{b:.2e}" for b in biases)
                   + f"; floors ({c['margin']:g} x GD bias + transients + round-off, relative) "
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
                     note=r"Exponent of the slowest per-layer singular value fitted as $s = C (t + t_0)^{e}$ "
                          "(free shift: exact for the balanced Riccati solution, whatever the exponent) through "
                          "t = w, 2w, 4w for w = 30, 300, 3000 (the refinement); floors twice the GD bias of the fit, "
                          "about 3 lr / (16 w), plus transients and round-off; error bars from random initialisations.")
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
    controls=(tc.perturb(_slow, "exponent -1 for s", predicted=lambda p: 2 * np.asarray(p), same_measurement=True),
              tc.perturb(_slow, "exponent -1/4", predicted=lambda p: np.asarray(p) / 2, same_measurement=True)),
    assumptions=(r"$n = 2$, $\Sigma_{xx} = I$, $\Sigma_{yx} = \operatorname{diag}(0.95, 0.55)$ in random frames, $\beta = 0.95$", "gradient descent from O(1) random init"),
    slow=True,
    aliases=("slowing_down",),
))
