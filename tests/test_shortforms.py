"""Short forms tc.identity / tc.gradient / tc.erratum, and the gallery examples/matrix_calculus.py."""

import ast
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorem_check as tc
from tests.test_sampling import DRAWS, charpoly, relations
from theorem_check.authoring import shortforms as sf
from theorem_check.authoring.registry import REGISTRY, load_pack
from theorem_check.errors import ClaimDefinitionError
from theorem_check.model.claims import Instance
from theorem_check.numerics.linalg import is_complex
from theorem_check.numerics.precision import CONTEXTS, FLOAT64, to_float

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "examples" / "matrix_calculus.py"
AB = {"A": ("m", "k"), "B": ("k", "n")}


def _run(claim, seed=0, controls=True):
    return tc.run_claim(claim, seed=seed, controls=controls)


def test_identity_from_strings_is_proved_and_controls_refuted():
    c = tc.identity("demo.sf_transpose", "(A*B).T", "B.T*A.T", shapes=AB, register=False)
    assert set(c.statement.dims.ranges) == {"m", "k", "n"}
    assert c.statement.dims.ranges["m"] == sf.DEFAULT_SIZE
    r = _run(c)
    assert r.verdict is tc.Verdict.PROVED
    assert r.controls and all(x.verdict in (tc.Verdict.REFUTED, tc.Verdict.ILL_POSED) for x in r.controls)


def test_identity_from_sympy_matrix_expressions():
    m, k = sp.symbols("m k", integer=True, positive=True)
    A, B = sp.MatrixSymbol("A", m, k), sp.MatrixSymbol("B", k, m)
    c = tc.identity("demo.sf_trace", sp.Trace(A * B), sp.Trace(B * A), register=False)
    assert set(c.statement.dims.ranges) == {"m", "k"}
    assert _run(c).verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED)
    wrong = tc.identity("demo.sf_trace_wrong", sp.Trace(A * B), 2 * sp.Trace(B * A), register=False)
    assert _run(wrong, controls=False).verdict is tc.Verdict.REFUTED


def test_identity_from_callables():
    c = tc.identity("demo.sf_callable", lambda i, ctx: ctx.T(i.A @ i.B), lambda i, ctx: ctx.T(i.B) @ ctx.T(i.A),
                    shapes=AB, latex=r"(AB)^\top = B^\top A^\top", register=False)
    assert _run(c).verdict is tc.Verdict.VERIFIED


def test_ill_posed_statement_is_a_verdict():
    c = tc.identity("demo.sf_wrong_transpose", "(A*B).T", "A.T*B.T", shapes=AB, register=False)
    r = _run(c, controls=False)
    assert r.verdict is tc.Verdict.ILL_POSED
    assert sum(r.printed.numeric.counterexample.dims.values()) == 4  # smallest non-conforming sizes


def test_one_by_one_side_compares_with_a_scalar_side():
    c = tc.identity("demo.sf_quadratic", "x.T*A*x", "trace(A*x*x.T)", shapes={"A": ("n", "n"), "x": ("n", 1)},
                    register=False)
    assert _run(c).verdict.ok


def _at(v, ctx):
    """An instance value in ``ctx`` as the engine converts it (``sampling.Exact`` rebuilt from its recipe)."""
    if getattr(v, "has_recipe", False):
        return v.at(ctx)
    return ctx.asarray(v) if isinstance(v, np.ndarray) else v


def _structured(kind, n, batch, seed=0):
    c = tc.identity(f"demo.sf_struct_{kind}", "X", "X", shapes={"X": ("n", "n")}, structure={"X": kind},
                    sizes={"n": (n, n)}, register=False, derive=False)
    st = c.statement
    return st, Instance(st.sample(np.random.default_rng(seed), {"n": n}, batch))


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kind", sf.STRUCTURES)
def test_structures_hold_at_every_precision(kind, n):
    st, inst = _structured(kind, n, 4)
    for ctx in CONTEXTS.values():
        with ctx.active():
            X = np.reshape(st.lhs(Instance({k: _at(v, ctx) for k, v in inst.items()}), ctx), (-1, n, n))
            eye = ctx.eye(n)
            checks = {
                "symmetric": lambda: X - ctx.T(X), "spd": lambda: X - ctx.T(X),
                "antisymmetric": lambda: X + ctx.T(X), "orthogonal": lambda: ctx.T(X) @ X - eye,
                "diagonal": lambda: X * (1 - eye), "invertible": lambda: X @ ctx.inv(X) - eye,
                "hermitian": lambda: X - ctx.H(X), "complex": lambda: ctx.imag(X) * 0,
                "positive": lambda: X * (X <= 0),          # no entry <= 0
            }
            if kind in ("hermitian", "complex"):    # complex values in the context's complex arrays
                assert X.dtype == ctx.complex_dtype and is_complex(X), (kind, ctx.name, X.dtype)
            err = float(np.max(to_float(ctx.norm(checks[kind]()))))
        assert err <= 50 * ctx.eps, (kind, ctx.name, err)
        if kind == "spd":       # exactly symmetric, eigenvalues as drawn, in every context
            assert err == 0.0 and inst["X"].has_recipe
    if kind == "spd":
        assert np.all(np.linalg.eigvalsh(inst["X"]) > 0)


