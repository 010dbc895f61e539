"""A grey instance gets one level more, mp100 (design decision 120; theorem_check.engine.numeric._escalate)."""

import pytest

import theorem_check as tc

SQ = {"X": ("n", "n"), "A": ("n", "n")}


def _run(lhs, rhs, seed=0):
    claim = tc.identity("test.escalate", lhs, rhs, shapes=SQ, register=False)
    return tc.run_claim(claim, seed=seed)


@pytest.mark.parametrize("lhs, rhs", [
    ("grad(trace(A*X), X)", "A.T + X/10**40"),     # invisible at float64, 10**8 above the mp50 floor
    ("A*X", "A*X + A/10**45"),
    ("X*X**-1", "eye(n) + X/10**40"),
])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_slip_below_float64_but_within_mp50_is_refuted_at_mp100(lhs, rhs, seed):
    """These were INCONCLUSIVE (float64 exact, mp50 far above its floor: neither at floor nor stalled);
    between mp50 and mp100 the residual stalls, so the slip is REFUTED, with both levels in the evidence."""
    r = _run(lhs, rhs, seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "mp100" in r.evidence, r.evidence


@pytest.mark.parametrize("lhs, rhs", [("grad(trace(A*X), X)", "A.T"), ("A*X", "A*X"), ("X*X**-1", "eye(n)")])
def test_the_same_statements_without_the_slip_hold(lhs, rhs):
    assert _run(lhs, rhs).verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED)


def test_a_slip_below_mp50_resolution_is_not_escalated():
    """A gap of 10**-60 is below what 50 digits resolve: mp50 holds, and no level is added (the resolution
    limit is documented, docs/verdicts.md)."""
    r = _run("grad(trace(A*X), X)", "A.T + X/10**60")
    assert r.verdict is tc.Verdict.VERIFIED and "mp100" not in r.evidence
