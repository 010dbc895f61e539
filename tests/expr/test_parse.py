"""Names the string syntax takes from other tools (matrixcalculus.org): logdet, inv, norm2, sum, x'."""

import numpy as np
import pytest
import sympy as sp

import theorem_check as tc
from theorem_check.errors import ExprError, ParseError, ShapeMismatch
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
    assert primes("x'") == "x.T" and primes("x''") == "x.T.T" and primes("x '") == "x.T"
    assert primes("'x'") == "'x'" and primes("f('os') + x'") == "f('os') + x.T"   # a quoted string stays as typed
    with pytest.raises(ParseError):
        parse("'x", SH)


def test_errors_quote_the_primes_as_written():
    """The message quotes what the user typed, not the ``x' -> x.T`` rewrite (helper-36: ``'os.T)``)."""
    with pytest.raises(ParseError, match=r"^lhs=\"foo\(A'\)\": unknown function 'foo'"):
        parse("foo(A')", SH, what="lhs")
    with pytest.raises(ParseError, match=r"statement=\"A' = B' = C\" must have exactly one"):
        parse_statement("A' = B' = C")
    with pytest.raises(ParseError, match=r"side=\"f\('x'\)\": unknown function 'f'"):   # was "f('x.T)" (helper-54)
        parse("f('x')", SH, what="side")


@pytest.mark.parametrize("text, value", [
    ("sqrt(1/trace(2*A))", lambda A, B: (1 / np.trace(2 * A)) ** 0.5),
    ("sqrt(1/trace(2*A + 2*B))", lambda A, B: (1 / np.trace(2 * A + 2 * B)) ** 0.5),
    ("sqrt(1/det(2*A))", lambda A, B: (1 / np.linalg.det(2 * A)) ** 0.5),
    ("(1/trace(2*A*B + 2*A))**(1/3)", lambda A, B: (1 / np.trace(2 * A @ B + 2 * A)) ** (1 / 3)),
    ("exp(1/trace(2*A))", lambda A, B: np.exp(1 / np.trace(2 * A))),
    ("sqrt(1/trace((2*A).T))", lambda A, B: (1 / np.trace(2 * A)) ** 0.5),
])
def test_a_scalar_function_of_a_scaled_trace_is_read(text, value):
    """SymPy 1.14's automatic evaluation of ``sqrt(1/tr(2A))`` reaches ``factor_terms``, which rebuilds ``Trace``
    from a scalar ``Mul`` and raised "input to Trace, 2*A, is not a matrix": such a statement was refused (exit 2).
    It is now kept unevaluated, with the same value."""
    e = parse(text, {"A": ("n", "n"), "B": ("n", "n")}, dims={"n": 3})
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 3)) + np.eye(3)
    from theorem_check.expr.compile import compile_expr, evaluate
    from theorem_check.numerics.precision import FLOAT64

    got = complex(np.ravel(evaluate(compile_expr(e), FLOAT64, {"A": A[None], "B": B[None]}, {"n": 3}))[0])
    want = complex(value(A, B))
    assert abs(got - want) <= 1e-9 * max(1.0, abs(want)), (got, want)


