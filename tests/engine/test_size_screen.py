"""Every size of a large space, screened at float64 (theorem_check.engine.size_screen, design decision 214)."""

from __future__ import annotations

import pytest

import theorem_check as tc
from theorem_check.engine import size_screen
from theorem_check.engine.numeric import run_numeric

_ONLY_17 = "x*" + "*".join(f"(n - {k})" for k in range(1, 21) if k != 17) + " + x"


def _claim(lhs, rhs, **kw):
    return tc.identity("test.screen", lhs, rhs, register=False, derive=False, **kw)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_false_only_in_the_middle_of_a_wide_range(seed):
    """helper-70: false at n = 17 only, with --size n=1:20: the plan ran four configurations and the top (n = 20),
    and the statement was VERIFIED at every seed."""
    r = tc.run_claim(_claim(_ONLY_17, "x", sizes={"n": (1, 20)}), seed=seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "'n': 17" in r.evidence


@pytest.mark.parametrize("seed", [0, 1])
def test_false_at_one_configuration_of_three_default_letters(seed):
    """Three size letters in 1..4: 64 configurations, four planned; false at m = 2, k = 4, n = 3 only."""
    bump = "(m - 1)*(m - 3)*(m - 4)*(k - 1)*(k - 2)*(k - 3)*(n - 1)*(n - 2)*(n - 4)"
    r = tc.run_claim(_claim(f"(A*B).T*(1 + {bump})", "B.T*A.T", shapes={"A": ("m", "k"), "B": ("k", "n")}),
                     seed=seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "'k': 4, 'm': 2, 'n': 3" in r.evidence or "k=4 m=2 n=3" in r.evidence, r.evidence


@pytest.mark.parametrize("lhs, rhs, shapes, sizes", [
    ("(A*B).T", "B.T*A.T", {"A": ("m", "k"), "B": ("k", "n")}, {}),
    ("expm(A)*expm(-A)", "eye(n)", {"A": ("n", "n")}, {"n": (1, 20)}),
    (_ONLY_17.replace("(n - 16)*", "(n - 16)*(n - 17)*"), "x", {}, {"n": (1, 20)}),
])
def test_a_true_statement_gains_nothing(lhs, rhs, shapes, sizes):
    """The same code path on true statements (the negative controls' twins): the record is returned unchanged."""
    st = _claim(lhs, rhs, shapes=shapes, sizes=sizes).statement
    num = run_numeric(st, seed=0, trials=16)
    assert size_screen.size_screen(st, num, seed=0) is num


def test_large_configurations_are_not_screened(monkeypatch):
    monkeypatch.setattr(size_screen, "SCREEN_ENTRIES", 0)
    st = _claim(_ONLY_17, "x", sizes={"n": (1, 20)}).statement
    num = run_numeric(st, seed=0, trials=16)
    assert size_screen.size_screen(st, num, seed=0) is num


@pytest.mark.parametrize("seed", [0, 1])
def test_a_small_gap_at_one_size_is_refuted(seed):
    """helper-75: a relative gap of ~1e-7 at n = 17 only (below a fixed threshold of 1e-6) was VERIFIED at every seed;
    the threshold is SCREEN_FACTOR float64 floors at the configuration."""
    r = tc.run_claim(_claim("trace(A)*(1 + 1e-21*" + _ONLY_17[2:-4] + ")", "trace(A)", shapes={"A": ("n", "n")},
                            sizes={"n": (1, 20)}), seed=seed)
    assert r.verdict is tc.Verdict.REFUTED and "'n': 17" in r.evidence, r.evidence