def _orthogonal_trace(Q):
    det = np.linalg.det(Q)
    assert np.allclose(det ** 2, 1.0) and (det > 0).any() and (det < 0).any()
    return np.trace(Q, axis1=-2, axis2=-1)[det > 0]      # (reflections at n = 2 have trace 0)


INVARIANTS = {
    "symmetric": charpoly, "spd": charpoly, "diagonal": charpoly,
    "invertible": lambda X: np.hstack([charpoly(X), charpoly(np.swapaxes(X, -1, -2) @ X)[:, :-1]]),
    "antisymmetric": lambda X: charpoly(X)[:, 1::2], "orthogonal": _orthogonal_trace,
    "hermitian": charpoly,     # real coefficients (real spectrum)
    "complex": lambda X: (lambda c: np.hstack([c.real, c.imag]))(np.array([np.poly(x)[1:] for x in X])),
    "positive": lambda X: X.reshape(len(X), -1),   # the entries, each log-uniform and free
}
"""Invariants of each structure that the structure itself leaves free (issue 18, item 2)."""


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kind", sf.STRUCTURES)
def test_structures_are_generic_at_every_size(kind, n):
    """No polynomial relation of degree <= 3 among the free invariants holds across draws, at n = 1, 2, 3."""
    st, inst = _structured(kind, n, DRAWS, seed=n)
    X = np.asarray(st.lhs(inst, FLOAT64))
    F = INVARIANTS[kind]((X if np.iscomplexobj(X) else X.astype(float)).reshape(-1, n, n))
    if n == 1 and kind in ("antisymmetric", "orthogonal"):     # X = 0, Q = +-1
        assert F.size == 0 or relations(F) >= 1
    else:
        assert F.shape[-1] >= 1 and relations(F) == 0, (kind, n)


def test_positive_scalars_spread_over_a_decade():
    c = tc.identity("demo.sf_positive", "a", "a", shapes={"a": ()}, structure={"a": "positive"},
                    register=False, derive=False)
    a = Instance(c.statement.sample(np.random.default_rng(0), {}, DRAWS))["a"]
    assert (a > 10 ** -0.5).all() and (a < 10 ** 0.5).all() and a.max() / a.min() > 8 and relations(a) == 0


def test_gradient_short_form_string_sympy_and_callable():
    shapes = {"A": ("n", "n"), "X": ("n", "n")}
    s = tc.gradient("demo.sf_grad_str", "trace(A*X)", "X", claimed="A.T", shapes=shapes, register=False)
    n = sp.Symbol("n", integer=True, positive=True)
    A, X = sp.MatrixSymbol("A", n, n), sp.MatrixSymbol("X", n, n)
    y = tc.gradient("demo.sf_grad_sympy", sp.Trace(A * X), "X", claimed=A.T, register=False)
    f = tc.gradient("demo.sf_grad_callable", lambda i, ctx: ctx.trace(i.A @ i.X), "X",
                    claimed=lambda i, ctx: ctx.T(i.A), shapes=shapes, register=False)
    for c in (s, y, f):
        r = _run(c)
        assert r.verdict.ok, (c.id, r.evidence)
        assert all(x.verdict.fails for x in r.controls), c.id


def test_gradient_on_symmetric_matrices_is_the_symmetric_gradient():
    shapes = {"A": ("n", "n"), "X": ("n", "n")}
    kw = dict(shapes=shapes, structure={"X": "symmetric"}, sizes={"n": (2, 4)}, register=False)
    good = tc.gradient("demo.sf_symgrad", "trace(A*X)", "X", claimed="(A + A.T)/2", **kw)
    old = tc.gradient("demo.sf_symgrad_old", "trace(A*X)", "X", claimed="A + A.T - hadamard(A, eye(n))", **kw)
    assert _run(good).verdict.ok
    assert _run(old, controls=False).verdict is tc.Verdict.REFUTED
    # callable f: same convention
    cf = tc.gradient("demo.sf_symgrad_callable", lambda i, ctx: ctx.trace(i.A @ i.X), "X",
                     claimed=lambda i, ctx: (i.A + ctx.T(i.A)) / 2, **kw)
    assert _run(cf).verdict.ok


