"""Every size configuration of a vacuous statement: a counterexample hunt before INCONCLUSIVE (design decision 193).

With more size configurations than trials an identity runs four of them (:meth:`~theorem_check.model.dims.DimSpace.plan`,
decision 121).  Where both sides vanish on every planned instance, the numbers cannot tell 0 from a small gap and the
statement is INCONCLUSIVE whatever else is run, so more instances cost no verdict and can only find a counterexample:
``det(A*B) = 0`` (``A`` n x m, ``B`` m x n, ``n = 4..8``, ``m = 1..4``) is false only at ``n = m = 4``, one configuration
of 20, and was INCONCLUSIVE at nine seeds in ten (helper-55).  :func:`vacuous_sweep` runs one instance at each
configuration the plan left out, by the same code path and decision rule, the first failure shrunk as any other.
"""

from __future__ import annotations

import dataclasses

from theorem_check.engine.numeric import derive_seed, evaluate_instances, largest_input, shrink
from theorem_check.engine.numeric_result import InstanceResult, NumericResult
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome

__all__ = ["VACUOUS_SWEEP_ENTRIES", "VACUOUS_SWEEP_MAX", "vacuous_sweep"]

VACUOUS_SWEEP_MAX = 64
"""Most size configurations :func:`vacuous_sweep` runs beyond the planned ones (none when there are more)."""
VACUOUS_SWEEP_ENTRIES = 256
"""Largest input (entries) of a configuration :func:`vacuous_sweep` runs (16 x 16: an mp50 instance of a few
milliseconds); larger configurations are left to the plan (``n = 200:260`` costs nothing more)."""


def vacuous_sweep(statement: Statement, num: NumericResult, *, seed: int) -> NumericResult:
    """``num`` with one instance at each configuration its plan (``num.configs``) left out, where every planned instance
    of the identity ``statement`` is vacuous (:attr:`NumericResult.vacuous`); ``num`` unchanged otherwise, or when more
    than :data:`VACUOUS_SWEEP_MAX` configurations are left.  A configuration that cannot be evaluated there (shapes, an
    undefined side) adds nothing.  FAILS with a shrunk counterexample when an instance fails; the note gains one line
    (``every instance vacuous: the k other size configurations run too``).  Run only without user-fixed sizes."""
    if not statement.is_identity or not num.vacuous or not num.configs:
        return num
    rest = num.left_out(statement.dims)
    if not rest or len(rest) > VACUOUS_SWEEP_MAX:
        return num
    rest = [d for d in rest if largest_input(statement, d, derive_seed(seed, "probe")) <= VACUOUS_SWEEP_ENTRIES]
    if not rest:
        return num
    more: list[InstanceResult] = []
    for j, cfg in enumerate(rest):
        try:
            more.extend(evaluate_instances(statement, dict(cfg), derive_seed(seed, "vacuous", j), 1))
        except Exception:  # noqa: BLE001 - not evaluated there: no evidence either way
            continue
        if more and more[-1].outcome is Outcome.FAILS:
            break
    note = f"{num.note}; every instance vacuous: the {len(rest)} other size configurations run too, one instance each"
    bad = next((r for r in more if r.outcome is Outcome.FAILS), None)
    if bad is None:
        return dataclasses.replace(num, instances=num.instances + tuple(more), note=note)
    cex = shrink(statement, bad, seed, ill_posed=False) or bad
    return dataclasses.replace(num, outcome=Outcome.FAILS, instances=num.instances + tuple(more), counterexample=cex,
                               note=note)
