"""Classifying scanned equations (theorem_check.authoring.scan), with the fake reader of scan_fakes."""

import re
import sys
import types

import pytest
import sympy as sp
from hypothesis import given, reject
from hypothesis import strategies as st

from tests.authoring.scan_fakes import FIXTURES, fake_parse
from theorem_check.authoring import scan as scan_mod
from theorem_check.authoring.scan import (
    CLASSES,
    NO_READER,
    classify,
    default_parser,
    relations,
    scan_file,
    scan_text,
    side_names,
    side_text,
    size_letter,
)
from theorem_check.authoring.scan_find import Display
from theorem_check.errors import ShapeMismatch
from theorem_check.expr import parse


def _classes(scan):
    return {e.number: e.cls for e in scan.entries}


def test_tex_fixture_classes_with_a_reader():
    s = scan_file(FIXTURES / "paper.tex", parse=fake_parse)
    assert _classes(s) == {"1": "checkable", "2": "checkable", "3": "not an identity", "T1": "needs shapes",
                           "4": "checkable", "5": "checkable", "6": "checkable", "7": "not an identity"}
    by = {e.number: e for e in s.entries}
    assert by["1"].sides == (("(A*B).T", "B.T*A.T"),)
    assert by["1"].shapes == {"A": ("n", "k"), "B": ("k", "n")}
    assert by["T1"].missing == ("C", "D") and "C, D" in by["T1"].reason
    # a row that begins with '=' continues the row before: its left side is that row's last operand
    assert by["5"].sides == (("trace(B*A)", "trace(A.T*B.T)"),)
    assert by["3"].reason == "\\approx" and by["7"].reason == "an inequality"
    assert s.counts() == {"checkable": 5, "needs shapes": 1, "not an identity": 2, "unparsed": 0}


def test_without_a_reader_every_identity_is_unparsed_and_says_why():
    s = scan_file(FIXTURES / "paper.tex", parse=None)
    assert not s.reader
    for e in s.entries:
        assert e.cls in ("unparsed", "not an identity")
        if e.cls == "unparsed":
            assert e.reason == NO_READER and e.relation == "="


def test_md_and_txt_fixtures():
    md = scan_file(FIXTURES / "notes.md", parse=fake_parse)
    assert _classes(md) == {"1": "checkable", "2": "not an identity", "3": "not an identity", "4": "unparsed",
                            "5": "unparsed", "9": "unparsed"}
    by = {e.number: e for e in md.entries}
    assert by["2"].reason == "a definition (:=)" and by["3"].reason == "\\propto"
    assert "fake reader" in by["4"].reason                     # the reader's one-line message
    assert by["9"].cited and by["9"].relation == "?"
    txt = scan_file(FIXTURES / "export.txt", parse=fake_parse)
    by = {e.number: e for e in txt.entries}
    # W_{1} is declared in LaTeX; the reader names it W_1 in statements and in the declaration alike
    assert by["2"].cls == "checkable" and by["2"].shapes == {"W_1": ("m", "n"), "x": ("n", 1)}
    assert by["B.3"].cls == "not an identity"


@pytest.mark.parametrize("latex, ops, rels", [
    ("a = b = c", ["a", "b", "c"], ["=", "="]),
    (r"x \propto y", ["x", "y"], [r"\propto"]),
    (r"T_{kl}=\begin{cases}1&\text{if $k=l$}\end{cases}", [r"T_{kl}", r"\begin{cases}1&\text{if $k=l$}\end{cases}"],
     ["="]),
    (r"\lim_{\rho\to 0} f = g", [r"\lim_{\rho\to 0} f", "g"], ["="]),
    (r"f(x=1) \leq 2", ["f(x=1)", "2"], [r"\leq"]),
    (r"\ell(\theta,z)=\ell(Q(\theta),z),\forall\rho\in\mathbb{R},", [r"\ell(\theta,z)", r"\ell(Q(\theta),z)"], ["="]),
    (r"x^\top x = \|x\|^2, \quad \forall x", [r"x^\top x", r"\|x\|^2"], ["="]),      # helper-44
    (r"a := b", ["a", "b"], [":="]),
    (r"\dot C = G =: H", [r"\dot C", "G", "H"], ["=", "=:"]),
    (r"a \leftarrow b", [r"a \leftarrow b"], []),
    (r"\mathbb{E}[x]", [r"\mathbb{E}[x]"], []),
])
def test_relations(latex, ops, rels):
    assert relations(latex) == (ops, rels)


