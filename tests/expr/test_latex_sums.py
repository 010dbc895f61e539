"""``\\sum`` in LaTeX statements (expr/latex_sums.py, design decision 221): the readings, their refusals, and a
property: the reading of a random sum over entries has the value of the sum computed entry by entry."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_check.errors import ParseError
from theorem_check.expr import compile_expr, evaluate, parse
from theorem_check.expr.latex import convention_shapes, latex_names, parse_latex_statement
from theorem_check.numerics.precision import FLOAT64


def read(text, shapes=None):
    return parse_latex_statement(text, shapes)


@pytest.mark.parametrize("text,lhs", [
    (r"\sum_{i=1}^{n} x_i y_i = 0", "trace(ones(n, 1).T*hadamard(x, y))"),
    (r"\sum_i (x_i - y_i)^2 = 0", "trace(ones(n, 1).T*hadamard(x - y, x - y))"),
    (r"\sum_i A_{ii} = 0", "trace(ones(n, 1).T*diag(A))"),
    (r"\sum_{i,j} A_{ij} B_{ji} = 0", "trace(ones(n, 1).T*hadamard(A, B.T)*ones(n, 1))"),
    (r"\sum_{i}\sum_{j} A_{ij} = 0", "trace(ones(n, 1).T*A*ones(n, 1))"),
    (r"\sum_i \exp(x_i) + \beta = 0", "trace(ones(n, 1).T*exp(x)) + beta"),   # the sum ends at +
    (r"\sum_i M x_i = 0", "trace(ones(n, 1).T*x)*M"),                         # a factor without the index
    (r"\sum_{l=1}^{3} W_l x = 0", "W_1*x + W_2*x + W_3*x"),                    # integer bounds: written out
    (r"\sum_{l=1}^{2} W_{l+1} W_l = 0", "W_2*W_1 + W_3*W_2"),
    (r"\sum_{l=1}^{2} W^{(l)} = 0", "W__1 + W__2"),
    (r"\sum_{k=0}^{2} k c = 0", "0*c + 1*c + 2*c"),
    (r"\sum_i x_i^{-1} = 0", "trace(ones(n, 1).T*hadamard_power(x, -1))"),       # helper-80's refusals, read now
    (r"\sum_i \frac{x_i}{y_i} = 0", "trace(ones(n, 1).T*hadamard(x, hadamard_power(y, -1)))"),
    (r"\sum_j e^{z_j} = 0", "trace(ones(n, 1).T*exp(z))"),
    (r"\sum_i \max(0, x_i) = 0", "trace(ones(n, 1).T*max(0, x))"),
    (r"\sum_i (A x)_i y_i = 0", "trace(ones(n, 1).T*hadamard(A*x, y))"),
])
def test_readings(text, lhs):
    assert read(text)[0] == lhs


def test_rectangular_bounds_and_declared_sizes():
    shapes = {"A": ("m", "n")}
    assert read(r"\sum_{i=1}^{m}\sum_{j=1}^{n} A_{ij} = 0", shapes)[0] == "trace(ones(m, 1).T*A*ones(n, 1))"
    assert read(r"\sum_{i=1}^{d} x_i = 0", {"x": ("d", 1)})[0] == "trace(ones(d, 1).T*x)"


def test_a_declared_family_member_is_not_read_as_an_entry():
    """helper-80: with ``x_i \\in \\mathbb{R}^d`` declared, ``\\sum_{i=1}^{n} W x_i`` read ``x_i`` as entries of a
    conventional ``x`` and dropped the declaration as unused."""
    text = r"\sum_{i=1}^{n} W x_i = W X \mathbf{1}"
    with pytest.raises(ParseError, match="is declared, a member of a family"):
        read(text, {"x_i": ("d", 1), "x": ("n", 1), "W": ("m", "d"), "X": ("d", "n")})


@pytest.mark.parametrize("text,shapes,message", [
    (r"\sum_i x_i x_i^\top = 0", None, "family of vectors"),
    (r"\sum_{i=1}^{d} x_i = 0", None, "the sum runs to d but x has n"),
    (r"\sum_{i=1}^{m}\sum_{j=1}^{n} A_{ji} = 0", {"A": ("m", "n")}, "the sum runs to"),
    (r"\sum_i \lambda_i = 0", None, "reads as an eigenvalue"),
    (r"\sum_i \theta_i = 0", None, "theta is summed over as a column but is a scalar"),
    (r"\sum_i x_i = 0", {}, "x is summed over as a column but is a scalar"),
    (r"\sum_{i=1}^{3} x_i = \mathbf{1}^\top x", None, "also stands alone"),
    (r"\sum_i x_{i+1} = 0", None, "the index is the whole subscript"),
    (r"\sum_i (x_i + y) = 0", {"x": ("n", 1), "y": ("n", 1)}, "beside an entry must be a scalar"),
    (r"\sum_i i x_i = 0", None, "stands as a value"),
    (r"\sum_{i,j} x_i A_{ij} y_j = 0", None, "only entries A_{ij} (A_{ji}) of matrices are read there"),
    (r"\sum_{i,j} A_{ii} B_{jj} = 0", None, "not vectors or diagonals"),
    (r"\sum_{i=2}^{n} x_i = 0", None, "a sum from 2 to n is not read"),
    (r"\sum_i \|x_i\| = 0", None, "only products, quotients"),
    (r"\sum_{l=1}^{L} W_l = 0", None, "a member of a family of matrices"),
    (r"\sum_i x_i e_i = x", None, "standard basis vector"),
    (r"\sum_{l=1}^{3} W_l x + b_l = 0", None, "outside the sum it belongs to"),   # helper-80: was a name b_l
    (r"\sum_i x_i + x_i = 0", None, "outside the sum it belongs to"),
    (r"\sum_i x_i = (A x)_j", None, "outside the sum it belongs to"),      # an entry of an expression outside
    (r"\sum_{i=1}^{100} W_i = 0", None, "a sum of 100 terms"),
    (r"\sum_{l=1}^{L} W^{(l)} = 0", None, "family member"),
    (r"\sum x = 0", None, "without an index"),
    (r"\sum_i \sum_i x_i = 0", None, "of another sum around it"),
])
def test_refusals_are_one_line(text, shapes, message):
    with pytest.raises(ParseError, match=None) as exc:
        read(text, shapes if shapes is None else {**convention_shapes(latex_names(text)), **shapes}
             if shapes else shapes)
    assert message in str(exc.value) and "\n" not in str(exc.value)


# --- the property: the reading's value is the sum's value, entry by entry -----------------------------------------
_FN = {"exp": (r"\exp", np.exp), "tanh": (r"\tanh", np.tanh), "sigmoid": (r"\sigma", lambda v: 1 / (1 + np.exp(-v)))}


@st.composite
def summands(draw, depth=2):
    """A scalar term of x_i, y_i and the scalar mu: (LaTeX, f(x, y, mu) -> array over i): products, sums, squares,
    quotients, ``e^{...}`` and functions of them."""
    if depth == 0 or draw(st.booleans()):
        leaf = draw(st.sampled_from(["x", "y", "mu", "2"]))
        tex = {"x": "x_i", "y": "y_i", "mu": r"\mu", "2": "2"}[leaf]
        return tex, (lambda x, y, mu, leaf=leaf: {"x": x, "y": y, "mu": mu + 0 * x, "2": 2 + 0 * x}[leaf])
    op = draw(st.sampled_from(["mul", "add", "sub", "pow", "fn", "div", "euler"]))
    a_tex, a = draw(summands(depth=depth - 1))
    if op == "pow":
        return f"({a_tex})^{{2}}", (lambda x, y, mu: a(x, y, mu) ** 2)
    if op == "euler":
        return f"e^{{{a_tex}}}", (lambda x, y, mu: np.exp(a(x, y, mu)))
    if op == "fn":
        name = draw(st.sampled_from(sorted(_FN)))
        tex, fn = _FN[name]
        return f"{tex}({a_tex})", (lambda x, y, mu: fn(a(x, y, mu)))
    b_tex, b = draw(summands(depth=depth - 1))
    if op == "mul":
        return f"({a_tex}) \\cdot ({b_tex})", (lambda x, y, mu: a(x, y, mu) * b(x, y, mu))
    if op == "div":      # a denominator that is never 0
        return f"\\frac{{{a_tex}}}{{1 + ({b_tex})^{{2}}}}", (lambda x, y, mu: a(x, y, mu) / (1 + b(x, y, mu) ** 2))
    sign = "+" if op == "add" else "-"
    return f"({a_tex} {sign} {b_tex})", (lambda x, y, mu: a(x, y, mu) + (1 if op == "add" else -1) * b(x, y, mu))


@settings(max_examples=100, deadline=None)
@given(summands(), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_reading_has_the_value_of_the_sum(term, n, seed):
    tex, value = term
    text = rf"\sum_{{i=1}}^{{n}} {tex} = 0"
    shapes = convention_shapes(latex_names(text))
    lhs, _ = read(text, shapes)
    rng = np.random.default_rng(seed)
    x, y, mu = rng.standard_normal(n), rng.standard_normal(n), float(rng.standard_normal())
    expr = parse(lhs, shapes, {"n": n}, sizes=("n",))
    vals = {"x": x.reshape(1, n, 1), "y": y.reshape(1, n, 1), "mu": np.array([mu])}
    got = float(np.asarray(evaluate(compile_expr(expr), FLOAT64, vals, {"n": n})).reshape(-1)[0])
    want = float(np.sum(value(x, y, mu)))
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (tex, lhs)
