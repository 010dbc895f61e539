"""Noise paper, Figure 2 (Sections 5.1-5.2, Appendix A.2), by simulation (slow).

SGD reaches the noise balance of Theorem 5.2; GD conserves ``W W^T - U^T U`` (eq. 11).  How the simulation
claims measure and report (trust model 2): :mod:`derivations.noise.simulators`.
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc

from .. import simulation as sc
from .model import PAPER
from .simulators import _T, MFProblem, _child, _thin, balance_terms, population_gradients, run_mf

# ---------------------------------------------------------------------------------------------
# Figure 2: SGD reaches the noise balance of Theorem 5.2; GD conserves W W^T - U^T U (eq. 11)
# ---------------------------------------------------------------------------------------------

FIG2 = dict(d0=30, d=40, d2=30, S=1, eta=0.006, burn=3000, window=6000, replicas=16)
"""Figure 2 / Appendix A.2 setting: d0 = d2 = 30, d = 40, x ~ N(0, I), y = x + eps.  Each replica
has its own diagonal Sigma_eps (entries uniform in [0.5, 1.5]) as the figure's points do; the
paper gives neither eta nor S: S = 1 and eta = 0.006 (stable, and equilibrated within budget)."""


def _fig2_problem(rng, R):
    c = FIG2
    se = rng.uniform(0.5, 1.5, (R, c["d2"]))
    prob = MFProblem(np.ones(c["d0"]), se, np.eye(c["d2"], c["d0"]))
    # the same (unbalanced) initialisation for SGD and GD: W large, U small
    W = rng.normal(0.0, np.sqrt(2.0 / c["d0"]), (R, c["d"], c["d0"]))
    U = rng.normal(0.0, np.sqrt(0.1 / c["d"]), (R, c["d2"], c["d"]))
    return prob, U, W


def _balance_check():
    """Check of ``W Gamma_W W^T = U^T Gamma_U U`` at the end of SGD (Theorem 5.2, gamma = 0).

    Reported as a Monte Carlo estimate of ``(rho, q)`` against the prediction ``(1, 0)``: ``rho`` the
    least-squares factor of ``A = rho B`` (replica mean of the eta -> 0 extrapolation; error: replica
    spread and the last extrapolation correction in quadrature) and ``q`` the unbiased U-statistic of
    ``||E[A - rho B]||^2 / ||A||^2`` (the part of ``A`` no multiple of ``B`` explains; error: jackknife and
    the last correction).  The prediction's mutants ``(c, 0)`` are the statements ``A = c B``.
    """

    def check(rng, dims):
        c = FIG2
        rng = _child(rng)
        R = sc.scaled(c["replicas"], minimum=8)
        window = sc.scaled(c["window"], minimum=2000)
        prob, U, W = _fig2_problem(rng, R)
        eta = c["eta"]
        n1, n2 = c["burn"] + window, 2 * (c["burn"] + window)
        bar = sc.Progress("noise.fig2 SGD", n1 + n2)
        coarse = run_mf(rng, prob, U, W, eta=eta, S=c["S"], steps=n1, burn=c["burn"], progress=bar)
        fine = run_mf(rng, prob, coarse["U"], coarse["W"], eta=eta / 2, S=c["S"], steps=n2, burn=2 * c["burn"],
                      progress=bar, done0=n1)
        bar.close()
        scale = float(np.mean(np.linalg.norm(fine["A"], axis=(1, 2))))
        drifts = {f"eta={e:g}": sc.drift_test(np.concatenate([o["A_1"], o["B_1"]], 1),
                                                np.concatenate([o["A_2"], o["B_2"]], 1), scale)
                  for e, o in ((eta, coarse), (eta / 2, fine))}
        sc.require_converged(drifts)
        rho = {k: sc.ratio_perp(o["A"], o["B"])[0] for k, o in (("coarse", coarse), ("fine", fine))}
        perp = {k: o["A"] - rho[k][:, None, None] * o["B"] for k, o in (("coarse", coarse), ("fine", fine))}
        rho_m, rho_se = sc.extrapolated_estimate(rho["coarse"], rho["fine"])
        p0 = sc.richardson(perp["coarse"], perp["fine"])
        q, q_se = sc.sq_norm_ustat(p0 / scale)
        # extrapolation error of q: the size of the last correction, ||E[P0 - P(eta/2)]||^2 (unbiased)
        allowance = max(sc.sq_norm_ustat((p0 - perp["fine"]) / scale)[0], 0.0)
        q_se = max(float(np.hypot(q_se, allowance)), 1e-300)
        lv = {k: float(np.mean(v)) for k, v in rho.items()}
        A0, B0 = fine["A"][0], fine["B"][0]
        iu = np.triu_indices(A0.shape[0])
        pick = np.linspace(0, len(iu[0]) - 1, 150).astype(int)
        figure = {
            "title": "Fig. 2: SGD approaches the noise balance of Theorem 5.2",
            "panels": [
                {"kind": "line", "xlabel": "step", "ylabel": r"$\|A-B\|_F/\|A\|_F$ (instantaneous)", "yscale": "log",
                 "series": [{"label": f"SGD $\\eta$ = {eta:g}", "x": _thin(coarse["hist_t"]), "y": _thin(coarse["hist_v"])},
                            {"label": f"SGD $\\eta$ = {eta / 2:g}", "x": _thin([n1 + t for t in fine["hist_t"]]),
                             "y": _thin(fine["hist_v"])}]},
                {"kind": "scatter", "xlabel": r"$(W\Gamma_W W^\top)_{ij}$", "ylabel": r"$(U^\top\Gamma_U U)_{ij}$",
                 "series": [{"label": "SGD, replica 0, time average", "x": A0[iu][pick].tolist(),
                             "y": B0[iu][pick].tolist()}], "diagonal": True},
            ],
        }
        detail = (f"A = rho B with rho extrapolated eta->0 = {float(rho_m):.4f} +- {float(rho_se):.4f} (eta={eta:g}: "
                  f"{lv['coarse']:.4f}, {eta / 2:g}: {lv['fine']:.4f}); unexplained part q = ||E[A - rho B]||^2/||A||^2 = "
                  f"{q:.2e} +- {q_se:.1e}; {R} replicas x {window} steps")
        return sc.montecarlo([float(rho_m), q], [1.0, 0.0], [float(rho_se), q_se], detail=detail, figure=figure)

    return check


GD_STEPS = (0.25, 0.125, 0.0625)
"""Step sizes of the GD refinement, as fractions of Figure 2's eta; every run integrates to time GD_TIME."""
GD_TIME = 12.0
"""Integration time of the GD runs (2000 steps of Figure 2's eta; the gradient has fallen by 1e-9 there)."""