@pytest.mark.parametrize("latex, reason", [
    (r"a := b", "a definition (:=)"),
    (r"a \equiv b", r"a definition (\equiv)"),
    (r"a \coloneqq b", r"a definition (\coloneqq)"),
    (r"a \approx b", r"\approx"),
    (r"a \sim b", r"\sim"),
    (r"a \geq b", "an inequality"),
    (r"a < b", "an inequality"),
    (r"W \to e^{T} W", r"a map or limit (\to)"),
    (r"\lim_{t} a_t = b", "a limit"),
    (r"f = \begin{cases} 1 & x \\ 0 & y \end{cases}", "a definition by cases"),
    (r"\mathbb{E}[\|\nabla\ell\|^{2}]", "no relation (an expression)"),
])
def test_not_identities_are_named_and_never_parsed(latex, reason):
    def never(_):
        raise AssertionError("a statement that is no identity must not reach the reader")
    e = classify(Display("1", latex, 1), {}, never)
    assert (e.cls, e.reason) == ("not an identity", reason)


def test_reader_is_one_injected_function_and_names_go_through_it():
    seen = []

    def reader(latex):
        seen.append(latex)
        lhs, rhs = (s.strip() for s in latex.split("="))
        return lhs.replace("\\", ""), rhs.replace("\\", "")

    s = scan_text(r"Let $\Sigma \in \mathbb{R}^{n \times n}$. $$\Sigma = \Sigma$$ (1)", "md", parse=reader)
    assert r"\Sigma = \Sigma" in seen                          # the declared name, read by the reader
    assert s.entries[0].cls == "checkable" and s.entries[0].shapes == {"Sigma": ("n", "n")}


def test_a_chain_is_one_identity_per_link():
    e = classify(Display("1", "A = B = C", 1), {"A": (1, 1), "B": (1, 1), "C": (1, 1)},
                 lambda t: tuple(x.strip() for x in t.split("=")))
    assert e.cls == "checkable" and e.sides == (("A", "B"), ("B", "C")) and "chain" in e.reason


def test_side_names_skip_functions_and_constants():
    assert side_names("trace(A*B) + pi*x + f(y)") == {"A", "B", "x", "y"}
    import sympy as sp
    assert side_names(sp.MatrixSymbol("W", 2, 2) * sp.Symbol("a")) == {"W", "a"}


@pytest.mark.parametrize("size, letter", [("d_{2}", "d_2"), ("d_{i-1}", "d_i_1"), ("40", 40), (r"\ell", "ell"),
                                          ("2n", None), ("d_{2}+d_{0}", None), ("(d_x+d_y)d", None), ("0", None)])
def test_size_letter(size, letter):
    assert size_letter(size) == letter


def test_default_parser_is_the_latex_reader_when_installed(monkeypatch):
    fake = types.ModuleType("theorem_check.expr.latex")
    fake.parse_latex_statement = fake_parse
    monkeypatch.setitem(sys.modules, "theorem_check.expr.latex", fake)
    assert default_parser() is fake_parse
    monkeypatch.setitem(sys.modules, "theorem_check.expr.latex", None)    # import fails: no reader
    assert default_parser() is None
    assert scan_file(FIXTURES / "notes.md").reader is False


def test_counts_cover_every_class():
    assert list(scan_text("", "md").counts()) == list(CLASSES)
    assert scan_mod.Scan("p", "md", (), (), False).counts() == dict.fromkeys(CLASSES, 0)


_SQ = {"A": ("n", "n"), "B": ("n", "n"), "X": ("n", "n")}


