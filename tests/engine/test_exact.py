"""Exact counterexamples (theorem_check/engine/exact.py): rational sides only, exact nonzero difference,
structures built exactly, undefined points skipped; end to end in the evidence and the JSON record."""

from __future__ import annotations

import json

import pytest
import sympy as sp

import theorem_check as tc
from theorem_check import expr as ex
from theorem_check.engine.exact import exact_counterexample, is_rational, structured_matrix
from theorem_check.output.json_record import schema, statement_record

SQ = {"A": ("n", "n"), "B": ("n", "n")}


def side(text, shapes):
    return lambda inst: ex.parse(text, shapes, inst["_dims"], what="side")


@pytest.mark.parametrize("text, rational", [
    ("(A*B)**-1 + A.T", True), ("trace(A)*det(B)*A", True), ("kron(A, B)", True), ("A/2 + 3*B", True),
    ("expm(A)", False), ("hadamard(A, B)", True), ("sqrt(trace(A*A.T))*A", False),
    ("exp(A)", False),
])
def test_rational_sides(text, rational):
    assert is_rational(ex.parse(text, SQ, {"n": 2}, what="side")) is rational


def test_false_statement_gets_an_exact_nonzero_difference():
    cx = exact_counterexample(side("(A*B)**-1", SQ), side("A**-1*B**-1", SQ), {"n": 2})
    assert cx is not None and cx.difference != "[[0, 0], [0, 0]]"
    vals = {k: sp.Matrix(sp.sympify(v)) for k, v in cx.values}
    a, b = vals["A"], vals["B"]
    assert (a * b).inv() - a.inv() * b.inv() == sp.Matrix(sp.sympify(cx.difference))   # recomputed independently
    assert cx.text.startswith("exact counterexample at n=2: A = [[")


def test_true_statement_has_none():
    assert exact_counterexample(side("(A*B)**-1", SQ), side("B**-1*A**-1", SQ), {"n": 3}) is None


def test_transcendental_sides_have_none():
    assert exact_counterexample(side("expm(A)", SQ), side("A", SQ), {"n": 2}) is None


@pytest.mark.parametrize("kind, check", [
    ("symmetric", lambda m: m == m.T), ("spd", lambda m: m == m.T and all(m[:k, :k].det() > 0 for k in range(1, m.rows + 1))),  # Sylvester
    ("antisymmetric", lambda m: m == -m.T), ("orthogonal", lambda m: m.T * m == sp.eye(m.rows)),
    ("diagonal", lambda m: m.is_diagonal()),
])
def test_structures_are_exact(kind, check):
    import random

    rnd = random.Random(1)
    for _ in range(5):
        assert check(structured_matrix(rnd, 3, 3, kind))


def test_orthogonal_counterexample_is_orthogonal_and_in_the_evidence():
    claim = tc.identity("exact.orth", "Q**-1", "Q", shapes={"Q": ("n", "n")}, structure={"Q": "orthogonal"},
                        sizes={"n": (2, 3)}, register=False)
    res = tc.run_claim(claim, seed=0, trials=4)
    st = res.printed
    assert st.verdict.value == "REFUTED" and st.exact is not None and "exact counterexample" in st.evidence
    q = sp.Matrix(sp.sympify(dict(st.exact.values)["Q"]))
    assert q.T * q == sp.eye(q.rows)
    rec = statement_record(st)
    assert rec["exact_counterexample"]["values"]["Q"] == dict(st.exact.values)["Q"]
    import jsonschema

    jsonschema.validate(json.loads(json.dumps(rec)), {"$defs": schema()["$defs"], "$ref": "#/$defs/statement"})


def test_floating_evidence_keeps_its_wording():
    claim = tc.identity("exact.expm", "expm(A)", "eye(n) + A", shapes={"A": ("n", "n")}, sizes={"n": (1, 2)},
                        register=False)
    st = tc.run_claim(claim, seed=0, trials=4).printed
    assert st.verdict.value == "REFUTED" and st.exact is None and "exact" not in st.evidence


