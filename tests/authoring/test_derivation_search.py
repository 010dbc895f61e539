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
    return None if d is None else [(str(s.lhs), str(s.rhs), s.why) for s in d().steps]


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
        assert c.statement.derivation is None
    assert len(calls) == 2 and not any(cache.rglob("*.json"))


@pytest.mark.parametrize("off", ["0", "off"])
def test_switched_off_the_search_runs_every_time(cache, monkeypatch, off):
    monkeypatch.setenv("THEOREM_CHECK_CACHE", off)
    calls = _counting(monkeypatch)
    for _ in range(2):
        tc.identity("t.cache_off", "(A*B).T", "B.T*A.T", shapes=SQ, register=False)
    assert len(calls) == 2 and not any(cache.rglob("*.json"))
