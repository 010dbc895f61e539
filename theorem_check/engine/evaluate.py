"""The engine's evaluation of a custom check's report: residuals, decision, mutants, sensitivity.

A check reports :class:`~theorem_check.model.checks.Refinement` or
:class:`~theorem_check.model.checks.MonteCarlo` (what it measured and what the statement predicts);
:func:`evaluate_result` computes ``|measured - predicted| / scale`` per level, validates it, decides with
the refinement rule or the z-test and evaluates the automatic mutants from the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from theorem_check.engine.mutants import LADDER, SideStats, refinement_mutant_outcomes, side_stats, stats_residual
from theorem_check.errors import BadClaim
from theorem_check.model.checks import PRECISION_EPS, Level, MonteCarlo, Refinement
from theorem_check.model.verdicts import Outcome, combine_outcomes, decide_refinement, decide_zscore, z_critical

__all__ = ["Evaluated", "evaluate_result"]


@dataclass(frozen=True)
class Evaluated:
    """The engine's evaluation of one check result (one instance)."""

    residuals: dict
    floors: dict
    outcome: Outcome
    mutants: dict
    ladder: dict
    predicted: Any
    measured: Any
    detail: str
    figure: Mapping[str, Any] | None
    resolution: float


def _arr(x, where: str) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "biufcO":
        raise BadClaim(f"{where} must be a number or an array of numbers, got {type(x).__name__} {x!r:.60}")
    if a.dtype == object:
        from theorem_check.numerics.precision import to_float

        f = to_float(a)
        if not np.all(np.isfinite(f)):
            raise BadClaim(f"{where} is NaN or infinite ({x!r:.60})")
        return a
    if not np.all(np.isfinite(a)):
        raise BadClaim(f"{where} is NaN or infinite ({x!r:.60})")
    return a


def _summary(x) -> Any:
    """A short human-readable form of a measured/predicted value for evidence and reports: a scalar to 6
    significant digits, up to 3 entries to 4, larger arrays by their size and shape (``50 values``, ``an array of
    8 x 40 x 40 values``; it was ``array(50,)``, helper-46; the JSON keeps the residuals)."""
    a = np.asarray(x)
    if a.dtype == object:
        from theorem_check.numerics.precision import to_float

        a = to_float(a)
    if a.ndim == 0:
        return float(f"{float(a):.6g}")
    if a.size <= 3:
        return [float(f"{v:.4g}") for v in a.astype(float).ravel()]
    return f"{a.size} values" if a.ndim == 1 else f"an array of {' x '.join(map(str, a.shape))} values"


def _all_zero(a: np.ndarray) -> bool:
    """True when every entry is exactly zero (compared as stored: a tiny ``mpf`` is not zero)."""
    try:
        return bool(np.all(a == 0))
    except (TypeError, ValueError):
        return False


def evaluate_result(result, where: str) -> Evaluated:
    """Compute residuals, the decision, the mutants and the sensitivity of a Refinement or MonteCarlo.

    Raises BadClaim (naming ``where`` and the level) for malformed results: fewer than two levels, floors
    not decreasing or below ``eps * size`` of the level's precision, NaN/inf values, shapes that differ,
    non-positive scales or standard errors.
    """
    if isinstance(result, Refinement):
        return _evaluate_refinement(result, where)
    if isinstance(result, MonteCarlo):
        return _evaluate_montecarlo(result, where)
    raise BadClaim(f"{where}: check() must return tc.Refinement or tc.MonteCarlo (or, deprecated, "
                   f"tc.Measurement), got {type(result).__name__}")


