"""theorem_check.expr.matrix_calculus: closed-form gradients / Hessians against the Matrix Cookbook.

Equation numbers are those of the Matrix Cookbook (Petersen & Pedersen, version of November 15, 2012),
recalled, not copied from a file at hand: the test does not trust them.  Each Cookbook form is itself
checked entrywise at a concrete size (``verify``), and the derived form must equal it as matrix
expressions over symbolic sizes (``simplifies_to_zero``: SymPy's simplify or the expansion).
"""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_check import expr as ex
from theorem_check.engine.symbolic import simplifies_to_zero
from theorem_check.errors import InternalError
from theorem_check.expr import matrix_calculus as mc
from theorem_check.expr.printing import expr_text

SHAPES = {"X": ("n", "n"), "A": ("n", "n"), "B": ("n", "n"), "C": ("n", "n"), "D": ("n", "n"),
          "Y": ("n", "m"), "P": ("k", "n"), "Q": ("m", "k"), "a": ("n", 1), "b": ("n", 1), "x": ("n", 1),
          "c": ("n", 1), "d": ("n", 1), "u": ("m", 1), "v": ("m", 1)}

# (Cookbook eq., f, wrt, the Cookbook's form in the check syntax)
COOKBOOK = [
    ("49", "det(X)", "X", "det(X)*(X**-1).T"),
    ("51", "det(A*X*B)", "X", "det(A*X*B)*(X**-1).T"),
    ("57", "log(det(X))", "X", "(X**-1).T"),
    ("61", "a.T*X**-1*b", "X", "-X.T**-1*a*b.T*X.T**-1"),
    ("69", "x.T*a", "x", "a"),
    ("70", "a.T*Y*u", "Y", "a*u.T"),
    ("71", "u.T*Y.T*a", "Y", "a*u.T"),
    ("72", "a.T*X*a", "X", "a*a.T"),
    ("77", "u.T*Y.T*Y*v", "Y", "Y*(u*v.T + v*u.T)"),
    ("81", "x.T*B*x", "x", "(B + B.T)*x"),
    ("84", "(X*b + c).T*D*(X*b + c)", "X", "(D + D.T)*(X*b + c)*b.T"),
    ("100", "trace(X)", "X", "eye(n)"),
    ("101", "trace(X*A)", "X", "A.T"),
    ("102", "trace(P*Y*Q)", "Y", "P.T*Q.T"),
    ("103", "trace(A*X.T*B)", "X", "B*A"),
    ("104", "trace(X.T*A)", "X", "A"),
    ("106", "trace(kron(A, X))", "X", "trace(A)*eye(n)"),
    ("107", "trace(X*X)", "X", "2*X.T"),
    ("108", "trace(X*X*B)", "X", "(X*B + B*X).T"),
    ("109", "trace(X.T*B*X)", "X", "B*X + B.T*X"),
    ("112", "trace(X*B*X.T)", "X", "X*B.T + X*B"),
    ("116", "trace(X.T*X)", "X", "2*X"),
    ("121", "trace(X**3)", "X", "3*(X**2).T"),
    ("124", "trace(A*X**-1*B)", "X", "-(X**-1*B*A*X**-1).T"),
]
"""At least 15 standard expressions (the issue's bar); the Hadamard and entrywise forms follow below."""


def _setup(f_text, wrt):
    f = ex.parse(f_text, SHAPES)
    X = next(m for m in f.atoms(sp.MatrixSymbol) if m.name == wrt)
    return f, X


@pytest.mark.parametrize("eq,f_text,wrt,cookbook", COOKBOOK, ids=[c[0] for c in COOKBOOK])
def test_cookbook_forms(eq, f_text, wrt, cookbook):
    f, X = _setup(f_text, wrt)
    want = ex.parse(cookbook, SHAPES)
    mc.verify(f, X, want)                       # the Cookbook's form is the entrywise derivative
    got = mc.gradient(f, X)                     # checked inside at a concrete size
    assert simplifies_to_zero(got - want), f"eq. ({eq}): derived {got}, Cookbook {want}"
    assert simplifies_to_zero(ex.parse(expr_text(got), SHAPES) - got)   # the printed form parses back