def _gd_check(target: str):
    """GD from Figure 2's initialisation: ``target="conserved"`` (eq. 11) or ``"balance"`` (A = B).

    Reported per step size (a Refinement): measured ``C_T = W W^T - U^T U`` at the GD end point, predicted
    ``C_0`` (``"conserved"``), or measured ``A``, predicted ``B`` (``"balance"``, the control).  Floor of a
    true statement at step ``eta``: one GD step changes ``C`` by exactly ``eta^2 (g_W g_W^T - g_U^T g_U)``
    (the first-order terms cancel, Appendix D), so ``||C_T - C_0|| <= sum_t eta^2 ||g_W g_W^T - g_U^T g_U||``
    (triangle inequality, per replica; Frobenius over all replicas, relative to ``||C_0||``), plus rounding.
    """

    def check(rng, dims):
        c = FIG2
        rng = _child(rng)
        R = sc.scaled(8, minimum=4)
        prob, U0, W0 = _fig2_problem(rng, R)
        C0 = W0 @ _T(W0) - _T(U0) @ U0
        n0 = float(np.linalg.norm(C0))
        names, measured, predicted, floors, grads, hist = [], [], [], [], [], []
        etas = [c["eta"] * f for f in GD_STEPS]
        bar = sc.Progress("noise.fig2 GD", sum(int(round(GD_TIME / e)) for e in etas))
        done = 0
        for eta in etas:
            U, W = U0.copy(), W0.copy()
            bound = np.zeros(R)
            steps = int(round(GD_TIME / eta))
            g0 = None
            for t in range(steps):
                gU, gW = population_gradients(prob, U, W)
                if g0 is None:
                    g0 = np.sum(gU ** 2, (1, 2)) + np.sum(gW ** 2, (1, 2))
                bound += eta ** 2 * np.linalg.norm(gW @ _T(gW) - _T(gU) @ gU, axis=(1, 2))
                U -= eta * gU
                W -= eta * gW
                if eta == etas[0] and t % 30 == 0:
                    A, B = balance_terms(prob, U, W)
                    hist.append((t, float(np.mean(np.linalg.norm(A - B, axis=(1, 2)) / np.linalg.norm(A, axis=(1, 2))))))
                if t % 200 == 0:
                    bar.update(done + t)
            done += steps
            gU, gW = population_gradients(prob, U, W)
            grads.append(float(np.max(np.sqrt((np.sum(gU ** 2, (1, 2)) + np.sum(gW ** 2, (1, 2))) / g0))))
            if target == "conserved":
                measured.append(W @ _T(W) - _T(U) @ U)
                predicted.append(C0)
            else:
                A, B = balance_terms(prob, U, W)
                measured.append(A)
                predicted.append(B)
            names.append(f"eta={eta:g}")
            # rounding: each step's update of C is exact to ~ eps ||C|| per entry operation
            floors.append(float(np.linalg.norm(bound)) / n0 + 64 * np.finfo(float).eps * steps)
        bar.close()
        if max(grads) > 1e-6:
            raise sc.NotConverged(f"GD not converged (final/initial gradient norm {max(grads):.1e})")
        what = "C_T vs C_0, C = W W^T - U^T U" if target == "conserved" else "A vs B at the GD end point"
        figure = {"title": "Fig. 2: GD keeps its initial imbalance",
                  "panels": [{"kind": "line", "xlabel": "step", "ylabel": r"$\|A-B\|_F/\|A\|_F$", "yscale": "log",
                              "series": [{"label": f"GD $\\eta$ = {etas[0]:g}", "x": [h[0] for h in hist],
                                          "y": [h[1] for h in hist]}]}]}
        resolution = min(0.5, sc.resolvable(floors))   # about 1e-3: what the step refinement resolves
        return sc.refinement(names, measured=measured, predicted_levels=predicted, floors=floors,
                             resolution=float(resolution), figure=figure,
                             detail=f"{what}; floors (exact discrete drift bound) " + ", ".join(f"{f:.1e}" for f in floors)
                             + f"; {R} runs, final/initial gradient norm <= {max(grads):.1e}")

    return check