def test_an_elementwise_function_of_a_one_by_one_product_is_elementwise():
    """SymPy's applyfunc on a 1 x 1 product applies the function to the matrix: abs(x.T*x) became the product of
    matrix moduli (x^T x^H)^(1/2) (x x^TH)^(1/2), which does not conform (a true statement was ILL-POSED)."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    for text in ("abs(x.T*x)", "abs(x.T*A*x)", "exp(x.T*A*x)"):
        e = parse(text, {"x": ("n", 1), "A": ("n", "n")})
        assert isinstance(e, ElementwiseApplyFunction) and e.shape == (1, 1), (text, e)


@pytest.mark.parametrize("text", ["sum(exp(tanh(X)))", "grad(sum(exp(tanh(X))), X)", "sum(sigmoid(tanh(exp(X))))",
                                  "trace(log1p(exp(sin(X.T*X))))"])
def test_nested_entrywise_functions_at_one_by_one_parse_whatever_sympys_question_order(text):
    """SymPy called the outer function on the 1 x 1 matrix itself while composing f(g(X)); whether that raised
    "Mix of Matrix and Scalar" followed SymPy's unseeded assumption shuffle, so one statement at one seed was
    ILL-POSED in about one run of four (found by a new user).  Each shuffle order must parse (decision 118)."""
    from sympy.core import random as sympy_random

    from theorem_check.expr.parse import _parse

    for k in range(24):
        _parse.cache_clear()
        sp.core.cache.clear_cache()
        sympy_random.seed(k)
        e = parse(text, {"X": ("n", "n")}, dims={"n": 1})
        assert e.free_symbols or e.has(sp.MatrixSymbol("X", 1, 1)), (k, e)


def test_sympy_rng_seeded_restores_the_callers_generators():
    from sympy.core import random as sympy_random

    from theorem_check.expr.sympy_rng import seeded

    sympy_random.seed(7)
    expected = (sympy_random.rng.random(), sympy_random._assumptions_rng.random())
    sympy_random.seed(7)
    with seeded(123):
        inside = sympy_random.rng.random()
    with seeded(123):
        assert sympy_random.rng.random() == inside
    assert (sympy_random.rng.random(), sympy_random._assumptions_rng.random()) == expected


def test_a_constant_singular_at_the_sizes_is_named_singular():
    """At n = 1, ones(n,n) - eye(n) is 0 and SymPy's own inversion raises while the side is built: the message says
    singular, not 'cannot interpret' (a new user read it as a syntax error)."""
    with pytest.raises(ParseError, match="singular at these sizes"):
        parse("(ones(n,n) - eye(n))**-1*x", {"x": ("n", 1)}, dims={"n": 1})


@pytest.mark.parametrize("text,twin", [
    ("A + X^-1", "A + X**-1"),          # was (A + X)**-1: Python's ^ binds below + and *
    ("A*X^2", "A*X**2"),                # was (A*X)**2
    ("trace(x.T*A^2*x) + 1", "trace(x.T*A**2*x) + 1"),
    ("X^-1^2", "X**-1**2"),
])
def test_a_caret_is_a_power_that_binds_as_tightly_as_two_stars(text, twin):
    assert parse(text, SH) == parse(twin, SH)
    assert parse("a^2 + 1", {}) == parse("a**2 + 1", {}) != parse("a**3", {})


def test_inverted_bases_are_the_texts_raised_to_negative_powers():
    from theorem_check.expr.textual import inverted_bases

    assert inverted_bases("(X.T*X)**-1*X.T*(X*w)") == ["X.T*X"]
    assert inverted_bases("inv(A + X)*x + A^-2*x") == ["A + X", "A"]
    assert inverted_bases("A**2 + (A*X)**(1/2)") == [] and inverted_bases("A +* ") == []


def test_domain_calls_are_the_logs_roots_and_fractional_powers():
    from theorem_check.expr.textual import domain_calls

    assert domain_calls("0*log(-1 - t**2)") == ["log(-1 - t**2)"]
    assert sorted(domain_calls("exp(log(t)) + t**(1/2) + x**2 + y**-1 + t^0.5")) == ["log(t)", "t**(1/2)", "t**0.5"]
    assert domain_calls("sqrtm(A)*logm(B) + expm(A)") == ["sqrtm(A)", "logm(B)"] and domain_calls("log(") == []


def test_denominators_are_the_divisors_and_the_inverted_bases():
    from theorem_check.expr.textual import denominators

    assert denominators("x*trace(K)/trace(K)") == ["trace(K)"]
    assert denominators("a/(b + c)/d + inv(A)*x") == ["d", "b + c", "A"]
    assert denominators("x'*y/(x.T*x)") == ["x.T*x"] and denominators("1/") == []


@pytest.mark.parametrize("k", [1, 2, 7, 64, 65, 100, 1023])
def test_matrix_power_by_squaring_is_the_product(k):
    from theorem_check.expr.compile import matrix_power

    a = np.random.default_rng(k).standard_normal((2, 3, 3)) / 3
    want = np.linalg.matrix_power(a, k)
    assert np.allclose(matrix_power(a, k), want, rtol=1e-9, atol=1e-300)


def test_a_shape_error_names_the_entrywise_function_as_written():
    """helper-33: SymPy's text leaked into an ILL-POSED message (``Power of non-square matrix Lambda(_d, sin(_d)).(x)``)."""
    from theorem_check.errors import ShapeMismatch
    from theorem_check.expr.parse import parse

    with pytest.raises(ShapeMismatch) as info:
        parse("sin(x)**2", {"x": (3, 1)})
    msg = str(info.value)
    assert "Lambda" not in msg and "sin(x)" in msg and "hadamard(M, M)" in msg


def test_hadamard_power_is_the_entrywise_power_of_a_matrix_by_a_number():
    """``hadamard_power(X, p)`` (stop 38): the entrywise power, so that ``derive``'s closed forms with an entrywise
    reciprocal (``log1p(x o x)'' = 2 (1 - x o x) o (1 + x o x)^{o -2}``) can be read back and checked."""
    P = parse("hadamard_power(M, -1)", SH, {"m": 2, "n": 2})
    assert isinstance(P, sp.HadamardPower) and P.exp == -1
    M = sp.ImmutableMatrix([[1, 2], [-4, sp.Rational(1, 2)]])
    got = sp.Matrix(P.xreplace({parse("M", SH, {"m": 2, "n": 2}): M}).doit())
    assert got == sp.Matrix([[1, sp.Rational(1, 2)], [-sp.Rational(1, 4), 2]])     # entrywise, not the inverse
    assert parse("hadamard_power(x, 1/2)", SH).exp == sp.Rational(1, 2)
    for bad, words in [("hadamard_power(trace(X), 2)", "needs a matrix"), ("hadamard_power(X, A)", "needs a number"),
                       ("hadamard_power(X, t)", "needs a number")]:
        with pytest.raises(ExprError, match=words):    # ParseError is an ExprError
            parse(bad, SH)