MORE = [  # forms outside the Cookbook's tables, derived by hand from the differential df = tr(G^T dX)
    ("trace(hadamard(X, A)*B)", "X", "hadamard(A, B.T)"),
    ("trace(A*exp(X))", "X", "hadamard(A.T, exp(X))"),
    ("trace(A*sigmoid(X))", "X", "hadamard(A.T, sigmoid(X), ones(n, n) - sigmoid(X))"),
    ("logsumexp(x)", "x", "softmax(x)"),
    ("a.T*softmax(x)", "x", "hadamard(softmax(x), a) - softmax(x)*softmax(x).T*a"),
    ("log(trace(X.T*X))", "X", "2*X/trace(X.T*X)"),
    ("trace(A*X) + trace(B*X)", "X", "A.T + B.T"),   # SymPy 1.14's own diff returns 0 here
]


@pytest.mark.parametrize("f_text,wrt,form", MORE, ids=[m[0] for m in MORE])
def test_more_forms(f_text, wrt, form):
    f, X = _setup(f_text, wrt)
    want = ex.parse(form, SHAPES)
    mc.verify(f, X, want)
    got = mc.gradient(f, X)
    mc.verify(f, X, got)


def test_symmetric_domain_convention():
    f, X = _setup("log(det(X))", "X")
    assert mc.gradient(f, X, symmetric=True) == sp.Inverse(X)
    f, X = _setup("trace(A*X)", "X")
    got = mc.gradient(f, X, symmetric=True)
    assert simplifies_to_zero(got - (ex.parse("A", SHAPES) + ex.parse("A.T", SHAPES)) / 2)
    with pytest.raises(InternalError):   # G + G^T - diag(G), the classic wrong variant, is not (G + G^T)/2
        mc.verify(f, X, ex.parse("A + A.T - diag(diag(A))", SHAPES), symmetric=True)


def test_hessians():
    f, x = _setup("x.T*A*x", "x")
    assert simplifies_to_zero(mc.hessian(f, x) - ex.parse("A + A.T", SHAPES))
    f, x = _setup("logsumexp(x)", "x")
    mc.verify(f, x, ex.parse("diag(softmax(x)) - softmax(x)*softmax(x).T", SHAPES), order=2)
    mc.hessian(f, x)


@pytest.mark.parametrize("f_text,wrt,wrong", [
    ("trace(X*A)", "X", "A"),                           # missing transpose
    ("x.T*B*x", "x", "2*B*x"),                          # symmetric-only form
    ("log(det(X))", "X", "2*X.T**-1"),                  # factor 2
    ("det(X)", "X", "-det(X)*X.T**-1"),                 # sign
    ("trace(A*exp(X))", "X", "hadamard(A, exp(X))"),    # transpose, transcendental entries
])
def test_negative_controls_are_internal_errors(f_text, wrt, wrong):
    f, X = _setup(f_text, wrt)
    with pytest.raises(InternalError):
        mc.verify(f, X, ex.parse(wrong, SHAPES))


@pytest.mark.parametrize("right,wrong,kw", [
    ("diag(softmax(x)) - softmax(x)*softmax(x).T", "diag(softmax(x)) + softmax(x)*softmax(x).T", {"order": 2}),
    ("diag(softmax(x)) - softmax(x)*softmax(x).T", "diag(softmax(x)) - softmax(x)*softmax(x).T/2", {"jac": True}),
], ids=["hessian", "jacobian"])
def test_transcendental_hessian_and_jacobian_checks_can_fail(right, wrong, kw):
    """The 60-digit path of verify (an mpmath function of the explicit entries, sympy.lambdify) for the Hessian
    of logsumexp and the Jacobian of softmax: the right forms pass, a sign or a factor 2 is an InternalError."""
    f, x = _setup("logsumexp(x)" if "order" in kw else "softmax(x)", "x")
    mc.verify(f, x, ex.parse(right, SHAPES), **kw)
    with pytest.raises(InternalError):
        mc.verify(f, x, ex.parse(wrong, SHAPES), **kw)


def test_where_lambdify_fails_sympy_evaluates(monkeypatch):
    """verify's fallback (SymPy's own evaluation at each point) decides the same: right passes, wrong fails."""
    def broken(*args, **kwargs):
        raise NameError("a node lambdify cannot print")

    monkeypatch.setattr(sp, "lambdify", broken)
    f, X = _setup("trace(A*exp(X))", "X")
    mc.verify(f, X, ex.parse("hadamard(A.T, exp(X))", SHAPES))
    with pytest.raises(InternalError):
        mc.verify(f, X, ex.parse("hadamard(A, exp(X))", SHAPES))


