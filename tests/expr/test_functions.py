"""The function table (expr/functions.py): relu, max and min written with abs (design decision 195)."""

import pytest
import sympy as sp

import theorem_check as tc
from theorem_check.expr import FUNCTIONS, ParseError, parse


def test_relu_max_min_are_abs_forms_scalar_and_entrywise():
    x, y = sp.symbols("x y", real=True)
    assert sp.simplify(FUNCTIONS["relu"](x) - (x + sp.Abs(x)) / 2) == 0
    assert sp.simplify(FUNCTIONS["max"](x, y) - (x + y + sp.Abs(x - y)) / 2) == 0
    assert sp.simplify(FUNCTIONS["min"](x, y) - (x + y - sp.Abs(x - y)) / 2) == 0
    X = parse("relu(X)", {"X": (2, 3)})
    assert X.shape == (2, 3)
    with pytest.raises(ParseError, match="max"):
        parse("max(x)", {})                     # two arguments, said with the function's name


@pytest.mark.parametrize("lhs, rhs, shapes, verdicts", [
    ("relu(x) - relu(-x)", "x", {}, {"PROVED"}),
    ("relu(x) + relu(-x)", "abs(x)", {}, {"PROVED"}),
    ("max(x, y) + min(x, y)", "x + y", {}, {"PROVED"}),
    ("max(x, y)*min(x, y)", "x*y", {}, {"PROVED", "VERIFIED"}),
    ("relu(X) - relu(-X)", "X", {"X": ("n", "m")}, {"PROVED", "VERIFIED"}),
    ("relu(x)", "x", {}, {"REFUTED"}),
    ("max(x, y)", "x", {}, {"REFUTED"}),
    ("relu(X)", "X", {"X": ("n", "m")}, {"REFUTED"}),
    # false only on (1, 1.001): found beside the switch x - 1 (engine/switch_stage.py)
    ("relu(x - 1) - relu(x - 1.001)", "min(relu(x - 1), 0.0005)", {}, {"REFUTED"}),
])
def test_verdicts_with_relu_max_min(lhs, rhs, shapes, verdicts):
    for seed in range(2):
        r = tc.run_claim(tc.identity("t.relu", lhs, rhs, shapes=shapes, register=False), seed=seed)
        assert r.verdict.name in verdicts, r.evidence


def test_an_entrywise_function_of_a_1x1_product_transposes():
    """``abs(W*x).T`` at ``W`` 1 x 2: SymPy's transpose of the node called ``abs`` of the matrix itself and raised
    "Matrices are not aligned", so a true gradient statement was ILL-POSED at ``m = 1`` (stop 44)."""
    shapes = {"W": (1, 2), "x": (2, 1)}
    e = parse("abs(W*x).T*relu(W*x)", shapes)
    assert e.shape == (1, 1)
    for lhs, rhs, ok in (("grad(trace(abs(W*x).T*abs(W*x)), x)", "2*W.T*W*x", True),
                         ("grad(trace(relu(W*x).T*relu(W*x)), x)", "2*W.T*relu(W*x)", True),
                         ("grad(trace(relu(W*x).T*relu(W*x)), x)", "2*W.T*W*x", False)):
        r = tc.run_claim(tc.identity("t.g", lhs, rhs, shapes={"W": ("m", "n"), "x": ("n", 1)}, register=False),
                         seed=0)
        assert r.verdict.name in (("PROVED", "VERIFIED") if ok else ("REFUTED",)), r.evidence


def test_max_of_a_1x1_product_and_a_number():
    """helper-60: max(x.T*x, 1) was ILL-POSED (the abs form adds the 1 x 1 product to the number); its entry is
    taken, as the parser's + does (design decision 200)."""
    r = tc.run_claim(tc.identity("t.max11", "max(x.T*x, 1)", "(x.T*x + 1 + abs(x.T*x - 1))/2",
                                 shapes={"x": ("n", 1)}, register=False), seed=0)
    assert r.verdict.name in ("PROVED", "VERIFIED"), r.evidence


def test_max_and_min_of_a_matrix_and_a_scalar_are_entrywise():
    """helper-60: max(A, 0) said "adds a matrix to a scalar"; the scalar is taken in every entry."""
    for lhs, rhs, ok in (("max(A, 0)", "relu(A)", True), ("min(A, t) + max(A, t)", "A + t*ones(n, n)", True),
                         ("max(A, 0)", "A", False)):
        r = tc.run_claim(tc.identity("t.mxs", lhs, rhs, shapes={"A": ("n", "n")}, register=False), seed=0)
        assert r.verdict.name in (("PROVED", "VERIFIED") if ok else ("REFUTED",)), r.evidence