@pytest.mark.parametrize("text", [
    "(x-x)/trace((x-x).T*(x-x))",
    "jacobian((x-x)/sqrt(trace((x-x).T*(x-x))), x)",
    "(0*x)/(0*trace(y.T*y))",
    "(x-x)*(1/trace((x-x).T*(x-x)))",
    "(x-x)*trace((x-x).T*(x-x))**-1",
    "(x-x)*sqrt(trace((x-x).T*(x-x)))**(-1)",
])
def test_a_matrix_divided_by_an_identically_zero_scalar_is_refused(text):
    """helper-39: SymPy's ``ZeroMatrix * zoo`` is the zero matrix, so 0/0 of a matrix was PROVED equal to 0."""
    with pytest.raises(ParseError, match="division by zero"):
        parse(text, SH)


@pytest.mark.parametrize("text", ["x/2", "x/trace(x.T*x)", "x/sqrt(trace((x - y).T*(x - y)))", "X/det(X)"])
def test_division_by_a_scalar_that_is_not_identically_zero_is_read_as_before(text):
    e = parse(text, SH)
    assert not e.has(sp.zoo, sp.nan)


def test_layer_norm_without_eps_is_not_proved_where_it_is_undefined():
    """At n = 1 the centred x is 0 and c/|c| is 0/0: no verdict there; from n = 2 on the Jacobian is PROVED."""
    import theorem_check as tc

    c = "(x - ones(n,1)*ones(n,1).T*x/n)"
    f, claimed = f"jacobian({c}/sqrt(trace({c}.T*{c})), x)", \
        f"(eye(n) - ones(n,n)/n - {c}*{c}.T/trace({c}.T*{c}))/sqrt(trace({c}.T*{c}))"
    at1 = tc.identity("mine.ln1", f, claimed, shapes={"x": ("n", 1)}, sizes={"n": (1, 1)}, register=False)
    assert tc.run_claim(at1, seed=0, trials=4).verdict.value == "INCONCLUSIVE"
    from2 = tc.identity("mine.ln2", f, claimed, shapes={"x": ("n", 1)}, sizes={"n": (2, 5)}, register=False)
    assert tc.run_claim(from2, seed=0, trials=4).verdict.value in ("PROVED", "VERIFIED")


def test_the_transpose_of_a_scalar_expression_is_itself():
    """helper-39: ``sqrt(trace(x.T*x)).T`` raised "'Pow' object has no attribute 'shape'"."""
    assert parse("x*sqrt(trace(x.T*x)).T", SH) == parse("x*sqrt(trace(x.T*x))", SH)
    with pytest.raises(ParseError, match="has no shape"):
        parse("a.T", SH)


def test_a_mistyped_function_gets_a_did_you_mean():
    """helper-57: a mistyped claim id gets "did you mean", a mistyped function did not."""
    with pytest.raises(ParseError, match=r"unknown function 'trcae' \(did you mean 'trace'\?\)"):
        parse("trcae(A)", SH)


SHERMAN = {"A": ("n", "n"), "u": ("n", 1), "v": ("n", 1)}