def test_gradient_kinds_jacobian_and_hessian():
    j = tc.gradient("demo.sf_jac", "softmax(z)", "z", claimed="diag(softmax(z)) - softmax(z)*softmax(z).T",
                    kind="jacobian", shapes={"z": ("n", 1)}, register=False)
    h = tc.gradient("demo.sf_hess", "trace(x.T*A*x)", "x", claimed="A + A.T", kind="hessian",
                    shapes={"x": ("n", 1), "A": ("n", "n")}, register=False)
    assert _run(j).verdict.ok and _run(h).verdict.ok
    with pytest.raises(ClaimDefinitionError, match="kind='laplacian'"):
        tc.gradient("demo.sf_bad", "trace(X)", "X", claimed="eye(n)", kind="laplacian", shapes={"X": ("n", "n")},
                    register=False)


def test_erratum_shares_dims_sampler_and_left_side():
    c = tc.erratum("demo.sf_erratum", lhs="(A*B)**-1", printed="A**-1*B**-1", corrected="B**-1*A**-1",
                   shapes={"A": ("n", "n"), "B": ("n", "n")}, structure={"A": "invertible", "B": "invertible"},
                   sizes={"n": (2, 3)}, register=False)
    (fix,) = c.variants
    assert fix.kind == "corrected" and fix.dims == c.statement.dims
    r = _run(c)
    assert r.verdict is tc.Verdict.ERRATUM
    assert r.printed.verdict is tc.Verdict.REFUTED and fix.derivation is not None
    assert all(x.verdict.fails for x in r.controls)


def test_size_letters_of_eye_ones_zeros_and_sizes_need_no_shape():
    """``eye(n)``/``ones(n, m)`` (strings or SymPy) make size letters no shape uses; a ``sizes`` key the
    statement uses as a name declares one; both are drawn over their ranges and the statements decided
    (``2**n = 2*n`` on n in 1..2: VERIFIED on the range, no proof for every n, where it is false)."""
    n = sp.Symbol("n", integer=True, positive=True)
    cases = [("trace(eye(n))", "n", {}, tc.Verdict.PROVED), ("sum(ones(n, m))", "n*m", {}, tc.Verdict.PROVED),
             (sp.Trace(sp.Identity(n)), n, {}, tc.Verdict.PROVED), ("trace(zeros(n, n) + eye(n))", "2*n", {},
                                                                     tc.Verdict.REFUTED),
             ("2**n", "2*n", {"n": (1, 2)}, tc.Verdict.VERIFIED), ("2**n", "2*n", {"n": (1, 4)}, tc.Verdict.REFUTED)]
    for lhs, rhs, sizes, verdict in cases:
        c = tc.identity("demo.sf_eye", lhs, rhs, sizes=sizes, register=False)
        assert "n" in c.statement.dims.ranges, lhs
        assert _run(c, controls=False).verdict is verdict, (lhs, rhs, sizes)


def _assert_defined(claim, defined: bool) -> None:
    """PROVED/VERIFIED exactly when ``defined``; no instance evaluated (a broken statement, exit 2) counts as not."""
    try:
        v = _run(claim, controls=False).verdict
    except tc.TheoremCheckError:
        v = None
    assert (v in (tc.Verdict.PROVED, tc.Verdict.VERIFIED)) is defined, v


@pytest.mark.parametrize("lhs, rhs, shapes, sizes, defined", [
    ("(X.T*X)**-1*X.T*(X*w)", "w", {"X": ("n", "d"), "w": ("d", 1)}, {"n": (1, 2), "d": (3, 4)}, False),
    ("(X.T*X)**-1*X.T*(X*w)", "w", {"X": ("n", "d"), "w": ("d", 1)}, {"n": (4, 5), "d": (2, 3)}, True),
    ("(u*v.T)**-1*(u*v.T)", "eye(n)", {"u": ("n", 1), "v": ("n", 1)}, {"n": (2, 4)}, False),
    ("inv(A*B)*(A*B)", "eye(n)", {"A": ("n", "n"), "B": ("n", "n")}, {}, True),
    # helper-52: singular exactly, invertible after rounding (cond ~1e16 at float64, ~1e50 at mp50): was PROVED
    ("(eye(n) - u*u.T/trace(u.T*u))**-1*(eye(n) - u*u.T/trace(u.T*u))", "eye(n)", {"u": ("n", 1)}, {"n": (2, 3)},
     False),
    ("(eye(n) + u*u.T/trace(u.T*u))**-1*(eye(n) + u*u.T/trace(u.T*u))", "eye(n)", {"u": ("n", 1)}, {"n": (2, 3)},
     True),
])
def test_an_inverse_sympy_cancels_must_still_exist(lhs, rhs, shapes, sizes, defined):
    """SymPy turns ``M**-1*M`` into ``I`` while a side is built: an inverse of a matrix that is never
    invertible (X^T X with fewer rows than columns, a rank-1 u v^T) was PROVED.  The engine evaluates the
    cancelled inverse beside the side: undefined on every instance is no proof."""
    _assert_defined(tc.identity("demo.sf_cancel", lhs, rhs, shapes=shapes, sizes=sizes, register=False), defined)