def test_long_exact_values_are_cut_in_text_and_whole_in_the_record():
    """A 32 x 32 rational difference printed whole was 1,610 terminal lines (found by a new user)."""
    from theorem_check.engine.exact import TEXT_CAP, ExactCounterexample

    big = "[" + ", ".join(["12345678901234567890/3"] * 200) + "]"
    cx = ExactCounterexample({"n": 32}, (("A", big), ("b", "2")), big)
    assert len(cx.text) < 3 * TEXT_CAP + 200 and "b = 2" in cx.text and "--json" in cx.text
    assert cx.values[0][1] == big and cx.difference == big          # the record keeps them whole
    small = ExactCounterexample({"n": 2}, (("A", "[[1, 0], [0, 1]]"),), "[[1, 0], [0, 0]]")
    assert small.text == "exact counterexample at n=2: A = [[1, 0], [0, 1]]: lhs - rhs = [[1, 0], [0, 0]]"


@pytest.mark.parametrize("lhs, rhs, shapes, verdict", [
    ("x + 1e-60", "x", {}, "REFUTED"),                         # below mp50's resolution: was VERIFIED
    ("(1 + 1e-60)*A", "A", {"A": ("n", "n")}, "REFUTED"),
    ("trace(A*B)", "trace(B*A)*(1 + 1e-70)", SQ, "REFUTED"),
    ("A + 1e-60*B - 1e-60*B", "A", SQ, "PROVED"),              # a true one keeps its verdict
    ("exp(1e-60*x)", "1", {}, "VERIFIED"),                       # transcendental: no exact stage (the deep one refutes it)
])
def test_a_gap_below_every_numeric_level_is_refuted_by_exact_arithmetic(lhs, rhs, shapes, verdict, monkeypatch):
    """A VERIFIED identity with rational sides is evaluated exactly at the generic sizes: a nonzero rational
    difference (10**-60: no level of the numeric stage resolves it) REFUTES it, with the exact point.  The deep
    stage (mp100 -> mp200 on inputs of at most 64 entries, decision 208) is switched off here, as it is for larger
    inputs: it would refute these first (tests/engine/test_deep_stage.py)."""
    from theorem_check.engine import deep_stage

    monkeypatch.setattr(deep_stage, "DEEP_ENTRIES", 0)
    c = tc.identity("demo.exact_gap", lhs, rhs, shapes=shapes, register=False)
    r = tc.run_claim(c, seed=0, controls=False)
    assert r.verdict.value == verdict, r.evidence
    if verdict == "REFUTED":   # (a scalar gap SymPy sees is a failing symbolic step too since stop 38: decision 158)
        assert ("below the numeric stages' resolution: exact counterexample" in r.evidence
                or "exact arithmetic shows the sides differ: exact counterexample" in r.evidence), r.evidence
        assert r.printed.exact is not None


@pytest.mark.parametrize("lhs, rhs, verdict", [
    ("10**400", "1", "REFUTED"),                     # float32/float64 cannot hold the constant: was INCONCLUSIVE
    ("x*10**400", "x*10**400 + 1", "REFUTED"),
    ("10**400 + 1 - 1", "10**400", "INCONCLUSIVE"),   # true: no exact difference, and the numerics cannot evaluate
])
def test_exact_arithmetic_decides_what_no_float_level_can_evaluate(lhs, rhs, verdict):
    """A helper's find: ``10**400 = 1`` was INCONCLUSIVE (every float level raised OverflowError) and the run exited 2
    as a broken claim.  An INCONCLUSIVE rational identity is now evaluated exactly too; a nonzero difference is a
    proof of falsity (REFUTED, with the point), and the run's exit status is the verdict's."""
    c = tc.identity("demo.exact_overflow", lhs, rhs, register=False)
    r = tc.run_claim(c, seed=0, controls=False)
    assert r.verdict.value == verdict, r.evidence
    run = tc.RunResult((r,), 0, 16, {}, "2026-01-01T00:00:00")
    if verdict == "REFUTED":
        assert "exact arithmetic shows the sides differ: exact counterexample" in r.evidence
        assert r.printed.exact is not None
    assert not run.broken if verdict == "REFUTED" else run.broken