@pytest.mark.parametrize("lhs, rhs, verdicts", [
    ("(A + u*v.T)**-1", "A**-1 - A**-1*u*v.T*A**-1/(1 + v.T*A**-1*u)", {"PROVED", "VERIFIED"}),
    ("det(A + u*v.T)", "(1 + v.T*A**-1*u)*det(A)", {"PROVED", "VERIFIED"}),
    ("(A + u*v.T)**-1", "A**-1 - A**-1*u*v.T*A**-1/(1 - v.T*A**-1*u)", {"REFUTED"}),    # the sign slip
    ("A + 1", "A", {"ILL-POSED"}),                  # 1 x 1 only at n = 1: does not conform at the other sizes
    ("(u.T*A*u)*u", "u*(u.T*A*u)", {"PROVED", "VERIFIED"}),    # a 1 x 1 factor that does not conform (decision 203)
    ("(u.T*A*u)*u", "u*(u.T*A.T*u)*2", {"REFUTED"}),  # ... and a factor-2 slip beside it
    ("u.T*v*u", "u*v.T*u", {"PROVED", "VERIFIED"}),   # (u^T v) u = u (v^T u), MATLAB's reading of u'*v*u
    ("u.T*v*u", "v*u.T*u", {"REFUTED"}),
    ("u*u", "u.T*u", {"ILL-POSED"}),                # no 1 x 1 factor: a column times a column does not conform
])
def test_a_1x1_matrix_beside_a_scalar_is_its_entry(lhs, rhs, verdicts):
    """helper-58: Sherman-Morrison and the determinant lemma written in the string syntax were ILL-POSED ("adds a
    matrix to a scalar": SymPy's Mix of Matrix and Scalar), while their LaTeX twins were PROVED; helper-60: so was
    ``(u.T*A*u)*u``, a 1 x 1 factor of a product that does not conform as a matrix (design decision 203)."""
    shapes = {k: v for k, v in SHERMAN.items() if k in lhs + rhs}
    structure = {"A": "invertible"} if "A" in shapes else {}
    r = tc.run_claim(tc.identity("t.one", lhs, rhs, shapes=shapes, structure=structure, register=False), seed=0)
    assert r.verdict.value in verdicts, r.evidence
    assert parse("x.T*x + 1", {"x": (3, 1)}) == sp.Trace(parse("x.T*x", {"x": (3, 1)})) + 1


def test_the_rayleigh_quotient_gradient_as_textbooks_print_it():
    """helper-60: the Rayleigh quotient's gradient, ``2 (A x - r(x) x) / x^T x`` with ``r(x) = x^T A x / x^T x``, in
    the string syntax as printed, ``(x.T*A*x)*x``: PROVED for symmetric A (its LaTeX twin already was), and the
    version without the symmetry (``A`` where ``(A + A.T)/2`` belongs) REFUTED for a general A (decision 203)."""
    shapes = {"x": ("n", 1), "A": ("n", "n")}
    rhs = "2*(A*x - (x.T*A*x)*x/(x.T*x))/(x.T*x)"
    lhs = "grad(x.T*A*x/(x.T*x), x)"
    sym = tc.run_claim(tc.identity("t.r", lhs, rhs, shapes=shapes, structure={"A": "symmetric"}, register=False))
    gen = tc.run_claim(tc.identity("t.g", lhs, rhs, shapes=shapes, register=False))
    assert sym.verdict.value in ("PROVED", "VERIFIED"), sym.evidence
    assert gen.verdict.value == "REFUTED", gen.evidence
    with pytest.raises(tc.ShapeMismatch):   # no 1 x 1 factor: still does not conform
        parse("x*x", {"x": (3, 1)})


@pytest.mark.parametrize("text, twin", [("1 - sigmoid(x)", "ones(n, 1) - sigmoid(x)"), ("x.T + 2", "x.T + 2*ones(1, n)"),
                                        ("c + x", "c*ones(n, 1) + x")])
def test_a_scalar_beside_a_column_or_a_row_is_that_many_ones(text, twin):
    """helper-73: ``sigmoid(-x) = 1 - sigmoid(x)`` of a column was ILL-POSED in the string syntax ("adds a matrix to a
    scalar") while ``--latex`` read ``1 - \\sigma(x)`` with the vector of ones; both read it so now."""
    shapes = {"x": ("n", 1)}
    assert str(parse(text, shapes)) == str(parse(twin, shapes))   # (a Dummy per ElementwiseApplyFunction)


@pytest.mark.parametrize("text, shapes", [("A + 1", {"A": ("n", "n")}), ("B - 2", {"B": ("m", "n")})])
def test_a_scalar_beside_another_matrix_stays_refused(text, shapes):
    with pytest.raises(ShapeMismatch, match="adds a matrix to a scalar"):
        parse(text, shapes)


@pytest.mark.parametrize("lhs, rhs", [("logsumexp(x + 1)", "logsumexp(x) + 1"), ("softmax(x + c)", "softmax(x)"),
                                      ("hadamard(x + 1, y)", "hadamard(x, y) + y"), ("diag(x + 1)*y", "hadamard(x, y) + y")])
def test_a_function_of_a_column_plus_a_scalar_holds_at_n_1(lhs, rhs):
    """helper-76: at n = 1 the column plus a scalar is read as the entry plus the scalar (a scalar), and softmax,
    logsumexp, hadamard, diag refused it ("needs a matrix argument"): true statements INCONCLUSIVE, exit 2 with
    --size n=1:1.  A scalar argument is the 1 x 1 matrix."""
    shapes = {"x": ("n", 1), "y": ("n", 1)}
    r = tc.run_claim(tc.identity("test.n1", lhs, rhs, shapes={k: v for k, v in shapes.items() if k in lhs + rhs},
                                 sizes={"n": (1, 3)}, register=False), seed=0, trials=8)
    assert r.verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED), r.evidence
