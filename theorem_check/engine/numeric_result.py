"""The frozen results of the numeric stage (:mod:`theorem_check.engine.numeric`): one instance, one statement."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from theorem_check.engine.mutants import LADDER
from theorem_check.model.verdicts import Outcome, combine_outcomes

__all__ = ["InstanceResult", "NumericResult", "with_refuting_instances"]


@dataclass(frozen=True)
class InstanceResult:
    """One instance: its dims, seed, batch index, residual per level, floors and outcome.

    ``mutants`` maps each automatic mutant's name to its outcome on this instance and ``ladder`` maps
    each relative perturbation of :data:`~theorem_check.engine.mutants.LADDER` to its outcome (both filled
    only when the instance holds and the engine decided it).  ``decided_by`` is ``"engine"``, or
    ``"check"`` for a deprecated check that returned a decided Measurement.
    """

    dims: Mapping[str, int]
    seed: int
    index: int
    residuals: Mapping[str, float]
    floors: Mapping[str, float]
    outcome: Outcome
    detail: str = ""
    predicted: Any = None
    measured: Any = None
    figure: Mapping[str, Any] | None = None
    mutants: Mapping[str, Outcome] = field(default_factory=dict)
    ladder: Mapping[float, Outcome] = field(default_factory=dict)
    decided_by: str = "engine"
    vacuous: bool = False
    values: Mapping[str, float] = field(default_factory=dict)   # the instance's real scalar inputs (evidence)
    scale: float = 1.0   # the inputs' scale: 1 for the ordinary instances, larger far from the origin (engine/far.py)
    undefined: bool = False   # grey because a side is NaN, infinite or complex at the highest precision evaluated


@dataclass(frozen=True)
class NumericResult:
    """The numeric stage of one statement.

    ``outcome`` combines the instances (any FAILS -> FAILS; all HOLDS -> HOLDS; else GREY).
    ``ill_posed`` is a message with the smallest dims whose shapes do not conform, if any.
    ``counterexample`` is the smallest failing instance found by shrinking.  ``bad`` is a bad-claim
    message (a side returned no array, a check returned malformed data): not mathematics, exit 2.
    ``configs`` lists the dimension configurations that were run, the generic one first.  ``far`` holds the
    instances far from the origin (:mod:`theorem_check.engine.far`; empty when that stage did not run): they
    can only refute, so :attr:`vacuous`, the mutants and the sensitivity are those of ``instances``.
    """

    outcome: Outcome
    instances: tuple[InstanceResult, ...]
    ill_posed: str | None = None
    counterexample: InstanceResult | None = None
    seconds: float = 0.0
    note: str = ""
    errors: tuple[str, ...] = field(default_factory=tuple)
    bad: str | None = None
    configs: tuple[Mapping[str, int], ...] = field(default_factory=tuple)
    far: tuple[InstanceResult, ...] = field(default_factory=tuple)

    def left_out(self, dims) -> list[dict]:
        """The configurations of ``dims`` (a :class:`~theorem_check.model.dims.DimSpace`) this stage did not run, in
        the space's order: what the size screen and the vacuous sweep look at (decisions 214, 193)."""
        return [dict(d) for d in dims.ordered() if d not in self.configs]

    @property
    def vacuous(self) -> bool:
        """True when the statement holds only vacuously: both sides vanish (below the floor of their
        computation's magnitude) on every instance.  Such a statement is INCONCLUSIVE, never VERIFIED."""
        return self.outcome is Outcome.HOLDS and bool(self.instances) and all(i.vacuous for i in self.instances)

    @property
    def decided_by(self) -> str:
        """``"engine"``, or ``"check"`` when any instance came from a deprecated decided Measurement."""
        return "check" if any(i.decided_by == "check" for i in self.instances) else "engine"

    @property
    def mutant_outcomes(self) -> dict[str, Outcome]:
        """Each automatic mutant's outcome over the instances (FAILS = refuted; HOLDS = it survived).

        Empty unless the statement holds and the engine decided it.
        """
        if self.outcome is not Outcome.HOLDS or self.decided_by != "engine" or not self.instances:
            return {}
        names = list(self.instances[0].mutants)
        return {n: combine_outcomes([i.mutants.get(n, Outcome.GREY) for i in self.instances]) for n in names}

    @property
    def survivors(self) -> list[str]:
        """Names of the mutants that also hold: the check cannot tell them from the statement."""
        return [n for n, o in self.mutant_outcomes.items() if o is Outcome.HOLDS]

    @property
    def sensitivity(self) -> float | None:
        """Smallest relative perturbation on the ladder 1e-2 ... 1e-14 that the statement's check refutes."""
        if not self.mutant_outcomes:
            return None
        refuted = [d for d in LADDER
                   if combine_outcomes([i.ladder.get(d, Outcome.GREY) for i in self.instances]) is Outcome.FAILS]
        return min(refuted) if refuted else None

    @property
    def unevaluated(self) -> str | None:
        """Why no instance could be evaluated (every one raised or had a NaN/inf side at every level), else None.

        An instance with a residual at some level (NaN at float64, a complex value at mp50: ``sqrt`` of a
        negative number) was evaluated: grey, an INCONCLUSIVE finding, not a broken definition.

        Such a statement is not a mathematical verdict but a broken definition: the CLI reports
        it as bad input (exit 2) after printing the results.
        """
        if self.bad:
            return self.bad
        if self.ill_posed or not self.instances:
            return None
        if all(i.outcome is Outcome.GREY and (not i.residuals or all(math.isnan(v) for v in i.residuals.values()))
               for i in self.instances):
            return self.instances[0].detail or "no instance could be evaluated"
        return None


def with_refuting_instances(num: "NumericResult", results: list, unevaluated: int, text: str) -> "NumericResult":
    """``num`` with a refute-only stage's instances added to ``far`` and its line ``text`` (counts) to the note:
    FAILS with the first failing instance as the counterexample, else unchanged outcome and ", none fails" (with
    the undecided count).  Used by the branch-switch and branch-cut stages."""
    bad = next((r for r in results if r.outcome is Outcome.FAILS), None)
    far = num.far + tuple(results)
    if bad is None:
        undecided = unevaluated + sum(r.outcome is Outcome.GREY for r in results)
        text += ", none fails" + (f" ({undecided} undecided)" if undecided else "")
        return dataclasses.replace(num, far=far, note=f"{num.note}; {text}".lstrip("; "))
    return dataclasses.replace(num, outcome=Outcome.FAILS, counterexample=bad, far=far,
                               note=f"{num.note}; {text}, counterexample found".lstrip("; "))
