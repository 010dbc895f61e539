"""The on-disk cache of symbolic results: same result back, keyed by inputs and code, ignored when broken."""

import dataclasses
import json

import pytest
import sympy as sp

from theorem_check.engine import symcache
from theorem_check.engine.symbolic import StepResult, check_derivation
from theorem_check.model.derivation import Derivation, Step

x, y = sp.symbols("x y", positive=True)
TRUE = Derivation([Step((x + y) ** 2, x**2 + 2 * x * y + y**2, "square"), Step(x * (x + 1), x**2 + x, "distribute")])
FALSE = Derivation([Step((x + y) ** 2, x**2 + y**2, "forgot the cross term")])


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("THEOREM_CHECK_CACHE", raising=False)
    return tmp_path


def counting_memo(calls):
    def memo(step, seed, domain, compute, **kw):
        def counted():
            calls.append(step.why)
            return compute()
        return symcache.cached_step(step, seed, domain, counted)
    return memo


def strip(r):
    return dataclasses.replace(r, seconds=0.0)


@pytest.mark.parametrize("derivation", [TRUE, FALSE], ids=["closes", "refuted"])
def test_second_check_reads_the_same_result_without_computing(cache, derivation):
    calls = []
    first = check_derivation(derivation, seed=3, memo=counting_memo(calls))
    assert calls
    n = len(calls)
    second = check_derivation(derivation, seed=3, memo=counting_memo(calls))
    assert len(calls) == n                          # nothing computed again
    assert strip(second) == strip(first) == strip(check_derivation(derivation, seed=3))
    assert second.closed is (derivation is TRUE)
    if derivation is FALSE:                          # the cached counterexample is the computed one
        assert second.refuted and second.steps[0].point == first.steps[0].point


def test_key_follows_the_inputs(cache):
    s = Step(x + x, 2 * x, "double")
    k = symcache.step_key(s, seed=0, points=6)
    assert k == symcache.step_key(Step(x + x, 2 * x, "double"), seed=0, points=6)
    assert len({k, symcache.step_key(s, seed=1, points=6), symcache.step_key(s, seed=0, points=5),
                symcache.step_key(Step(x + x, 2 * y, "double"), seed=0, points=6),
                symcache.step_key(Step(x + x, 2 * x, "twice"), seed=0, points=6)}) == 5
    assert symcache.step_key(s, seed=0, points=6, domain={x: lambda r: 1}) is None   # callables: not cached


@pytest.mark.parametrize("off", [("THEOREM_CHECK_CACHE", "0"), ("THEOREM_CHECK_CACHE", "off"),
                                 ("THEOREM_CHECK_CACHE_DIR", "off")])
def test_switched_off_nothing_is_written_or_read(cache, monkeypatch, off):
    monkeypatch.setenv(*off)
    calls = []
    check_derivation(TRUE, memo=counting_memo(calls))
    check_derivation(TRUE, memo=counting_memo(calls))
    assert len(calls) == 4 and not symcache.enabled()
    assert not any(cache.rglob("*.json"))


def test_corrupt_entries_are_ignored_and_recomputed(cache):
    calls = []
    good = check_derivation(FALSE, seed=2, memo=counting_memo(calls))
    files = list(cache.rglob("*.json"))
    assert len(files) == 1
    for text in ["{not json", json.dumps({"format": 1, "step": {"closed": "yes"}}), json.dumps([1, 2]),
                 json.dumps({"format": 1, "step": {**dataclasses.asdict(good.steps[0]), "extra": 1}})]:
        files[0].write_text(text)
        again = check_derivation(FALSE, seed=2, memo=counting_memo(calls))
        assert strip(again) == strip(good)
    assert len(calls) == 5
    files[0].write_text("x")
    assert symcache.load_symbolic("0" * 64) is None and symcache.load_step(files[0].stem) is None


def test_unwritable_cache_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(blocker))
    monkeypatch.delenv("THEOREM_CHECK_CACHE", raising=False)
    assert check_derivation(TRUE, memo=symcache.cached_step).closed


def test_steps_that_could_not_be_checked_are_not_kept(cache):
    for method in ["timeout after 20 s", "sympy error: ValueError: boom"]:
        symcache.store_step("ab" + "0" * 62, StepResult("x", "y", "w", False, method))
    assert not any(cache.rglob("*.json"))


def _factory(n):
    def derivation():
        return Derivation([Step(x ** n * x, x ** (n + 1), "power")])
    return derivation


def test_statement_key_follows_what_the_derivation_captured(cache):
    kw = dict(claim_id="demo.c1", name="as printed", kind="printed", seed=0)
    k2 = symcache.statement_key(_factory(2), **kw)
    assert k2 is not None and k2 == symcache.statement_key(_factory(2), **kw)
    assert k2 != symcache.statement_key(_factory(3), **kw)
    assert k2 != symcache.statement_key(_factory(2), **{**kw, "seed": 1})
    assert k2 != symcache.statement_key(_factory(2), **{**kw, "claim_id": "demo.c2"})

    class Holder:
        pass

    h = Holder()
    assert symcache.statement_key(lambda: h, **kw) is None          # a captured object: no stable key
    ns = {}
    exec("def d():\n    return None", {"__name__": "_theorem_check_pack_1"}, ns)
    assert symcache.statement_key(ns["d"], **kw) is None             # a pack file: its code has no fingerprint


def test_cached_symbolic_stores_pure_results_only(cache):
    key = "cd" + "1" * 62
    res = check_derivation(TRUE)
    out = symcache.cached_symbolic(key, lambda: res)
    assert out is res
    back = symcache.cached_symbolic(key, lambda: pytest.fail("computed again"))
    assert strip(back) == strip(res)
    bad = dataclasses.replace(res, steps=(StepResult("x", "y", "w", False, "timeout after 1 s"),), closed=False)
    calls = []
    symcache.cached_symbolic("ef" + "2" * 62, lambda: calls.append(1) or bad)
    symcache.cached_symbolic("ef" + "2" * 62, lambda: calls.append(1) or bad)
    assert calls == [1, 1]


def test_a_catalogue_claim_runs_to_the_same_result_from_the_cache(cache):
    from theorem_check import load_builtin, run_claim

    claim = load_builtin().get("cascade.hessian_n2")
    cold, warm = run_claim(claim, seed=0), run_claim(claim, seed=0)
    assert any(cache.rglob("*.json"))
    assert warm.verdict is cold.verdict and warm.evidence == cold.evidence
    assert strip(warm.printed.symbolic) == strip(cold.printed.symbolic)


def test_a_steps_key_names_its_structures():
    """A step proved under a declared structure (the normal form uses X^T = X) is another result than the
    same sides with none: the key differs, so the cache never hands one for the other."""
    import sympy as sp

    from theorem_check.engine import symcache
    from theorem_check.model.derivation import Step

    X = sp.MatrixSymbol("X", sp.Symbol("n"), sp.Symbol("n"))
    step = Step(X.T, X, "symmetric")
    plain = symcache.step_key(step, seed=0, points=6)
    sym = symcache.step_key(step, seed=0, points=6, structure={"X": "symmetric"})
    assert plain is not None and sym is not None and plain != sym
