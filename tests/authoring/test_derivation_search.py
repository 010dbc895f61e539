"""The short forms' derivation search and its disk cache (authoring/derivation_search.py)."""

from __future__ import annotations

import pytest

import theorem_check as tc
from theorem_check.authoring import derivation_search as ds
from theorem_check.engine.time_limit import StepTimeout

SQ = {"A": ("n", "n"), "B": ("n", "n")}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("THEOREM_CHECK_CACHE", raising=False)
    return tmp_path


def _counting(monkeypatch):
    calls = []
    real = ds.search
    monkeypatch.setattr(ds, "search", lambda *a: calls.append(1) or real(*a))
    return calls


def _steps(claim):
    d = claim.statement.derivation
    found = None if d is None else d()      # (the search runs when the callable is called)
    return None if found is None else [(str(s.lhs), str(s.rhs), s.why) for s in found.steps]


@pytest.mark.parametrize("lhs, rhs, shapes, structure", [
    ("(A*B).T", "B.T*A.T", SQ, None),                                          # closed by the normal form
    ("grad(trace(x.T*K*x), x)", "zeros(n,1)", {"x": ("n", 1), "K": ("n", "n")}, {"K": "antisymmetric"}),
    ("(A*B).T", "A.T*B.T", SQ, None),                                          # false: searched, no derivation
])
def test_a_second_definition_reads_the_search_from_disk(cache, monkeypatch, lhs, rhs, shapes, structure):
    """The search is a pure function of the sides and structures: the second definition of the same statement
    reads it (no search) and gets the same derivation, or the same absence of one."""
    calls = _counting(monkeypatch)
    kw = dict(shapes=shapes, register=False, **({"structure": structure} if structure else {}))
    first = _steps(tc.identity("t.cache", lhs, rhs, **kw))
    searched = len(calls)
    second = _steps(tc.identity("t.cache", lhs, rhs, **kw))
    assert second == first and len(calls) == searched
    assert any(cache.rglob("*.json")) == bool(searched)


def test_a_timeout_is_never_cached(cache, monkeypatch):
    """A search that reaches its time limit depends on the machine's speed: no derivation, nothing stored, and the
    next definition searches again."""
    calls = []

    def slow(*a):
        calls.append(1)
        raise StepTimeout()
    monkeypatch.setattr(ds, "search", slow)
    for _ in range(2):
        c = tc.identity("t.cache_timeout", "(A*B).T", "B.T*A.T", shapes=SQ, register=False)
        assert c.statement.derivation() is None     # (the search runs when the statement does: stop 38)
    assert len(calls) == 2 and not any(cache.rglob("*.json"))


@pytest.mark.parametrize("off", ["0", "off"])
def test_switched_off_the_search_runs_every_time(cache, monkeypatch, off):
    monkeypatch.setenv("THEOREM_CHECK_CACHE", off)
    calls = _counting(monkeypatch)
    for _ in range(2):
        tc.identity("t.cache_off", "(A*B).T", "B.T*A.T", shapes=SQ, register=False).statement.derivation()
    assert len(calls) == 2 and not any(cache.rglob("*.json"))


def test_large_fixed_sizes_are_searched_as_size_letters():
    """helper-36: at --shape X=128,128 the search checked its closed-form gradient entrywise at 128 x 128 (15 s) and
    found no proof; a fixed size above 4 is now a size letter for the search (a proof at every size is one at 128),
    unless the statement uses that size as a number (then nothing is renamed)."""
    import sympy as sp

    from theorem_check import expr as ex

    sh = {"A": (128, 128), "X": (128, 128), "x": (128, 1), "C": (3, 3)}
    l, r = ds.letters_for_large_sizes(ex.parse("grad(trace(A*X), X)", sh), ex.parse("A.T + ones(128, 128) + eye(128)", sh))
    n = sp.Symbol("n128", integer=True, positive=True)
    assert {m.shape for m in l.atoms(sp.MatrixSymbol)} == {(n, n)} \
        and r.atoms(sp.Identity) == {sp.Identity(n)} and r.atoms(sp.OneMatrix) == {sp.OneMatrix(n, n)}
    kept = ex.parse("trace(eye(128))", sh), sp.Integer(128)
    assert ds.letters_for_large_sizes(*kept) == kept
    small = ex.parse("C*C", sh), ex.parse("C**2", sh)
    assert ds.letters_for_large_sizes(*small) == small
    claim = tc.identity("t.big", "grad(trace(A*X), X)", "A.T", shapes={"A": (128, 128), "X": (128, 128)},
                        register=False)
    assert _steps(claim) is not None       # proved (before: no derivation)


