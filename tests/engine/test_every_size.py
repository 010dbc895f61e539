"""A statement false at one size of a small space is refuted at every seed (design decision 121;
DimSpace.plan, numeric.run_numeric).  Before, identities ran min(trials, 4) configurations, so
`sum(A)*(n-1)*(n-2)*(n-3)*(n-4) + sum(A) = sum(A)` with n in 1..5 was VERIFIED at seeds 0 and 2."""

import pytest

import theorem_check as tc


@pytest.mark.parametrize("seed", range(6))
def test_false_only_at_the_largest_size(seed):
    claim = tc.identity("test.every_size", "sum(A)*(n-1)*(n-2)*(n-3)*(n-4) + sum(A)", "sum(A)",
                        shapes={"A": ("n", "n")}, sizes={"n": (1, 5)}, register=False)
    r = tc.run_claim(claim, seed=seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "'n': 5" in r.evidence


@pytest.mark.parametrize("seed", range(4))
def test_false_only_at_one_pair_of_two_sizes(seed):
    """16 pairs (m, n) in 1..4 x 1..4; the statement fails only at m = 4, n = 1."""
    claim = tc.identity("test.every_pair", "sum(A)*((m-4)**2 + (n-1)**2) + sum(A)",
                        "sum(A)*(1 + (m-4)**2 + (n-1)**2)", shapes={"A": ("m", "n")},
                        sizes={"m": (1, 4), "n": (1, 4)}, register=False)
    assert tc.run_claim(claim, seed=seed).verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED)
    bad = tc.identity("test.every_pair_bad", "sum(A)*((m-4)**2 + (n-1)**2) + sum(A)",
                      "sum(A)*(1 + (m-4)**2 + (n-1)**2) + sum(A)*(m-1)*(m-2)*(m-3)*n*(n-2)*(n-3)*(n-4)",
                      shapes={"A": ("m", "n")}, sizes={"m": (1, 4), "n": (1, 4)}, register=False)
    r = tc.run_claim(bad, seed=seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