def _matrix_exprs():
    leaves = st.sampled_from(["A", "B", "X", "eye(n)"])

    def grow(inner):
        return st.one_of(
            st.tuples(inner, inner).map(lambda t: f"({t[0]} + {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]}*{t[1]})"),
            inner.map(lambda a: f"({a}).T"),
            inner.map(lambda a: f"({a})**-1"),
            st.sampled_from(["expm", "exp", "sigmoid", "tril", "diag"]).flatmap(
                lambda f: inner.map(lambda a: f"{f}({a})")),
            st.tuples(inner, inner).map(lambda t: f"hadamard({t[0]}, {t[1]})"),
            st.tuples(st.sampled_from(["trace", "det"]), inner, inner).map(lambda t: f"{t[0]}({t[1]})*{t[2]}"),
        )
    return st.recursive(leaves, grow, max_leaves=6)


@given(_matrix_exprs())
def test_side_text_reads_back_to_the_same_tree(text):
    """Property: a SymPy side a reader may return prints (side_text) to a string the string syntax
    parses back to the same tree, so the skeleton states what the reader read.  A drawn text that does not
    conform (``expm(diag(A))``: ``diag`` of a square matrix is its diagonal, a column) is no side: not drawn."""
    try:
        tree = parse(text, _SQ)
    except ShapeMismatch:
        reject()
    back = parse(side_text(tree), _SQ)
    # the same tree up to the dummy variables of elementwise functions (exp(A) is a Lambda over one), and up to
    # SymPy's two spellings of one node: Inverse(X) is its MatPow(X, -1) subclass (eye(n)*X**-1 folds to it), and
    # HadamardPower(A, 2) is hadamard(A, A) (eye(n)*hadamard(A, A) folds to it; hadamard(A, A) alone does not)
    def norm(e):
        e = e.replace(lambda x: isinstance(x, sp.HadamardPower) and x.exp.is_Integer and x.exp > 1,
                      lambda x: sp.HadamardProduct(*[x.base] * int(x.exp)))
        return re.sub(r"dummy_index=\d+", "", sp.srepr(e)).replace("Inverse(", "MatPow(")
    # and up to SymPy's folding when it builds a node anew: det(trace(A)*eye(n)) is printed as what SymPy made of it,
    # det(eye(n))*trace(A)**n, whose det(eye(n)) folds to 1 when read (evaluated, both are the same tree)
    assert norm(back) == norm(tree) or norm(back.doit()) == norm(tree.doit())


def test_structure_declared_in_the_text_reaches_the_claims():
    """helper-44: with "$\\Sigma \\succ 0$" in the text, ``scan --run`` REFUTED the log-det gradient (Sigma was drawn
    general), and ``Q^T Q = I`` needed "a shape for n" (the identity's size letter)."""
    import theorem_check as tc
    from theorem_check.authoring.scan import scan_text
    from theorem_check.authoring.skeleton import skeleton_claims

    text = ("Let $\\Sigma \\in \\mathbb{R}^{n\\times n}$ with $\\Sigma \\succ 0$, $Q \\in O(n)$ and $\\lambda > 0$.\n"
            "\\begin{equation}\\nabla_\\Sigma \\log\\det \\Sigma = \\Sigma^{-1}\\end{equation}\n"
            "\\begin{equation}Q^\\top Q = I\\end{equation}\n"
            "\\begin{equation}\\sqrt{\\lambda}^2 = \\lambda\\end{equation}\n")
    scan = scan_text(text, "tex", parse=default_parser())
    assert [e.cls for e in scan.entries] == ["checkable"] * 3
    assert [dict(e.structure) for e in scan.entries] == [{"Sigma": "spd"}, {"Q": "orthogonal"}, {"lamda": "positive"}]
    verdicts = [tc.run_claim(c, seed=0).verdict for c in skeleton_claims(scan, "t")]
    assert all(v in (tc.Verdict.PROVED, tc.Verdict.VERIFIED) for v in verdicts), verdicts


