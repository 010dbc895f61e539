"""Hypothesis fuzzing: hunt for counterexamples over dims and seeds, shrunk by Hypothesis.

:func:`fuzz_statement` runs the statement's own numeric code path on instances that Hypothesis
chooses (a configuration from the statement's :class:`~theorem_check.model.dims.DimSpace` and a
32-bit seed) and asks Hypothesis to find one the refinement rule calls *fails*.  Hypothesis
then shrinks the example towards the smallest configuration and seed.  The search is
deterministic for a given ``seed`` (``derandomize`` is off; the seed is passed to
``hypothesis.seed``) and stores nothing on disk.
"""

from __future__ import annotations

from dataclasses import dataclass

from theorem_check.engine.numeric import InstanceResult, evaluate_instances
from theorem_check.errors import ShapeMismatch
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome

__all__ = ["FuzzResult", "fuzz_statement"]


@dataclass(frozen=True)
class FuzzResult:
    """Outcome of a fuzzing campaign: ``counterexample`` is None when none was found."""

    examples: int
    counterexample: InstanceResult | None
    ill_posed: str | None = None


class _Found(Exception):
    pass


def fuzz_statement(statement: Statement, *, max_examples: int = 50, seed: int = 0) -> FuzzResult:
    """Search ``max_examples`` Hypothesis examples for an instance where ``statement`` fails.

    Raises ValueError if the statement has no numeric stage (no ``dims``).
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import seed as hyp_seed
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    from theorem_check.numerics.sampling import seeds

    if statement.dims is None:
        raise ValueError("fuzz_statement needs a statement with a numeric stage (dims)")
    count = [0]

    def fails(example) -> bool:
        dims, s = example
        count[0] += 1
        try:
            results = evaluate_instances(statement, dims, s, 1)
        except ShapeMismatch:
            return True
        except Exception:  # noqa: BLE001 - an instance that cannot be evaluated is no counterexample
            return False
        return any(r.outcome is Outcome.FAILS for r in results)

    cfg = settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
                   phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    strategy = st.tuples(statement.dims.strategy(), seeds())

    @hyp_seed(seed)
    def search():
        return find(strategy, fails, settings=cfg)

    try:
        dims, s = search()
    except NoSuchExample:
        return FuzzResult(count[0], None)
    try:
        res = evaluate_instances(statement, dims, s, 1)[0]
        return FuzzResult(count[0], res)
    except ShapeMismatch as exc:
        return FuzzResult(count[0], InstanceResult(dict(dims), s, 0, {}, {}, Outcome.FAILS, str(exc)),
                          ill_posed=f"dims {dict(dims)}: {exc}")
