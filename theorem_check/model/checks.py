"""What a custom check reports: measurements and predictions, never a decision (trust model 2).

A custom ``check(rng, dims)`` (optima, flows, Monte Carlo, simulations) returns one of

:class:`Refinement`
    per refinement level (optimiser tolerance, step size, grid, precision), what it **measured** and
    what the statement **predicts** (scalars or arrays of the same shape), the level's **floor** (the
    relative error a true statement may still leave there) and, where needed, a positive reference
    **scale** (required when the prediction is zero).  The engine computes the relative gap
    ``|measured - predicted| / scale`` at each level, validates it, and decides with the refinement
    rule (:func:`~theorem_check.model.verdicts.decide_refinement`).
:class:`MonteCarlo`
    an estimate, the prediction and the estimate's standard error; the engine decides with the z-test
    (:func:`~theorem_check.model.verdicts.decide_zscore`, false-alarm rate ``alpha``).

Because the engine holds the prediction, it also evaluates the automatic mutants (prediction times
-1, 2, 1/2, and the finest perturbation the check resolves, see :mod:`theorem_check.engine.mutants`) from the
same numbers: a check that cannot fail is found out, whatever the statement.

>>> import theorem_check as tc
>>> r = tc.Refinement.of(["tol=1e-4", "tol=1e-8"], measured=[0.35012, 0.3500000012], predicted=0.35,
...                      floors=[1e-3, 1e-8])
>>> [lv.name for lv in r.levels]
['tol=1e-4', 'tol=1e-8']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from theorem_check.errors import BadClaim
from theorem_check.numerics.precision import CONTEXTS

__all__ = ["Level", "Refinement", "MonteCarlo", "PRECISION_EPS", "measure", "forget_measurements"]

PRECISION_EPS = {name: ctx.eps for name, ctx in CONTEXTS.items()}
"""Unit round-off of each working precision a level may declare: the precision contexts' own ``eps``
(:data:`~theorem_check.numerics.precision.CONTEXTS`, the one table of precisions)."""


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
        Plot data (see ``theorem_check/output/report/figspec.py``).
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


MEASURE_MEMO = 4
"""Measurements :func:`measure` remembers (the most recent; a simulation's result is small)."""
_MEMO: dict = {}


def measure(check, rng, dims):
    """``check(rng, dims)``, computed once per check, generator state and sizes in this process.

    A control that re-uses its statement's measurement (``perturb(..., same_measurement=True)``) draws the
    same instance seeds as the statement, so its check call hits the statement's result here instead of
    running a simulation again; the generator is left in the state the call left it in.  Same seed, same
    result, so remembering changes no output.  The :data:`MEASURE_MEMO` most recent results are kept, and
    only within one claim's run (the engine calls :func:`forget_measurements` before each claim, so that a
    check whose module-level settings changed in between is run again).
    Raises whatever ``check`` raises (nothing is remembered then).
    """
    import json

    if getattr(check, "perturbs", None) is not None:   # a control's wrapper: its inner call is remembered
        return check(rng, dims)
    key = (check, json.dumps(rng.bit_generator.state, sort_keys=True, default=str),
           tuple(sorted((str(k), int(v)) for k, v in dims.items())))
    hit = _MEMO.pop(key, None)
    if hit is None:
        hit = (check(rng, dims), rng.bit_generator.state)
    else:
        rng.bit_generator.state = hit[1]
    _MEMO[key] = hit
    while len(_MEMO) > MEASURE_MEMO:
        _MEMO.pop(next(iter(_MEMO)))
    return hit[0]


def forget_measurements() -> None:
    """Forget every result :func:`measure` remembers (the engine calls it before each claim)."""
    _MEMO.clear()
