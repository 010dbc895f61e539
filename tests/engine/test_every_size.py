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


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
@pytest.mark.parametrize("lhs, rhs, shapes", [
    ("trace(A)", "trace(A) + (k-1)*(k-2)*(k-3)*(k-4)*(k-7)", {"A": ("k", "k")}),
    ("(k-1)*(k-2)*(k-3)*(k-4)*(k-5)*(k-6)*(k-7) + x", "x", {}),
    # helper-52: the same polynomial times something else than the size (VERIFIED at seed 5 before)
    ("trace(A) + trace(A)*(k-1)*(k-2)*(k-3)*(k-4)*(k-7)", "trace(A)", {"A": ("k", "k")}),
    ("A + A*(k-1)*(k-2)*(k-3)*(k-4)*(k-7)", "A", {"A": ("k", "k")}),
    ("trace(eye(k)) + (k-1)*(k-2)*(k-3)*(k-4)*(k-7)", "k", {}),   # Trace(Identity(k)) evaluated at each size
    # helper-54: a 1 x 1 side against a scalar, first nonzero at k = 9 (VERIFIED at seeds 0-2 before)
    ("ones(k,1).T*ones(k,1)", "k + (k-1)*(k-2)*(k-3)*(k-4)*(k-5)*(k-6)*(k-7)*(k-8)", {}),
])
def test_a_difference_of_the_sizes_alone_is_evaluated_where_it_is_nonzero(seed, lhs, rhs, shapes):
    """helper-51: sizes 1..4 and one beyond per seed (6, 5 or 7) left a polynomial in k with those roots VERIFIED at
    some seeds; where the sides' difference depends on the size alone, the far stage evaluates the first size past the
    default range at which it is nonzero, at every seed.  The true twin stays true (below)."""
    claim = tc.identity("test.size_witness", lhs, rhs, shapes=shapes, register=False)
    r = tc.run_claim(claim, seed=seed)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence


def test_no_witness_for_a_true_statement_in_the_sizes():
    from theorem_check.authoring.spec import build_spec, size_witness

    sides = ("trace(eye(k))", "k")
    spec = build_spec(sides, {}, {}, {}, "test")
    assert size_witness(sides, spec, tc.DimSpace({"k": (1, 4)})) is None
    claim = tc.identity("test.size_witness_true", *sides, register=False)
    assert tc.run_claim(claim, seed=0).verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED)


def test_a_one_by_one_identity_in_a_size_letter_is_proved_for_all_sizes():
    """helper-54: ``ones(n,1).T*ones(n,1) = n`` was PROVED with the evidence "the statement's only sizes" (the explicit
    entries' scope) though the default range means every size; it is SymPy's proof at all sizes."""
    r = tc.run_claim(tc.identity("test.ones", "ones(n,1).T*ones(n,1)", "n", register=False), seed=0)
    assert r.verdict is tc.Verdict.PROVED and "(all sizes)" in r.evidence, r.evidence

