"""Every size of a large space, screened at float64: a statement false only in the middle of its range (decision 214).

With more size configurations than trials an identity runs four of them (:meth:`~theorem_check.model.dims.DimSpace.plan`,
decision 121: the generic one, the smallest and two drawn), and the far stage adds the top of an explicit range
(decision 209).  A statement false at a size none of them drew was VERIFIED: ``x*(n - 1)*...*(n - 16)*(n - 18)*...*
(n - 20) + x = x`` with ``--size n=1:20`` fails at n = 17 only (helper-70), and a default space of three size letters
(64 configurations) has the same gap.  :func:`size_screen` draws one instance at each configuration the plan left
out and evaluates it at float64 only (NumPy: a fraction of an mp50 instance); where the residual, relative to the
sides and the magnitude of their computation (:mod:`~theorem_check.engine.vacuity`), is above
:data:`SCREEN_FACTOR` float64 floors, that configuration is decided by the engine's own rule (:func:`~theorem_check.engine.numeric.
evaluate_instances`: float32 -> float64 -> mp50, two instances) and a failure is shrunk and refutes the statement as
any other.  The screen decides nothing itself: a float64 residual below the threshold, or above it where the full
decision holds, adds nothing to the record.

Limits: configurations whose largest input has more than :data:`SCREEN_ENTRIES` entries, spaces of more than
:data:`SCREEN_MAX` configurations left (a seeded sample of that many), at most :data:`SCREEN_DECIDED` full decisions
(a statement whose float64 residuals are large everywhere without failing: cancellation), and gaps below
:data:`SCREEN_FACTOR` float64 floors (about 1e-10 at these sizes) at a size not run (the other stages' instances see those at the sizes they run).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from theorem_check.engine.mutants import stats_residual
from theorem_check.engine.numeric import derive_seed, evaluate_instances, shrink
from theorem_check.engine.numeric_result import NumericResult
from theorem_check.engine.sides import expression_sides, level_floor, stats_or_errors
from theorem_check.engine.switch_stage import input_entries
from theorem_check.engine.vacuity import is_defined, magnitudes, with_magnitude
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome
from theorem_check.numerics.precision import FLOAT64

__all__ = ["SCREEN_DECIDED", "SCREEN_ENTRIES", "SCREEN_MAX", "SCREEN_FACTOR", "size_screen"]

SCREEN_MAX = 128
"""Most configurations screened beyond the planned ones (a seeded sample of this many when more are left)."""
SCREEN_ENTRIES = 1024
"""Largest input (entries) of a configuration screened (32 x 32)."""
SCREEN_FACTOR = 1e3
"""A float64 residual above this many float64 floors (``eps * size * cond`` at the configuration, relative to the
sides and their computation's magnitude) sends the configuration to the full decision: a gap of ~1e-7 at one size
(helper-75: ``trace(A)*(1 + 1e-21*P) = trace(A)``, ``P`` nonzero at n = 17 only) was under a fixed 1e-6."""
SCREEN_DECIDED = 8
"""Most configurations sent to the full decision (each: two instances from float32 to mp50)."""


def size_screen(statement: Statement, num: NumericResult, *, seed: int) -> NumericResult:
    """``num``, or ``num`` FAILS with a shrunk counterexample at a configuration its plan (``num.configs``) left out
    (the note gains "every size screened at float64: ..."). Runs only for an identity with expression sides whose
    outcome so far is HOLDS and not vacuous, without user-fixed sizes; a configuration that cannot be drawn or
    evaluated adds nothing."""
    if not statement.is_identity or num.outcome is not Outcome.HOLDS or num.vacuous or not num.configs \
            or not expression_sides(statement):
        return num
    rest = num.left_out(statement.dims)
    if len(rest) > SCREEN_MAX:
        rng = np.random.default_rng(derive_seed(seed, "screen", "sample"))
        rest = [rest[int(i)] for i in sorted(rng.choice(len(rest), size=SCREEN_MAX, replace=False))]
    decided = 0
    for j, cfg in enumerate(rest):
        if decided >= SCREEN_DECIDED:
            break
        s = derive_seed(seed, "screen", j)
        if not _suspect(statement, cfg, s):
            continue
        decided += 1
        try:
            found = evaluate_instances(statement, cfg, s, 2)
        except Exception:  # noqa: BLE001 - not evaluated there (shapes, an undefined side): no evidence either way
            continue
        bad = next((r for r in found if r.outcome is Outcome.FAILS), None)
        if bad is not None:
            cex = shrink(statement, bad, seed, ill_posed=False) or bad
            note = (f"{num.note}; every size screened at float64: {len(rest)} configurations beyond those run, "
                    f"fails at {_dims(bad.dims)}")
            return dataclasses.replace(num, outcome=Outcome.FAILS, instances=num.instances + tuple(found),
                                       counterexample=cex, note=note)
    return num


def _suspect(statement: Statement, cfg: dict, seed: int) -> bool:
    """True when one instance drawn at ``cfg`` with ``seed``, whose inputs have at most :data:`SCREEN_ENTRIES` entries,
    has a float64 residual above :data:`SCREEN_FACTOR` float64 floors (the magnitude of the computation computed only then: it can
    only lower the residual)."""
    try:
        inst = statement.sample(np.random.default_rng(seed), cfg, 1)
        if input_entries(inst) > SCREEN_ENTRIES:
            return False
        stats, size = stats_or_errors(statement, inst, FLOAT64, 1)
        threshold = SCREEN_FACTOR * level_floor(FLOAT64, size, statement.cond)
        if not is_defined(stats[0]) or stats_residual(stats[0]) <= threshold:
            return False
        entry = with_magnitude(stats[0], magnitudes(statement, inst, 1, [FLOAT64]), 0)
    except Exception:  # noqa: BLE001 - the full decision is not asked for an instance that cannot be evaluated
        return False
    return is_defined(entry) and stats_residual(entry) > threshold


def _dims(d) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(dict(d).items()))