@pytest.mark.parametrize("lhs, rhs, verdicts", [
    ("cos(x)**2 + sin(x)**2", "1 - 10**-52", ("INCONCLUSIVE", "REFUTED")),   # a gap below mp50: no longer VERIFIED
    ("exp(x)*exp(-x)*cos(x)**2 + sin(x)**2", "1 + 10**-60", ("INCONCLUSIVE", "REFUTED")),
    ("cos(x)**2 + sin(x)**2", "1", ("PROVED",)),                            # the true one is still proved
])
def test_a_constant_gap_below_every_level_is_not_verified(lhs, rhs, verdicts):
    """helper-36: ``sigmoid(x) + sigmoid(-x) = 1 + 10**-55``-like statements were VERIFIED (a gap below mp50's
    resolution).  Where SymPy simplifies lhs - rhs to a nonzero number, the step is attached anyway: it does not
    close, and the statement is INCONCLUSIVE (or REFUTED by an exact counterexample), never VERIFIED."""
    claim = tc.identity("t.gap", lhs, rhs, register=False)
    assert tc.run_claim(claim, seed=0, trials=4).verdict.value in verdicts


CAYLEY_HAMILTON = "A*A - trace(A)*A + det(A)*eye(n)"


@pytest.mark.parametrize("lhs, sizes, want", [
    (CAYLEY_HAMILTON, {"n": (2, 2)}, "PROVED"),                  # pinned: decided on explicit 2 x 2 entries
    ("A*A - trace(A)*A + 2*det(A)*eye(n)", {"n": (2, 2)}, "REFUTED"),   # the factor-2 slip at the same size
    (CAYLEY_HAMILTON, {"n": (1, 4)}, "REFUTED"),                  # the same text over 1..4: false at n = 3; the
])                                                                #   pinned proof is not reused (its cache key)
def test_a_statement_at_pinned_sizes_is_decided_on_explicit_entries(lhs, sizes, want):
    """helper-38: ``--shape A=2,2`` was PROVED and ``--shape A=n,n --size n=2:2`` INCONCLUSIVE (vacuous)."""
    c = tc.identity("mine.pinned", lhs, "zeros(n, n)", shapes={"A": ("n", "n")}, sizes=sizes, register=False)
    res = tc.run_claim(c, seed=0, trials=4)
    assert res.verdict.value == want, res.printed.evidence
    if want == "PROVED":
        assert "the statement's only sizes" in res.printed.evidence


def test_pinned_sizes_are_every_letter_at_one_small_value():
    spec = lambda r: type("S", (), {"ranges": r})()
    assert ds.pinned_sizes(spec({"n": (2, 2), "m": (3, 3)})) == {"m": 3, "n": 2}
    assert ds.pinned_sizes(spec({"n": (2, 2), "m": (1, 3)})) == {}
    assert ds.pinned_sizes(spec({"n": (6, 6)})) == {}
    assert ds.pinned_sizes(spec({})) == {}


@pytest.mark.parametrize("lhs, rhs, shapes, sizes, want, steps", [
    ("det(u*v.T)", "0", ("u", "v"), {"n": (2, 4)}, "PROVED", 3),        # vacuous numerically: INCONCLUSIVE before
    ("det(u*v.T + w*z.T)", "0", ("u", "v", "w", "z"), {"n": (3, 4)}, "PROVED", 2),
    ("det(u*v.T)", "0", ("u", "v"), {"n": (1, 4)}, "REFUTED", 0),       # false at n = 1: no proof, a counterexample
    ("det(x*ones(n, n))", "0", (), {"n": (2, 4)}, "PROVED", 3),         # no matrix name at all (helper-53)
])
def test_a_statement_over_small_declared_ranges_is_decided_at_each_size(lhs, rhs, shapes, sizes, want, steps):
    """helper-52: ``det(u v^T) = 0`` at ``n = 2:4`` was INCONCLUSIVE (both sides vanish: the numbers cannot tell) while
    each pinned size was PROVED; declared ranges of at most 8 small configurations are decided one size at a time
    (decision 189), each step decided again by the engine."""
    c = tc.identity("mine.bounded", lhs, rhs, shapes={k: ("n", 1) for k in shapes}, sizes=sizes, register=False)
    res = tc.run_claim(c, seed=0, trials=4)
    assert res.verdict.value == want, res.printed.evidence
    if steps:
        assert f"sympy {steps}/{steps} steps (the statement's only sizes" in res.printed.evidence


def test_bounded_sizes_are_every_configuration_of_declared_small_ranges():
    spec = lambda r, defaulted=(): type("S", (), {"ranges": r, "defaulted": defaulted})()
    assert ds.bounded_sizes(spec({"n": (2, 3), "m": (1, 2)})) == [{"m": 1, "n": 2}, {"m": 1, "n": 3}, {"m": 2, "n": 2},
                                                                 {"m": 2, "n": 3}]
    assert ds.bounded_sizes(spec({"n": (2, 2)})) == [{"n": 2}]
    assert ds.bounded_sizes(spec({"n": (1, 4)}, defaulted=("n",))) == []     # the default range: all sizes meant
    assert ds.bounded_sizes(spec({"n": (1, 6)})) == []                       # beyond explicit entries' 5 x 5
    assert ds.bounded_sizes(spec({"n": (1, 4), "m": (1, 4)})) == []          # 16 configurations: too many
    assert ds.bounded_sizes(spec({})) == []
