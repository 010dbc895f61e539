"""`theorem-check check --latex` and `--where`: statements typed as printed in papers and the Matrix
Cookbook get the verdicts of their string-syntax twins (written here by hand, run through the same
engine); bad LaTeX is one line naming the token and its column, exit 2; nothing third-party on stderr."""

import json

import pytest

from theorem_check.cli import main

GOOD = ("PROVED", "VERIFIED")
BAD = ("REFUTED", "ILL-POSED")


def run_main(capsys, *args):
    """The CLI in-process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


# (source, LaTeX as printed, --where, string-syntax twin, its --shape/--assume options, expected verdicts)
PAPER = [
    ("Cookbook, basics: inverse of a product", r"(AB)^{-1} = B^{-1}A^{-1}", r"A, B \in GL(n)",
     "(A*B)**-1 = B**-1*A**-1", ["--shape", "A=n,n", "--shape", "B=n,n", "--assume", "A=invertible",
                                 "--assume", "B=invertible"], GOOD),
    ("Cookbook, basics: transpose of a product", r"(\mathbf{A}\mathbf{B})^T = \mathbf{B}^T\mathbf{A}^T",
     r"A \in \mathbb{R}^{m \times k}, B \in \mathbb{R}^{k \times n}", "(A*B).T = B.T*A.T",
     ["--shape", "A=m,k", "--shape", "B=k,n"], GOOD),
    ("Cookbook, trace: cyclic", r"\operatorname{Tr}(\mathbf{A}\mathbf{B}\mathbf{C}) = \operatorname{Tr}(\mathbf{C}"
     r"\mathbf{A}\mathbf{B})", r"A \in \mathbb{R}^{m\times k}, B \in \mathbb{R}^{k\times l}, C \in \mathbb{R}^{l\times m}",
     "trace(A*B*C) = trace(C*A*B)", ["--shape", "A=m,k", "--shape", "B=k,l", "--shape", "C=l,m"], GOOD),
    ("Cookbook, determinant of a product", r"|\mathbf{A}\mathbf{B}| = |\mathbf{A}||\mathbf{B}|",
     r"A, B \in \mathbb{R}^{n \times n}", "det(A*B) = det(A)*det(B)", ["--shape", "A=n,n", "--shape", "B=n,n"],
     GOOD),
    ("Cookbook, derivative of a log-determinant", r"\frac{\partial \ln|\mathbf{X}|}{\partial \mathbf{X}} = "
     r"(\mathbf{X}^{-1})^T", r"X \succ 0", "grad(log(det(X)), X) = (X**-1).T",
     ["--shape", "X=n,n", "--assume", "X=spd"], GOOD),
    ("Cookbook, derivative of a bilinear form", r"\frac{\partial \mathbf{a}^T\mathbf{X}\mathbf{b}}{\partial "
     r"\mathbf{X}} = \mathbf{a}\mathbf{b}^T", r"a \in \mathbb{R}^m, b \in \mathbb{R}^n, X \in \mathbb{R}^{m\times n}",
     "grad(trace(a.T*X*b), X) = a*b.T", ["--shape", "a=m,1", "--shape", "b=n,1", "--shape", "X=m,n"], GOOD),
    ("Cookbook, derivative of a quadratic form", r"\frac{\partial \mathbf{x}^T\mathbf{B}\mathbf{x}}{\partial "
     r"\mathbf{x}} = (\mathbf{B} + \mathbf{B}^T)\mathbf{x}", r"x \in \mathbb{R}^n, B \in \mathbb{R}^{n \times n}",
     "grad(trace(x.T*B*x), x) = (B + B.T)*x", ["--shape", "x=n,1", "--shape", "B=n,n"], GOOD),
    ("Cookbook, derivative of a trace", r"\frac{\partial}{\partial \mathbf{X}} \operatorname{Tr}(\mathbf{X}"
     r"\mathbf{A}) = \mathbf{A}^T", r"X \in \mathbb{R}^{m\times n}, A \in \mathbb{R}^{n\times m}",
     "grad(trace(X*A), X) = A.T", ["--shape", "X=m,n", "--shape", "A=n,m"], GOOD),
    ("Cookbook, derivative of an inverse inside a trace", r"\nabla_X \operatorname{tr}(A X^{-1}) = "
     r"-X^{-\top} A^\top X^{-\top}", r"X \in GL(n), A \in \mathbb{R}^{n\times n}",
     "grad(trace(A*X**-1), X) = -(X**-1).T*A.T*(X**-1).T",
     ["--shape", "X=n,n", "--shape", "A=n,n", "--assume", "X=invertible"], GOOD),
    ("Cookbook, Frobenius norm (printed with A^H; real A here)",
     r"\left\| \mathbf{A} \right\|_F^2 = \operatorname{Tr}(\mathbf{A}\mathbf{A}^T)",
     r"A \in \mathbb{R}^{m \times n}", "norm2(A)**2 = trace(A*A.T)", ["--shape", "A=m,n"], GOOD),
    ("Cookbook, Woodbury identity", r"(\mathbf{A}+\mathbf{U}\mathbf{C}\mathbf{V})^{-1} = \mathbf{A}^{-1} - "
     r"\mathbf{A}^{-1}\mathbf{U}(\mathbf{C}^{-1}+\mathbf{V}\mathbf{A}^{-1}\mathbf{U})^{-1}\mathbf{V}\mathbf{A}^{-1}",
     r"A \in GL(n), C \in GL(k), U \in \mathbb{R}^{n\times k}, V \in \mathbb{R}^{k\times n}",
     "(A + U*C*V)**-1 = A**-1 - A**-1*U*(C**-1 + V*A**-1*U)**-1*V*A**-1",
     ["--shape", "A=n,n", "--shape", "C=k,k", "--shape", "U=n,k", "--shape", "V=k,n", "--assume", "A=invertible",
      "--assume", "C=invertible"], GOOD),
    ("Cookbook, Kronecker inverse", r"(\mathbf{A} \otimes \mathbf{B})^{-1} = \mathbf{A}^{-1} \otimes \mathbf{B}^{-1}",
     r"A \in GL(m), B \in GL(n)", "kron(A, B)**-1 = kron(A**-1, B**-1)",
     ["--shape", "A=m,m", "--shape", "B=n,n", "--assume", "A=invertible", "--assume", "B=invertible"], GOOD),
    ("Cookbook, vec of a product", r"\operatorname{vec}(\mathbf{A}\mathbf{X}\mathbf{B}) = (\mathbf{B}^T \otimes "
     r"\mathbf{A})\operatorname{vec}(\mathbf{X})",
     r"A \in \mathbb{R}^{m\times k}, X \in \mathbb{R}^{k\times l}, B \in \mathbb{R}^{l\times n}",
     "vec(A*X*B) = kron(B.T, A)*vec(X)", ["--shape", "A=m,k", "--shape", "X=k,l", "--shape", "B=l,n"], GOOD),
    ("Cookbook, Hadamard product inside a trace", r"\operatorname{tr}(A^\top (B \circ C)) = "
     r"\operatorname{tr}((A \circ B)^\top C)", r"A, B, C \in \mathbb{R}^{m \times n}",
     "trace(A.T*hadamard(B, C)) = trace(hadamard(A, B).T*C)",
     ["--shape", "A=m,n", "--shape", "B=m,n", "--shape", "C=m,n"], GOOD),
    ("Frobenius inner product, adjoint of left multiplication", r"\langle A, BC \rangle = \langle B^\top A, C\rangle",
     r"A \in \mathbb{R}^{m\times n}, B \in \mathbb{R}^{m\times k}, C \in \mathbb{R}^{k\times n}",
     "trace(A.T*B*C) = trace((B.T*A).T*C)", ["--shape", "A=m,n", "--shape", "B=m,k", "--shape", "C=k,n"], GOOD),
    ("Gaussian energy gradient (a symmetric covariance)", r"\nabla_{\mathbf{x}} \tfrac{1}{2} \mathbf{x}^\top "
     r"\Sigma^{-1} \mathbf{x} = \Sigma^{-1} \mathbf{x}", r"\Sigma \succ 0, x \in \mathbb{R}^n",
     "grad(trace(x.T*Sigma**-1*x)/2, x) = Sigma**-1*x",
     ["--shape", "Sigma=n,n", "--shape", "x=n,1", "--assume", "Sigma=spd"], GOOD),
    ("an orthogonal map preserves norms", r"\|Q x\|_2 = \|x\|_2", r"Q \in O(n), x \in \mathbb{R}^n",
     "norm2(Q*x) = norm2(x)", ["--shape", "Q=n,n", "--shape", "x=n,1", "--assume", "Q=orthogonal"], GOOD),
    ("deep linear network: gradient of the square loss in the first layer",
     r"\nabla_{W_1} \frac{1}{2}\left\| W_2 W_1 x - y \right\|^2 = W_2^\top (W_2 W_1 x - y) x^\top",
     r"W_1 \in \mathbb{R}^{h \times d}, W_2 \in \mathbb{R}^{k \times h}, x \in \mathbb{R}^d, y \in \mathbb{R}^k",
     "grad(norm2(W_2*W_1*x - y)**2/2, W_1) = W_2.T*(W_2*W_1*x - y)*x.T",
     ["--shape", "W_1=h,d", "--shape", "W_2=k,h", "--shape", "x=d,1", "--shape", "y=k,1"], GOOD),
    ("softmax weights sum to one", r"\mathbf{1}^\top \operatorname{softmax}(\mathbf{z}) = 1",
     r"z \in \mathbb{R}^n", "ones(1, n)*softmax(z) = 1", ["--shape", "z=n,1"], GOOD),
    ("logistic loss gradient", r"\nabla_w \log\left(1 + e^{-y\, w^\top x}\right) = -y\, \sigma(-y\, w^\top x)\, x",
     r"w, x \in \mathbb{R}^d, y \in \mathbb{R}", "grad(log(1 + exp(-y*trace(w.T*x))), w) = -y*sigmoid(-y*trace(w.T*x))*x",
     ["--shape", "w=d,1", "--shape", "x=d,1"], GOOD),
    # printed wrong (negative controls): the same verdict as the twin, and not PROVED/VERIFIED
    ("wrong: inverse of a product in the same order", r"(AB)^{-1} = A^{-1}B^{-1}", r"A, B \in GL(n)",
     "(A*B)**-1 = A**-1*B**-1", ["--shape", "A=n,n", "--shape", "B=n,n", "--assume", "A=invertible",
                                 "--assume", "B=invertible"], BAD),
    ("wrong: the quadratic-form gradient of a non-symmetric B", r"\frac{\partial x^\top B x}{\partial x} = 2 B x",
     r"x \in \mathbb{R}^n, B \in \mathbb{R}^{n\times n}", "grad(trace(x.T*B*x), x) = 2*B*x",
     ["--shape", "x=n,1", "--shape", "B=n,n"], BAD),
    ("wrong: transpose of a product in the same order", r"(AB)^\top = A^\top B^\top",
     r"A \in \mathbb{R}^{m \times k}, B \in \mathbb{R}^{k \times n}", "(A*B).T = A.T*B.T",
     ["--shape", "A=m,k", "--shape", "B=k,n"], BAD),
    # helper-33: the bare argument of \det took the next \det (det(A det B): REFUTED), {\bf I} was a variable
    ("determinant of a product, bare arguments", r"\det(AB) = \det A \det B", r"A, B \in \mathbb{R}^{n \times n}",
     "det(A*B) = det(A)*det(B)", ["--shape", "A=n,n", "--shape", "B=n,n"], GOOD),
    ("Jacobi's formula with a thin space", r"\frac{\partial \det X}{\partial X} = \det X \, X^{-\top}",
     r"X \in \mathbb{R}^{n \times n}", "grad(det(X), X) = det(X)*(X**-1).T", ["--shape", "X=n,n"], GOOD),
    ("old-style bold identity", r"{\bf A}^{-1}{\bf A} = {\bf I}", r"A \in GL(n)", "A**-1*A = eye(n)",
     ["--shape", "A=n,n", "--assume", "A=invertible"], GOOD),
    ("wrong: a factor 2 in the log-determinant gradient", r"\nabla_X \log\det X = 2 X^{-\top}", r"X \succ 0",
     "grad(log(det(X)), X) = 2*(X**-1).T", ["--shape", "X=n,n", "--assume", "X=spd"], BAD),
]


def _verdict(capsys, *args):
    code, out, err = run_main(capsys, "check", *args, "--json", "--trials", "8")
    assert "Traceback" not in err and "Warning" not in err, err
    rec = json.loads(out)
    return code, rec["claims"][0]["verdict"], rec, err


@pytest.mark.parametrize("source,tex,where,twin,options,expected", PAPER, ids=[p[0] for p in PAPER])
def test_paper_statement_has_the_verdict_of_its_twin(capsys, source, tex, where, twin, options, expected):
    code, verdict, rec, err = _verdict(capsys, "--latex", tex, "--where", where)
    tcode, tverdict, _, _ = _verdict(capsys, twin, *options)
    assert (verdict, code) == (tverdict, tcode), (source, rec["read_as"], rec["claims"][0]["evidence"])
    if expected is not None:
        assert verdict in expected, (source, rec["read_as"])
    assert rec["syntax"] == "latex" and rec["statement"] == tex
    assert err.startswith("theorem-check: note: read as ") and len(err.strip().splitlines()) == 1


def test_where_works_with_the_string_syntax(capsys):
    code, verdict, rec, _ = _verdict(capsys, "grad(log(det(Sigma)), Sigma) = Sigma**-1", "--where", r"\Sigma \succ 0")
    assert code == 0 and verdict in GOOD and rec["assume"] == {"Sigma": "spd"}


@pytest.mark.parametrize("args,verdict", [
    ((r"\nabla_z \log \mathbf{1}^\top \exp_\odot(z) = \operatorname{softmax}(z)",), "VERIFIED"),
    ((r"\nabla_z \log \mathbf{1}^\top \exp_\odot(z) = 2 \operatorname{softmax}(z)",), "REFUTED"),
    ((r"A B - B A = \mathbf{0}",), "REFUTED"),
    ((r"A - A^\top - (A - A^\top) = \mathbf{0}",), "PROVED"),
])
def test_helper77_notation(capsys, args, verdict):
    """helper-77: an unbraced ``\\exp_\\odot`` in an operator's bare argument ended the argument ("unexpected ')' at
    column 41"); a bold zero ``\\mathbf{0}`` could not be read as a name."""
    code, out, err = run_main(capsys, "check", "--latex", *args, "--seed", "0")
    assert verdict in out, out + err