@pytest.mark.parametrize("lhs, rhs, shapes, structure", [
    ("hadamard(X, X)", "hadamard(X, X) + X/10**60", {"X": ("n", "n")}, {}),
    ("diag(diag(X))", "hadamard(X, eye(n)) + eye(n)/10**70", {"X": ("n", "n")}, {}),
    ("jacobian(hadamard(x, x), x)", "2*diag(x) + eye(n)/10**60", {"x": ("n", 1)}, {}),
    ("grad(trace(A.T*hadamard(X, X)), X)", "2*hadamard(A, X) + X/10**60", {"A": ("n", "n"), "X": ("n", "n")}, {}),
    ("grad(a**3, a)", "3*a**2 + 1/10**60", {"a": ()}, {}),
    ("grad(trace(A*X), X)", "A.T + X/10**60", {"A": ("n", "n"), "X": ("n", "n")}, {}),
    ("jacobian(A*x + x/10**60, x)", "A", {"A": ("n", "n"), "x": ("n", 1)}, {}),
    ("hessian(trace(x.T*A*x) + trace(x.T*x)**2/10**70, x)", "A + A.T", {"A": ("n", "n"), "x": ("n", 1)}, {}),
    ("grad(trace(X.T*A*X), X)", "(A + A.T)*X + X**-1/10**70", {"A": ("n", "n"), "X": ("n", "n")},
     {"X": "invertible"}),
])
def test_a_derivative_gap_below_every_numeric_level_is_refuted_exactly(lhs, rhs, shapes, structure):
    """Derivatives of rational sides are rational: evaluated exactly (forward mode on the nodes), a 10**-60 gap
    no numeric level resolves is REFUTED with the exact point (these were VERIFIED)."""
    r = tc.run_claim(tc.identity("demo.exact_grad_gap", lhs, rhs, shapes=shapes, structure=structure,
                                 register=False), seed=0)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert r.printed.exact is not None


@pytest.mark.parametrize("f, closed, shapes, structure, wrt", [
    ("trace(X.T*A*X)", "(A + A.T)*X", {"A": ("n", "n"), "X": ("n", "n")}, {}, "X"),
    ("det(X)", "det(X)*(X**-1).T", {"X": ("n", "n")}, {"X": "invertible"}, "X"),
    ("trace(X**-1*A)", "-(X**-1*A*X**-1).T", {"X": ("n", "n"), "A": ("n", "n")}, {"X": "invertible"}, "X"),
    ("trace(A*X)", "(A + A.T)/2", {"X": ("n", "n"), "A": ("n", "n")}, {"X": "symmetric"}, "X"),
    ("trace(kron(X, A))", "trace(A)*eye(n)", {"X": ("n", "n"), "A": ("n", "n")}, {}, "X"),
    ("trace(X*X*X)**2", "6*trace(X*X*X)*(X*X).T", {"X": ("n", "n")}, {}, "X"),
    ("trace(A.T*hadamard(X, X))", "2*hadamard(A, X)", {"X": ("n", "n"), "A": ("n", "n")}, {}, "X"),
    ("det(kron(A, X))", "n*det(kron(A, X))*(X**-1).T", {"X": ("n", "n"), "A": ("n", "n")}, {"X": "invertible"},
     "X"),
])
def test_exact_gradients_equal_their_closed_forms(f, closed, shapes, structure, wrt):
    """The exact stage's gradient (forward mode) agrees with the closed form at random integer points: no
    exact counterexample at n = 1..3 (a false statement beside it has one)."""
    for n in (1, 2, 3):
        lhs, rhs = side(f"grad({f}, {wrt})", shapes), side(closed, shapes)
        assert exact_counterexample(lhs, rhs, {"n": n}, structure, tries=4) is None
        wrong = side(f"2*({closed}) + eye(n)", shapes)
        assert exact_counterexample(lhs, wrong, {"n": n}, structure, tries=4) is not None
    assert is_rational(ex.parse(f"grad({f}, {wrt})", shapes, {"n": 2}, what="side"))


def test_a_complex_variable_has_no_exact_derivative():
    """grad of a complex variable is the Wirtinger derivative, not the real one: no exact value is computed."""
    shapes = {"Z": ("n", "n"), "A": ("n", "n")}
    lhs = lambda inst: ex.parse("grad(trace(A*Z), Z)", shapes, inst["_dims"], what="side", complex_names=("Z",))
    assert exact_counterexample(lhs, side("A", shapes), {"n": 2}, {"Z": "complex"}) is None


@pytest.mark.parametrize("rhs", ["4*a**2", "3*a**2 + 1"])
def test_a_false_gradient_with_respect_to_a_scalar_is_refuted(rhs):
    """grad(f, a) of a scalar a: the exact stage crashed on it ('Integer' has no attribute 'rows', a helper's
    finding), so every false statement of the kind was INCONCLUSIVE with 'claim raised'."""
    r = tc.run_claim(tc.identity("demo.scalar_grad", "grad(a**3, a)", rhs, register=False), seed=0)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence


