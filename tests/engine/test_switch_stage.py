"""Instances beside a branch switch (engine/switch_stage.py, design decision 194)."""

import numpy as np
import pytest
import sympy as sp

import theorem_check as tc
from theorem_check.engine.numeric import run_numeric
from theorem_check.engine.switch_stage import switch_arguments, switch_stage

# (lhs, rhs, shapes, structure): false only on a thin or far set bounded by an abs argument's zero set; each was
# VERIFIED at every seed before the stage (helper-55 and the stage's own probes)
FALSE = [
    ("abs(tanh(x/100) - 0.999999)", "0.999999 - tanh(x/100)", {}, {}),            # false beyond x = 725
    ("abs(log(log(1 + a)) - 3)", "3 - log(log(1 + a))", {}, {"a": "positive"}),   # beyond a = 5e8
    ("abs(x - 1) + abs(x - 1.001)", "abs(2*x - 2.001)", {}, {}),                  # on (1, 1.001)
    ("abs(det(X) - 1) + abs(det(X) - 1.001)", "abs(2*det(X) - 2.001)", {"X": ("n", "n")}, {}),
    ("abs(x/y - 1000)", "1000 - x/y", {}, {}),            # a ratio: scaling both inputs leaves it where it is
    # the argument changes sign twice within one step of the grid (helper-60): found at the extremum between
    ("abs((x - 3)*(x - 3.01))", "(x - 3)*(x - 3.01)", {}, {}),
    ("relu(x**2 - 2*x + 1 - 1e-8)", "(x - 1)**2 - 1e-8", {}, {}),
    ("abs((trace(X) - 3)*(trace(X) - 3.01))", "(trace(X) - 3)*(trace(X) - 3.01)", {"X": ("n", "n")}, {"X": "spd"}),
]
# the same switches in true statements: the stage runs and refutes none of them
TRUE = [
    ("abs(tanh(x/100) - 0.999999)", "abs(0.999999 - tanh(x/100))", {}, {}),
    ("abs(x - 1)*abs(x - 1.001)", "abs((x - 1)*(x - 1.001))", {}, {}),
    ("abs(det(X) - 1)**2", "(det(X) - 1)**2", {"X": ("n", "n")}, {}),
    ("abs(x/y - 1000)*abs(y)", "abs(x - 1000*y)", {}, {}),
    ("(x + y + abs(x - y))/2 - y", "(x - y + abs(x - y))/2", {}, {}),
    ("abs(trace(S) - 2)", "abs(2 - trace(S))", {"S": ("n", "n")}, {"S": "spd"}),
    ("relu((x - 1)**2 - 1e-4) + relu(1e-4 - (x - 1)**2)", "abs((x - 1)**2 - 1e-4)", {}, {}),
]


def _claim(i, lhs, rhs, shapes, structure):
    return tc.identity(f"t.switch{i}", lhs, rhs, shapes=shapes, structure=structure, register=False)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("i", range(len(FALSE)))
def test_a_statement_false_only_beside_a_switch_is_refuted(i, seed):
    r = tc.run_claim(_claim(i, *FALSE[i]), seed=seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("i", range(len(FALSE)))
def test_the_stage_alone_finds_the_counterexample(i, seed):
    """Without the far stage: the ordinary instances hold, the switch stage fails (the far ladder reaches the ratio's
    threshold at some seeds through its constant-derived scale 2000, so end to end it is not always this stage)."""
    st = _claim(i, *FALSE[i]).statement
    num = run_numeric(st, seed=seed)
    assert num.outcome is tc.Outcome.HOLDS
    out = switch_stage(st, num, seed=seed)
    assert out.outcome is tc.Outcome.FAILS and "beside where the argument" in out.counterexample.detail, out.note


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("i", range(len(TRUE)))
def test_true_statements_with_the_same_switches_keep_their_verdicts(i, seed):
    r = tc.run_claim(_claim(i, *TRUE[i]), seed=seed)
    assert r.verdict in (tc.Verdict.VERIFIED, tc.Verdict.PROVED), r.evidence
    if r.verdict is tc.Verdict.VERIFIED:
        assert "beside the branch switches (abs arguments)" in r.evidence and "none fails" in r.evidence, r.evidence


def test_switch_arguments_reads_scalar_and_entrywise_abs_and_skips_constants():
    x, y = sp.symbols("x y", real=True)
    X = sp.MatrixSymbol("X", 2, 2)
    assert switch_arguments(sp.Abs(x - 1) + sp.Abs(x - 1) * sp.Abs(y) + sp.Abs(sp.Integer(-3))) in ([x - 1, y], [y, x - 1])
    [m] = switch_arguments(tc.expr.FUNCTIONS["abs"](X - sp.Identity(2)))
    assert m.shape == (2, 2)
    assert switch_arguments(sp.sin(x) + sp.Trace(X)) == []


def test_the_stage_adds_nothing_without_an_abs_or_with_callable_sides():
    c = tc.identity("t.noabs", "x*(x - 1)", "x**2 - x", register=False)
    num = run_numeric(c.statement, seed=0)
    assert switch_stage(c.statement, num, seed=0) is num
    f = tc.identity("t.callable", lambda i, ctx: abs(i.X - 1), "abs(1 - X)", shapes={"X": ("n", "n")},
                    register=False)
    num = run_numeric(f.statement, seed=0)
    assert switch_stage(f.statement, num, seed=0) is num


def test_the_counterexample_is_beside_the_crossing():
    """The band (1, 1.001): the failing instance's x lies inside it, named to 12 digits in the evidence."""
    r = tc.run_claim(_claim(0, *FALSE[2]), seed=0)
    x = r.printed.numeric.counterexample.values["x"]
    assert 1 < x < 1.001 and np.isfinite(x), r.evidence


@pytest.mark.parametrize("lhs, rhs, assume", [
    ("x", "x + relu(x - 1)*relu(1.000001 - x)", {}),                       # a gap of 1e-13 in a band 1e-6 wide
    ("max(x, y)", "max(x, y) + relu(x - 1)*relu(1.000001 - x)", {}),
    ("max(log(x), -40)", "log(x)", {"x": "positive"}),                   # false below x = e^-40 = 4e-18
    ("min(log(x), 40)", "log(x)", {"x": "positive"}),                    # false above x = e^40 = 2e17
    ("max(log(x), -60)", "log(x)", {"x": "positive"}),                   # false below x = e^-60 = 9e-27
])
def test_gaps_below_float64_and_thresholds_far_out_are_refuted(lhs, rhs, assume):
    """helper-65: VERIFIED at seed 0.  Beside a crossing every instance of small inputs now goes to mp50 (a gap
    float64 cannot resolve stalls there), and the rays reach 1e-100..1e100 (they stopped at 1e-12..1e12)."""
    r = tc.run_claim(tc.identity("t.sw", lhs, rhs, structure=assume, register=False), seed=0)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence


@pytest.mark.parametrize("lhs, rhs, assume", [
    ("max(log(x), -40)", "log(x) + relu(-40 - log(x))", {"x": "positive"}),
    ("relu(tanh(x/100) - 0.5) + min(tanh(x/100), 0.5)", "tanh(x/100)", {}),
    ("relu(x - 1e-9) - relu(1e-9 - x)", "x - 1e-9", {}),
])
def test_true_piecewise_statements_beside_far_thresholds_hold(lhs, rhs, assume):
    """The negative side of the change above: the same rays and mp50 instances leave these true ones alone."""
    r = tc.run_claim(tc.identity("t.sw", lhs, rhs, structure=assume, register=False), seed=0)
    assert r.verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED), r.evidence