@pytest.mark.parametrize("seed", range(3))
def test_the_inverse_of_a_matrix_singular_to_working_precision_is_undefined(seed):
    """``(I - u u^T / u^T u)^-1`` exists only by rounding (condition ~1e50 at mp50): the statement that it equals
    ``I + u u^T / u^T u`` was REFUTED on a 1e50 residual; it is undefined there (decision 188).  Its invertible twin
    ``(I + P)^-1 = I - P/2`` stays PROVED."""
    bad = tc.identity("demo.sf_sing", "(eye(n) - u*u.T/trace(u.T*u))**-1", "eye(n) + u*u.T/trace(u.T*u)",
                      shapes={"u": ("n", 1)}, register=False)
    r = tc.run_claim(bad, seed=seed)
    assert r.verdict is tc.Verdict.INCONCLUSIVE and "singular" in r.evidence.lower(), r.evidence
    good = tc.identity("demo.sf_nonsing", "(eye(n) + u*u.T/trace(u.T*u))**-1", "eye(n) - u*u.T/(2*trace(u.T*u))",
                       shapes={"u": ("n", 1)}, register=False)
    assert tc.run_claim(good, seed=seed).verdict is tc.Verdict.PROVED


@pytest.mark.parametrize("lhs, rhs, shapes, structure, sizes, defined", [
    ("x*trace(K)/trace(K)", "x", {"K": ("n", "n")}, {"K": "antisymmetric"}, {}, False),
    ("x*trace(K)/trace(K)", "x", {"K": ("n", "n")}, {}, {}, True),
    ("det(y*y.T)/det(y*y.T)", "1", {"y": ("n", 1)}, {}, {"n": (2, 4)}, False),
    ("det(y*y.T)/det(y*y.T)", "1", {"y": ("n", 1)}, {}, {"n": (1, 1)}, True),
    ("x/det(y*y.T)", "2*x/(2*det(y*y.T))", {"y": ("n", 1)}, {}, {"n": (2, 3)}, False),
    ("x/trace(y.T*A*y)", "x/trace(y.T*A.T*y)", {"y": ("n", 1), "A": ("n", "n")}, {}, {}, True),
])
def test_a_scalar_divisor_that_is_zero_everywhere_leaves_the_statement_undefined(lhs, rhs, shapes, structure, sizes,
                                                                                 defined):
    """SymPy's ``Mul`` cancels ``trace(K)/trace(K)`` while the side is built, and ``x/det(y*y.T)`` on both sides is
    the same huge number at float64: ``x*trace(K)/trace(K) = x`` with ``K`` antisymmetric was VERIFIED (helper-42).
    The engine evaluates each scalar divisor beside the side at mp50 (:mod:`theorem_check.authoring.guards`)."""
    _assert_defined(tc.identity("demo.sf_divisor", lhs, rhs, shapes=shapes, structure=structure, sizes=sizes,
                                register=False), defined)


@pytest.mark.parametrize("lhs, rhs, shapes, structure, defined", [
    ("0*log(-1 - t**2)", "0", {}, {}, False),
    ("log(-1 - t**2) - log(-1 - t**2)", "0", {}, {}, False),
    ("sqrt(-abs(t) - 1)**2", "-abs(t) - 1", {}, {}, False),
    ("exp(log(t))", "t", {}, {}, False),                  # undefined for t < 0, as log(t) = log(t) is
    ("exp(log(t))", "t", {}, {"t": "positive"}, True),
    ("exp(log(z))", "z", {}, {"z": "complex"}, True),     # the principal log of a complex z: complex, defined
    ("0*log(-trace(A))", "0", {"A": ("n", "n")}, {"A": "spd"}, False),
    ("0*log(trace(A))", "0", {"A": ("n", "n")}, {"A": "spd"}, True),
    ("sqrtm(A)*sqrtm(A)", "A", {"A": ("n", "n")}, {"A": "spd"}, True),
])
def test_a_function_call_sympy_removes_must_still_be_defined(lhs, rhs, shapes, structure, defined):
    """SymPy folds ``0*log(-1 - t**2)`` to 0 and ``exp(log(t))`` to ``t`` while the side is built: undefined
    statements were PROVED (helper-43).  The engine evaluates the removed call beside the side
    (:mod:`theorem_check.authoring.guards`): where it is not a finite real number the instance is undefined."""
    _assert_defined(tc.identity("demo.sf_domain", lhs, rhs, shapes=shapes, structure=structure, register=False), defined)