def test_exact_cost_follows_the_arithmetic_and_grows_with_the_size():
    """The estimate of decision 142 (units of a small-integer multiply-add): a product r k c, a derivative one
    forward pass per entry; monotone in the size, and a wrong gradient at n = 64 is over the budget."""
    from theorem_check.engine.exact import EXACT_BUDGET, exact_cost

    g = lambda n: exact_cost(ex.parse("grad(trace(X.T*A*X), X)", {"X": ("n", "n"), "A": ("n", "n")}, {"n": n},
                                      what="side"))
    assert exact_cost(ex.parse("A*B", SQ, {"n": 3}, what="side")) == 27 + 9
    assert g(2) < g(8) < g(16) < EXACT_BUDGET < g(24) < g(64)
    inv = lambda n: exact_cost(ex.parse("A**-1", SQ, {"n": n}, what="side"))
    assert inv(4) < inv(32) < EXACT_BUDGET < inv(64)


def test_a_wrong_gradient_at_training_sizes_is_refuted_without_an_exact_search():
    """A helper's find: at n = 64 the exact search (one rational forward pass per entry of X) ran past the claim's
    120 s limit and a wrong gradient came back INCONCLUSIVE; over the budget it is not attempted, the numerics
    refute, and the same statement at n = 3 still carries its exact certificate."""
    import time

    for n, certified in ((64, False), (3, True)):
        t0 = time.perf_counter()
        c = tc.identity("demo.wrong_gradient", "grad(trace(X.T*A*X), X)", "2*A*X",
                        shapes={"X": ("n", "m"), "A": ("n", "n")}, sizes={"n": (n, n), "m": (n, n)}, register=False)
        r = tc.run_claim(c, seed=0, controls=False)
        assert r.verdict is tc.Verdict.REFUTED, r.evidence
        assert (r.printed.exact is not None) is certified, r.evidence
        assert time.perf_counter() - t0 < 60   # a bound far above the 1-2 s it takes, far below the old time-out


def test_kron_is_evaluated_as_sympys_kronecker_product():
    """The entry lists of ``_eval`` (7x faster at 16 x 16) give SymPy's Kronecker product, rectangular factors too."""
    import random

    from theorem_check.engine.exact import _eval

    rnd = random.Random(3)
    A, B, C = (structured_matrix(rnd, r, c, None) for r, c in ((2, 3), (4, 1), (1, 2)))
    shapes = {"A": (2, 3), "B": (4, 1), "C": (1, 2)}
    vals = {"A": A, "B": B, "C": C, "_structure": {}}
    got = _eval(ex.parse("kron(A, B, C)", shapes, {}, what="side"), vals)
    assert got == sp.Matrix(sp.kronecker_product(A, B, C))


def test_the_gap_search_of_a_verified_statement_has_a_third_of_the_budget():
    """A true statement pays every one of the gap search's EXACT_GAP_TRIES evaluations: together they cost what one
    counterexample search's may (``jacobian(A*X*B, X) = kron(A, B.T)`` at n = 16 spent 6 s there)."""
    from theorem_check.engine.exact import EXACT_BUDGET, exact_cost
    from theorem_check.engine.runner import EXACT_GAP_BUDGET, EXACT_GAP_TRIES

    assert EXACT_GAP_BUDGET * EXACT_GAP_TRIES == EXACT_BUDGET
    sh = {k: ("n", "n") for k in "AXB"}
    cost = sum(exact_cost(ex.parse(s, sh, {"n": 16}, what="side")) for s in ("jacobian(A*X*B, X)", "kron(A, B.T)"))
    assert EXACT_GAP_BUDGET < cost < EXACT_BUDGET


def test_the_gap_search_looks_at_every_configuration_run(monkeypatch):
    """helper-70: ``x*(1 + 10**-60*(n - 3)) = x`` holds at the generic n = 3 only; the exact gap search tried that size
    alone and the statement was VERIFIED (the deep stage switched off, as past 64 entries)."""
    from theorem_check.engine import deep_stage

    monkeypatch.setattr(deep_stage, "DEEP_ENTRIES", 0)
    c = tc.identity("demo.exact_sizes", "x*(1 + 10**-60*(n - 3))", "x", sizes={"n": (1, 4)}, register=False)
    r = tc.run_claim(c, seed=0, controls=False)
    assert r.verdict.value == "REFUTED" and r.printed.exact is not None, r.evidence