def _evaluate_refinement(r: Refinement, where: str) -> Evaluated:
    levels = list(r.levels)
    if len(levels) < 2 or not all(isinstance(lv, Level) for lv in levels):
        raise BadClaim(f"{where}: Refinement needs at least two tc.Level, got {len(levels)}")
    if not (isinstance(r.resolution, (int, float)) and 0 < r.resolution < 1):
        raise BadClaim(f"{where}: resolution={r.resolution!r} must lie in (0, 1)")
    stats: list[SideStats] = []
    floors = []
    for lv in levels:
        lw = f"{where} level {lv.name!r}"
        m = _arr(lv.measured, f"{lw}: measured")
        p = _arr(lv.predicted, f"{lw}: predicted")
        if np.ndim(p) == 0 and np.ndim(m) > 0:   # predicted=0 for an array x = 0 (writing-claims.md; helper-74)
            p = np.broadcast_to(p, np.shape(m))
        if np.shape(m) != np.shape(p):
            raise BadClaim(f"{lw}: measured has shape {np.shape(m)}, predicted {np.shape(p)}")
        if lv.precision not in PRECISION_EPS:
            raise BadClaim(f"{lw}: precision={lv.precision!r} must be one of {sorted(PRECISION_EPS)}")
        size = max(1, int(np.prod(np.shape(m))))
        least = PRECISION_EPS[lv.precision] * size
        if not (isinstance(lv.floor, (int, float)) and math.isfinite(lv.floor) and lv.floor >= least):
            raise BadClaim(f"{lw}: floor={lv.floor!r} is below what {lv.precision} can resolve "
                           f"(eps * size = {least:.2g})")
        if lv.scale is not None:
            sc = float(np.asarray(lv.scale, dtype=float)) if np.ndim(lv.scale) == 0 else None
            if sc is None or not (math.isfinite(sc) and sc > 0):
                raise BadClaim(f"{lw}: scale={lv.scale!r} must be one finite number > 0")
        elif _all_zero(p):
            # |m - 0| / max(|m|, 0) is 1 for every nonzero m: the verdict would not depend on what was measured
            raise BadClaim(f"{lw}: predicted is 0 and no scale= is given: the relative residual is 1 whatever "
                           f"is measured (rounding noise of 1e-17 included); give scale= (the size of the terms "
                           f"the measured value is computed from)")
        stats.append(side_stats(m.reshape(1, -1), p.reshape(1, -1), scale=lv.scale)[0])
        floors.append(float(lv.floor))
    if not all(a > b for a, b in zip(floors, floors[1:])):
        raise BadClaim(f"{where}: floors {floors} must decrease strictly (coarsest level first)")
    res = [stats_residual(s) for s in stats]
    for lv, x in zip(levels, res):
        if not math.isfinite(x):
            raise BadClaim(f"{where} level {lv.name!r}: residual is {x} (zero reference scale: give scale=)")
    outcome = decide_refinement(res, floors)
    mutants, ladder = refinement_mutant_outcomes(stats, floors, r.resolution)
    names = [lv.name for lv in levels]
    return Evaluated(dict(zip(names, res)), dict(zip(names, floors)), outcome, mutants, ladder,
                     _summary(levels[-1].predicted), _summary(levels[-1].measured), r.detail, r.figure,
                     float(r.resolution))


def _evaluate_montecarlo(r: MonteCarlo, where: str) -> Evaluated:
    est = _arr(r.estimate, f"{where}: estimate").astype(float)
    pred = _arr(r.predicted, f"{where}: predicted").astype(float)
    se = _arr(r.stderr, f"{where}: stderr").astype(float)
    try:
        est, pred, se = np.broadcast_arrays(est, pred, se)
    except ValueError:
        raise BadClaim(f"{where}: estimate {np.shape(r.estimate)}, predicted {np.shape(r.predicted)} and stderr "
                       f"{np.shape(r.stderr)} must have the same shape") from None
    if not np.all(se > 0):
        raise BadClaim(f"{where}: stderr={r.stderr!r} must be > 0")
    zc = z_critical(r.alpha)
    shift = 2.5 * zc  # standard errors: |z| = 12.2 > 2 z_crit (9.78) is resolved as FAILS

    def decide(p) -> Outcome:
        return combine_outcomes([decide_zscore(float(e), float(q), float(s), alpha=r.alpha)
                                 for e, q, s in zip(est.flat, np.asarray(p).flat, se.flat)])

    outcome = decide(pred)
    zero = np.all(pred == 0)
    add = float(r.scale) if r.scale is not None else 2 * shift * float(np.max(se))
    if r.scale is not None and not (math.isfinite(add) and add > 0):
        raise BadClaim(f"{where}: scale={r.scale!r} must be a finite number > 0")
    sgn = np.where(pred >= 0, 1.0, -1.0)
    if zero:
        mutants = {"sign": decide(pred - add), "factor 2": decide(pred + 2 * add),
                   "factor 1/2": decide(pred + add / 2)}
    else:
        mutants = {"sign": decide(-pred), "factor 2": decide(2 * pred), "factor 1/2": decide(pred / 2)}
    mutants[f"shift {shift:.3g} se"] = decide(pred + sgn * shift * se)
    ladder = {d: decide(pred + d * add if zero else pred * (1 + d)) for d in LADDER}
    z = float(np.max(np.abs(est - pred) / se))
    res = {"|z|": z}
    resolution = float(np.max(shift * se / np.where(pred != 0, np.abs(pred), add)))
    return Evaluated(res, {"z_crit": zc}, outcome, mutants, ladder, _summary(pred), _summary(est),
                     r.detail or f"z-test, |z| = {z:.2f}, alpha = {r.alpha:g}", r.figure, resolution)