BAD_DEFS = [
    (dict(structure={"A": "spd"}), "needs a square shape"),
    (dict(structure={"A": "weird"}), "must be one of"),
    (dict(structure={"Z": "spd"}), "which no shape or side uses"),
    (dict(sizes={"z": (1, 3)}), "names no size letter"),
    (dict(shapes={"A": ("m",), "B": ("k", "n")}), r"must be \(rows, cols\)"),
    (dict(shapes={"A": (0, 2), "B": ("k", "n")}), "must be >= 1"),
    (dict(sizes={"m": (3, 1)}), "dims range"),
]


@pytest.mark.parametrize("kw,message", BAD_DEFS, ids=[m.replace("\\", "") for _, m in BAD_DEFS])
def test_bad_definitions_fail_at_definition_time(kw, message):
    args = dict(shapes=AB, register=False, **{k: v for k, v in kw.items() if k != "shapes"})
    if "shapes" in kw:
        args["shapes"] = kw["shapes"]
    with pytest.raises(ClaimDefinitionError, match=message):
        tc.identity("demo.sf_bad", "(A*B).T", "B.T*A.T", **args)


def test_unsupported_sympy_node_fails_at_definition_time():
    x = sp.Symbol("x")
    with pytest.raises(ClaimDefinitionError, match="floor"):
        tc.identity("demo.sf_floor", sp.floor(x), x, register=False)


# ------------------------------------------------------------------------------------------------
# the gallery
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gallery():
    """The gallery's claims, loaded once and unregistered afterwards (other tests iterate the registry)."""
    mine = [c for c in REGISTRY if c.paper == "calculus"]
    yield mine or load_pack(GALLERY)
    if not mine:
        REGISTRY.unregister_paper("calculus")


def test_gallery_has_25_cases_of_at_most_5_lines_each(gallery):
    tree = ast.parse(GALLERY.read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "case"]
    assert len(calls) >= 25
    assert all(c.end_lineno - c.lineno + 1 <= 5 for c in calls)
    assert len(gallery) == len(calls)


def _check_gallery(claims, seed):
    bad = []
    for c in claims:
        r = tc.run_claim(c, seed=seed)
        fix = r.variants[0]
        if not (r.verdict is tc.Verdict.ERRATUM and r.printed.verdict.fails and fix.verdict.ok):
            bad.append(f"{c.id}: {r.verdict.value}; printed {r.printed.verdict.value}: {r.printed.evidence}; "
                       f"corrected {fix.verdict.value}: {fix.evidence}")
    return bad


def test_gallery_seed_0(gallery):
    """Every gallery identity VERIFIED/PROVED, every wrong variant REFUTED/ILL-POSED (one seed, fast)."""
    assert _check_gallery(gallery, 0) == []


@pytest.mark.slow
@pytest.mark.parametrize("first", range(1, 51, 10))
def test_gallery_50_seeds(gallery, first):
    """The same on 50 seeds, 10 per test (pytest-xdist spreads them over the cores; marked slow)."""
    bad = [f"seed {s}: {line}" for s in range(first, first + 10) for line in _check_gallery(gallery, s)]
    assert bad == []


def test_gradient_wrt_a_name_f_does_not_have_is_a_definition_error():
    """A typo in wrt (no shape, not in f) is one ClaimDefinitionError naming it, not an ILL-POSED run."""
    import pytest as _pytest

    import theorem_check as tc
    from theorem_check.errors import ClaimDefinitionError

    with _pytest.raises(ClaimDefinitionError, match="wrt='Y' is not a variable of f='trace"):
        tc.gradient("sc.typo", "trace(X)", wrt="Y", claimed="eye(n)", shapes={"X": ("n", "n")}, register=False)
    assert tc.gradient("sc.scalar", "x**2", wrt="x", claimed="2*x", register=False).id == "sc.scalar"


