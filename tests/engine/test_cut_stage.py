"""The branch-cut stage (theorem_check.engine.cut_stage, design decision 207): complex inputs put on the real axis."""

import pytest

import theorem_check as tc


def _run(lhs, rhs, seed=0):
    claim = tc.identity("t.cut", lhs, rhs, structure={"z": "complex"}, register=False)
    return tc.run_claim(claim, seed=seed)


@pytest.mark.parametrize("lhs, rhs", [
    ("log(conj(z))", "conj(log(z))"),        # false at every z < 0: log(-2) = 0.69 + i pi, its conjugate - i pi
    ("sqrt(conj(z))", "conj(sqrt(z))"),      # at z = -1: i against -i
    ("log(1/z)", "-log(z)"),                 # at z = -1: i pi against -i pi
])
@pytest.mark.parametrize("seed", [0, 1])
def test_identities_false_on_the_negative_real_axis_are_refuted(lhs, rhs, seed):
    """helper-65: VERIFIED at every seed (CN(0, 1) draws never meet the axis, and NumPy's signed zero puts
    conj(-2+0j) on the other side of the cut); the counterexample names the cut."""
    r = _run(lhs, rhs, seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "on the branch cut" in r.evidence


@pytest.mark.parametrize("lhs, rhs", [
    ("abs(z)**2", "z*conj(z)"),
    ("exp(conj(z))", "conj(exp(z))"),
    ("sqrt(z)**2", "z"),
    ("conj(conj(z))", "z"),
])
def test_true_identities_hold_on_the_real_axis(lhs, rhs):
    """The negative control: the same instances leave true statements alone, and say so in the evidence."""
    r = _run(lhs, rhs)
    assert r.verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED), r.evidence
    assert "on the branch cut (complex inputs on the real axis)" in r.evidence and "none fails" in r.evidence


def test_real_statements_are_left_alone():
    r = tc.run_claim(tc.identity("t.real", "log(exp(x))", "x", register=False), seed=0)
    assert "branch cut" not in r.evidence
