"""`theorem-check derive "EXPR" --wrt X`: Matrix Cookbook forms, each checked by check's engine; JSON; bad input.

Every answer must come back PROVED (SymPy closes ``grad(EXPR, X) = RESULT`` at symbolic sizes, with the
expansion of products) or at least VERIFIED; the table says which is expected today.  Equation numbers:
the Matrix Cookbook, 2012 version (see tests/expr/test_matrix_calculus.py: the forms, not the numbers, are
what is tested).
"""

import json

import pytest
import sympy as sp

from theorem_check import expr as ex
from theorem_check.cli import main
from theorem_check.cli.check import build_claim, parse_shape
from theorem_check.engine.symbolic import simplifies_to_zero
from theorem_check.execution.workers import run_in_process
from theorem_check.model.options import RunOptions


def run_main(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


SQ = ("--shape", "X=n,n")
# (Cookbook eq., EXPR, wrt, shapes, assume, Cookbook form, expected verdict of the check)
CASES = [
    ("49", "det(X)", "X", SQ, (), "det(X)*X.T**-1", "PROVED"),
    ("51", "det(A*X*B)", "X", SQ + ("--shape", "A=n,n", "--shape", "B=n,n"), (), "det(A*X*B)*X.T**-1", "PROVED"),
    ("57", "log(det(X))", "X", SQ, ("--assume", "X=spd"), "X**-1", "PROVED"),
    ("61", "a.T*X**-1*b", "X", SQ + ("--shape", "a=n,1", "--shape", "b=n,1"), (), "-X.T**-1*a*b.T*X.T**-1",
     "PROVED"),
    ("69", "x.T*a", "x", ("--shape", "x=n,1", "--shape", "a=n,1"), (), "a", "PROVED"),
    ("70", "a.T*X*b", "X", ("--shape", "X=n,m", "--shape", "a=n,1", "--shape", "b=m,1"), (), "a*b.T", "PROVED"),
    ("71", "a.T*X.T*b", "X", ("--shape", "X=n,m", "--shape", "a=m,1", "--shape", "b=n,1"), (), "b*a.T", "PROVED"),
    ("81", "x.T*B*x", "x", ("--shape", "x=n,1", "--shape", "B=n,n"), (), "(B + B.T)*x", "PROVED"),
    ("100", "trace(X)", "X", SQ, (), "eye(n)", "PROVED"),
    ("101", "trace(X*A)", "X", SQ + ("--shape", "A=n,n"), (), "A.T", "PROVED"),
    ("102", "trace(A*X*B)", "X", ("--shape", "X=n,m", "--shape", "A=k,n", "--shape", "B=m,k"), (), "A.T*B.T",
     "PROVED"),
    ("103", "trace(A*X.T*B)", "X", ("--shape", "X=n,m", "--shape", "A=k,m", "--shape", "B=n,k"), (), "B*A",
     "PROVED"),
    ("104", "trace(X.T*A)", "X", ("--shape", "X=n,m", "--shape", "A=n,m"), (), "A", "PROVED"),
    ("107", "trace(X*X)", "X", SQ, (), "2*X.T", "PROVED"),
    ("108", "trace(X*X*B)", "X", SQ + ("--shape", "B=n,n"), (), "(X*B + B*X).T", "PROVED"),
    ("109", "trace(X.T*B*X)", "X", ("--shape", "X=n,m", "--shape", "B=n,n"), (), "B*X + B.T*X", "PROVED"),
    ("116", "trace(X.T*X)", "X", ("--shape", "X=n,m"), (), "2*X", "PROVED"),
    ("124", "trace(A*X**-1*B)", "X", SQ + ("--shape", "A=n,n", "--shape", "B=n,n"), (),
     "-(X**-1*B*A*X**-1).T", "PROVED"),
]


def _shapes(args):
    out = {}
    for i in range(0, len(args), 2):
        name, dims = args[i + 1].split("=")
        out[name] = tuple(int(v) if v.isdigit() else v for v in dims.split(","))
    return out


@pytest.mark.parametrize("eq,expr,wrt,shapes,assume,cookbook,expected", CASES, ids=[c[0] for c in CASES])
def test_cookbook(capsys, eq, expr, wrt, shapes, assume, cookbook, expected):
    code, out, err = run_main(capsys, "derive", expr, "--wrt", wrt, *shapes, *assume, "--json")
    rec = json.loads(out)
    assert code == 0, err
    assert rec["kind"] == "derive" and rec["wrt"] == wrt and rec["order"] == 1
    (claim,) = rec["claims"]
    assert claim["verdict"] == expected, (eq, rec["result"], claim["evidence"])
    shp = _shapes(shapes)
    got, want = ex.parse(rec["result"], shp), ex.parse(cookbook, shp)
    if assume:   # the symmetric-domain gradient: compare with X^T = X
        X = next(m for m in got.atoms(sp.MatrixSymbol) | want.atoms(sp.MatrixSymbol) if m.name == wrt)
        want = want.xreplace({sp.Transpose(X): X})
    assert simplifies_to_zero(got - want), f"eq. ({eq}): derive gave {rec['result']}, Cookbook {cookbook}"


def test_text_output_and_latex(capsys):
    code, out, _ = run_main(capsys, "derive", "trace(A*X*B)", "--wrt", "X", "--shape", "X=n,m", "--shape",
                            "A=k,n", "--shape", "B=m,k", "--latex")
    assert code == 0
    assert "A.T*B.T" in out and "LaTeX: A^{T} B^{T}" in out and "checked: grad(trace(A*X*B), X) = A.T*B.T" in out
    assert "PROVED" in out


def test_hessian(capsys):
    code, out, _ = run_main(capsys, "derive", "x.T*A*x", "--wrt", "x", "--shape", "x=n,1", "--shape", "A=n,n",
                            "--order", "2", "--json")
    rec = json.loads(out)
    assert code == 0 and rec["order"] == 2 and rec["statement"].startswith("hessian(x.T*A*x, x) = ")
    assert rec["claims"][0]["verdict"] == "PROVED"


def test_entrywise_and_softmax_verified_at_least(capsys):
    for args in (("trace(A*sigmoid(X))", "--wrt", "X", "--shape", "X=n,n", "--shape", "A=n,n"),
                 ("logsumexp(x)", "--wrt", "x", "--shape", "x=n,1")):
        code, out, err = run_main(capsys, "derive", *args, "--json")
        assert code == 0, err
        assert json.loads(out)["claims"][0]["verdict"] in ("PROVED", "VERIFIED")


@pytest.mark.parametrize("statement,shapes", [
    ("grad(trace(X*A), X) = A", ("X=n,n", "A=n,n")),                    # missing transpose
    ("grad(x.T*B*x, x) = 2*(B + B.T)*x", ("x=n,1", "B=n,n")),          # factor 2
    ("grad(det(X), X) = det(X)*X**-1", ("X=n,n",)),                    # missing transpose
    ("grad(trace(A*X*B), X) = B.T*A.T", ("X=n,n", "A=n,n", "B=n,n")),  # swapped factors
])
def test_wrong_gradients_refuted_never_proved(statement, shapes):
    shp = dict(parse_shape(s) for s in shapes)
    claim = build_claim(statement, shp, {})
    assert claim.statement.derivation is None
    result = run_in_process(claim, options=RunOptions(seed=0, trials=16), timeout=60)
    assert result.results[0].verdict.value == "REFUTED"


@pytest.mark.parametrize("args,needle", [
    (("trace(X)", "--wrt", "Y", "--shape", "X=n,n"), "--wrt 'Y'"),
    (("trace(X)", "--wrt", "X", "--shape", "X=n,n", "--shape", "Z=n,n"), "Z"),
    (("X*X", "--wrt", "X", "--shape", "X=n,n"), "must be a scalar"),
    (("trace(expm(X))", "--wrt", "X", "--shape", "X=n,n"), "Expm"),
    (("trace(X", "--wrt", "X", "--shape", "X=n,n"), "parenthesis"),
    (("trace(X*X)", "--wrt", "X", "--shape", "X=n,n", "--order", "2"), "column vector"),
    (("trace(X*X)", "--wrt", "X", "--shape", "X=n,n", "--order", "3"), "--order"),
])
def test_bad_input_one_line_exit_2(capsys, args, needle):
    code, out, err = run_main(capsys, "derive", *args)
    assert code == 2 and needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_help_has_examples(capsys):
    code, out, _ = run_main(capsys, "derive", "--help")
    assert code == 0 and "Examples:" in out and "--order" in out and "(G + G^T)/2" in out


def test_json_validates(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from theorem_check.output.json_record import schema

    code, out, _ = run_main(capsys, "derive", "log(det(X))", "--wrt", "X", "--shape", "X=n,n", "--assume", "X=spd",
                            "--json")
    rec = json.loads(out)
    jsonschema.Draft202012Validator(schema()).validate(rec)
    assert rec["result"] == "X**-1" and rec["assume"] == {"X": "spd"}


def test_a_wrong_closed_form_is_an_internal_error(capsys, monkeypatch):
    """A closed form that slipped past the exact check (simulated: the rules return A instead of A^T) is
    REFUTED by the engine's check and reported as an internal error (exit 3), never as a result."""
    from theorem_check.expr import matrix_calculus as mc

    monkeypatch.setattr(mc, "gradient", lambda f, X, symmetric=False, check=True: next(
        m for m in f.atoms(sp.MatrixSymbol) if m.name == "A"))
    code, out, err = run_main(capsys, "derive", "trace(X*A)", "--wrt", "X", "--shape", "X=n,n", "--shape", "A=n,n")
    assert code == 3 and "internal error" in err and err.count("\n") == 1
    assert "counterexample" in out and "PROVED" not in out and "VERIFIED" not in out


def test_failed_self_check_is_exit_3(capsys, monkeypatch):
    from theorem_check.errors import InternalError
    from theorem_check.expr import matrix_calculus as mc

    def boom(*a, **k):
        raise InternalError("the closed form disagrees")
    monkeypatch.setattr(mc, "gradient", boom)
    code, _, err = run_main(capsys, "derive", "trace(X)", "--wrt", "X", "--shape", "X=n,n")
    assert code == 3 and err.startswith("theorem-check: internal error: the closed form disagrees")


@pytest.mark.parametrize("args, code, text", [
    (["trace(x)", "--wrt", "x", "--shape", "x=n,1"], 2, "trace of x, which is n x 1, not square"),
    (["trace(softplus(W*x))", "--wrt", "W", "--shape", "W=m,n", "--shape", "x=n,1"], 2, "softplus(W*x), which is m x 1"),
    (["log(trace(x.T*x))", "--wrt", "x", "--shape", "x=n,1", "--order", "2"], 0, "x*x.T"),   # exited 3 (a c(x) M(x) term)
    # the check's sizes in alphabetical order made X.T*X singular (m=2 < n=3); the other order is tried
    (["log(det(X.T*X))", "--wrt", "X", "--shape", "X=m,n", "--size", "m=4:4", "--size", "n=2:2"], 0, "2*X*(X.T*X)**-1"),
])
def test_derive_reports_bad_input_as_input_and_keeps_product_terms(capsys, args, code, text):
    """helper-35: the trace of a non-square matrix was an internal error (exit 3), and Hessians of c(x) M(x) forms
    failed their own check (exit 3): now exit 2 naming the trace, and the Hessian with both terms."""
    got, out, err = run_main(capsys, "derive", *args)
    assert got == code and text in (out + err) and "internal error" not in err, (out, err)