@pytest.mark.parametrize("f, claimed, want", [
    # SymPy 1.14's diff(tr(XA) + tr(XB), X) is ZeroMatrix: a false statement must not be PROVED through it
    ("trace(X*A) + trace(X*B)", "zeros(n, n)", "REFUTED"),
    ("trace(X*A) + trace(X*B)", "A.T + B.T", "PROVED"),
    ("trace(X*X.T) + trace(X.T*A)", "2*X + A", "PROVED"),
    ("trace(X*X.T) + trace(X.T*A)", "2*X", "REFUTED"),
])
def test_gradients_of_sums_are_checked_before_they_prove(f, claimed, want):
    """Issue 18 (metamorphic test, D3): a SymPy derivative becomes a derivation only when it agrees
    exactly with the entrywise derivative at a concrete size."""
    c = tc.identity("mine.gradsum", f"grad({f}, X)", claimed,
                    shapes={"X": ("n", "n"), "A": ("n", "n"), "B": ("n", "n")}, register=False)
    assert tc.run_claim(c, seed=0, trials=4).verdict.value == want


@pytest.mark.parametrize("make", [
    lambda: tc.identity("sf.exp_id", "(A*B).T", "A.T*B.T", shapes=AB, expected="ill-posed", register=False),
    lambda: tc.gradient("sf.exp_grad", "trace(X)", wrt="X", claimed="X", shapes={"X": ("n", "n")},
                        expected="refuted", register=False),
    lambda: tc.erratum("sf.exp_err", lhs="(A*B).T", printed="A.T*B.T", corrected="B.T*A.T", shapes=AB,
                       expected="erratum", register=False),
], ids=["identity", "gradient", "erratum"])
def test_short_forms_take_expected_as_claim_does(make):
    """Issue 23: tc.erratum(..., expected="erratum") raised TypeError."""
    from theorem_check.plugins.pytest import expected_verdict

    claim = make()
    assert expected_verdict(claim) is tc.run_claim(claim, seed=0, trials=4).verdict


# issue 19: the gallery's corrected forms outside matrix calculus are proved for all sizes by the normal form
# (gradients, Jacobians and Hessians are the index-form work; det(expm(A)) = exp(tr A) is not rational)
NORMAL_FORM_PROVED = ("transpose_product", "inverse_product", "trace_cyclic", "orthogonal_inverse",
                      "sherman_morrison", "determinant_lemma", "vec_axb", "kron_inverse", "kron_det")


def test_gallery_corrected_forms_proved_by_the_normal_form(gallery):
    from theorem_check.engine.symbolic import check_derivation
    from theorem_check.expr.matrix_proof import ROUTES

    by_id = {c.id: c for c in gallery}
    for label in NORMAL_FORM_PROVED:
        fix = by_id[f"calculus.{label}"].variants[0]
        assert fix.derivation is not None, label
        sym = check_derivation(fix.derivation())
        assert sym.closed and sym.certified and sym.general, (label, sym)
        assert sym.steps[0].method in ROUTES, (label, sym.steps[0].method)
# --- derivatives in closed form (issue 19, item 3): a derivation is attached exactly when claimed = derived ---
@pytest.mark.parametrize("lhs,rhs,shapes,structure,attached", [
    ("grad(trace(X.T*A*X), X)", "(A + A.T)*X", {"X": ("n", "m"), "A": ("n", "n")}, {}, True),
    ("grad(trace(X.T*A*X), X)", "2*A*X", {"X": ("n", "m"), "A": ("n", "n")}, {}, False),
    ("grad(log(det(X)), X)", "X**-1", {"X": ("n", "n")}, {"X": "spd"}, True),
    ("grad(log(det(X)), X)", "2*X**-1 - hadamard(X**-1, eye(n))", {"X": ("n", "n")}, {"X": "spd"}, False),
    ("grad(trace(A*X), X)", "(A + A.T)/2", {"X": ("n", "n"), "A": ("n", "n")}, {"X": "symmetric"}, True),
    ("grad(trace(A*X), X)", "A", {"X": ("n", "n"), "A": ("n", "n")}, {"X": "symmetric"}, False),
    ("jacobian(A*x, x)", "A", {"x": ("n", 1), "A": ("n", "n")}, {}, True),
    ("jacobian(A*x, x)", "A.T", {"x": ("n", 1), "A": ("n", "n")}, {}, False),
    ("hessian(x.T*A*x, x)", "A + A.T", {"x": ("n", 1), "A": ("n", "n")}, {}, True),
    ("hessian(x.T*A*x, x)", "2*A", {"x": ("n", 1), "A": ("n", "n")}, {}, False),
    ("grad(trace(A*expm(X)), X)", "expm(X).T*A.T", {"X": ("n", "n"), "A": ("n", "n")}, {}, False),  # no rule
    ("grad(softplus(t), t)", "sigmoid(t)", {"t": ()}, {}, True),           # a scalar variable: SymPy's diff
    ("grad(softplus(t), t)", "1/(1 + exp(t))", {"t": ()}, {}, False),
])
def test_closed_form_derivatives_attach_a_derivation(lhs, rhs, shapes, structure, attached):
    c = tc.identity("demo.closed_form", lhs, rhs, shapes=shapes, structure=structure, register=False)
    assert (c.statement.derivation is not None) is attached
    if attached:
        (step,) = c.statement.derivation().steps
        assert "closed form" in step.why


