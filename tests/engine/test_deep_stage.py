"""A gap below mp50's floor is refuted between mp100 and mp200 (theorem_check.engine.deep_stage, decision 208)."""

from __future__ import annotations

import dataclasses

import pytest

import theorem_check as tc
from theorem_check.engine import deep_stage
from theorem_check.engine.numeric import run_numeric
from theorem_check.model.verdicts import Outcome


def _claim(lhs, rhs, **kw):
    return tc.identity("test.deep", lhs, rhs, register=False, derive=False, **kw)


@pytest.mark.parametrize("lhs, rhs", [("exp(-150) + x", "x"), ("exp(1e-60*x)", "1"), ("x + x*exp(-200)", "x")])
def test_a_gap_mp50_rounds_away_is_refuted(lhs, rhs):
    """helper-65: false by 7e-66 (and by 1e-60 x, 1e-87 x), these were VERIFIED at every seed: float32, float64 and
    mp50 compute the same numbers on both sides."""
    r = tc.run_claim(_claim(lhs, rhs), seed=0, trials=4)
    assert r.verdict.value == "REFUTED", r.evidence
    assert "beyond 50 digits" in r.evidence


@pytest.mark.parametrize("lhs, rhs", [("exp(-150)*exp(150)*x", "x"), ("log(exp(x))", "x"), ("x + exp(-150)", "exp(-150) + x")])
def test_a_true_statement_gains_nothing(lhs, rhs):
    """The same code path on true statements (the negative control's twin): no refutation, no instance added."""
    st = _claim(lhs, rhs).statement
    num = run_numeric(st, seed=0, trials=4)
    assert num.outcome is Outcome.HOLDS
    assert deep_stage.deep_stage(st, num, seed=0) is num


def test_large_inputs_are_left_alone(monkeypatch):
    """Inputs beyond DEEP_ENTRIES entries are not evaluated at 200 digits (the stage returns its input)."""
    monkeypatch.setattr(deep_stage, "DEEP_ENTRIES", 0)
    st = _claim("exp(-150) + x", "x").statement
    num = run_numeric(st, seed=0, trials=4)
    assert deep_stage.deep_stage(st, num, seed=0) is num
    failing = dataclasses.replace(num, outcome=Outcome.FAILS)
    assert deep_stage.deep_stage(st, failing, seed=0) is failing


def test_every_configuration_run_gives_an_instance():
    """helper-70: a gap that vanishes at the generic size (n = 3) and not at the others was VERIFIED: the stage looked
    at the first configuration only; it takes one instance at each of the first DEEP_CONFIGS now."""
    r = tc.run_claim(_claim("sin(x)*(1 + exp(-150)*(n - 3))", "sin(x)", shapes={"x": ("n", 1)}), seed=0, trials=16)
    assert r.verdict.value == "REFUTED" and "beyond 50 digits" in r.evidence, r.evidence


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_gap_on_part_of_the_inputs_is_refuted(seed):
    """helper-70: ``x + exp(-150)*relu(x - 1) = x`` (a gap for x > 1 only) was VERIFIED at seeds 0 and 1: the one base
    instance drew x < 1.  A statement of scalars gets DEEP_SCALAR_DRAWS instances at each of DEEP_SCALES."""
    r = tc.run_claim(_claim("x + exp(-150)*relu(x - 1)", "x"), seed=seed, trials=16)
    assert r.verdict.value == "REFUTED" and "beyond 50 digits" in r.evidence, r.evidence


def test_scaled_instances_of_a_true_statement_add_nothing():
    """The same code path on the true twin (relu(x) - relu(-x) = x, and a cancellation at scale 16)."""
    for lhs, rhs in [("relu(x) - relu(-x) + exp(-150)*relu(-x - x)", "x + exp(-150)*relu(-2*x)"),
                     ("log(exp(x) + 1) - x", "log(1 + exp(-x))")]:
        st = _claim(lhs, rhs).statement
        num = run_numeric(st, seed=0, trials=16)
        assert num.outcome is Outcome.HOLDS
        assert deep_stage.deep_stage(st, num, seed=0) is num


def test_orthogonal_inputs_are_rebuilt_at_each_level():
    """helper-70: ``trace(Q.T*A*Q)*(1 + exp(-150)) = trace(A)`` with Q orthogonal was VERIFIED: the stage skipped
    orthogonal inputs; they are orthogonal to each level's precision (Newton-Schulz in the context), so it runs."""
    kw = dict(shapes={"Q": ("n", "n"), "A": ("n", "n")}, structure={"Q": "orthogonal"})
    r = tc.run_claim(_claim("trace(Q.T*A*Q)*(1 + exp(-150))", "trace(A)", **kw), seed=0, trials=16)
    assert r.verdict.value == "REFUTED" and "beyond 50 digits" in r.evidence, r.evidence
    st = _claim("trace(Q.T*A*Q)", "trace(A)", **kw).statement
    num = run_numeric(st, seed=0, trials=16)
    assert deep_stage.deep_stage(st, num, seed=0) is num