_DIMS_FIG2 = tc.DimSpace({"d0": (30, 30), "d": (40, 40), "d2": (30, 30)})

_balance = tc.Statement(
    r"W\Gamma_W W^\top = U^\top\Gamma_U U \text{ at the end of SGD}", dims=_DIMS_FIG2, check=_balance_check(),
    note=r"$\Gamma_{W} = \mathbb{E}[\lVert r\rVert ^{2} x x^{\top}]$, $\Gamma_{U} = \mathbb{E}[\lVert x\rVert ^{2} r r^{\top}]$ "
         "at the current parameters (closed form, Gaussian moments); time average over the stationary window, "
         r"extrapolated to $\eta \to 0$; each replica has its own diagonal $\Sigma_{\varepsilon}$.")

tc.register(tc.Claim(
    id="noise.fig2_balance_sim",
    title=r"SGD on $\lVert U W x - y\rVert^{2}$ converges to the noise balance $W \Gamma_{W} W^{\top} = U^{\top} \Gamma_{U} U$ (simulation)",
    source=tc.Source(PAPER, "5.2, Figure 2, Appendix A.2", "Theorem 5.2 / Figure 2",
                     r"W\Gamma_W W^\top = U^\top\Gamma_U U,\ \Gamma_W = \mathbb{E}[\|r\|^2 xx^\top]+2\gamma I,\ "
                     r"\Gamma_U = \mathbb{E}[\|x\|^2 rr^\top]+2\gamma I"),
    statement=_balance,
    controls=(tc.double(_balance, same_measurement=True), tc.negate(_balance, same_measurement=True)),
    assumptions=(r"$\gamma = 0$ (no weight decay)", r"online SGD, minibatch mean of $\lVert U W x - y\rVert^{2}$, $S = 1$",
                 r"$x \approx N(0, I_{30})$, $y = x + \varepsilon$, $\varepsilon \approx N(0, \Sigma_{\varepsilon})$ independent, $\Sigma_{\varepsilon}$ diagonal per run",
                 r"prediction is the $\eta \to 0$ limit: Richardson extrapolation from $\eta$ and $\eta/2$"),
    slow=True,
    aliases=("fig2",),
))

_gd = tc.Statement(r"W_tW_t^\top - U_t^\top U_t = W_0W_0^\top - U_0^\top U_0 \text{ under GD}", dims=_DIMS_FIG2,
                   check=_gd_check("conserved"),
                   note=r"Exact population GD from Figure 2's initialisation, step refined $\eta/4$, $\eta/8$, $\eta/16$; "
                        r"floors are the exact discrete-time drift bound $\sum_{t} \eta^{2} \lVert g_{W} g_{W}^{\top} - g_{U}^{\top} g_{U}\rVert$ of a conserved charge.")

tc.register(tc.Claim(
    id="noise.fig2_gd_sim",
    title=r"GD from the same initialisation conserves $W W^{\top} - U^{\top} U$ and stays unbalanced (simulation)",
    source=tc.Source(PAPER, "5.1-5.2, Figure 2", "eq. 11 / Figure 2",
                     r"W_tW_t^\top - U_t^\top U_t = W_0W_0^\top - U_0^\top U_0"),
    statement=_gd,
    controls=(tc.perturb(_gd, "GD reaches the SGD balance", check=_gd_check("balance")),),
    assumptions=("gradient descent on the exact population loss", "same data and initialisation as noise.fig2_balance_sim"),
    slow=True,
))