def test_a_sympy_failure_in_the_symmetric_rewrite_is_no_proof_not_a_crash():
    """Found by the metamorphic test once its CI shards drew distinct examples: SymPy's Kronecker
    canonicalisation raised AttributeError on ``(2 A B)^-1`` of 1 x 1 matrices while the sides were rewritten
    for the spd ``C`` (an internal error, exit 3, for a false statement).  Now that route gives no proof and
    the numeric stage decides: the slip is REFUTED and the true statement still PROVED."""
    kw = dict(shapes={"A": (1, 1), "B": (1, 1), "C": ("n", "n")}, sizes={"n": (1, 3)}, register=False,
              structure={"A": "invertible", "B": "invertible", "C": "spd"})
    verdicts = [tc.run_claim(tc.identity("t.kron", "kron(A*B, C)**-1", rhs, **kw), seed=0, trials=4).verdict
                for rhs in ("kron((A*B)**-1, C**-1)", "kron((2*A*B)**-1, C**-1)")]
    assert verdicts == [tc.Verdict.PROVED, tc.Verdict.REFUTED]


@pytest.mark.parametrize("lhs, rhs, shapes, structure, searched, verdict", [
    # false at a generic instance: no derivation is searched (SymPy's simplify is not run), REFUTED numerically
    ("trace(cos(A)*B)", "trace(B*cos(A.T))", {"A": ("n", "n"), "B": ("n", "n")}, None, False, "REFUTED"),
    ("(A*B).T", "A.T*B.T", {"A": ("n", "n"), "B": ("n", "n")}, None, False, "REFUTED"),
    # true: searched and proved, also where both sides vanish (the probe's gap is rounding of a zero)
    ("(A*B).T", "B.T*A.T", {"A": ("n", "n"), "B": ("n", "n")}, None, True, "PROVED"),
    ("x.T*A*x", "0*x.T*x", {"A": ("n", "n"), "x": ("n", 1)}, {"A": "antisymmetric"}, True,
     "PROVED"),   # searched; both sides vanish numerically, and the normal form proves it (s = s^T = -s)
    ("(A + 10**8*B)*C - 10**8*B*C", "A*C", {"A": ("n", "n"), "B": ("n", "n"), "C": ("n", "n")}, None, True,
     "PROVED"),
])
def test_a_statement_false_at_a_generic_instance_gets_no_derivation_search(lhs, rhs, shapes, structure, searched,
                                                                            verdict, monkeypatch):
    """Design decision 117: the mp50 probe skips the derivation search of a statement that is false at a
    generic instance (nothing could close), and never of a true one."""
    calls = []
    real = sf.derivation
    monkeypatch.setattr(sf, "derivation", lambda *a: calls.append(1) or real(*a))
    kw = {"structure": structure} if structure else {}
    claim = tc.identity("t.probe", lhs, rhs, shapes=shapes, sizes={"n": (1, 4)}, register=False, **kw)
    assert (claim.statement.derivation is not None) is searched and not calls   # searched when it runs
    assert tc.run_claim(claim, seed=0, trials=4).verdict.value.upper() == verdict
    assert bool(calls) is searched


@pytest.mark.parametrize("rhs, false", [("2*trace(c.T*x)*c", False), ("trace(c.T*x)*c", True),
                                        ("2*trace(c.T*x)*x", True)])
def test_the_probe_of_a_large_gradient_goes_along_random_directions(rhs, false, monkeypatch):
    """A gradient by a 40-vector (more than 16 entries): the probe compares the sides along the engine's random
    directions (a few forward passes, not one per entry) and still tells a false statement from a true one."""
    from theorem_check.engine import projection

    seen = []
    real = projection.projected_sides
    monkeypatch.setattr(projection, "projected_sides", lambda *a, **k: seen.append(1) or real(*a, **k))
    st = tc.identity("t.probe_dir", "grad(trace(c.T*x)**2, x)", rhs, shapes={"c": ("n", 1), "x": ("n", 1)},
                     sizes={"n": (40, 40)}, register=False, derive=False).statements()[0]
    assert sf._false_at_a_generic_instance(st) is false
    assert seen


