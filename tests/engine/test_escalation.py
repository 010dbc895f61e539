"""A grey instance gets one level more, mp100 (design decision 120; theorem_check.engine.escalation.escalate)."""

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
    """A gap of 10**-60 is below what 50 digits resolve: mp50 holds, and no level is added to the ordinary
    instances.  On inputs of at most 64 entries the deep stage's one instance at 100 and 200 digits refutes it
    (decision 208); on larger ones the exact stage (rational arithmetic, derivatives by forward mode: design
    decision 132) does."""
    r = _run("grad(trace(A*X), X)", "A.T + X/10**60")
    assert r.verdict is tc.Verdict.REFUTED and "beyond 50 digits (mp100 -> mp200)" in r.evidence, r.evidence
    claim = tc.identity("test.escalate", "grad(trace(A*X), X)", "A.T + X/10**60", shapes=SQ, sizes={"n": (9, 9)},
                        register=False)
    r = tc.run_claim(claim, seed=0, trials=2)
    assert r.verdict is tc.Verdict.REFUTED and "mp100" not in r.evidence, r.evidence
    assert "below the numeric stages' resolution: exact counterexample" in r.evidence


V = {"x": ("n", 1), "A": ("n", "n"), "B": ("n", "n")}


@pytest.mark.parametrize("lhs, rhs, verdicts", [
    ("softmax(x + 1e60*ones(n, 1))", "softmax(x)", ("VERIFIED", "PROVED")),     # shift invariance: was REFUTED
    ("softmax(x + 1e60*ones(n, 1))", "ones(n, 1)/n", ("REFUTED",)),             # false by O(1): was VERIFIED
    ("logsumexp(x + 1e70*ones(n, 1)) - 1e70", "logsumexp(x)", ("VERIFIED", "PROVED")),
    ("logsumexp(x + 1e70*ones(n, 1)) - 1e70", "2*logsumexp(x)", ("REFUTED",)),
    ("(A + 1e60*B)*x - 1e60*B*x", "A*x", ("VERIFIED", "PROVED")),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_cancellation_beyond_50_digits_is_decided_at_mp100(lhs, rhs, verdicts, seed):
    """Constants of 1e60 absorb the other terms at float64 and mp50 alike: the two levels agreed on a wrong
    value, so a true statement was REFUTED and a false one VERIFIED (a fresh helper's report).  The
    magnitude of the computation (10**60: an exact constant beyond int64 made the magnitude rule raise, and
    the engine fell back to the inputs' magnitude) puts both sides below mp50's floor, and such an instance
    is decided at mp100, whose 100 digits resolve it (design decision 128)."""
    claim = tc.identity("test.absorb", lhs, rhs, shapes=V, register=False)
    r = tc.run_claim(claim, seed=seed, controls=False)
    assert r.verdict.value in verdicts, r.evidence


def test_an_exact_constant_beyond_int64_has_a_magnitude():
    import numpy as np

    from theorem_check import expr as ex
    from theorem_check.expr.magnitude import magnitude

    x = np.ones((1, 3, 1))
    [m] = magnitude(ex.parse("x + 1e60*ones(n, 1)", V, {"n": 3}), {"x": x}, {"n": 3})
    assert m[0] == pytest.approx(np.sqrt(3) * (1e60 + 1), rel=1e-12)


def test_a_magnitude_beyond_1e154_is_not_lost_to_overflow():
    """det(A + 1e120 I) - det(1e120 I) = det(A + 1e120 I) - 1e120**n is true; both sides cancel 240 digits, more
    than any level resolves.  The magnitude's Frobenius norm overflowed (inf, read as "no magnitude"), so the
    noise of the cancellation was a counterexample (REFUTED); now it is below every floor: not decided."""
    claim = tc.identity("test.det_shift", "det(A + 1e120*eye(n)) - det(1e120*eye(n))",
                        "det(A + 1e120*eye(n)) - 1e120**n", shapes=V, register=False)
    assert tc.run_claim(claim, seed=0, controls=False).verdict is not tc.Verdict.REFUTED


def test_exactly_zero_sides_stay_vacuous_at_mp100():
    """At n = 1 an antisymmetric X is 0: both sides are exactly 0 at mp50 and the computation's magnitude is 0.
    mp100's derivative oracle rounds at its stencil (5.6e-170) and, with a floor taken from the magnitude at
    X = 0 alone, read that as a relative gap of 1: this true statement was REFUTED (found by the metamorphic
    tests).  Decision 135 skipped the escalation; decision 138 gives the oracle's floor the stencil's reach, so
    mp100 sees the instance vacuous as mp50 does."""
    r = tc.run_claim(tc.identity("demo.zero_sides", "grad(trace(X*X) + 3*trace(X*X*X), X)",
                                 "X.T + X.T + 3*((X*X).T + (X*X).T + (X*X).T)", shapes={"X": ("n", "n")},
                                 structure={"X": "antisymmetric"}, sizes={"n": (1, 3)}, register=False),
                     seed=0, trials=4)
    assert r.verdict in (tc.Verdict.VERIFIED, tc.Verdict.PROVED), r.evidence


@pytest.mark.parametrize("extra, want", [("", "holds"), (" + X/10**30", "REFUTED"), (" + 2*X.T*X", "REFUTED")])
def test_the_oracle_floor_counts_the_stencil_not_only_the_point(extra, want):
    """Decision 138.  At n = 1 (antisymmetric X = 0) mp50's difference quotient (1 x 1 powers have no forward
    rule) returned -7.8e-110 for an exact 0: f = 2 tr(X^2) + tr(X^3) vanishes at X to second order, so its
    magnitude at X is 0 and the oracle's floor was 0, while the stencil's values are O(h^2).  The floor now
    takes f's magnitude as far out as the stencil reaches: the n = 1 instance is vacuous, the statement holds
    (it was REFUTED, found by the metamorphic tests), and slightly wrong right sides are still REFUTED."""
    rhs = "2*(X.T + X.T) + (X*X).T + (X*X).T + (X*X).T" + extra
    r = tc.run_claim(tc.identity("demo.stencil_floor", "grad(2*trace(X*X) + trace(X*X*X), X)", rhs,
                                 shapes={"X": ("n", "n")}, structure={"X": "antisymmetric"}, sizes={"n": (1, 3)},
                                 register=False, derive=False), seed=0, trials=4)
    if want == "holds":
        assert r.verdict in (tc.Verdict.VERIFIED, tc.Verdict.PROVED), r.evidence
    else:
        assert r.verdict is tc.Verdict.REFUTED, r.evidence


def test_oracle_step_is_the_steppers():
    """The step the magnitude inflates by is the one the quotient takes (float levels: a power of two)."""
    import numpy as np

    from theorem_check.numerics.derivatives import oracle_step
    from theorem_check.numerics.precision import CONTEXTS

    h = oracle_step(CONTEXTS["float64"], 1, np.array([0.5, 3.0]))
    assert np.all(np.log2(h) == np.round(np.log2(h))) and h[1] > h[0]
    assert float(oracle_step(CONTEXTS["mp50"], 1, np.array([1.0]))[0]) < 1e-15


@pytest.mark.parametrize("lhs, rhs, structure", [
    ("grad(trace(logm(X)), X)", "X**-1", "spd"),
    ("grad(trace(sqrtm(X)), X)", "sqrtm(X)**-1/2", "spd"),
    ("grad(trace(expm(X)), X)", "expm(X).T", None),
    ("grad(trace(expm(X)), X)", "expm(X)", "symmetric"),
])
@pytest.mark.parametrize("extra", ["", " + X/10**40", " + eye(n)/10**38"])
def test_a_gap_between_the_mp50_floor_and_the_half_rate_allowance_goes_to_mp100(lhs, rhs, structure, extra):
    """Decision 139 (an outside probe): the float64 -> mp50 rule lets a residual fall at half the predicted rate
    (HOLDS up to sqrt(f64 f50), ~5e-31), so a gap of 1e-40 that mp50 measures (float64 1e-12 -> mp50 4.7e-40)
    was VERIFIED for these gradients of matrix functions.  An mp50 residual above mp50's floor now holds only if
    mp100 sees it fall: the perturbed statements are REFUTED (mp50 and mp100 both 1e-40), the true ones hold."""
    claim = tc.identity("demo.half_rate", lhs, rhs + extra, shapes={"X": ("n", "n")},
                        structure={"X": structure} if structure else None, sizes={"n": (1, 3)}, register=False,
                        derive=False)
    r = tc.run_claim(claim, seed=0, trials=8)
    if extra:
        assert r.verdict is tc.Verdict.REFUTED, r.evidence
    else:
        assert r.verdict in (tc.Verdict.VERIFIED, tc.Verdict.PROVED), r.evidence


@pytest.mark.parametrize("extra, want", [("", "not refuted"), ("*(1 + 1/10**30)", "REFUTED")])
def test_a_residual_that_rises_to_mp50_is_confirmed_at_mp100(extra, want):
    """Decision 140 (an outside probe): the push-through identity X (X^T X + c I)^-1 = (X X^T + c I)^-1 X with
    c = 1e-40 and k < n is true, but X X^T + c I has condition ~1e40: float64 left 1e-33, mp50 2e-14 (50 digits
    minus 40), a residual that *rose* and so read as a stall: REFUTED at every seed.  A residual more than twice
    float64's at mp50 is decided again at mp100, where the true statement falls (3e-62: not at the floor either,
    INCONCLUSIVE) and a false one's gap stays."""
    claim = tc.identity("demo.push_through", "X*(X.T*X + eye(k)/10**40)**-1", "(X*X.T + eye(n)/10**40)**-1*X" + extra,
                        shapes={"X": ("n", "k")}, register=False, derive=False)
    r = tc.run_claim(claim, seed=0, trials=8)
    if want == "REFUTED":
        assert r.verdict is tc.Verdict.REFUTED, r.evidence
    else:
        assert r.verdict is not tc.Verdict.REFUTED, r.evidence


def test_a_stall_is_the_same_gap_at_both_levels():
    """Design decision 215: two levels whose relative residuals both stall near 1 but whose differences are 2**1405
    and 2**3202 computed garbage, not a gap of the mathematics."""
    from theorem_check.engine.escalation import same_gap
    from theorem_check.engine.mutants import SideStats

    a = SideStats(L=0.0, R=0.303, D=0.303, X=0.0, Sd=0.0, Re=0.0, shift=1406)
    b = SideStats(L=0.289, R=0.0, D=0.289, X=0.0, Sd=0.0, Re=0.0, shift=3203)
    assert not same_gap(a, b)
    assert same_gap(a, SideStats(L=1.0, R=1.2, D=0.31, X=0.0, Sd=0.0, Re=0.0, shift=1406))   # within a factor 2
    assert same_gap(SideStats(1.0, 1.0, 0.0, 0.0, 0.0, 0.0), SideStats(1.0, 1.0, 0.0, 0.0, 0.0, 0.0))
    assert not same_gap(SideStats(1.0, 1.0, 0.0, 0.0, 0.0, 0.0), SideStats(1.0, 1.0, 1e-3, 0.0, 0.0, 0.0))


def test_an_infinite_magnitude_is_not_a_residual_of_zero():
    """helper-75: ``log(sigmoid(x - 800)) = 5*x`` (false by a factor; float64 underflows) reported "mp50 0.0e+00":
    the residual was divided by a magnitude that overflowed float64.  The instance stays undecided (undefined at
    float64), and the residual reported is the sides' own."""
    r = tc.run_claim(tc.identity("test.logsig", "log(sigmoid(x - 800))", "5*x", register=False, derive=False), seed=0)
    assert "mp50 1.0e+00" in r.evidence, r.evidence