@pytest.mark.parametrize("f_text,wrt", [("trace(expm(X))", "X"), ("x.T*x", "a")])
def test_not_differentiable_is_one_line(f_text, wrt):
    shapes = {**SHAPES, "Y": ("n", "n")}
    f = ex.parse(f_text, shapes)
    X = next((m for m in f.atoms(sp.MatrixSymbol) if m.name == wrt), sp.MatrixSymbol(wrt, 3, 1))
    try:
        g = mc.gradient(f, X)
    except mc.NotDifferentiable as exc:
        assert "\n" not in str(exc)
    else:
        assert g == sp.ZeroMatrix(*X.shape)   # f free of X: zero


@settings(max_examples=10, deadline=None)
@given(c=st.fractions(min_value=-5, max_value=5, max_denominator=7), k=st.integers(1, 3),
       transpose=st.booleans())
def test_linearity_and_powers(c, k, transpose):
    """grad(c tr(A X^k)) = c sum_j (X^T)^j A^T (X^T)^(k-1-j); X^T inside the trace transposes the result."""
    X, A = ex.parse("X", SHAPES), ex.parse("A", SHAPES)
    base = X.T if transpose else X
    f = sp.Rational(c.numerator, c.denominator) * sp.Trace(A * sp.MatPow(base, k))
    got = mc.gradient(f, X)                                   # verified entrywise inside
    G = sum((sp.MatPow(base.T, j) * A.T * sp.MatPow(base.T, k - 1 - j) for j in range(k)), sp.ZeroMatrix(*X.shape))
    want = sp.Rational(c.numerator, c.denominator) * (G.T if transpose else G)
    mc.verify(f, X, want.doit())
    assert got.shape == X.shape


@pytest.mark.parametrize("f, want", [
    ("exp(-trace(x.T*x)/2)", "exp(-trace(x.T*x)/2)*(x*x.T - eye(n))"),
    ("trace(x.T*x)*trace(a.T*x)", "2*trace(a.T*x)*eye(n) + 2*a*x.T + 2*x*a.T"),
])
def test_the_hessian_of_a_scalar_function_times_a_vector_keeps_both_terms(f, want):
    """helper-35: SymPy's matrix derivative of ``c(x) M(x)`` drops ``grad(c) M^T``, so the Hessian of
    ``exp(-x^T x / 2)`` was ``-exp(...) I`` and ``derive`` exited 3 (its own check caught it).  Both terms now."""
    import theorem_check as tc

    shapes = {"x": ("n", 1), "a": ("n", 1)}
    H = mc.hessian(ex.parse(f, shapes), ex.parse("x", shapes))   # raised InternalError (the closed form's own check)
    assert tuple(H.shape) == (ex.parse("x", shapes).shape[0],) * 2
    claim = tc.identity("t.hess", f"hessian({f}, x)", want, shapes={k: v for k, v in shapes.items() if k in f + want},
                        register=False)
    assert tc.run_claim(claim, seed=0, trials=4).verdict.value in ("PROVED", "VERIFIED")


@pytest.mark.parametrize("f, want, wrong", [
    ("sum(sigmoid(x))", "diag(hadamard(sigmoid(x), ones(n, 1) - sigmoid(x), ones(n, 1) - 2*sigmoid(x)))",
     "diag(hadamard(sigmoid(x), ones(n, 1) - sigmoid(x)))"),
    ("sum(softplus(x))", "diag(hadamard(sigmoid(x), ones(n, 1) - sigmoid(x)))", "diag(sigmoid(x))"),
    ("sum(tanh(x))", "-2*diag(hadamard(tanh(x), ones(n, 1) - hadamard(tanh(x), tanh(x))))",
     "2*diag(hadamard(tanh(x), ones(n, 1) - hadamard(tanh(x), tanh(x))))"),
    ("logsumexp(A*x)", "A.T*(diag(softmax(A*x)) - softmax(A*x)*softmax(A*x).T)*A",
     "A*(diag(softmax(A*x)) - softmax(A*x)*softmax(A*x).T)*A.T"),
    ("x.T*diag(x)*x", "6*diag(x)", "2*diag(x)"),
    ("x.T*diag(x)*A*x", "2*diag(A*x) + 2*diag(x)*A + 2*A.T*diag(x)", "2*diag(A*x) + 4*diag(x)*A"),
    # d^2/dx^2 log(1 + x^2) = 2 (1 - x^2) / (1 + x^2)^2: its closed form needs the entrywise reciprocal (stop 38)
    ("sum(log1p(hadamard(x, x)))",
     "2*diag(hadamard(ones(n, 1) - hadamard(x, x), hadamard_power(ones(n, 1) + hadamard(x, x), -2)))",
     "2*diag(hadamard_power(ones(n, 1) + hadamard(x, x), -1))"),
])
def test_entrywise_hessians_have_a_closed_form_that_the_engine_checks(f, want, wrong):
    """helper-35: ``derive --order 2`` of these exited 2 with SymPy's error (IndexError, RecursionError): the
    column derivatives of entrywise functions, Hadamard products and powers, a column softmax and diag(a) b
    now have rules (``J^T = J_a^T diag(f'(a))``, ...).  The closed form is checked by the engine against the
    independently written Hessian (PROVED or VERIFIED), and a wrong one (sign, factor, transpose) is REFUTED."""
    import theorem_check as tc

    shapes = {"x": ("n", 1), "A": ("n", "n")}
    used = {k: v for k, v in shapes.items() if k in f}
    H = mc.hessian(ex.parse(f, used), ex.parse("x", used))   # its own entrywise check at a concrete size
    text = expr_text(H)
    assert "entrywise" not in text and "Lambda" not in text
    for rhs, ok in ((text, True), (want, True), (wrong, False)):
        claim = tc.identity("t.hess", f"hessian({f}, x)", rhs, shapes=used, register=False)
        verdict = tc.run_claim(claim, seed=0, trials=4).verdict.value
        assert (verdict in ("PROVED", "VERIFIED")) == ok, (rhs, verdict)