@pytest.mark.parametrize("args,verdict", [
    ((r"\sum_{i=1}^{n} x_i y_i = x^\top y",), "VERIFIED"),
    ((r"\sum_{i=1}^{n} x_i y_i = 2 x^\top y",), "REFUTED"),                      # the negative control
    ((r"\sum_{i,j} A_{ij} B_{ji} = \operatorname{tr}(A B)",), "VERIFIED"),
    ((r"\sum_{i,j} A_{ij} B_{ij} = \operatorname{tr}(A B)",), "REFUTED"),        # a transpose dropped
    ((r"\sum_{i=1}^{m}\sum_{j=1}^{n} A_{ij}^2 = \|A\|_F^2", "--where", r"A \in \mathbb{R}^{m \times n}"), "VERIFIED"),
    ((r"\frac{1}{n}\sum_{i=1}^{n} (x_i - \mu)^2 = \frac{1}{n} x^\top x - \mu^2",), "REFUTED"),   # mu is no mean
    ((r"\sum_{l=1}^{3} W_l x = (W_1 + W_2 + W_3) x",), "PROVED"),
    ((r"\sum_{l=1}^{3} W_l x = (W_1 + W_3) x",), "REFUTED"),
])
def test_sums_as_papers_print_them(capsys, args, verdict):
    """Decision 221: ``\\sum`` over entries is read as whole arrays, with integer bounds written out; each true
    statement with its slip."""
    code, out, err = run_main(capsys, "check", "--latex", *args, "--seed", "0")
    assert verdict in out and "read as" in err, out + err


