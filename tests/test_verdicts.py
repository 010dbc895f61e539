"""The refinement and z-score decision rules."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorem_check.model.verdicts import Outcome, combine_outcomes, decide_refinement, decide_zscore

F = [2.2e-16, 1e-49]


@given(c=st.floats(0.0, 1e3), size=st.integers(1, 100))
def test_true_identity_residuals_hold(c, size):
    # a true identity leaves c * eps * size at each level
    assert decide_refinement([c * F[0] * size, c * F[1] * size], [F[0] * size * 100, F[1] * size * 100]) is Outcome.HOLDS


@given(gap=st.floats(1e-30, 10.0), jitter=st.floats(0.9, 1.1))
def test_false_identity_stalls_and_fails(gap, jitter):
    assert decide_refinement([gap, gap * jitter], [F[0] * 100, F[1] * 100]) is Outcome.FAILS


def test_grey_when_neither():
    assert decide_refinement([1e-3, 1e-6], [1e-7, 1e-16]) is Outcome.GREY


def test_nan_is_grey():
    assert decide_refinement([math.nan, 1.0], F) is Outcome.GREY


@pytest.mark.parametrize("res,floors", [([1.0], [1.0]), ([1.0, 2.0], [1.0]), ([1.0, 1.0], [1.0, 2.0])])
def test_bad_arguments(res, floors):
    with pytest.raises(ValueError):
        decide_refinement(res, floors)


def test_zscore():
    assert decide_zscore(1.0, 1.0, 0.1) is Outcome.HOLDS
    assert decide_zscore(3.0, 1.0, 0.1) is Outcome.FAILS
    assert decide_zscore(1.7, 1.0, 0.1) is Outcome.GREY
    with pytest.raises(ValueError):
        decide_zscore(1.0, 1.0, 0.0)


def test_combine():
    assert combine_outcomes([Outcome.HOLDS, Outcome.FAILS]) is Outcome.FAILS
    assert combine_outcomes([Outcome.HOLDS, Outcome.GREY]) is Outcome.GREY
    assert combine_outcomes([Outcome.HOLDS]) is Outcome.HOLDS
    assert combine_outcomes([]) is Outcome.GREY


@given(st.floats(1e-6, 10.0), st.floats(1.0, 1e3), st.floats(0.5, 1.5))
def test_stall_after_a_coarse_level_fails(gap, coarse, jitter):
    """A coarse level with its own error (optimiser stopped early) must not hide a stall.

    prh.eq31's 'factor 2' control at seed 4 gave 1.27 -> 0.5 -> 0.5 (floors 1e-3, 1e-8, 1e-11):
    GREY, hence an INCONCLUSIVE negative control, under the first-vs-last rule alone.
    """
    floors = [1e-3, 1e-8, 1e-11]
    assert decide_refinement([gap * coarse, gap, gap * jitter], floors) is Outcome.FAILS


@given(st.floats(1e-3, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_true_three_level_sequences_are_never_failed(r0, a, b):
    """Residuals within their floors at the last level are never FAILS, whatever the middle does."""
    floors = [1e-3, 1e-8, 1e-11]
    assert decide_refinement([r0, a * 1e-8 * 10, b * 1e-11], floors) is Outcome.HOLDS


# ---------------------------------------------------------------------------------------
# Refinement that must converge (issue 18, item 4)
# ---------------------------------------------------------------------------------------
def _old_rule_holds(res, floors):
    """The rule before issue 18: HOLDS by rate from the first level, with r_last <= sqrt(f_last)."""
    rho = floors[0] / floors[-1]
    return res[-1] <= floors[-1] or (res[-1] <= res[0] / math.sqrt(rho) and res[-1] <= math.sqrt(floors[-1]))


@pytest.mark.parametrize("floors,expected", [
    ([5e-4, 1e-7, 8.5e-13], Outcome.GREY),      # stalled far above the finer floor, not above the whole scale
    ([8.5e-5, 8.5e-9, 8.5e-13], Outcome.FAILS),  # ... and above f_last sqrt(rho) = 8.5e-9: far above the floors
])
def test_a_stall_far_above_the_finest_floor_is_not_holds(floors, expected):
    res = [3.4e-4, 1.1e-8, 1.0e-8]
    assert _old_rule_holds(res, floors)            # the case: it used to be VERIFIED
    assert decide_refinement(res, floors) is expected


@pytest.mark.parametrize("first,floors,expected", [
    (3e-2, [1e-3, 1e-8, 1e-11], Outcome.FAILS),   # 9.9e-7 > f_last sqrt(rho) = 1e-7: far above every floor
    (3e-1, [1e-1, 1e-8, 1e-11], Outcome.GREY),    # f_last sqrt(rho) = 1e-6: far above the finer floor only
])
def test_a_rise_far_above_the_finer_floor_is_not_holds(first, floors, expected):
    res = [first, 8.8e-8, 9.9e-7]
    assert _old_rule_holds(res, floors)
    assert decide_refinement(res, floors) is expected


@given(r0=st.floats(1e-6, 1.0), c=st.floats(0.0, 1.0), f_prev=st.floats(1e-9, 1e-4), ratio=st.floats(4.0, 1e6))
def test_holds_only_near_the_finest_floor(r0, c, f_prev, ratio):
    """Unless the last step fell at rate, HOLDS needs r_last <= f_last sqrt(f_prev / f_last), whatever
    the earlier levels did."""
    floors = [f_prev * 1e3, f_prev, f_prev / ratio]
    near = floors[-1] * math.sqrt(ratio)
    r_last = near * (1 + c) * 1.0000001
    r_prev = min(r0 * 1e-3, r_last * math.sqrt(ratio) * 0.999)   # the last step fell short of sqrt(rho_L)
    assert decide_refinement([r0, r_prev, r_last], floors) is not Outcome.HOLDS


@given(u=st.floats(0.0, 1.0), f_last=st.floats(1e-30, 1e-6), step=st.floats(4.0, 1e4))
def test_a_residual_that_falls_at_rate_on_every_step_holds(u, f_last, step):
    """Three levels or more: a residual that fell at the predicted rate on every step (a truncation error
    k times the floor's, k <= sqrt(rho) = step) holds although it ends above sqrt(f_prev f_last)."""
    k = 1.0 + u * (step - 1.0) * 0.999
    floors = [f_last * step ** 2, f_last * step, f_last]
    assert decide_refinement([k * f for f in floors], floors) is Outcome.HOLDS


@given(k=st.floats(1.0, 99.0), gap=st.floats(2.0, 1e6))
def test_a_gap_above_the_whole_refinements_floor_never_holds(k, gap):
    """The same falling error on top of an exact gap above f_last sqrt(rho): never HOLDS."""
    floors = [1e-4, 1e-6, 1e-8]
    g = gap * floors[-1] * math.sqrt(floors[0] / floors[-1])
    assert decide_refinement([k * f + g for f in floors], floors) is not Outcome.HOLDS


def test_the_last_step_must_fall_at_rate_too():
    floors = [1e-4, 1e-6, 1e-8]
    assert decide_refinement([4.9e-3, 4.9e-5, 4.9e-7], floors) is Outcome.HOLDS
    assert decide_refinement([4.9e-3, 4.9e-5, 2e-5], floors) is not Outcome.HOLDS   # stalled on the last step
    assert decide_refinement([4.9e-3, 4.5e-3, 9e-8], floors) is Outcome.HOLDS        # clause (b) as before
    assert decide_refinement([4.9e-3, 4.5e-3, 4.9e-6], floors) is not Outcome.HOLDS  # the first step stalled


@given(f_last=st.floats(1e-40, 1e-3), ratio=st.floats(4.0, 1e20), u=st.floats(0.0, 1.0))
def test_two_levels_hold_and_fail_at_the_same_threshold(f_last, ratio, u):
    """With two levels rho_L = rho: a stall at or below f_last sqrt(rho) from a falling start holds; above it fails."""
    floors = [f_last * ratio, f_last]
    thr = f_last * math.sqrt(ratio)
    assert decide_refinement([thr * math.sqrt(ratio) * 2, thr * u], floors) is Outcome.HOLDS
    assert decide_refinement([thr * 2 * (1 + u), thr * 2 * (1 + u)], floors) is Outcome.FAILS


@given(c=st.floats(0.0, 1.0), r0=st.floats(1e-3, 1.0))
def test_true_residuals_within_a_misestimated_floor_still_hold(c, r0):
    """A true statement whose floors are optimistic by up to sqrt(rho_L) still holds (the rule's tolerance)."""
    floors = [1e-3, 1e-8, 1e-11]
    r_last = 1e-11 * (1 + c * (math.sqrt(1e3) - 1))
    assert decide_refinement([max(r0, 1e-3), 3e-8, r_last], floors) is Outcome.HOLDS
