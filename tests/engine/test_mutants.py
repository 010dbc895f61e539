"""Side statistics (theorem_check/engine/mutants.side_stats): residuals and mutant residuals are ratios, so
they do not depend on the sides' scale; sides beyond ~1e154 or below ~1e-154 (whose squares overflow or
underflow in float64) are computed from a power-of-two rescaling (``shift``) and keep their residuals."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import theorem_check as tc
from theorem_check.engine.mutants import mutant_residual, side_stats, stats_residual


def _mp(a):
    return np.vectorize(lambda x: mpmath.mpf(float(x)) * 1, otypes=[object])(a)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(-1100, 1000), rel=st.sampled_from([0.0, 1e-9, 1e-3, 1.0]),
       precision=st.sampled_from(["float64", "mp50"]))
def test_residuals_do_not_depend_on_the_sides_scale(seed, k, rel, precision):
    """``(2**k u, 2**k v)`` has the residual and mutant residuals of ``(u, v)``, finite, for every ``k`` whose
    sides are finite and normal (float64: k >= -990; mp50: any)."""
    assume(precision == "mp50" or k >= -990)
    rng = np.random.default_rng(seed)
    u = rng.standard_normal((1, 3, 3))
    v = u * (1 + rel * rng.standard_normal((1, 3, 3)))
    ref = side_stats(u, v)[0]
    if precision == "float64":
        uk, vk = np.ldexp(u, k), np.ldexp(v, k)
    else:
        two = mpmath.mpf(2) ** k
        uk, vk = _mp(u) * two, _mp(v) * two
    got = side_stats(uk, vk)[0]
    assert math.isfinite(stats_residual(got))
    assert stats_residual(got) == pytest.approx(stats_residual(ref), rel=1e-12, abs=1e-300)
    for c in (-1.0, 2.0, 0.5, 1 + 1e-6):
        assert mutant_residual(got, c, 0.0) == pytest.approx(mutant_residual(ref, c, 0.0), rel=1e-9)
    if abs(k) <= 400:                                   # in-range sides are not rescaled (same scalars as before)
        assert got.shift == 0
    if abs(got.shift) < 1000:                          # a float64 magnitude of the sides' size maps to ~1
        assert got.scaled(math.ldexp(1.0, got.shift)) == 1.0


@pytest.mark.parametrize("statement, shapes, verdicts", [
    ("expm(X)*1e200 = expm(X.T).T*1e200", ("X=n,n",), ("VERIFIED", "PROVED")),
    ("expm(X)*1e200 = expm(X.T)*1e200", ("X=n,n",), ("REFUTED",)),          # transpose dropped
    ("expm(X)*1e-200 = expm(X)*1e-200*(1 + 1e-12)", ("X=n,n",), ("REFUTED",)),
    ("x*10**200 = x*10**200", (), ("PROVED",)),
    ("x*10**200 = 2*x*10**200", (), ("REFUTED",)),
    ("x*1e-200 = 2*x*1e-200", (), ("REFUTED",)),                             # was INCONCLUSIVE: "both vanish"
])
def test_huge_and_tiny_sides_are_decided(statement, shapes, verdicts):
    """A side of 1e200 (squares overflow float64) was INCONCLUSIVE, exit 2 ("NaN or infinite at mp50"); a
    side of 1e-200 (squares underflow) "vanished" and a factor 2 was not seen."""
    shape = {k: tuple(v.split(",")) for k, v in (s.split("=") for s in shapes)}
    claim = tc.identity("demo.huge", *statement.split(" = "), shapes=shape, register=False)
    for seed in range(3):
        assert tc.run_claim(claim, seed=seed).verdict.value in verdicts, (statement, seed)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_tiny_sides_in_single_precision_are_rescaled_exactly(dtype):
    """Sides of 1e-40 (float32 subnormal) are rescaled by 2**131, which float32 itself cannot hold (the power
    was once formed in the array's precision: inf); the factor-2 residual is still exactly 1/2."""
    u = np.full((1, 2, 2), 1e-40, dtype=dtype)
    st = side_stats(u, u * 2)[0]
    assert (st.shift < 0) is (dtype != np.float64)          # in range at float64: not rescaled
    assert stats_residual(st) == pytest.approx(0.5, rel=1e-6)


@pytest.mark.parametrize("rhs, want", [("10000000000000000", "PROVED"), ("10000000000000001", "REFUTED"),
                                       ("-10000000000000000", "REFUTED")])
def test_an_integer_side_is_a_number_of_the_context_not_an_int64(rhs, want):
    """helper-38: the constant side 10**16 was an int64 array, its square wrapped to a negative sum, and every mutant
    of the true statement held (INCONCLUSIVE, "INSENSITIVE"); the wrong constants are the negative controls."""
    import theorem_check as tc

    c = tc.identity("mine.int_side", "(x + 100000000)**2 - x**2 - 200000000*x", rhs, register=False)
    res = tc.run_claim(c, seed=0, trials=4)
    assert res.verdict.value == want, res.printed.evidence
    if want == "PROVED":
        assert not any(m.survived for m in res.printed.mutants)