def test_conventions_without_declarations(capsys):
    code, out, err = run_main(capsys, "check", "--latex", r"\nabla_x x^\top A x = (A + A^\top) x")
    assert code == 0 and "by convention: x n x 1; A n x n" in err


@pytest.mark.parametrize("args,message", [
    (("--latex", r"A = (B"), "unexpected end of input"),
    (("--latex", r"A + = B"), "unexpected '=' at column 5"),
    (("--latex", r"\foo A = A"), r"unexpected '\foo' at column 1 (a command the LaTeX reader does not know)"),
    (("--latex", r"\sum_i x_i x_i^\top = X^\top X"), r"write the sum of whole matrices"),     # a family: refused
    (("--latex", r"\prod_i x_i = 1"), r"\det(\operatorname{diag}(x)) for \prod_i x_i"),
    (("--latex", r"\begin{pmatrix} a & b \\ c & d \end{pmatrix} = A"), "block matrices and arrays are not read"),
    (("--latex", r"a \approx b"), "is not an identity"),
    (("--latex", r"A^\top = A", "--where", r"A \succeq 0"), "semidefinite"),
    (("A.T = A", "--where", r"A \in \mathbb{R}^{n\times n}", "--shape", "A=n,n"), "given twice"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, message):
    code, out, err = run_main(capsys, "check", *args)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err


def test_no_third_party_text_on_stderr():
    """A fresh process (warnings shown once each): stderr is the reader's one note, nothing from SymPy or lark."""
    import subprocess
    import sys
    from pathlib import Path

    p = subprocess.run([sys.executable, "-W", "default", "-m", "theorem_check", "check", "--latex",
                        r"\nabla_X \log\det X = X^{-\top}", "--where", r"X \succ 0", "--trials", "4"],
                       capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert p.returncode == 0, p.stderr
    # the reading names what --where assumed (a new user missed it: only the shapes were named)
    assert p.stderr.strip() == "theorem-check: note: read as grad(log(det(X)), X) = (X**-1).T; assumed: X spd"


def test_size_may_name_a_letter_of_the_shape_conventions(capsys):
    """A new user's report: ``--size n=...`` with a LaTeX statement whose shapes come from the conventions
    (``X`` n x n) was refused, because --size was checked before the conventions were applied."""
    code, out, err = run_main(capsys, "check", "--latex", r"\operatorname{tr}(X^\top X) = \operatorname{tr}(X X^\top)",
                              "--size", "n=6:6", "--json")
    assert code == 0, err
    assert "dims n=6" in json.loads(out)["claims"][0]["evidence"]
    code, out, err = run_main(capsys, "check", "--latex", r"\operatorname{tr}(X^\top X) = \operatorname{tr}(X X^\top)",
                              "--size", "m=6:6")
    assert code == 2 and "'m' is no size letter of the shapes" in err and "Traceback" not in err


@pytest.mark.parametrize("args, verdict", [
    ([r"\operatorname{tr}(I_k) = k"], "PROVED"),                 # k of I_k is a size, not a vector by convention
    ([r"\mathbf{1}_m^\top \mathbf{1}_m = m + 1"], "REFUTED"),
    ([r"2^k = 2k", "--size", "k=1:4"], "REFUTED"),                # --size makes k a size, as in the string syntax
    ([r"2^k = 2^{k-1} + 2^{k-1}", "--size", "k=1:4"], "PROVED"),
])
def test_a_size_letter_other_than_n(capsys, args, verdict):
    """helper-33: a size letter other than ``n`` was read as a vector by the conventions (SymPy's 'dimension
    specification k should be a nonnegative integer' leaked, or --size refused it)."""
    code, got, rec, err = _verdict(capsys, "--latex", *args)
    assert got == verdict, (rec["read_as"], rec["claims"][0]["evidence"])


@pytest.mark.parametrize("args, verdicts", [
    ([r"\mathbf{1}\mathbf{1}^\top \mathbf{1} = n \mathbf{1}_n"], {"PROVED"}),                    # was REFUTED
    ([r"(I - \frac1n\mathbf{1}\mathbf{1}^\top) x = x - \frac1n (\mathbf{1}^\top x) \mathbf{1}"], {"PROVED", "VERIFIED"}),
    ([r"\mathbf{1}\mathbf{1}^\top x = \mathbf{1}^\top x"], {"ILL-POSED"}),                        # was PROVED
    ([r"\nabla_x \mathbf{1}^\top \tanh(x) = \mathbf{1} - \tanh^2(x)"], {"PROVED", "VERIFIED"}),   # was ILL-POSED
    ([r"\nabla_x \mathbf{1}^\top \tanh(x) = \mathbf{1} - 2\tanh^2(x)"], {"REFUTED"}),
    ([r"\nabla_z \log \mathbf{1}_n^\top \exp(z) = \operatorname{softmax}(z)"], {"PROVED", "VERIFIED"}),  # REFUTED
    ([r"\log \det X \; y = y \log\det X", "--where", r"X \succ 0, y \in \mathbb{R}"], {"PROVED"}),     # REFUTED
    ([r"\nabla_X \det X = \det X~X^{-\top}", "--where", r"X \in GL(n)"], {"PROVED"}),                   # ILL-POSED
])
def test_helper_34_readings_have_the_right_verdicts(capsys, args, verdicts):
    """A fresh helper's LaTeX as papers print it, each misread before (the verdict it had in the comment)."""
    code, got, rec, err = _verdict(capsys, "--latex", *args)
    assert got in verdicts, (rec["read_as"], rec["claims"][0]["evidence"])


@pytest.mark.parametrize("statement, where, verdict", [
    (r"(A B)^\mathsf{T} = B^\mathsf{T} A^\mathsf{T}", None, "PROVED"),     # ^\mathsf{T} unbraced: the transpose
    (r"(A B)^\mathrm{T} = A^\mathrm{T} B^\mathrm{T}", None, "REFUTED"),    # its negative control
    (r"\operatorname{tr}(c A) = c \operatorname{tr}(A)", r"c \in \mathbb{N}, A \in \mathbb{R}^{n \times n}", "PROVED"),
    (r"x^{k} x = x^{k+1}", r"k \in \mathbb{N}, x \in \mathbb{R}", "PROVED"),
    (r"x^{k} x = x^{k+2}", r"k \in \mathbb{N}, x \in \mathbb{R}", "REFUTED"),
])
def test_helper_49_notations(capsys, statement, where, verdict):
    """helper-49: ``^\\mathsf{T}`` without braces was the matrix power ``**T`` (exit 2); a ``\\mathbb{N}`` declaration
    was dropped, its letter a column vector by convention (ILL-POSED)."""
    args = ["check", "--latex", statement] + (["--where", where] if where else [])
    code, out, err = run_main(capsys, *args)
    assert verdict in out, out + err


def test_integers_of_either_sign_are_refused(capsys):
    code, out, err = run_main(capsys, "check", "--latex", r"x^{k} x = x^{k+1}", "--where", r"k \in \mathbb{Z}, x \in \mathbb{R}")
    assert code == 2 and "mathbb{N}" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("statement, where, verdict", [
    (r"\operatorname{vec}(X B) = (B^\top \otimes I) \operatorname{vec}(X)",
     r"X \in \mathbb{R}^{n \times p}, B \in \mathbb{R}^{p \times q}", "PROVED"),
    (r"\operatorname{vec}(X B) = (I \otimes B^\top) \operatorname{vec}(X)",          # Kronecker order swapped
     r"X \in \mathbb{R}^{n \times p}, B \in \mathbb{R}^{p \times q}", "REFUTED"),
    (r"(A \otimes I)(I \otimes B) = A \otimes B", None, "PROVED"),
    (r"(A \otimes I)(I \otimes B) = B \otimes A", None, "REFUTED"),
    (r"(A \otimes I + I \otimes B)(x \otimes y) = (A x) \otimes y + x \otimes (B y)", None, "PROVED"),
])
def test_a_bare_identity_in_a_kronecker_product_takes_the_quotient_size(capsys, statement, where, verdict):
    """helper-49: ``B^\\top \\otimes I`` beside ``vec(X)`` (X n x p) read ``I`` as ``eye(n*p)``, the product's size, not
    ``eye(n)``: five true Kronecker identities were ILL-POSED."""
    args = ["check", "--latex", statement] + (["--where", where] if where else [])
    code, out, err = run_main(capsys, *args)
    assert verdict in out, out + err


@pytest.mark.parametrize("statement, verdict", [
    (r"\frac{v}{v} = \mathbf{1}", "VERIFIED"),                                   # entrywise: a vector has no inverse
    (r"\frac{2}{v} \odot v = 2 \mathbf{1}", "VERIFIED"),
    (r"\frac{2}{v} \odot v = \mathbf{1}", "REFUTED"),                            # its negative control
    (r"(v + \epsilon) - v = \epsilon \mathbf{1}", "PROVED"),                     # a scalar name beside a vector
    (r"(v + \epsilon) - v = 2 \epsilon \mathbf{1}", "REFUTED"),
])
def test_vector_division_is_entrywise_and_a_scalar_beside_a_vector_is_that_many_ones(capsys, statement, verdict):
    """helper-49: Adam's ``\\frac{m}{\\sqrt{v} + \\epsilon}`` (vectors) was refused ("division by the matrix") and
    ``\\sqrt{v} + \\epsilon`` ILL-POSED ("adds a matrix to a scalar"); a square matrix plus a scalar stays refused."""
    code, out, err = run_main(capsys, "check", "--latex", statement, "--where", r"v \in \mathbb{R}^d")
    assert verdict in out, out + err


def test_a_square_matrix_plus_a_scalar_is_still_not_read(capsys):
    code, out, err = run_main(capsys, "check", "--latex", r"A + \lambda = \lambda + A")
    assert "PROVED" not in out and "VERIFIED" not in out, out + err


@pytest.mark.parametrize("args, verdicts", [
    (["--latex", r"I \otimes A = A"], ("ILL-POSED",)),                 # I of size 1 is no reading (helper-50)
    (["--latex", r"(I \otimes A) x = A x"], ("ILL-POSED", "REFUTED")),
    (["--latex", r"(A B)^{\text{T}} = B^{\text{T}} A^{\text{T}}"], ("PROVED",)),
    (["--latex", r"(A B)^{-\text{T}} = A^{-\text{T}} B^{-\text{T}}", "--where", r"A, B \in GL(n)"], ("VERIFIED", "PROVED")),
    (["--latex", "(c-1)(c-2)(c-3)(c-4) + 1 = 1", "--where", r"c \in \mathbb{N}"], ("REFUTED",)),   # c = 5.. too
    (["sin(pi*c) = 0", "--where", r"c \in \mathbb{N}"], ("PROVED", "VERIFIED")),     # the string syntax reads it too
])
def test_helper_50_readings(capsys, args, verdicts):
    code, out, err = run_main(capsys, "check", *args)
    assert any(v in out for v in verdicts), out + err


@pytest.mark.parametrize("statement, verdict", [
    (r"x + y^\top z = (z^\top y) \mathbf{1} + x", "PROVED"),
    (r"x + y^\top z = (z^\top x) \mathbf{1} + x", "REFUTED"),
])
def test_a_1x1_product_beside_a_vector_is_a_scalar_times_ones(capsys, statement, verdict):
    """helper-50: ``x + y^\\top z`` was ILL-POSED while ``(z^\\top y)\\mathbf{1}`` read as a scalar."""
    code, out, err = run_main(capsys, "check", "--latex", statement)
    assert verdict in out, out + err


def test_greater_than_zero_of_a_matrix_is_refused_and_of_a_vector_is_entrywise_in_any_order(capsys):
    """helper-51: ``--where 'A > 0, B > 0'`` made A and B positive *scalars* (``A B = B A`` VERIFIED), and
    ``v > 0, v \\in \\mathbb{R}^d`` failed as "declared twice" where the other order worked."""
    code, out, err = run_main(capsys, "check", "--latex", "A B = B A", "--where", "A > 0, B > 0")
    assert code == 2 and r"\succ 0" in err and len(err.strip().splitlines()) == 1, err
    for where in (r"v > 0, v \in \mathbb{R}^d", r"v \in \mathbb{R}^d, v > 0"):
        code, out, err = run_main(capsys, "check", "--latex", r"\sqrt{v} \odot \sqrt{v} = v", "--where", where)
        assert "VERIFIED" in out, out + err
    code, out, err = run_main(capsys, "check", "--latex", r"c x = x c", "--where", "c > 0")   # a scalar, as before
    assert "PROVED" in out, out + err


@pytest.mark.parametrize("args, verdicts", [
    # layer labels as deep-learning courses print them: W^{[l]} is the name W__l, as W^{(l)} (not a power of W)
    (["--latex", r"W^{[2]} W^{[1]} x = W^{[1]} W^{[2]} x"], ("REFUTED",)),
    (["--latex", r"W^{[1]\top} W^{[2]\top} = (W^{[2]} W^{[1]})^\top"], ("PROVED",)),
    # T declared a size or a scalar: x^T is its power, not the transpose
    (["--latex", r"\gamma^T \gamma = \gamma^{T+1}", "--where", r"T \in \mathbb{N}"], ("PROVED",)),
    (["--latex", r"\gamma^T \gamma = \gamma^{T+2}", "--where", r"T \in \mathbb{N}"], ("REFUTED",)),
    (["--latex", r"x^T y = y^T x"], ("PROVED",)),      # T not declared: the transpose, as before
    # helper-66: ^{T-1} is the power T - 1, not the transposed inverse (a slip was PROVED as gamma^-1 gamma = 1)
    (["--latex", r"\gamma^{T-1} \gamma = \gamma^T", "--where", r"T \in \mathbb{N}"], ("PROVED",)),
    (["--latex", r"(1-\eta\lambda)^{T-1} (1-\eta\lambda) = 1", "--where", r"T \in \mathbb{N}"], ("REFUTED",)),
    (["--latex", r"A^{-T} = (A^{-1})^\top"], ("PROVED",)),
    # helper-66: a label and a transpose as W^{(2)^\top} (was the power W**2, transposed)
    (["--latex", r"\nabla_{W^{(1)}} \frac12\|W^{(2)} W^{(1)} x - y\|^2 = W^{(2)^\top}(W^{(2)} W^{(1)} x - y) x^\top"],
     ("PROVED", "VERIFIED")),
    (["--latex", r"W^{[2]^T} W^{[1]} = (W^{[1]\top} W^{[2]})^\top"], ("PROVED",)),
    # a size letter before a parenthesis is a number times it (was refused as a function applied)
    (["--latex", r"m (\gamma \odot g) = (m \gamma) \odot g", "--where", r"g, \gamma \in \mathbb{R}^m"],
     ("PROVED", "VERIFIED")),
    (["--latex", r"m (\gamma \odot g) = (2 m \gamma) \odot g", "--where", r"g, \gamma \in \mathbb{R}^m"],
     ("REFUTED",)),
])
def test_helper_64_readings(capsys, args, verdicts):
    """helper-64: ``W^{[2]} W^{[1]} x = W^{[1]} W^{[2]} x`` was PROVED (read as powers of one W); ``\\gamma^T`` with
    ``T \\in \\mathbb{N}`` declared was read as a transpose and refused with a wrong hint."""
    code, out, err = run_main(capsys, "check", *args)
    assert any(v in out for v in verdicts), out + err


@pytest.mark.parametrize("statement, message", [
    # an upright d is the differential: read as a vector d, the product rule without a term was PROVED
    (r"\mathrm{d}(\alpha\beta) = \alpha\,\mathrm{d}\beta", "is a differential"),
    (r"\mathrm{d}\log\alpha = \frac{\mathrm{d}\alpha}{\alpha}", "is a differential"),
    (r"{\rm d}\log\det X = \operatorname{tr}(X^{-1}\,{\rm d}X)", "is a differential"),
    # the inverse function applied: \sigma^{-1}(y), the logit, was read as y / sigma and REFUTED
    (r"\sigma^{-1}(y) = \log y - \log(1 - y)", r"'\sigma^{-1}(...)' reads as a function applied"),
    (r"\phi^{-1}(x) = x", r"--where '\phi \in \mathbb{R}'"),
])
def test_a_differential_and_an_inverse_function_are_refused(capsys, statement, message):
    """helper-64: wrong verdicts both ways from an upright d read as a vector and from f^{-1}(y) read as a product:
    refused (exit 2, one line); a plain d stays a vector's name, and a declared name's power before a parenthesis
    a product."""
    code, out, err = run_main(capsys, "check", "--latex", statement)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (code, out, err)
    code, out, err = run_main(capsys, "check", "--latex", r"d^\top x = x^\top d")
    assert code == 0 and "PROVED" in out
    code, out, err = run_main(capsys, "check", "--latex", r"\sigma^{-1}(y) = y/\sigma", "--where", r"\sigma > 0")
    assert code == 0 and "PROVED" in out, out + err


@pytest.mark.parametrize("statement, verdict", [
    (r"\max(0, x) - \max(0, -x) = x", ("PROVED", "VERIFIED")),
    (r"\max\{0, x\} = \mathrm{ReLU}(x)", ("PROVED", "VERIFIED")),
    (r"\max(a, b) + \min(a, b) = a + b", ("PROVED", "VERIFIED")),
    (r"\max(a, b) - \min(a, b) = a - b", ("REFUTED",)),
])
def test_max_and_min_of_two_are_the_entrywise_max_and_min(capsys, statement, verdict):
    """helper-64: ``\\max(0, x)`` was refused as "a maximum" although the string syntax has ``max(a, b)``; of two
    arguments it is that (entrywise); ``\\max_i x_i`` and ``\\max(x)`` (a reduction) stay refused."""
    code, out, err = run_main(capsys, "check", "--latex", statement)
    assert any(v in out for v in verdict), out + err
    for reduction in (r"\max(x) = x", r"\max_i x_i = x"):
        code, out, err = run_main(capsys, "check", "--latex", reduction)
        assert code == 2 and "\\\\" not in err, err


def test_a_division_by_a_vector_names_its_shape_and_the_declaration(capsys):
    """helper-64: ``\\frac{Q K^\\top}{\\sqrt{d_k}}`` said "division by the matrix": ``d_k`` is a vector by the
    conventions, and the way out is to declare it a scalar."""
    code, out, err = run_main(capsys, "check", "--latex", r"\frac{Q K^\top}{\sqrt{d_k}} = Q K^\top")
    assert code == 2 and "n x 1" in err and r"\in \mathbb{R}" in err, err
    code, out, err = run_main(capsys, "check", "--latex", r"\frac{Q K^\top}{\sqrt{d_k}} = Q K^\top / \sqrt{d_k}",
                              "--where", r"d_k \in \mathbb{R}_{>0}")
    assert code == 0, out + err


@pytest.mark.parametrize("statement", [
    r"x^\top x = \|x\|^2 \quad \text{for all } x \in \mathbb{R}^n",
    r"x^\top x = \|x\|^2, \quad \forall x",
    r"x^\top x = \|x\|^2 \text{ if } x \neq 0",
])
def test_a_condition_after_the_identity_points_to_where(capsys, statement):
    """helper-64: ``\\quad \\text{for all } x`` said "cannot read '\\text{for all }' as a name": the condition is
    named, and the way out (the identity alone, its domain in --where)."""
    code, out, err = run_main(capsys, "check", "--latex", statement)
    assert code == 2 and "the condition" in err and "--where" in err and len(err.splitlines()) == 1, err


def test_an_exponent_that_is_a_vector_by_the_conventions_is_refused(capsys):
    """helper-66: ``\\beta_1^t \\beta_1 = \\beta_1^{t+1}`` was read with ``t`` a column (``t + 1*ones(n, 1)``) and came
    back ILL-POSED; the exponent is named with the declaration that makes it a step count."""
    code, out, err = run_main(capsys, "check", "--latex", r"\beta_1^t \beta_1 = \beta_1^{t+1}")
    assert code == 2 and "exponent 't'" in err and r"t \in \mathbb{N}" in err, err
    code, out, err = run_main(capsys, "check", "--latex", r"\beta_1^t \beta_1 = \beta_1^{t+1}", "--where", r"t \in \mathbb{N}")
    assert code == 0 and "PROVED" in out, out + err


@pytest.mark.parametrize("statement, where, verdict", [
    (r"\left\| 2 \|x\| y \right\| = 2 \|x\| \|y\|", r"x \in \mathbb{R}", ("PROVED", "VERIFIED")),
    (r"\left\| 2 \|x\| y \right\| = 2 x \|y\|", r"x \in \mathbb{R}", ("REFUTED",)),
    (r"\left\| \frac{y}{\sqrt{\frac1n \|y\|^2}} \right\|^2 = n", None, ("PROVED", "VERIFIED")),
    (r"\left\| y \|y\| \right\| = \|y\|^2", None, ("PROVED", "VERIFIED")),
    (r"\Big\| \eta \|g\| g \Big\|^2 = \eta^2 \|g\|^4", None, ("PROVED", "VERIFIED")),
    (r"\Big\| \eta \|g\| g \Big\| = |\eta| \|g\|^2", None, ("PROVED", "VERIFIED")),
    (r"\Big\| \eta \|g\| g \Big\| = 2 |\eta| \|g\|^2", None, ("REFUTED",)),
    (r"\bigl\| 2 \|x\| y \bigr\| = 2 \|x\| \|y\|", None, ("PROVED", "VERIFIED")),
    (r"\big| \alpha |\beta| \big| = |\alpha| |\beta|", None, ("PROVED", "VERIFIED")),
])
def test_a_bare_norm_inside_left_right_bars_opens_its_own(capsys, statement, where, verdict):
    """helper-66: a bare ``\\|`` inside ``\\left\\| ... \\right\\|`` closed the outer bar (``\\left\\| 2 \\|x\\| y
    \\right\\|`` read as ``abs(2)*x*norm2(y)``, REFUTED; the layer-norm statement was refused).  A bar sized
    without a side (``\\Big\\| ... \\Big\\|``) is closed by the same sizing only (stop 46; it was ILL-POSED)."""
    code, out, err = run_main(capsys, "check", "--latex", statement, *(["--where", where] if where else []))
    assert any(v in out for v in verdict), out + err


def test_a_subscript_then_a_label_and_a_declared_t_note(capsys):
    """helper-66: ``W_l^{(t)}`` was refused ("labels a name only") while ``W^{(t)}_l`` was read; both are ``W_l__t``.
    With ``T`` declared, the read-as note says that ``^T`` is its power (the error that may follow did not say why)."""
    code, out, err = run_main(capsys, "check", "--latex", r"W_2^{(t)} W_1^{(t)} = W_1^{(t)} W_2^{(t)}")
    assert "W_2__t*W_1__t" in err and "REFUTED" in out, out + err
    code, out, err = run_main(capsys, "check", "--latex", r"\gamma^T \gamma = \gamma^{T+1}", "--where", r"T \in \mathbb{N}")
    assert "^T is a power of the declared T" in err and "PROVED" in out, out + err


@pytest.mark.parametrize("statement, reading, verdict", [
    (r"(W_2 W_1)^\top = W^\top_1 W^\top_2", "(W_2*W_1).T = W_1.T*W_2.T", "PROVED"),
    (r"(W_2 W_1)^\top = W^\top_2 W^\top_1", "(W_2*W_1).T = W_2.T*W_1.T", "REFUTED"),
    (r"W^{-1}_2 W_2 = I", "W_2**-1*W_2 = eye(n)", "PROVED"),
    (r"\sigma^2_1 = \sigma_1 \sigma_1", "sigma_1**2 = sigma_1*sigma_1", "PROVED"),
])
def test_a_superscript_then_a_subscript_sets_both_on_the_name(capsys, statement, reading, verdict):
    """helper-66: ``W^\\top_2`` was refused ("unexpected subscript"); TeX sets both scripts on the name, so it is
    ``W_2^\\top`` (stop 46)."""
    code, out, err = run_main(capsys, "check", "--latex", statement)
    assert f"read as {reading}" in err and verdict in out, out + err


def test_pi_is_a_constant_in_the_note(capsys):
    """helper-69: the note said "(by convention: pi scalar)" of the constant."""
    code, out, err = run_main(capsys, "check", "--latex", r"\sin(\pi) = 0")
    assert "PROVED" in out and "read as sin(pi) = 0\n" in err and "pi scalar" not in err, out + err


def test_ill_posed_under_the_conventions_names_the_scalar_to_declare(capsys):
    """helper-67: a Gaussian's mean written \\mu is a scalar by the conventions, and the gradient was ILL-POSED with
    only "lhs has shape ()"; the note names \\mu and the declaration that makes it a vector."""
    stmt = r"\nabla_\mu (x-\mu)^\top \Sigma^{-1} (x-\mu) = -2\Sigma^{-1}(x-\mu)"
    code, out, err = run_main(capsys, "check", "--latex", stmt, "--where", r"\Sigma \succ 0")
    assert "ILL-POSED" in out and r"--where '\mu \in \mathbb{R}^n'" in err, out + err
    code, out, err = run_main(capsys, "check", "--latex", stmt, "--where", r"\Sigma \succ 0, \mu \in \mathbb{R}^n")
    assert "PROVED" in out, out + err


def test_a_vector_name_squared_is_refused_and_a_second_gradient_ends_the_first(capsys):
    """helper-71: Adam's ``g^2`` of a vector read as the matrix power (ILL-POSED); it is refused naming the entrywise
    square and the product (``\\tanh(W x)^2`` stays the entries' square).  ``\\nabla_w a \\nabla_w b`` read the second
    gradient inside the first."""
    code, out, err = run_main(capsys, "check", "--latex", r"(1 - \beta_2) g^2 = (1 - \beta_2) g \odot g",
                              "--where", r"g \in \mathbb{R}^d")
    assert code == 2 and r"g \odot g or g^{\circ 2}" in err, out + err
    code, out, err = run_main(capsys, "check", "--latex", r"\nabla_w (w^\top x) \nabla_w (w^\top z) = x z^\top")
    assert "read as grad(trace(w.T*x), w)*grad(trace(w.T*z), w)" in err, err


def test_explicit_spacing_ends_the_operator_form_of_a_derivative(capsys):
    """helper-71: ``\\frac{\\partial}{\\partial W} f \\, W^\\top`` was the derivative of the product (refused as the
    derivative of a non-scalar) though the user guide says spacing ends it, as after ``\\nabla_W``."""
    code, out, err = run_main(capsys, "check", "--latex", r"\frac{\partial}{\partial W} \frac12\|W\|_F^2 \, W^\top = W W^\top")
    assert "read as grad(1/2*norm2(W)**2, W)*W.T = W*W.T" in err and "PROVED" in out, out + err


@pytest.mark.parametrize("args", [("--latex", r"A^\top A = (A^\top A)^\top"), ("A.T*A = (A.T*A).T",)])
def test_unused_where_names_are_ignored_with_a_note(capsys, args):
    """helper-71: a paper's shared declaration block pasted for one equation was refused (21 of 784 runs); the names
    the statement does not use are dropped, one note says which."""
    code, out, err = run_main(capsys, "check", *args, "--where", r"A \in \mathbb{R}^{m \times n}, B \succ 0, c \in \mathbb{R}")
    assert code == 0 and "PROVED" in out, out + err
    assert "--where declares 'c', 'B', which the statement does not use: ignored" in err   # shapes, then structure
    assert "m=" in out   # A's declared shape was used


def test_a_plain_e_beside_a_matrix_names_eulers_number_in_a_note(capsys):
    """helper-73: ``2\\\\pi e \\\\Sigma`` (e: Euler's number as printed) is ILL-POSED by the conventions (e a column); the
    note says how to write Euler's number."""
    code, out, err = run_main(capsys, "check", "--latex", r"\log\det(2\pi e \Sigma) = n \log(2\pi e) + \log\det\Sigma",
                              "--where", r"\Sigma \succ 0")
    assert code == 1 and "ILL-POSED" in out
    assert r"if it is Euler's number, write \mathrm{e}" in err
    code, out, err = run_main(capsys, "check", "--latex",
                              r"\log\det(2\pi \mathrm{e} \Sigma) = n \log(2\pi \mathrm{e}) + \log\det\Sigma",
                              "--where", r"\Sigma \succ 0")
    assert code == 0 and "PROVED" in out, out + err