def test_a_scalar_derivative_sympy_cannot_take_is_no_proof_not_a_crash():
    """A new user's report: ``sympy.diff`` raises NotImplementedError for ``tr(A expm(t B))`` by the scalar ``t``;
    the short form's derivation search let it escape (internal error, exit 3, for a true statement).  Now that
    route gives no proof and the numeric stage decides: VERIFIED, and the slip without ``B`` REFUTED."""
    kw = dict(shapes={"A": ("n", "n"), "B": ("n", "n")}, sizes={"n": (2, 3)}, register=False)
    verdicts = [tc.run_claim(tc.identity("t.expm", "grad(trace(A*expm(t*B)), t)", rhs, **kw), seed=0,
                             trials=4).verdict for rhs in ("trace(A*B*expm(t*B))", "2*trace(A*B*expm(t*B))")]
    assert verdicts == [tc.Verdict.VERIFIED, tc.Verdict.REFUTED]


@pytest.mark.parametrize("lhs, rhs, structure, verdict", [
    ("grad(trace(x.T*K*x), x)", "zeros(n,1)", {"K": "antisymmetric"}, "PROVED"),   # was INCONCLUSIVE (vacuous)
    ("grad(trace(x.T*K*x), x)", "2*K*x", {"K": "antisymmetric"}, "REFUTED"),
    ("grad(trace(Q.T*A*Q), A)", "Q*Q.T", {"Q": "orthogonal"}, "PROVED"),
])
def test_a_structured_constant_does_not_stop_the_closed_form_derivative(lhs, rhs, structure, verdict):
    """helper-33: the closed-form derivative was refused when any matrix of the statement had a structure other than
    symmetric/spd; only the variable's structure changes a derivative (a constant's does not), so ``x^T K x`` with
    ``K`` antisymmetric gets ``(K + K^T) x``, which the normal form proves 0."""
    shapes = {"x": ("n", 1), "K": ("n", "n"), "Q": ("n", "n"), "A": ("n", "n")}
    used = {k: v for k, v in shapes.items() if k in lhs + rhs}
    claim = tc.identity("t.structured_constant", lhs, rhs, shapes=used, structure=structure, register=False)
    assert tc.run_claim(claim, seed=0, trials=4).verdict.value.upper() == verdict


def test_a_callable_side_of_one_by_one_meets_a_string_side():
    """helper-56: ``tc.identity(id, lambda i, c: i.X, "X")`` was ILL-POSED at n = 1 ("lhs has shape (1, 1), rhs has
    shape ()"): an expression side's 1 x 1 value is a scalar.  Both are the same 1 x 1 matrix."""
    shapes = {"X": ("n", "n")}
    assert tc.run_claim(tc.identity("t.cs", lambda i, c: i.X, "X", shapes=shapes, register=False),
                        seed=0).verdict is tc.Verdict.VERIFIED
    assert tc.run_claim(tc.identity("t.cs2", lambda i, c: i.X, "2*X", shapes=shapes, register=False),
                        seed=0).verdict is tc.Verdict.REFUTED


def test_a_shapes_key_no_side_uses_is_a_warning():
    """helper-74: ``shapes={"A": ..., "b": ...}`` for sides in A and B read B as a scalar and ``A*B = B*A`` was PROVED
    with nothing said; a ClaimWarning names the key and the name it resembles (a warning: packs still load; a shared
    shapes dict whose unused keys resemble no unshaped name is not warned about)."""
    import warnings

    from theorem_check.errors import ClaimWarning

    with pytest.warns(ClaimWarning, match=r"shapes names 'b', which no side uses, .* read as a scalar \(did you mean "
                                          r"'B'\?\)"):
        tc.identity("test.typo", "A*B", "B*A", shapes={"A": ("n", "n"), "b": ("n", "n")}, register=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClaimWarning)
        tc.identity("test.no_typo", "A*B", "B*A", shapes={"A": ("n", "n"), "B": ("n", "n")}, register=False)
        shared = {"A": ("n", "n"), "B": ("n", "n"), "X": ("n", "n")}   # one dict for a family of claims: no warning
        tc.identity("test.shared", "trace(X*A)", "trace(A*X)", shapes=shared, register=False)
        tc.identity("test.callable", lambda i, c: i.A, "A", shapes={"A": ("n", "n"), "b": ("n", "n")}, register=False)
