"""NumericResult (engine/numeric_result.py): what counts as a statement no instance could evaluate."""

import dataclasses

import numpy as np

import theorem_check as tc
from theorem_check.engine.numeric import run_numeric
from theorem_check.model.verdicts import Outcome


def test_a_statement_evaluated_at_mp50_only_is_inconclusive_not_broken():
    """sqrt(x*y) = sqrt(x)*sqrt(y) with x > 0: NaN in real float arithmetic where y < 0, equal at mp50 (complex
    values): grey, an INCONCLUSIVE finding (exit 1), not 'could not be evaluated on any instance' (exit 2)."""
    st = tc.identity("test.sqrt", "sqrt(x*y)", "sqrt(x)*sqrt(y)", shapes={"x": (), "y": ()},
                     structure={"x": "positive"}, register=False).statement
    num = run_numeric(dataclasses.replace(st, sample=lambda rng, d, b: {"_dims": {}, "_batch": np.zeros(b),
                                                                        "x": np.full(b, 2.0), "y": -np.ones(b)}),
                      seed=0)
    assert num.outcome is Outcome.GREY and num.unevaluated is None
    assert all(i.residuals["mp50"] < 1e-40 for i in num.instances)
