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