def test_an_entrywise_body_prints_in_the_statement_syntax_or_as_an_unknown_function():
    """A compound entrywise body (SymPy's ``ElementwiseApplyFunction``) prints with ``hadamard``, ``ones`` and the
    entrywise functions where it can, so that ``check`` can read it back; otherwise as ``entrywise(...)``, a name
    the parser refuses (never a wrong reading).  ``softplus`` evaluates numerically (mpmath has no softplus)."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    x = ex.parse("x", {"x": ("n", 1)})
    d = sp.Dummy("d")
    body = (1 - ex.sigmoid(d)) * ex.sigmoid(d) ** 2 - 3
    text = expr_text(ElementwiseApplyFunction(sp.Lambda(d, body), x))
    back, x2 = (ex.parse(t, {"x": ("n", 1)}, {"n": 2}) for t in (text, "x"))
    pt = sp.ImmutableMatrix([[sp.Rational(1, 3)], [-2]])
    want = [body.subs(d, v) for v in pt]
    got = sp.Matrix(back.xreplace({x2: pt}).doit())
    assert all(abs(sp.N(g - w, 30)) < 1e-25 for g, w in zip(got, want)), text
    assert expr_text(ElementwiseApplyFunction(sp.Lambda(d, ex.sigmoid(sp.tanh(d))), x)).startswith("entrywise(")
    recip = expr_text(ElementwiseApplyFunction(sp.Lambda(d, 1 / (1 + d)), x))   # a numeric power: hadamard_power
    assert recip == "hadamard_power(x + ones(n, 1), -1)", recip
    back = ex.parse(recip, {"x": ("n", 1)}, {"n": 2}).xreplace({x2: pt}).doit()
    assert list(sp.Matrix(back)) == [sp.Rational(3, 4), -1]
    assert abs(sp.N(ex.softplus(sp.Rational(1, 3)), 30) - sp.N(sp.log(1 + sp.exp(sp.Rational(1, 3))), 30)) < 1e-28


@pytest.mark.parametrize("f_text, want", [
    ("ones(n,1).T*log(abs(x))", "hadamard_power(x, -1)"),
    ("ones(n,1).T*abs(x)", "hadamard(hadamard_power(abs(x), -1), x)"),
])
def test_entrywise_abs_has_the_real_derivative(f_text, want):
    """helper-40: SymPy differentiates ``Abs`` at a complex dummy (a Piecewise of ``re``/``im`` derivatives), and
    ``derive`` exited 3; the derivative at a real argument is ``a/|a|``.  The engine checks the closed form, and a
    wrong one (the sign dropped) is REFUTED."""
    import theorem_check as tc

    sh = {"x": ("n", 1)}
    G = mc.gradient(ex.parse(f_text, sh), ex.parse("x", sh))   # checked at one size inside (InternalError else)
    assert tuple(G.shape) == (ex.parse("x", sh).shape) and not G.has(sp.Derivative, sp.re, sp.im)
    for claimed, verdicts in ((want, ("PROVED", "VERIFIED")), ("hadamard_power(abs(x), -1)", ("REFUTED",))):
        c = tc.identity("mine.abs", f"grad({f_text}, x)", claimed, shapes=sh, register=False)
        assert tc.run_claim(c, seed=0, trials=4).verdict.value in verdicts
