"""Names the string syntax takes from other tools (matrixcalculus.org): logdet, inv, norm2, sum, x'."""

import pytest
import sympy as sp

from theorem_check.errors import ParseError
from theorem_check.expr.parse import parse, parse_statement, primes

SH = {"X": ("n", "n"), "A": ("n", "n"), "x": ("n", 1), "y": ("n", 1), "M": ("m", "n")}


@pytest.mark.parametrize("text,twin", [
    ("logdet(X)", "log(det(X))"),
    ("inv(X)", "X**-1"),
    ("norm2(x)", "sqrt(trace(x.T*x))"),
    ("norm2(M)", "sqrt(trace(M.T*M))"),
    ("sum(M)", "trace(ones(1, m)*M*ones(n, 1))"),
    ("x'*A*x", "x.T*A*x"),
    ("(A*x)'", "(A*x).T"),
    ("A''", "A.T.T"),
    ("x' * y", "x.T * y"),
])
def test_names_from_other_tools_are_the_same_tree(text, twin):
    assert parse(text, SH) == parse(twin, SH)


def test_norm2_and_sum_of_a_scalar():
    a = sp.Symbol("a", real=True)
    assert parse("norm2(a)", {}) == sp.Abs(a) and parse("sum(a)", {}) == a


def test_primes_in_statements_and_refused_elsewhere():
    assert parse_statement("(A*B)' = B'*A'") == ("(A*B).T", "B.T*A.T")
    assert primes("x'") == "x.T" and primes("'x'") == "'x.T"
    with pytest.raises(ParseError):
        parse("'x", SH)
