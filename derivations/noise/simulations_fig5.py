"""Noise paper, Theorem 5.4 / Figure 5 (Section 5.3), by simulation (slow): the layer norms of a deep linear network.

How the simulation claims measure and report (trust model 2): :mod:`derivations.noise.simulators`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import theorem_check as tc

from .. import simulation as sc
from .model import PAPER
from .simulators import _child

# ---------------------------------------------------------------------------------------------
# Theorem 5.4 / Figure 5: layer norms of a deep linear network at the noise equilibrium
# ---------------------------------------------------------------------------------------------

FIG5 = dict(D=4, dx=4, h=4, dy=10, noise=0.5, S=1, eta=0.005, burn=20000, window=10000, burn2=40000,
            replicas=8, pixel_scale=8.0, label_scale=4.0, gain_sd=0.4)
"""Figure 5 (MNIST in the paper; here offline data): D = 4 layers, widths 4-4-4-4-10, online SGD with
S = 1, eta = 0.005, no weight decay.  Two tasks, each y = V x + eps with eps ~ N(0, 0.5 I) independent
of x (Theorem 5.4's assumption): "gaussian" (x ~ N(0, diag(geomspace(1.5, 0.75, 4))), V random of
singular values 1.5..0.75) and "digits" (x = the 4 leading PCA coordinates of scikit-learn's
load_digits (pixels / 8), drawn uniformly from the 1797 images; V = least-squares map from x to the
one-hot labels times 4).  Per task, replicas start balanced (all layers orthogonal) or unbalanced
(orthogonal times random gains exp(N(0, 0.4^2)), product preserved)."""


def _digits_pca(k):
    """The ``k`` leading PCA coordinates of digits (pixels / 8, centred) and one-hot labels (times 4)."""
    from sklearn.datasets import load_digits

    ds = load_digits()
    X = ds.data / FIG5["pixel_scale"]
    X = X - X.mean(0)
    evals, evecs = np.linalg.eigh(X.T @ X / len(X))
    Z = X @ evecs[:, ::-1][:, :k]
    Y = FIG5["label_scale"] * np.eye(10)[ds.target]
    return Z, Y


def _fig5_tasks(rng):
    c = FIG5
    dx, dy = c["dx"], c["dy"]
    tasks = {}
    sx = np.geomspace(1.5, 0.75, dx)
    Q1 = np.linalg.qr(rng.normal(size=(dy, dx)))[0]
    Q2 = np.linalg.qr(rng.normal(size=(dx, dx)))[0]
    tasks["gaussian"] = dict(V=Q1 @ np.diag(np.linspace(1.5, 0.75, dx)) @ Q2.T, sx=sx, data=None)
    try:
        Z, Yoh = _digits_pca(dx)
    except ImportError:
        tasks["digits"] = None
    else:
        V = np.linalg.lstsq(Z, Yoh, rcond=None)[0].T                 # (10, 8)
        tasks["digits"] = dict(V=V, sx=np.mean(Z * Z, 0), data=Z)   # PCA coordinates: Sigma_x diagonal
    return tasks


def _fig5_check(which: str):
    """Check the layer norms at the end of SGD against ``which`` = "printed" (eq. 19) or "derived".

    A Monte Carlo estimate per (task, layer): the replica mean of the eta -> 0 extrapolation (error: replica
    spread and the last correction in quadrature) against the predicted norm.
    """
    from .simulators import equilibrium_norms, printed_norms, run_dln

    def check(rng, dims):
        c = FIG5
        rng = _child(rng)
        D, dx, h, dy = c["D"], c["dx"], c["h"], c["dy"]
        Rg = sc.scaled(c["replicas"], minimum=4)              # replicas per (task, init) group
        window = sc.scaled(c["window"], minimum=6000)
        tasks = _fig5_tasks(rng)
        live = {k: t for k, t in tasks.items() if t is not None}
        names = [(k, init) for k in live for init in ("balanced", "unbalanced")]
        R = Rg * len(names)
        V = np.stack([live[k]["V"] for k, _ in names for _ in range(Rg)])
        sx = np.stack([live[k]["sx"] for k, _ in names for _ in range(Rg)])
        se = np.full((R, dy), c["noise"])
        digits_rows = np.array([k == "digits" for k, _ in names for _ in range(Rg)])
        data = live["digits"]["data"] if "digits" in live else None
        sq_sx = np.sqrt(sx)

        def sample_x(rng, S):
            X = rng.standard_normal((R, dx, S)) * sq_sx[:, :, None]
            if data is not None:
                Xd = np.swapaxes(data[rng.integers(len(data), size=(R, S))], 1, 2)
                X = np.where(digits_rows[:, None, None], Xd, X)
            return X

        widths = [dx] + [h] * (D - 1) + [dy]
        gains = np.ones((R, D))
        unb = np.array([init == "unbalanced" for _, init in names for _ in range(Rg)])
        g = np.exp(rng.normal(0, c["gain_sd"], (R, D)))
        g /= np.prod(g, 1, keepdims=True) ** (1 / D)
        gains[unb] = g[unb]
        Ws = [gains[:, i, None, None] * np.linalg.qr(rng.normal(size=(R, widths[i + 1], widths[i])))[0]
              for i in range(D)]
        fn = printed_norms if which == "printed" else equilibrium_norms
        pred = {k: fn(t["V"], t["sx"], np.full(dy, c["noise"]), D) for k, t in live.items()}
        eta = c["eta"]
        n1, n2 = c["burn"] + window, c["burn2"] + 2 * window
        bar = sc.Progress("noise.fig5 deep linear", n1 + n2)
        Ws, h1, hist = run_dln(rng, Ws, V=V, sx=sx, se=se, eta=eta, S=c["S"], steps=n1, burn=c["burn"],
                               sample_x=sample_x, progress=bar)
        Ws, h2, _ = run_dln(rng, Ws, V=V, sx=sx, se=se, eta=eta / 2, S=c["S"], steps=n2, burn=c["burn2"],
                            sample_x=sample_x, progress=bar, done0=n1)
        bar.close()
        m_c, m_f = (h1[0] + h1[1]) / 2, (h2[0] + h2[1]) / 2
        m0 = sc.richardson(m_c, m_f)
        parts, series, est, errs, preds, drifts = [], [], [], [], [], {}
        for k in live:
            rows = np.array([kk == k for kk, _ in names for _ in range(Rg)])
            meas, ses = sc.extrapolated_estimate(m_c[rows], m_f[rows])
            drifts[k] = sc.drift_test(h2[0][rows] / pred[k], h2[1][rows] / pred[k])
            est += list(meas)
            errs += list(ses)
            preds += list(pred[k])
            zs = (meas - pred[k]) / ses
            by_init = {init: m0[rows & (unb if init == "unbalanced" else ~unb)].mean(0) for init in ("balanced", "unbalanced")}
            parts.append(f"{k}: predicted [{', '.join(f'{v:.3f}' for v in pred[k])}], measured "
                         f"[{', '.join(f'{v:.3f}+-{e:.3f}' for v, e in zip(meas, ses))}] (max |z| {max(map(abs, zs)):.1f}; "
                         f"balanced init [{', '.join(f'{v:.2f}' for v in by_init['balanced'])}], unbalanced "
                         f"[{', '.join(f'{v:.2f}' for v in by_init['unbalanced'])}]; eta={eta:g}: "
                         f"[{', '.join(f'{v:.2f}' for v in m_c[rows].mean(0))}])")
            for init in ("balanced", "unbalanced"):
                sel = rows & (unb if init == "unbalanced" else ~unb)
                for i in range(D):
                    series.append({"label": f"{k} {init} layer {i + 1}", "x": [t for t, _ in hist],
                                   "y": [float(n[sel, i].mean()) for _, n in hist]})
        if tasks.get("digits") is None:
            raise sc.NotConverged("digits: scikit-learn not installed (pip install scikit-learn); the claim needs both tasks")
        sc.require_converged(drifts)
        return sc.montecarlo(est, preds, errs,
                             detail=" | ".join(parts) + f"; {Rg} replicas per task and init, extrapolated eta -> 0 from "
                             f"eta={eta:g} and {eta / 2:g}; layers (||W_1 Sx^1/2||^2, ||W_2||^2, ||W_3||^2, ||Se^1/2 W_4||^2)",
                             figure={"title": "Fig. 5: layer norms of a deep linear network under SGD",
                                     "panels": [{"kind": "line", "xlabel": "step (eta = %g)" % eta,
                                                  "ylabel": "layer norm (see claim)", "series": series}]})

    return check


_DIMS_FIG5 = tc.DimSpace({"D": (4, 4), "dx": (4, 4), "h": (4, 4), "dy": (10, 10)})
_fig5_printed = tc.Statement(
    r"\mathrm{Tr}[\Sigma_1^2] = \mathrm{Tr}[\Sigma_i^2] = \mathrm{Tr}[\Sigma_D^2] = (\mathrm{Tr}S')^{2/D} d^{1-2/D}",
    dims=_DIMS_FIG5, check=_fig5_check("printed"),
    note=r"$\operatorname{Tr} \Sigma_{1}^{2} = \lVert W_{1} \Sigma_{x}^{1/2}\rVert ^{2}$, $\operatorname{Tr} \Sigma_{i}^{2} = \lVert W_{i}\rVert ^{2}$, "
         r"$\operatorname{Tr} \Sigma_{D}^{2} = \lVert \Sigma_{\varepsilon}^{1/2} W_{D}\rVert ^{2}$ (eq. 17); time averages at the end of SGD, extrapolated to $\eta \to 0$, both tasks and both initialisations.")
_fig5_derived = dataclasses.replace(
    _fig5_printed, check=_fig5_check("derived"), kind="corrected",
    name=r"corrected: $a_{x} c^{2}$, $d c^{2}$, $a_{e} c^{2}$ with $c^{D} = \operatorname{Tr} S' / \sqrt{a_{x} a_{e}}$",
    latex=r"\mathrm{Tr}\Sigma_1^2 = a_x c^2,\ \mathrm{Tr}\Sigma_i^2 = d c^2,\ \mathrm{Tr}\Sigma_D^2 = a_\epsilon c^2,\ "
          r"c^D = \frac{\mathrm{Tr}S'}{\sqrt{a_x a_\epsilon}},\ a_x = \mathrm{Tr}\Sigma_x,\ a_\epsilon = \mathrm{Tr}\Sigma_\epsilon",
    note=r"Solving eq. 122 with the end-layer traces $\operatorname{Tr} \Sigma_{x}$ and $\operatorname{Tr} \Sigma_{\varepsilon}$ "
         "(the proof's eq. 127-128 put $d$ there); the printed form is the special case $a_{x} = a_{e} = d$.")

tc.register(tc.Claim(
    id="noise.fig5_thm5_4_sim",
    title="Deep linear net under SGD reaches the Theorem 5.4 layer norms, middle layers balanced (simulation)",
    source=tc.Source(PAPER, "5.3, Figure 5, Appendix E", "Theorem 5.4 / eq. 19 / Figure 5",
                     r"\mathrm{Tr}[\Sigma_1^2] = \mathrm{Tr}[\Sigma_i^2] = (\mathrm{Tr}S')^{2/D} d^{1-2/D}"),
    statement=_fig5_printed,
    variants=(_fig5_derived,),
    controls=(tc.double(_fig5_derived, same_measurement=True),),
    assumptions=(r"$\gamma = 0$, online SGD $(S = 1)$ on $y = V x + \varepsilon$ with $\varepsilon$ independent of $x$",
                 "D = 4, hidden widths 4 = rank(V)", r"digits: scikit-learn's load$_{\mathrm{digits}}$ (offline), 4 PCA coordinates"),
    slow=True,
    aliases=("fig5",),
))
