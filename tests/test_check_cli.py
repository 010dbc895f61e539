"""`theorem-check check "LHS = RHS"`: the two required examples, JSON, exit codes, one-line bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from theorem_check.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run_main(capsys, *args):
    """The CLI in-process (same entry point as the console script): (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_required_example_gradient_verified():
    p = subprocess.run([sys.executable, "-m", "theorem_check", "check", "grad(trace(X*X*B), X) = (X*B + B*X).T",
                        "--shape", "X=n,n", "--shape", "B=n,n"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "VERIFIED" in p.stdout or "PROVED" in p.stdout


def test_required_example_transpose_not_verified():
    p = subprocess.run([sys.executable, "-m", "theorem_check", "check", "(A*B).T = A.T*B.T",
                        "--shape", "A=m,k", "--shape", "B=k,n"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 1, p.stderr
    assert "ILL-POSED" in p.stdout or "REFUTED" in p.stdout
    assert p.stderr == ""


def test_json_record(capsys):
    code, out, _ = run_main(capsys, "check", "grad(log(det(X)), X) = X**-1", "--shape", "X=n,n", "--assume",
                            "X=spd", "--json", "--seed", "3", "--controls")
    rec = json.loads(out)
    assert code == 0 and rec["kind"] == "check" and rec["statement"] == "grad(log(det(X)), X) = X**-1"
    assert rec["shapes"] == {"X": ["n", "n"]} and rec["assume"] == {"X": "spd"} and rec["sizes"] == {"n": [1, 4]}
    assert rec["exit_code"] == 0 and rec["seed"] == 3
    (claim,) = rec["claims"]
    assert claim["id"] == "check.statement" and claim["verdict"] in ("VERIFIED", "PROVED")
    assert claim["control_results"] and all(c["verdict"] in ("REFUTED", "ILL-POSED") for c in claim["control_results"])


def test_refuted_shows_smallest_counterexample(capsys):
    code, out, _ = run_main(capsys, "check", "grad(trace(X.T*A*X), X) = 2*A*X", "--shape", "X=n,m",
                            "--shape", "A=n,n")
    assert code == 1 and "REFUTED" in out and "counterexample dims" in out


def test_same_seed_same_output(capsys):
    args = ("check", "trace(A*B) = trace(B*A)", "--shape", "A=m,k", "--shape", "B=k,m", "--json", "--seed", "9")
    strip = lambda s: [c["printed_result"]["numeric"]["instances"] for c in json.loads(s)["claims"]]
    a = strip(run_main(capsys, *args)[1])
    b = strip(run_main(capsys, *args)[1])
    assert a == b


@pytest.mark.parametrize("args,expected", [
    (("Q.T*Q = eye(n)", "--shape", "Q=n,n", "--assume", "Q=orthogonal"), 0),
    (("x.T*A*x = trace(A*x*x.T)", "--shape", "A=n,n", "--shape", "x=n,1"), 0),
    (("trace(c*A) = c*trace(A)", "--shape", "A=n,n"), 0),
    (("det(A*B) = det(A)*det(B)", "--shape", "A=n,n", "--shape", "B=n,n", "--size", "n=2:3"), 0),
    (("A*B = B*A", "--shape", "A=n,n", "--shape", "B=n,n"), 1),
    (("A*B = B*A", "--shape", "A=2,3", "--shape", "B=3,2"), 1),
    (("log(c) = 2", "--assume", "c=positive"), 1),
    # issue 23: statements of constants only (no name) are statements, not an IndexError (exit 2)
    (("pi = 3",), 1),
    (("1 = 1",), 0),
    (("1 + 1 = 2",), 0),
    (("E = 2",), 1),
    (("exp(1) = E",), 0),
    (("I*A = A", "--shape", "I=n,n", "--shape", "A=n,n"), 1),   # a shaped I is a matrix like any name
])
def test_verdict_exit_codes(capsys, args, expected):
    code, out, err = run_main(capsys, "check", *args)
    assert code == expected, out + err


BAD = [
    (("trace(A*B = A",), "unbalanced parenthesis"),
    (("A + = A",), "parse error at"),
    (("A + * B = A",), "parse error at '*'"),
    (("A = A = A",), "exactly one '='"),
    (("A*B",), "exactly one '='"),
    (("foo(A) = A",), "unknown function 'foo'"),
    (("c.T = A",), "'c' is used as a matrix"),
    (("A $ B = A",), "unexpected token '$'"),
    (("A = A", "--shape", "A=n"), "must give two sizes"),
    (("A = A", "--shape", "A=0,2"), "must be >= 1"),
    (("A = A", "--shape", "A=n,-1"), "must be a positive integer or a letter"),
    (("A = A", "--shape", "An,n"), "must read NAME=ROWS,COLS"),
    (("A = A", "--shape", "A=n,n", "--shape", "A=m,m"), "given twice"),
    (("A = A", "--shape", "A=n,n", "--shape", "B=n,n"), "'B', which the statement does not use"),
    (("A = A", "--shape", "A=n,m", "--assume", "A=spd"), "needs a square shape"),
    (("A = A", "--shape", "A=n,n", "--assume", "A=weird"), "KIND='weird' must be one of"),
    (("A = B", "--shape", "A=n,n", "--assume", "B=spd"), "has no --shape"),
    (("A = A", "--shape", "A=n,n", "--size", "m=2:3"), "no size letter"),
    (("A = A", "--shape", "A=n,n", "--size", "n=3:2"), "1 <= LO <= HI"),
    # an exact power of two numbers with more than 100,000 bits: it ran for hours past --timeout (parsed first)
    (("x = 10**10**10",), "10**10000000000: an exact power of about 4e+10 bits"),
    (("(1 + 1e-60)**(10**70) = 1",), "(a 61-digit/61-digit fraction)**1e+70: an exact power"),
    (("x = 2**(2**40)",), "2**1099511627776: an exact power"),
    (("A = A", "--shape", "A=n,n", "--trials", "0"), "Invalid value for '--trials'"),
    # issue 23: SymPy's special values are no numbers a side can take
    (("nan = nan",), "'nan' is not a number"),
    (("oo = oo",), "'oo' is not a number"),
    (("oo = 1",), "'oo' is not a number"),
    (("x = inf",), "'inf' is not a number"),     # helper-69: NumPy's spellings were scalar names
    (("x = -NaN",), "'NaN' is not a number"),
    (("2**A = A", "--shape", "A=n,n"), "the exponent A is a n x n matrix"),
    (("A**B = A", "--shape", "A=n,n", "--shape", "B=n,n"), "the exponent B is a n x n matrix"),
    (("A**(k/2)*A**(k/2) = A**k", "--shape", "A=n,n", "--size", "k=1:4"), "k/2 is not"),     # helper-70
    (("zoo = 1",), "'zoo' is not a number"),
    (("x/0 = x/0",), "'x/0' is not a number"),
    (("0/0 = 1",), "'0/0' is not a number"),
    (("I*I = -1",), "'I' is SymPy's imaginary unit"),
    # issue 23: sizes whose instances cannot fit are refused up front, with the estimate
    (("A = A", "--shape", "A=n,n", "--size", "n=1:100000"), "--size: the largest sizes (n=100000) need about"),
    (("A = A", "--shape", "A=100000,100000"), "--shape: the sizes A=100000,100000 need about"),
    (("A = A", "--shape", "A=n,n", "--timeout", "-1"), "Invalid value for '--timeout'"),
    (("A = A", "--shape", "A=n,n", "--color", "sometimes"), "Invalid value for '--color'"),
    # helper-36 (stop 38): a repeated --size silently used the last one; a matrix called like a function; a
    # statement starting with '-' read as an option, now with the hint
    (("det(X) = 0", "--shape", "X=n,n", "--size", "n=3", "--size", "n=4"), "--size 'n' is given twice"),
    (("X(1) = X", "--shape", "X=n,n"), "'X' is a matrix, not a function"),
    (("-X*X = X", "--shape", "X=n,n"), "a statement that starts with '-' goes last, after '--'"),
    # helper-38 (stop 39): special values as size names, size-0 constants, functions with the wrong number of
    # arguments (Python's "_trace() takes 1 positional argument"), a matrix over an identically zero scalar
    (("A = A", "--shape", "A=nan,2"), "size 'nan' is not a number"),
    (("A = A", "--shape", "A=inf,2"), "size 'inf' is not a number"),
    (("A = A", "--shape", "A=pi,2"), "size 'pi' is a constant"),
    (("A = A", "--shape", "A=trace,2"), "size 'trace' is a function"),
    (("eye(0) = eye(0)",), "eye(...) needs sizes that are integers >= 1, got 0"),
    (("zeros(2, 0) = zeros(2, 0)",), "zeros(...) needs sizes that are integers >= 1, got 0"),
    (("kron(A) = A", "--shape", "A=n,n"), "kron(...) takes 2 or more arguments, got 1"),
    (("hadamard(A) = A", "--shape", "A=n,n"), "hadamard(...) takes 2 or more arguments, got 1"),
    (("trace(A, A) = 1", "--shape", "A=n,n"), "trace(...) takes 1 argument, got 2"),
    (("zeros(2) = eye(2)",), "zeros(...) takes 2 arguments, got 1"),
    (("det() = 1",), "det(...) takes 1 argument, got 0"),
    (("(x-x)/trace((x-x).T*(x-x)) = x-x", "--shape", "x=n,1"), "a division by zero"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_one_line_exit_2(capsys, args, message):
    code, out, err = run_main(capsys, "check", *args)
    assert code == 2, out + err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_latex_input_is_read_by_the_reader_of_the_default_install(capsys):
    """--latex needs no extra package (lark is a default dependency) and prints no third-party warning:
    stderr is our one-line note with the reading (tests/cli/test_check_latex.py has the paper statements)."""
    code, out, err = run_main(capsys, "check", "--latex", r"\sin(x)^2 + \cos(x)^2 = 1", "--where", r"x \in \mathbb{R}")
    assert code == 0 and ("VERIFIED" in out or "PROVED" in out)
    assert err.strip() == "theorem-check: note: read as sin(x)**2 + cos(x)**2 = 1"
    code, out, err = run_main(capsys, "check", "--latex", "A B = B A", "--shape", "A=n,n", "--shape", "B=n,n")
    assert code == 1 and "REFUTED" in out


@pytest.mark.parametrize("statement,assume", [
    ("(A*A)**(1/2) = A", ()),                        # SymPy folds (A**2)**(1/2) to A: false for matrices
    ("((-A)*(-A))**(1/2) = -A", ("--assume", "A=spd")),
    ("(A**4)**(1/2) = A**2", ()),
])
def test_fractional_matrix_powers_are_not_folded(capsys, statement, assume):
    """A fractional power of a product is the principal root of the product as written, never
    SymPy's folded exponent: these false statements are REFUTED, with no symbolic proof attached."""
    code, out, err = run_main(capsys, "check", statement, "--shape", "A=n,n", *assume, "--json")
    rec = json.loads(out)["claims"][0]
    assert code == 1 and rec["verdict"] == "REFUTED", rec["evidence"]
    assert "sympy" not in rec["evidence"]


def test_powers_of_products_are_evaluated_as_typed(capsys):
    """(A*B)**-1 is the inverse of the product, not SymPy's rewrite B**-1*A**-1: the wrong order
    is REFUTED and the printed statement keeps the user's left side."""
    shapes = ("--shape", "A=n,n", "--shape", "B=n,n", "--assume", "A=invertible", "--assume", "B=invertible")
    code, out, _ = run_main(capsys, "check", "(A*B)**-1 = A**-1*B**-1", *shapes, "--json")
    assert code == 1 and json.loads(out)["claims"][0]["verdict"] == "REFUTED"
    from theorem_check import expr as ex

    e = ex.parse("(A*B)**-1", {"A": ("n", "n"), "B": ("n", "n")})
    assert type(e).__name__ == "MatPow" and type(e.args[0]).__name__ == "MatMul"
    assert ex.parse("(A*A)**(1/2)", {"A": ("n", "n")}) != ex.parse("A", {"A": ("n", "n")})


def test_a_name_without_a_shape_is_a_scalar_and_the_user_is_told(capsys):
    """`A*B = B*A` with only A shaped is true (B is a scalar): the verdict stands, with a note on stderr."""
    code, out, err = run_main(capsys, "check", "A*B = B*A", "--shape", "A=n,n")
    assert code == 0 and "note: B has no --shape: taken as real scalar" in err
    code, out, err = run_main(capsys, "check", "A*B = B*A", "--shape", "A=n,n", "--shape", "B=n,n")
    assert code == 1 and "note:" not in err


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("statement,sizes", [("det(X) = 1", "n=1:2"),
                                             ("grad(log(det(X)), X) = X**-1 + (X - eye(n))", "n=1:1")])
def test_false_on_generic_spd_refuted_at_sizes_1_and_2(capsys, statement, sizes, seed):
    """Issue 18, item 2: the old spd spectrum was X = 1 at n = 1 and det X = 1 at n = 2, where both hold."""
    code, out, _ = run_main(capsys, "check", statement, "--shape", "X=n,n", "--assume", "X=spd", "--size", sizes,
                            "--seed", str(seed), "--json")
    (claim,) = json.loads(out)["claims"]
    assert code == 1 and claim["verdict"] == "REFUTED", claim["evidence"]


def test_log_det_of_a_product_of_spd_verified_at_size_2(capsys):
    """Issue 18, item 2: true, but both sides vanished on the old det = 1 spectrum at n = 2 (REFUTED, 8.1e-01)."""
    code, out, _ = run_main(capsys, "check", "trace(logm(A*B)) = trace(logm(A)) + trace(logm(B))", "--shape", "A=n,n",
                            "--shape", "B=n,n", "--assume", "A=spd", "--assume", "B=spd", "--size", "n=2:2", "--json")
    (claim,) = json.loads(out)["claims"]
    assert code == 0 and claim["verdict"] in ("VERIFIED", "PROVED"), claim["evidence"]


def test_instance_estimate_counts_float64_batches_and_mp50_entries():
    from theorem_check.cli.check import MP50_ENTRY_BYTES, check_fits, instance_bytes
    from theorem_check.errors import InvalidArgument

    f64, mp, top = instance_bytes({"A": ("n", "n"), "x": ("n", 1)}, {"n": (1, 10)}, trials=16)
    assert top == {"n": 10} and f64 == 110 * 8 * 4 and mp == 110 * MP50_ENTRY_BYTES
    check_fits({"A": ("n", "n")}, {"n": (1, 10)}, 16, memory=10**6)
    with pytest.raises(InvalidArgument, match=r"need about .* more than 1/4 of this machine's 1 MB memory"):
        check_fits({"A": ("n", "n")}, {"n": (1, 100)}, 16, memory=10**6)
    # the matrices the sides build count too (helper-69: A*B of n x 1 by 1 x n at n = 50,000 was killed for memory)
    f64, mp, _ = instance_bytes({"a": ("n", 1), "b": (1, "n")}, {"n": (1, 10)}, 16, sides=("a*b", "a*b"))
    assert f64 == (20 + 100) * 8 * 4 and mp == 120 * MP50_ENTRY_BYTES


def test_a_product_too_large_for_memory_is_refused_before_anything_runs(capsys):
    code, out, err = run_main(capsys, "check", "A*B = A*B", "--shape", "A=50000,1", "--shape", "B=1,50000")
    assert code == 2 and "matrices the sides build" in err and len(err.strip().splitlines()) == 1, err


def test_environment_is_checked_as_by_run(capsys, monkeypatch):
    monkeypatch.setenv("THEOREM_CHECK_BUDGET", "xyz")
    code, out, err = run_main(capsys, "check", "A = A", "--shape", "A=n,n")
    assert code == 2 and "THEOREM_CHECK_BUDGET='xyz'" in err and len(err.strip().splitlines()) == 1


def test_color_option_as_every_command(capsys):
    code, out, _ = run_main(capsys, "check", "A = A", "--shape", "A=n,n", "--color", "never")
    assert code == 0 and "\x1b[" not in out
    code, out, _ = run_main(capsys, "check", "A = A", "--shape", "A=n,n", "--color", "always")
    assert code == 0 and "\x1b[" in out


def test_timeout_makes_a_slow_statement_inconclusive():
    """check runs in process under the time limit of run --jobs 1 (a SIGALRM that stops mpmath).

    Run as a user runs it, in a process of its own: the limit is a SIGALRM timer, which needs the main
    thread and no other pending interval timer; a test process (xdist, earlier tests) guarantees neither,
    and in-process runs of this test once finished unlimited (exit 0) on a loaded machine.

    The statement must take far longer than the limit: ``A^5`` at n = 90 (spd) did until the mp50 stage
    rebuilt spd samples and products in balls (issue 21), then finished inside 0.5 s.  Elementwise
    functions at mp50 stay in mpmath: this one takes 5.7 s unlimited at n = 300 on an idle machine (10x
    the limit), more at n = 400."""
    p = subprocess.run([sys.executable, "-m", "theorem_check", "check",
                        "hadamard(sigmoid(A), sigmoid(A)) = hadamard(sigmoid(A), sigmoid(A))", "--shape", "A=n,n",
                        "--size", "n=400", "--timeout", "0.5", "--json"],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    (claim,) = json.loads(p.stdout)["claims"]
    assert p.returncode == 1 and claim["verdict"] == "INCONCLUSIVE" and "timed out after" in claim["evidence"], p.stderr


def test_counterexample_shows_the_scalar_values(capsys):
    code, out, _ = run_main(capsys, "check", "exp(x) = 1 + x")
    assert code == 1 and "counterexample seed " in out and " at x = " in out and "dims {}" not in out
    code, out, _ = run_main(capsys, "check", "A*c = A", "--shape", "A=n,n")
    assert code == 1 and "counterexample dims {'n': " in out and " at c = " in out


@pytest.mark.parametrize("statement, expected, at", [
    ("trace(eye(n)) = n", 0, None),
    ("sum(ones(n, m)) = n*m", 0, None),
    ("trace(eye(n)) = 2*n", 1, "n=1"),                 # false at every size: the smallest shown
    ("sum(ones(n, 1)) = n**2", 1, "n=2"),              # true at n = 1 only
])
def test_size_letters_of_eye_and_ones_need_no_shape(capsys, statement, expected, at):
    """A letter used only as a size (``eye(n)``, ``ones(n, m)``) is a size letter: it had no value ("size n has
    no value", INCONCLUSIVE, exit 2) when no --shape used it."""
    code, out, err = run_main(capsys, "check", statement, "--json")
    assert code == expected, err
    rec = json.loads(out)["claims"][0]
    assert rec["verdict"] == ("REFUTED" if expected else "PROVED")
    if at:
        assert f"counterexample at {at}" in rec["evidence"]


def test_size_option_declares_a_size_letter_the_shapes_do_not_use(capsys):
    """``--size n=1:4`` makes ``n`` of ``2**n = 2*n`` a size letter (it was refused: no shape uses it); the
    statement holds at n = 1 and 2 and fails at n = 3, 4; a letter the statement does not use stays refused."""
    code, out, err = run_main(capsys, "check", "2**n = 2*n", "--size", "n=1:4", "--json")
    assert code == 1 and "real scalar" not in err
    rec = json.loads(out)
    assert rec["sizes"] == {"n": [1, 4]} and "counterexample at n=3" in rec["claims"][0]["evidence"]
    code, out, err = run_main(capsys, "check", "2**n = 2**n", "--size", "n=1:2")
    assert code == 0, err
    code, out, err = run_main(capsys, "check", "2**n = 2*n", "--size", "k=1:4")
    assert code == 2 and "'k' is no size letter" in err and "Traceback" not in err


def test_a_large_matrix_power_is_decided_not_expanded(capsys):
    """A**10**7 was multiplied out ten million times (numeric stage, magnitude, normal form, forward mode) and
    ran for hours past --timeout; now by squaring (and not expanded symbolically): decided in seconds."""
    code, out, err = run_main(capsys, "check", "A**10000000 = A", "--shape", "A=n,n", "--json")
    assert code == 1 and json.loads(out)["claims"][0]["verdict"] == "REFUTED", err
    code, out, err = run_main(capsys, "check", "A**100 = A**50*A**50", "--shape", "A=n,n")
    assert code == 0, err
    code, out, err = run_main(capsys, "derive", "trace(A**10000000)", "--wrt", "A", "--shape", "A=n,n")
    assert code == 2 and "beyond 64" in err and "Traceback" not in err


def test_a_hermitian_exact_counterexample_is_hermitian(capsys):
    """The exact counterexample drew a general real matrix for a Hermitian A (the verdict was right, the printed
    instance was not one of the statement's hypotheses); a real symmetric matrix is a Hermitian instance."""
    import sympy as sp

    code, out, err = run_main(capsys, "check", "A*B = B*A", "--shape", "A=n,n", "--shape", "B=n,n",
                              "--assume", "A=hermitian", "--assume", "B=hermitian", "--json")
    ex = json.loads(out)["claims"][0]["printed_result"]["exact_counterexample"]
    assert code == 1 and set(ex["values"]) == {"A", "B"}, err
    for name, text in ex["values"].items():
        m = sp.Matrix(sp.sympify(text))
        assert m == m.H, (name, text)


@pytest.mark.parametrize("statement, shapes, assume, verdict", [
    ("grad(x.T*K*x, x) = 0", ["K=n,n", "x=n,1"], ["K=antisymmetric"], "PROVED"),
    ("grad(x.T*K*x, x) = 0", ["K=n,n", "x=n,1"], [], "REFUTED"),          # the negative control: K not antisymmetric
    ("0 = A - A.T", ["A=n,n"], ["A=symmetric"], "PROVED"),
    ("0 = A - A.T", ["A=n,m"], [], "ILL-POSED"),                          # A - A.T itself does not conform
])
def test_zero_against_a_matrix_side_is_the_zero_matrix(capsys, statement, shapes, assume, verdict):
    """helper-48: the user guide's ``grad(x.T*K*x, x) = 0`` was ILL-POSED in the string syntax ("lhs has shape (2, 1),
    rhs has shape ()") though ``--latex`` reads the 0 as the zero vector; now both do, with a note saying so."""
    args = [a for s in shapes for a in ("--shape", s)] + [a for s in assume for a in ("--assume", s)]
    code, out, err = run_main(capsys, "check", statement, *args, "--seed", "0")
    assert verdict in out, out + err
    if verdict != "ILL-POSED":
        assert "zeros(n, " in err and "is the zero matrix" in err, err


@pytest.mark.parametrize("args, verdict", [
    (["sigmoid(x) + sigmoid(-x) = 1", "--shape", "x=n,1"], "VERIFIED"),
    (["sigmoid(x) + sigmoid(-x) = 2", "--shape", "x=n,1"], "REFUTED"),         # the negative control
    (["1/2 = sigmoid(0*x.T)", "--shape", "x=n,1"], "VERIFIED"),
    (["--latex", r"\sigma(x) + \sigma(-x) = 1"], "VERIFIED"),
    (["A*A.T = 1", "--shape", "A=n,n"], "ILL-POSED"),                          # a matrix: the identity or ones?
    (["sigmoid(x) + sigmoid(-x) = 2 - 1", "--shape", "x=n,1"], "VERIFIED"),     # helper-70: constants SymPy folds
    (["sigmoid(x) + sigmoid(-x) = exp(0)", "--shape", "x=n,1"], "VERIFIED"),
    (["softmax(0*x) = 1/n", "--shape", "x=n,1"], "VERIFIED"),                  # a size letter's constant
    (["softmax(x) = 1/n", "--shape", "x=n,1"], "REFUTED"),
    (["sigmoid(A) + sigmoid(-A) = 1", "--shape", "A=n,m"], "VERIFIED"),        # not square: no identity reading
])
def test_a_number_against_a_column_or_row_side_is_that_many_ones(capsys, args, verdict):
    """helper-67: ``sigmoid(x) + sigmoid(-x) = 1`` (x a vector) was ILL-POSED ("lhs has shape (2, 1), rhs has shape
    ()"), though a 0 side is the zero matrix and ``1 - \\sigma(x) = \\sigma(-x)`` was read; against a square matrix a
    number stays as written."""
    code, out, err = run_main(capsys, "check", *args, "--seed", "0")
    assert verdict in out, out + err
    if verdict != "ILL-POSED":
        assert "that many ones" in err, err


@pytest.mark.parametrize("args, verdict", [
    (["A*B - B*A = zeros(n,n)", "--shape", "A=n,n", "--shape", "B=n,n"], "REFUTED"),
    (["A*B - B*A = 0", "--shape", "A=n,n", "--shape", "B=n,n"], "REFUTED"),
    (["A*B*A**-1 - B = zeros(n,n)", "--shape", "A=n,n", "--shape", "B=n,n", "--assume", "A=invertible"], "REFUTED"),
    (["--latex", r"A B - B A = 0"], "REFUTED"),
    (["A*(A*A) - (A*A)*A = zeros(n,n)", "--shape", "A=n,n"], "PROVED"),        # commuting: the statement holds
    (["X/sum(X) = X*ones(n,1)/sum(X)", "--shape", "X=n,n"], "ILL-POSED"),       # n x n against n x 1
    (["softmax(x) = exp(x)/sum(exp(x))", "--shape", "x=n,1"], "VERIFIED"),
    (["A**-1*A = eye(m)", "--shape", "A=n,m"], "ILL-POSED"),      # helper-81: was INCONCLUSIVE (NonSquareMatrixError)
    (["inv(A)*A = eye(m)", "--shape", "A=n,m"], "ILL-POSED"),
])
def test_a_side_that_cancels_only_as_scalars_is_no_number(capsys, args, verdict):
    """helper-77: whether a side is a number was decided with every matrix read as a scalar: ``A*B - B*A`` was the
    number 0, so ``A*B - B*A = zeros(n, n)`` became ``zeros(n, n) = zeros(n, n)`` and was PROVED; ``x/sum(x)`` was the
    number 1 (a true softmax identity ILL-POSED, an ill-posed one PROVED)."""
    code, out, err = run_main(capsys, "check", *args, "--seed", "0")
    assert verdict in out, out + err


@pytest.mark.parametrize("args, verdict", [
    (["hadamard(sqrt(v), sqrt(v)) = v", "--shape", "v=d,1", "--assume", "v=positive"], "VERIFIED"),
    (["hadamard(sqrt(v), sqrt(v)) = 2*v", "--shape", "v=d,1", "--assume", "v=positive"], "REFUTED"),
    (["log(hadamard(V, W)) = log(V) + log(W)", "--shape", "V=m,n", "--shape", "W=m,n", "--assume", "V=positive",
      "--assume", "W=positive"], "VERIFIED"),
    (["log(V + W) = log(V) + log(W)", "--shape", "V=m,n", "--shape", "W=m,n", "--assume", "V=positive",
      "--assume", "W=positive"], "REFUTED"),
    (["--latex", r"\sqrt{v} \odot \sqrt{v} = v", "--where", r"v \in \mathbb{R}^d_{>0}"], "VERIFIED"),
])
def test_entrywise_positive_vectors_and_matrices(capsys, args, verdict):
    """helper-49: Adam-style statements (sqrt of a second-moment vector) were INCONCLUSIVE, the Gaussian draws'
    negative entries undefined, and ``v > 0`` of a vector was refused; ``positive`` now draws any shape entrywise
    positive (log-uniform over a decade, as a positive scalar)."""
    code, out, err = run_main(capsys, "check", *args, "--seed", "0")
    assert verdict in out, out + err


def test_exact_positive_matrices_are_entrywise_positive():
    import random

    from theorem_check.engine.exact import structured_matrix

    m = structured_matrix(random.Random(0), 3, 2, "positive")
    assert m.shape == (3, 2) and all(x > 0 for x in m)


def test_a_quotient_of_columns_says_so(capsys):
    """helper-51: ``u/v`` of two columns said "Power of non-square matrix v" (no power was written)."""
    code, out, err = run_main(capsys, "check", "u/v = u", "--shape", "u=n,1", "--shape", "v=n,1")
    flat = " ".join(out.split())      # the table wraps long evidence at the terminal's width
    assert "ILL-POSED" in flat and "divides by the non-square matrix v" in flat and "hadamard_power(v, -1)" in flat, out


def test_a_counterexample_beyond_the_range_is_shrunk_beyond_it_too(capsys):
    """helper-81: the fifth Newton identity (true for n <= 4) fails from n = 5; the far stage found it at n = 6,
    beyond the default 1..4, and the shrinker, which looked within the range only, reported n = 6."""
    newton5 = ("trace(A)**5 - 10*trace(A)**3*trace(A**2) + 15*trace(A)*trace(A**2)**2 + 20*trace(A)**2*trace(A**3)"
               " - 20*trace(A**2)*trace(A**3) - 30*trace(A)*trace(A**4) + 24*trace(A**5) = 0")
    code, out, err = run_main(capsys, "check", newton5, "--shape", "A=n,n", "--seed", "0", "--json")
    rec = json.loads(out)["claims"][0]["printed_result"]
    assert rec["verdict"] == "REFUTED" and rec["numeric"]["counterexample"]["dims"] == {"n": 5}
