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
