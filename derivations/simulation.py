"""Shared machinery of the simulation claims: budget, progress, replica statistics, decisions.

The training-dynamics claims (``derivations.noise.simulations_*``, ``derivations.cascade.simulations``)
simulate many independent replicas at once (replicas along axis 0 of every array) and decide
by reporting what they measured and what the theory predicts (``tc.MonteCarlo`` for replica
estimates with a standard error from the spread over replicas, ``tc.Refinement`` for deterministic
flows refined in step size, tolerance, grid or time): the engine decides and evaluates the automatic
mutants (trust model 2).  Predictions of the papers are small-step statements (``eta -> 0``); a finite step
leaves an ``O(eta)`` bias, removed by running at ``eta`` and ``eta/2`` and extrapolating
(:func:`richardson`), so that the verdict does not hinge on a chosen tolerance.

Budget
------
``THEOREM_CHECK_BUDGET`` (environment) or :data:`BUDGET` (module attribute, wins when set) trades
time for precision:

* ``ci`` (default, = 1.0): replica counts and run lengths chosen so that every simulation still
  decides while the whole slow suite fits in a few minutes on 2 cores;
* ``paper`` (= 4.0): 4x the replicas/steps, and the papers' own sizes where ``ci`` shrinks them
  (Figure 8's width 2000);
* a number ``b > 0``: multiplies replica counts and run lengths (``b >= 4`` also selects the papers' sizes).

Progress goes to stderr when stderr is a terminal or ``THEOREM_CHECK_PROGRESS=1``.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

import theorem_check as tc

__all__ = ["BUDGET", "budget", "paper_scale", "scaled", "Progress", "mean_se", "richardson", "sq_norm_ustat",
           "zero_test", "scalar_test", "extrapolated_test", "extrapolated_estimate", "drift_test", "as_figspec",
           "NotConverged", "require_converged", "ratio_perp", "refinement", "montecarlo", "resolvable", "Z_CRIT"]

BUDGET: float | str | None = None
"""Module-level override of ``THEOREM_CHECK_BUDGET`` (``"ci"``, ``"paper"`` or a float)."""


Z_CRIT = 4.891638475698358
"""Two-sided normal quantile for alpha = 1e-6 (the engine's ``decide_zscore`` threshold)."""


def budget() -> float:
    """The budget multiplier (>= 0.05): :data:`BUDGET` if set, else ``THEOREM_CHECK_BUDGET``, else 1.

    Raises ``tc.InvalidArgument`` for an unknown preset or a non-positive number.
    """
    from theorem_check.validation import check_budget

    return check_budget(BUDGET)  # None reads THEOREM_CHECK_BUDGET


def paper_scale() -> bool:
    """True when the budget selects the papers' own (largest) sizes (budget >= 4)."""
    return budget() >= 4.0


def scaled(n: int, *, minimum: int = 1, power: float = 1.0) -> int:
    """``n * budget**power`` rounded, at least ``minimum`` (replica counts, step counts)."""
    return max(minimum, int(round(n * budget() ** power)))


class Progress:
    """A one-line progress bar on stderr (silent unless stderr is a TTY or THEOREM_CHECK_PROGRESS=1).

    >>> p = Progress("demo", total=10); p.update(5); p.close()
    """

    def __init__(self, label: str, total: float):
        self.label, self.total = label, max(float(total), 1e-12)
        self.enabled = os.environ.get("THEOREM_CHECK_PROGRESS") == "1" or (
            hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
        self.t0 = time.perf_counter()
        self._last = -1.0

    def update(self, done: float, note: str = "") -> None:
        """Show ``done/total`` (throttled to 10 updates a second)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1 and done < self.total:
            return
        self._last = now
        frac = min(1.0, done / self.total)
        bar = "#" * int(20 * frac)
        sys.stderr.write(f"\r  {self.label:<28} [{bar:<20}] {100 * frac:5.1f}% {now - self.t0:6.1f}s {note[:30]:<30}")
        sys.stderr.flush()

    def close(self) -> None:
        """Clear the line."""
        if self.enabled:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()


def mean_se(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error over axis 0 (independent replicas); needs at least 2 replicas."""
    x = np.asarray(samples, dtype=float)
    if x.shape[0] < 2:
        raise tc.InvalidArgument(f"samples.shape={x.shape} must have >= 2 replicas along axis 0")
    return x.mean(axis=0), x.std(axis=0, ddof=1) / math.sqrt(x.shape[0])


def richardson(coarse: np.ndarray, fine: np.ndarray, *, ratio: float = 2.0, order: int = 1) -> np.ndarray:
    """Extrapolate a quantity measured at step ``h`` (coarse) and ``h/ratio`` (fine) to ``h -> 0``.

    Removes the ``O(h**order)`` term: ``(ratio**order * fine - coarse) / (ratio**order - 1)``
    (``2 fine - coarse`` for halving a first-order bias).  Works replica by replica.
    """
    k = ratio ** order
    return (k * np.asarray(fine, float) - np.asarray(coarse, float)) / (k - 1)


def sq_norm_ustat(samples: np.ndarray) -> tuple[float, float]:
    """Unbiased estimate of ``||E X||^2`` from replicas ``X_r`` (axis 0), with its jackknife standard error.

    ``q = sum_{r != s} <X_r, X_s> / (R (R-1))``: the noise of each replica cancels in expectation
    (unlike ``||mean X||^2``, biased up by ``tr Cov / R``), so ``q`` is centred on 0 when the
    mean is 0.  Needs ``R >= 3``.
    """
    x = np.asarray(samples, float).reshape(len(samples), -1)
    R = x.shape[0]
    if R < 3:
        raise tc.InvalidArgument(f"len(samples)={R} must be >= 3")
    s = x.sum(axis=0)
    sq = np.einsum("ri,ri->r", x, x)
    t = sq.sum()
    q = (s @ s - t) / (R * (R - 1))
    loo_s = s[None, :] - x
    q_loo = (np.einsum("ri,ri->r", loo_s, loo_s) - (t - sq)) / ((R - 1) * (R - 2))
    se = math.sqrt((R - 1) / R * np.sum((q_loo - q_loo.mean()) ** 2))
    return float(q), float(se)


def zero_test(deviation: np.ndarray, scale: float, *, allowance: float = 0.0) -> dict:
    """z-test that the mean of a matrix/vector ``deviation`` (replicas on axis 0) is zero.

    Returns a dict with ``outcome`` (``decide_zscore`` on ``q = ||E D||^2 / scale^2`` against 0),
    ``q``, ``se``, ``rel`` (``sqrt(max(q, 0))``, the relative size of the mean deviation) and
    ``rel_se`` (its 1-sigma upper bound ``sqrt(max(q, 0) + se) - sqrt(max(q, 0))``).
    ``allowance`` (same units as ``q``) is a systematic bound on ``||E D||^2`` that a true
    statement may leave (e.g. the last extrapolation correction): ``q`` up to it counts as 0.
    """
    q, se = sq_norm_ustat(np.asarray(deviation, float) / scale)
    se = max(se, 1e-300)
    allowance = max(float(allowance), 0.0)
    est = q - allowance if q > allowance else (q if q < 0 else 0.0)
    rel = math.sqrt(max(q, 0.0))
    return {"outcome": tc.decide_zscore(est, 0.0, se), "q": q, "se": se, "z": est / se, "rel": rel,
            "rel_se": math.sqrt(max(q, 0.0) + se) - rel, "allowance": allowance}


def scalar_test(samples: np.ndarray, predicted: float, *, sys: float = 0.0) -> dict:
    """z-test of the mean of scalar replicas against ``predicted`` (``decide_zscore``).

    ``sys`` is a systematic error added in quadrature to the standard error of the mean.
    """
    m, se = mean_se(np.asarray(samples, float))
    m, se = float(m), max(float(np.hypot(se, sys)), 1e-300)
    return {"outcome": tc.decide_zscore(m, predicted, se), "mean": m, "se": se, "z": (m - predicted) / se}


def extrapolated_test(coarse: np.ndarray, fine: np.ndarray, predicted: float) -> dict:
    """z-test of the ``eta -> 0`` extrapolation of replicas measured at ``eta`` (coarse) and ``eta/2`` (fine).

    The extrapolated mean ``m0`` (:func:`richardson`, per replica) is compared with ``predicted``;
    its error is the replica standard error and, in quadrature, the extrapolation error estimated
    as the size of the last correction, ``|m0 - mean(fine)|`` (the usual estimate: the
    ``O(eta^2)`` remainder is not known from two levels, and is taken no larger than the
    correction itself).  Returns :func:`scalar_test`'s dict plus ``sys``.
    """
    m0 = richardson(coarse, fine)
    sys_err = abs(float(np.mean(m0)) - float(np.mean(fine)))
    out = scalar_test(m0, predicted, sys=sys_err)
    out["sys"] = sys_err
    return out


def drift_test(first: np.ndarray, second: np.ndarray, scale: float = 1.0) -> dict:
    """Convergence criterion: is the mean of ``second - first`` (two halves of a window) zero?

    ``converged`` is False only when the drift is resolved beyond noise (``|z| > Z_CRIT``).
    """
    diff = (np.asarray(second, float) - np.asarray(first, float))
    if diff.ndim == 1:
        m, se = mean_se(diff)
        z = float(m) / max(float(se), 1e-300)
    else:
        q, se = sq_norm_ustat(diff / scale)
        z = q / max(se, 1e-300)
    return {"converged": abs(z) <= Z_CRIT, "z": z}


def as_figspec(fig: dict | None) -> dict | None:
    """Convert the simulations' figure description to the report's convention (``theorem_check.output.report.figspec``).

    Input: ``{"title": str, "panels": [{"kind": "line" | "scatter", "xlabel", "ylabel", "xscale",
    "yscale", "diagonal": bool, "series": [{"label", "x", "y", "style": "points" | "line"}]}]}``.
    Output: a ``"curve"`` spec (one panel) or ``"panels"`` of curves; scatter panels and
    ``"points"`` series are drawn as points, ``diagonal`` adds the line ``y = x``.
    """
    if fig is None:
        return None
    curves = []
    for p in fig.get("panels", []):
        series = []
        for s in p.get("series", []):
            style = {"points": "o", "line": "-"}.get(s.get("style"), "o" if p.get("kind") == "scatter" else "-")
            series.append({"x": [float(v) for v in s["x"]], "y": [float(v) for v in s["y"]],
                           "label": str(s.get("label", "")), "style": style})
        if p.get("diagonal") and series:
            lo = min(min(s["x"] + s["y"]) for s in series)
            hi = max(max(s["x"] + s["y"]) for s in series)
            series.append({"x": [lo, hi], "y": [lo, hi], "label": "y = x", "style": "--"})
        curve = {"kind": "curve", "series": series, "xlabel": p.get("xlabel", ""), "ylabel": p.get("ylabel", ""),
                 "xscale": p.get("xscale", "linear"), "yscale": p.get("yscale", "linear")}
        for key in ("vlines", "hlines", "marks"):
            if p.get(key):
                curve[key] = [{k: (float(v) if k in ("x", "y") else v) for k, v in item.items()} for item in p[key]]
        curves.append(curve)
    if len(curves) == 1:
        return {**curves[0], "title": fig.get("title", "")}
    return {"kind": "panels", "panels": curves, "caption": fig.get("title", "")}


class NotConverged(RuntimeError):
    """A simulation that did not converge in budget (drift between window halves, GD above tolerance, runs
    diverged): raised by a check, it makes the instance GREY and the claim INCONCLUSIVE, with this message."""


def require_converged(drifts: dict) -> None:
    """Raise :class:`NotConverged` naming every entry of ``drifts`` (:func:`drift_test` results) that drifted."""
    bad = [name for name, d in drifts.items() if not d["converged"]]
    if bad:
        raise NotConverged("not converged (drift between window halves resolved at "
                           + ", ".join(f"{b}: z={drifts[b]['z']:.1f}" for b in bad) + ")")


def ratio_perp(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Encode a matrix statement ``A = c B`` as two numbers per replica (axis 0): ``(rho, perp)``.

    ``rho = <A, B> / <B, B>`` (the least-squares factor) and ``perp = ||A - rho B|| / ||B||`` (Frobenius).
    By Pythagoras ``||A - c B||^2 / ||B||^2 = (rho - c)^2 + perp^2`` for every ``c``: comparing
    ``(rho, perp)`` with the prediction ``(c, 0)`` is comparing ``A`` with ``c B``, so the engine's
    mutants of the prediction (times -1, 2, 1/2, 1 + delta) are exactly the statements ``A = -c B``,
    ``A = 2 c B``, ... and no degenerate "0 = 0" comparison arises.  Shapes ``(R, m, n)`` -> ``(R,), (R,)``.
    """
    A, B = np.asarray(A, float), np.asarray(B, float)
    a, b = A.reshape(len(A), -1), B.reshape(len(B), -1)
    bb = np.sum(b * b, axis=1)
    rho = np.sum(a * b, axis=1) / bb
    p = a - rho[:, None] * b
    return rho, np.sqrt(np.sum(p * p, axis=1) / bb)


def extrapolated_estimate(coarse: np.ndarray, fine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and error of the ``eta -> 0`` extrapolation of replicas (axis 0) measured at ``eta`` and ``eta/2``.

    As :func:`extrapolated_test` (elementwise over trailing axes): the mean of the per-replica
    :func:`richardson` extrapolation, and the replica standard error combined in quadrature with the
    extrapolation error ``|m0 - mean(fine)|`` (the size of the last correction).
    """
    m0 = richardson(coarse, fine)
    m, se = mean_se(m0)
    sys_err = np.abs(np.asarray(m) - np.mean(np.asarray(fine, float), axis=0))
    return np.asarray(m, float), np.maximum(np.hypot(se, sys_err), 1e-300)


def resolvable(floors, *, margin: float = 1.1) -> float:
    """The smallest relative change ``delta`` of a prediction that the refinement rule refutes for sure.

    Worst case over every true statement (residual up to the floor at each level, of any sign): the
    mutant's residual at level ``k`` lies in ``[delta - f_k, delta + f_k]`` (relative to the prediction's
    scale).  With ``rho = f_first / f_last`` and ``rho_L = f_prev / f_last`` it is FAILS when it is (i) not
    HOLDS: ``delta - f_last > f_last sqrt(rho_L)`` (not near the finest floor; implied by (ii), since
    ``rho_L <= rho``); (ii) above ``f_last sqrt(rho)``: ``delta > f_last (1 + sqrt(rho))``; (iii) stalled,
    ``r_last >= r_prev / 2``: ``delta >= 2 f_last + f_prev``.  Returns ``margin`` times the larger of
    (ii) and (iii) (``floors`` coarsest first, at least two, decreasing).
    """
    f = [float(x) for x in floors]
    if len(f) < 2 or not all(a > b > 0 for a, b in zip(f, f[1:])):
        raise tc.InvalidArgument(f"floors={floors!r} must be at least two positive, decreasing levels")
    above = f[-1] * (1.0 + math.sqrt(f[0] / f[-1]))
    stall = 2.0 * f[-1] + f[-2]
    return margin * max(above, stall)


def refinement(names, *, figure=None, **kwargs) -> "tc.Refinement":
    """``tc.Refinement.of(names, ...)`` with the figure converted by :func:`as_figspec`."""
    return tc.Refinement.of(list(names), figure=as_figspec(figure), **kwargs)


def montecarlo(estimate, predicted, stderr, *, figure=None, **kwargs) -> "tc.MonteCarlo":
    """``tc.MonteCarlo`` (engine z-test, alpha = 1e-6) with the figure converted by :func:`as_figspec`."""
    return tc.MonteCarlo(np.asarray(estimate, float), np.asarray(predicted, float), np.asarray(stderr, float),
                         figure=as_figspec(figure), **kwargs)