def test_a_name_alone_on_the_left_and_not_on_the_right_is_a_definition():
    """helper-44: ``h = W x + b`` with every shape declared was checkable, and REFUTED under ``scan --run``."""
    from theorem_check.authoring.scan import scan_text

    text = ("Let $W, S \\in \\mathbb{R}^{n\\times n}$, $x, b, h \\in \\mathbb{R}^n$.\n"
            "\\begin{equation} h = W x + b \\end{equation}\n\\begin{equation} S = S^\\top \\end{equation}\n")
    scan = scan_text(text, "tex", parse=default_parser())
    assert [(e.cls, e.reason.split(" (")[0]) for e in scan.entries] == [
        ("not an identity", "a definition of h"), ("checkable", "identity; every name has a shape")]


def test_equations_written_with_the_papers_macros_are_read():
    from theorem_check.authoring.scan import scan_text

    text = ("\\newcommand{\\mA}{\\mathbf{A}}\n\\newcommand{\\vx}{\\mathbf{x}}\n\\def\\tr{\\operatorname{tr}}\n"
            "Let $\\mA \\in \\mathbb{R}^{n\\times n}$, $\\vx \\in \\mathbb{R}^n$.\n"
            "\\begin{equation} \\tr(\\mA^\\top) = \\tr(\\mA) \\end{equation}\n"
            "\\begin{equation} \\vx^\\top \\mA \\vx = \\vx^\\top \\mA^\\top \\vx \\end{equation}\n")
    scan = scan_text(text, "tex", parse=default_parser())
    assert [e.cls for e in scan.entries] == ["checkable", "checkable"]
    assert [sorted(e.shapes) for e in scan.entries] == [["A"], ["A", "x"]]


def test_the_reader_gets_the_declared_shapes_and_a_structure_alone_is_square():
    """helper-49: scan read every name by the conventions (a bare I beside B, m x n, was eye(n): the push-through
    identity ILL-POSED, where check --where reads it right); "Sigma succ 0" with no shape was "needs shapes"."""
    text = (r"Let $B \in \mathbb{R}^{m\times n}$ and $C \in \mathbb{R}^{n\times m}$, and $\Sigma \succ 0$."
            "\n$$(I + B C)^{-1} B = B (I + C B)^{-1} \\tag{1}$$\n"
            "$$\\nabla_\\Sigma \\log\\det \\Sigma = \\Sigma^{-1} \\tag{2}$$\n")
    s = scan_text(text, "md", parse=default_parser())
    push, grad = s.entries
    assert push.cls == "checkable" and push.sides[0][0].startswith("(eye(m) + B*C)**-1"), push
    assert grad.cls == "needs shapes"          # two size letters (m, n) in the text: which one is Sigma's is open
    s2 = scan_text(text.replace(r"$B \in \mathbb{R}^{m\times n}$ and $C \in \mathbb{R}^{n\times m}$, and ", ""),
                   "md", parse=default_parser())
    assert s2.entries[1].cls == "checkable" and s2.entries[1].shapes == {"Sigma": ("n", "n")}, s2.entries[1]


def test_a_structure_alone_takes_the_texts_one_size_and_lower_case_names_are_not_matrices():
    """helper-50: with ``x \\in \\mathbb{R}^3`` in the text, ``\\Sigma \\succ 0`` was ``n x n`` (an invented size:
    ``tr(Sigma^-1 Sigma) = 3`` REFUTED at n = 1); ``\\eta \\succ 0`` (a step size) became a matrix."""
    text = (r"Let $x \in \mathbb{R}^3$, $\Sigma \succ 0$ and $\eta \succ 0$."
            "\n$$\\operatorname{tr}(\\Sigma^{-1} \\Sigma) = 3 \\tag{1}$$\n$$\\eta x = x \\eta \\tag{2}$$\n")
    s = scan_text(text, "md", parse=default_parser())
    tr, eta = s.entries
    assert tr.cls == "checkable" and tr.shapes == {"Sigma": (3, 3)}, tr
    assert eta.cls == "needs shapes" and "eta" in eta.missing, eta
