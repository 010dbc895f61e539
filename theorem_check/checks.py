"""What a custom check reports: measurements and predictions, never a decision (trust model 2).

A custom ``check(rng, dims)`` (optima, flows, Monte Carlo, simulations) returns one of

:class:`Refinement`
    per refinement level (optimiser tolerance, step size, grid, precision), what it **measured** and
    what the statement **predicts** (scalars or arrays of the same shape), the level's **floor** (the
    relative error a true statement may still leave there) and, where needed, a positive reference
    **scale** (required when the prediction is zero).  The engine computes the relative gap
    ``|measured - predicted| / scale`` at each level, validates it, and decides with the refinement
    rule (:func:`~theorem_check.verdicts.decide_refinement`).
:class:`MonteCarlo`
    an estimate, the prediction and the estimate's standard error; the engine decides with the z-test
    (:func:`~theorem_check.verdicts.decide_zscore`, false-alarm rate ``alpha``).

Because the engine holds the prediction, it also evaluates the automatic mutants (prediction times
-1, 2, 1/2, and the finest perturbation the check resolves, see :mod:`theorem_check.mutants`) from the
same numbers: a check that cannot fail is found out, whatever the statement.

>>> import theorem_check as tc
>>> r = tc.Refinement.of(["tol=1e-4", "tol=1e-8"], measured=[0.35012, 0.3500000012], predicted=0.35,
...                      floors=[1e-3, 1e-8])
>>> [lv.name for lv in r.levels]
['tol=1e-4', 'tol=1e-8']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import BadClaim
from .mutants import LADDER, SideStats, refinement_mutant_outcomes, side_stats, stats_residual
from .verdicts import Outcome, combine_outcomes, decide_refinement, decide_zscore, z_critical

__all__ = ["Level", "Refinement", "MonteCarlo", "Evaluated", "evaluate_result", "PRECISION_EPS"]

PRECISION_EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps),
                 "mp50": 1e-49}
"""Unit round-off of each working precision a level may declare."""


@dataclass(frozen=True)
class Level:
    """One refinement level of a custom check.

    Parameters
    ----------
    name : str
        The level's label, e.g. ``"tol=1e-6"``, ``"h=0.01"``, ``"N=4096"``.
    measured, predicted : float or array_like
        What the check measured at this level and what the statement predicts (same shape; arrays are
        compared in the Frobenius norm).  Object arrays of ``mpmath.mpf`` are accepted.
    floor : float
        The relative error a *true* statement may still leave at this level (optimiser tolerance,
        ``h**p``, ...).  It may not be below what ``precision`` can resolve: ``eps * size``.
    scale : float, optional
        A positive reference magnitude of the relative gap (default ``max(|measured|, |predicted|)``).
        Required in effect when the prediction is zero (the gap of ``x = 0`` needs a scale).
    precision : str
        Working precision of ``measured``: ``"float32"``, ``"float64"`` (default) or ``"mp50"``.
    """

    name: str
    measured: Any
    predicted: Any
    floor: float
    scale: float | None = None
    precision: str = "float64"


@dataclass(frozen=True)
class Refinement:
    """A custom check's levels, coarsest first (at least two); the engine decides.

    Parameters
    ----------
    levels : sequence of Level
        Floors must decrease strictly.
    resolution : float
        The finest relative perturbation of the prediction the check resolves (default ``1e-3``):
        the engine's small mutant multiplies the prediction by ``1 + resolution`` and must refute it.
        State a finer one when the check resolves it (it is tested on every run).
    detail : str
        Human-readable evidence ("optimum at lambda = 0.31 after 40 iterations").
    figure : mapping, optional
        Plot data (see ``theorem_check/report/figspec.py``).
    """

    levels: Sequence[Level]
    resolution: float = 1e-3
    detail: str = ""
    figure: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, names: Sequence[str], *, measured: Sequence[Any], predicted: Any = None,
           predicted_levels: Sequence[Any] | None = None, floors: Sequence[float], scale: float | None = None,
           precision: str = "float64", **kwargs) -> "Refinement":
        """Build from parallel lists: ``predicted`` is one value for every level, or give ``predicted_levels``
        (one per level) instead.  ``scale`` and ``precision`` apply to every level.

        Raises BadClaim if the lists differ in length or both/neither prediction forms are given.
        """
        n = len(names)
        if (predicted is None) == (predicted_levels is None):
            raise BadClaim("Refinement.of: give exactly one of predicted= (every level) or predicted_levels=")
        preds = list(predicted_levels) if predicted_levels is not None else [predicted] * n
        if not (len(measured) == len(floors) == len(preds) == n):
            raise BadClaim(f"Refinement.of: names, measured, floors and predictions must have the same length "
                           f"(got {n}, {len(measured)}, {len(floors)}, {len(preds)})")
        return cls(tuple(Level(str(nm), m, p, float(f), scale, precision)
                         for nm, m, p, f in zip(names, measured, preds, floors)), **kwargs)


@dataclass(frozen=True)
class MonteCarlo:
    """A Monte Carlo comparison: the engine decides by a two-sided z-test.

    Parameters
    ----------
    estimate, predicted : float or array_like
        The sample estimate and the prediction (elementwise for arrays).
    stderr : float or array_like
        The estimate's standard error (finite, > 0).
    alpha : float
        False-alarm rate of the z-test (default ``1e-6``: holds below ``|z| = 4.89``, fails above 9.78).
    scale : float, optional
        Magnitude of the additive mutant when the prediction is zero (default ``2 * shift``).
    """

    estimate: Any
    predicted: Any
    stderr: Any
    alpha: float = 1e-6
    scale: float | None = None
    detail: str = ""
    figure: Mapping[str, Any] | None = None


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
        from .precision import to_float

        f = to_float(a)
        if not np.all(np.isfinite(f)):
            raise BadClaim(f"{where} is NaN or infinite ({x!r:.60})")
        return a
    if not np.all(np.isfinite(a)):
        raise BadClaim(f"{where} is NaN or infinite ({x!r:.60})")
    return a


def _summary(x) -> Any:
    """A short human-readable form of a measured/predicted value for evidence and reports: a scalar to 6
    significant digits, up to 3 entries to 4, larger arrays by their shape (the JSON keeps the residuals)."""
    a = np.asarray(x)
    if a.dtype == object:
        from .precision import to_float

        a = to_float(a)
    if a.ndim == 0:
        return float(f"{float(a):.6g}")
    if a.size <= 3:
        return [float(f"{v:.4g}") for v in a.astype(float).ravel()]
    return f"array{a.shape}"


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
