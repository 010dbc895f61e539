"""A gap below mp50's floor: one instance between mp100 and mp200 (design decision 208).

The numeric stage decides an instance from float32 -> float64 -> mp50; a statement false by less than mp50 resolves
(``exp(-150) + x = x``, a gap of 7e-66; ``exp(1e-60*x) = 1``; ``sqrt(x**2 + 1e-100) = abs(x)``) computes the same
numbers on both sides at every one of them and was VERIFIED at every seed (helper-65).  After the other stages hold,
this stage evaluates one base instance at each of the first :data:`DEEP_CONFIGS` configurations run at 100 and 200
digits (:func:`~theorem_check.engine.escalation.beyond_fifty_digits`): a residual that stalls far above mp100's floor
is a gap, and the statement is refuted there, naming the levels.  It can only refute; a statement that holds gains
nothing (its record is unchanged).

Limits: identities whose two sides are expressions (strings, SymPy: claim code may compute at a precision of its
own, an iteration to a tolerance, a float64 constant, and would read as a gap here; the prh paper's eq. 28 did;
orthogonal inputs are rebuilt orthogonal at each level, so they take part) and whose inputs have at most
:data:`DEEP_ENTRIES` entries (200-digit arithmetic on larger inputs costs more than the rest of the run); one base
instance per configuration, and for small inputs (:data:`DEEP_SMALL`) a few more at the input scales
:data:`DEEP_SCALES` (a gap on part of the inputs only, ``x + exp(-150)*relu(x - 1) = x``, is found at every seed
tried, 0-4; a gap on a smaller part may be missed); gaps down to about ``1e-99`` of the sides' magnitude (mp100's
floor: a residual within it is taken as holding, and mp200 is not evaluated).
"""

from __future__ import annotations

import numpy as np

from theorem_check.engine.escalation import beyond_fifty_digits
from theorem_check.engine.numeric import derive_seed
from theorem_check.engine.numeric_result import InstanceResult, NumericResult, with_refuting_instances
from theorem_check.engine.sides import expression_sides, scalar_inputs, take
from theorem_check.engine.switch_stage import input_entries
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome

__all__ = ["DEEP_CONFIGS", "DEEP_ENTRIES", "DEEP_SCALES", "DEEP_SMALL", "deep_stage"]

DEEP_ENTRIES = 64
"""Largest input (entries of the largest one) at which the stage runs."""
DEEP_SMALL = 8
"""Largest input (entries) at which the first configuration also gives one instance at each of :data:`DEEP_SCALES`."""
DEEP_SCALES = (1.0, 4.0, 0.25, 16.0)
"""Input scales of the small statements' extra instances: a gap on part of the inputs only (``x + exp(-150)*relu(x -
1) = x``, zero for ``x < 1``) was VERIFIED at seeds 0 and 1 by the one base instance (helper-70)."""
DEEP_SCALAR_DRAWS = 8
"""Instances at each of :data:`DEEP_SCALES` for a statement of scalars (inputs of one entry; one for larger ones)."""
DEEP_CONFIGS = 4
"""Configurations run that each give the stage one base instance, in the order run (the generic one, the smallest,
...): helper-70's ``sin(x)*(1 + exp(-150)*(n - 3)) = sin(x)`` holds at the generic n = 3 only."""


def deep_stage(statement: Statement, num: NumericResult, *, seed: int) -> NumericResult:
    """``num``, or, where one base instance shows a gap between mp100 and mp200 that mp50 rounded away, ``num`` with
    that instance added to ``num.far`` as the counterexample (FAILS; the note gains "beyond 50 digits (mp100 ->
    mp200): ...").  Runs only for an identity with expression sides, decided at mp50, whose numeric outcome so far is
    HOLDS, at the first :data:`DEEP_CONFIGS` configurations run, one base instance each, on inputs of at most
    :data:`DEEP_ENTRIES` entries; an instance that cannot be evaluated there adds nothing."""
    if not statement.is_identity or num.outcome is not Outcome.HOLDS or not num.configs \
            or not expression_sides(statement) or "mp50" not in statement.contexts:
        return num
    for j, cfg, base_seed, scale, inst in _instances(statement, num, seed):
        try:
            outcome, residuals, floors = beyond_fifty_digits(statement, inst)
        except Exception:  # noqa: BLE001 - a side that cannot be evaluated at 100 digits: no evidence either way
            continue
        if outcome is Outcome.FAILS:
            break
    else:
        return num
    detail = "beyond 50 digits: a gap mp50 rounds away"
    values = {k: float(v[0]) for k, v in scalar_inputs(inst, 1).items()}
    found = InstanceResult(cfg, base_seed, 0, residuals, floors, Outcome.FAILS, detail, values=values,
                          scale=scale)
    return with_refuting_instances(num, [found], 0, f"beyond 50 digits (mp100 -> mp200): {j + 1} instance"
                                   + "s" * bool(j))


def _instances(statement: Statement, num: NumericResult, seed: int):
    """``(j, configuration, seed, scale, instance)``: one base instance at each of the first :data:`DEEP_CONFIGS`
    configurations run, and, at the first, one at each of :data:`DEEP_SCALES` when its inputs have at most
    :data:`DEEP_SMALL` entries (:data:`DEEP_SCALAR_DRAWS` for scalars); inputs beyond :data:`DEEP_ENTRIES` entries or that cannot be drawn are skipped."""
    for j, cfg in enumerate(dict(c) for c in num.configs[:DEEP_CONFIGS]):
        base_seed = derive_seed(seed, "deep", *([j] if j else []))
        try:
            inst = dict(statement.sample(np.random.default_rng(base_seed), cfg, 1))
        except Exception:  # noqa: BLE001 - an instance that cannot be drawn: no evidence either way
            continue
        entries = input_entries(inst)
        if entries > DEEP_ENTRIES:
            continue
        yield j, cfg, base_seed, 1.0, inst
        if j or entries > DEEP_SMALL or statement.sample_at_scale is None:
            continue
        draws = DEEP_SCALAR_DRAWS if entries <= 1 else 1
        for scale in DEEP_SCALES:
            scaled_seed = derive_seed(seed, "deep", "scale", str(scale))
            try:
                batch = dict(statement.sample_at_scale(np.random.default_rng(scaled_seed), cfg, draws, scale))
            except Exception:  # noqa: BLE001
                continue
            for b in range(draws):
                yield j, cfg, scaled_seed, scale, {k: take(v, b) for k, v in batch.items()}
