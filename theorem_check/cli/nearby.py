"""Nearby statements that hold: what ``check`` tries after a REFUTED statement (design decision 197).

Printed statements go wrong in a few ways far more often than in others: a sign, a transpose, a factor of 2
(``docs/errata.md``: most of the three papers' slips are one of them).  When ``check`` refutes an identity
``L = R`` of string sides, :func:`nearby` runs ``L = -(R)``, ``L = (R).T``, ``L = 2*(R)`` and ``L = (R)/2`` as
claims of their own, by the same engine, seed and trials, and returns those PROVED or VERIFIED: the statement the
author probably meant, with the evidence that it holds.  The verdict of the statement itself is not changed (it
is REFUTED: a nearby statement is a suggestion, each with its own verdict).  A candidate that does not conform (the
transpose of a non-square side), that cannot be built, or whose two sides are the same expression (``A.T = A``'s
transpose reading ``A.T = (A).T``) is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from theorem_check.errors import TheoremCheckError
from theorem_check.model.options import RunOptions
from theorem_check.model.verdicts import Verdict

__all__ = ["SLIPS", "Nearby", "nearby"]

SLIPS = (("sign", "-({r})"), ("transpose", "({r}).T"), ("factor 2", "2*({r})"), ("factor 1/2", "({r})/2"))
"""``(slip, template)``: the right-hand sides :func:`nearby` tries, ``{r}`` the statement's right-hand side."""


@dataclass(frozen=True)
class Nearby:
    """A nearby statement that holds: ``slip`` (one of :data:`SLIPS`' names), the ``statement`` in the string
    syntax, its ``verdict`` (PROVED or VERIFIED) and ``evidence``."""

    slip: str
    statement: str
    verdict: Verdict
    evidence: str


def _fails_at_once(statement, seed: int) -> bool:
    """True when one batch of two instances at the statement's generic sizes already fails by the engine's decision
    rule (:func:`~theorem_check.engine.numeric.evaluate_instances`): a false candidate is dropped without the whole
    run, whose shrinking and exact counterexample it does not need.  False when the batch holds, is grey or raises
    (the whole run decides those)."""
    from theorem_check.engine.numeric import derive_seed, evaluate_instances
    from theorem_check.model.verdicts import Outcome

    try:
        batch = evaluate_instances(statement, statement.dims.generic(), derive_seed(seed, "nearby"), 2)
    except Exception:  # noqa: BLE001 - not decided here: the whole run reports it
        return False
    return any(r.outcome is Outcome.FAILS for r in batch)


def _same(lhs: str, rhs: str) -> bool:
    """True when the two sides are the same Python expression up to parentheses and spacing (a candidate that holds
    by its form alone)."""
    import ast

    try:
        return ast.dump(ast.parse(lhs.strip(), mode="eval")) == ast.dump(ast.parse(rhs.strip(), mode="eval"))
    except SyntaxError:   # x' and the like: the whole run reads them
        return False


def nearby(lhs: str, rhs: str, shapes: dict, structure: dict, sizes: dict, *, seed: int, trials: int,
           timeout: float | None) -> list[Nearby]:
    """The statements ``lhs = template(rhs)`` of :data:`SLIPS` that hold (PROVED or VERIFIED), run in this process
    as ``check`` runs its statement (``seed``, ``trials``, ``timeout`` each).  ``lhs``, ``rhs``: the two sides in the
    string syntax; ``shapes``, ``structure``, ``sizes``: as ``check`` declared them.  Raises nothing: a candidate
    that cannot be built or run is skipped.  A right-hand side ``0`` has no nearby statement of these kinds."""
    from theorem_check.authoring.shortforms import identity
    from theorem_check.execution.workers import run_in_process

    if rhs.strip() in ("0", "0.0"):
        return []
    out = []
    for slip, template in SLIPS:
        candidate = template.format(r=rhs.strip())
        if _same(lhs, candidate):   # A.T = A: its transpose reading A.T = (A).T says nothing
            continue
        try:
            claim = identity("check.nearby", lhs, candidate, shapes=shapes, structure=structure, sizes=sizes,
                             register=False)
            if _fails_at_once(claim.statement, seed):
                continue
            result = run_in_process(claim, options=RunOptions(seed=seed, trials=trials), timeout=timeout)
        except (TheoremCheckError, ValueError, TypeError):
            continue
        r = result.results[0]
        if r.verdict in (Verdict.PROVED, Verdict.VERIFIED):
            out.append(Nearby(slip, f"{lhs.strip()} = {candidate}", r.verdict, r.evidence))
    return out
