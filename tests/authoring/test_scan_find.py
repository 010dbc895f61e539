"""Finding numbered displays, cited numbers and shape declarations (theorem_check.authoring.scan_find)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.authoring.scan_fakes import FIXTURES
from theorem_check.authoring.scan_find import (
    find_declarations,
    find_displays,
    read_text,
    strip_wrappers,
    text_format,
)
from theorem_check.errors import InvalidArgument


def _numbers(ds, cited=False):
    return [d.number for d in ds if d.cited == cited]


def test_tex_fixture_numbers_rows_tags_labels():
    ds = find_displays(read_text(FIXTURES / "paper.tex"), "tex")
    # align rows are numbered one by one, \nonumber skipped, \tag wins and does not count,
    # a commented-out environment and an untagged \[...\] are no equations
    assert _numbers(ds) == ["1", "2", "3", "T1", "4", "5", "6", "7"]
    by = {d.number: d for d in ds}
    assert by["1"].label == "eq:transpose" and by["1"].latex == r"(AB)^\top = B^\top A^\top"
    assert by["2"].label == "eq:fro" and "label" not in by["2"].latex
    assert by["5"].latex == r"= \operatorname{tr}(A^\top B^\top)"
    assert by["5"].continues == r"\operatorname{tr}(AB) = \operatorname{tr}(BA)"
    assert by["7"].latex.endswith(r"\|B\|_F")          # the trailing full stop is layout
    assert by["1"].line == 7 and by["T1"].line == 15


def test_md_fixture_numbers_and_cited():
    ds = find_displays(read_text(FIXTURES / "notes.md"), "md")
    assert _numbers(ds) == ["1", "2", "3", "4", "5"]   # (N) after $$, on the next line, \tag{N}, \qquad (N)
    assert _numbers(ds, cited=True) == ["9"]           # Eq. (4) is displayed; Eq. (9) is only cited
    assert {d.number: d.latex for d in ds}["3"] == r"y \propto W x"
    assert {d.number: d.latex for d in ds}["5"] == r"\|x\|^2 = x^\top x"


def test_txt_fixture_bare_latex_after_garbled_text():
    ds = find_displays(read_text(FIXTURES / "export.txt"), "txt")
    assert _numbers(ds) == ["1", "2", "3", "4", "5", "B.3"]
    by = {d.number: d for d in ds}
    assert by["1"].latex == r"L(\theta)=\|W_{1}x\|^{2}"
    assert by["2"].latex == r"(W_{1}x)^{\top}=x^{\top}W_{1}^{\top}"
    # a multi-row display: the first row stands before a stretch of garbled text
    assert by["3"].latex == r"\frac{d}{d\lambda}S \propto{\rm Tr}[T]"
    assert by["4"].latex == r"={\rm Tr}[T^{\top}]" and by["4"].continues == by["3"].latex
    assert by["B.3"].latex == r"\|W_{1}\|^{2}\leq mn"
    assert by["5"].latex == r"L(\theta) = \sum_{i} \ell_{i}(\theta)"    # a display on a line of its own
    # "Part (2)" and "(2024)" are no citations; "Eq. ( 12 )" is
    assert _numbers(ds, cited=True) == ["12"]


def test_cited_ranges_and_appendix_labels():
    text = "the strengths (25)–(26), the equations (13)-(14), identity (E9), Lemma (B.5), Eq. 17, loss (2)."
    assert sorted(_numbers(find_displays(text, "txt"), cited=True)) == sorted(
        ["25", "26", "13", "14", "E9", "17", "2"])


def test_declarations():
    decls = find_declarations(read_text(FIXTURES / "paper.tex"))
    assert [(d.name, d.shape) for d in decls] == [("A", ("n", "k")), ("B", ("k", "n")), ("X", ("n", "n"))]
    text = (r"$U=(\tilde{u}_{1},\cdots)^{\top}\in\mathbb{R}^{d_{2}\times d}$, $\tilde{u}_{i},\tilde{w}_{j}"
            r"\in\mathbb{R}^{d}$, $\rho\in\mathbb{R}$, $\lambda \in \mathbb{R}^{+}$, $(a, b) \in \R^2$, "
            r"where x \in R^d")
    got = [(d.name, d.shape) for d in find_declarations(text)]
    assert got == [("U", ("d_{2}", "d")), (r"\tilde{u}_{i}", ("d", "1")), (r"\tilde{w}_{j}", ("d", "1")),
                   (r"\rho", ()), (r"\lambda", ()), ("x", ("d", "1"))]


@pytest.mark.parametrize("raw, clean", [
    (r"\boxed{a=b}.", "a=b"),
    (r"\displaystyle =0.", "=0"),
    (r"a &= b \label{x} \nonumber ,", "a = b"),
    (r"a = b \tag{3}\quad", "a = b"),
])
def test_strip_wrappers(raw, clean):
    assert strip_wrappers(raw) == clean


def test_text_format():
    assert [text_format(p) for p in ("a.tex", "b.MD", "c.txt", "d")] == ["tex", "md", "txt", "txt"]


def test_bad_files(tmp_path):
    binary = tmp_path / "x.pdf"
    binary.write_bytes(b"%PDF-1.5\x00\x01\x02" * 100)
    for path, words in [(tmp_path / "none.tex", "readable"), (tmp_path, "directory"), (binary, "binary")]:
        with pytest.raises(InvalidArgument, match=words) as exc:
            read_text(path)
        assert str(exc.value).startswith("file=") and "\n" not in str(exc.value)
    with pytest.raises(InvalidArgument, match="fmt="):
        find_displays("", "pdf")


_NAMES = st.sampled_from(["A", "B", "W_{1}", r"\Sigma", "x", r"\mathbf{h}"])
_SIDES = st.lists(_NAMES, min_size=1, max_size=3).map("".join)
_STATEMENTS = st.tuples(_SIDES, st.sampled_from(["=", r"\approx", r"\le", ":="]), _SIDES).map(
    lambda t: f"{t[0]}{t[1]}{t[2]}" if t[1] in "=:=" else f"{t[0]}{t[1]} {t[2]}")


@given(st.lists(_STATEMENTS, min_size=1, max_size=6), st.sampled_from(["tex", "md", "txt-dollars", "txt-bare"]))
def test_rendered_displays_are_found_with_their_latex(statements, form):
    """Property: displays rendered in any of the formats come back with their numbers and LaTeX."""
    parts = ["Some prose (with a parenthesis) and a year (2024)."]
    for k, s in enumerate(statements, start=1):
        if form == "tex":
            parts.append(f"\\begin{{equation}}\n  {s}\n\\end{{equation}}\nText after.")
        elif form == "md" or form == "txt-dollars":
            parts.append(f"$${s}$$ ({k})\n\nText after.")
        else:
            parts.append(f"ga rb led . {s}. ({k}) text after,")
    text = "\n".join(parts)
    ds = find_displays(text, "tex" if form == "tex" else ("md" if form == "md" else "txt"))
    assert [(d.number, d.latex) for d in ds if not d.cited] == [
        (str(k), strip_wrappers(s)) for k, s in enumerate(statements, start=1)]


def test_tex_numbered_within_sections_and_appendices():
    ds = find_displays(read_text(FIXTURES / "sections.tex"), "tex")
    # \section* does not count; \appendix restarts the sections at A; a \tag neither counts nor resets
    assert _numbers(ds) == ["1.1", "1.2", "1.3", "2.1", "2.2", "A.1", r"$\star$", "B.1"]


def test_unnumbered_rows_before_a_numbered_continuation_are_its_chain():
    """helper-40: ``a &= b \\nonumber \\\\ &= c`` numbers the chain ``a = b = c``; its first link was lost (neither a
    claim nor a TODO).  A numbered row before the continuation stays its own equation."""
    from theorem_check.authoring.scan_find import find_displays

    tex = ("\\begin{align}\nX &= Y \\nonumber \\\\\n &= Z \\nonumber \\\\\n &= W \\label{eq:c}\n\\end{align}\n"
           "\\begin{align}\nP &= Q \\\\\n &= R\n\\end{align}\n")
    d = find_displays(tex, "tex")
    assert [(x.number, " ".join(x.latex.split()), x.continues) for x in d] == [
        ("1", "X = Y = Z = W", ""), ("2", "P = Q", ""), ("3", "= R", "P = Q")]


def test_row_spacing_intertext_split_and_tagged_dollars():
    """helper-44: ``\\\\[4pt]`` put ``4pt`` into the next row, ``\\intertext`` merged two numbered rows (every later
    number off by one), ``split`` inside ``equation`` was "unexpected '\\begin'", ``$$ .. \\tag{7} $$`` was skipped."""
    tex = ("\\begin{align}\na &= b \\label{eq:a} \\\\[4pt]\nc &= d \\\\*\ne &= f\n\\intertext{and also}\ng &= h\n"
           "\\end{align}\n\\begin{equation}\n\\begin{split}\np &= q \\\\\n&= r\n\\end{split}\n\\end{equation}\n"
           "$$ s = t \\tag{7} $$\n\\begin{equation} u = v \\end{equation}\n")
    d = find_displays(tex, "tex")
    assert [(x.number, " ".join(x.latex.split())) for x in d] == [
        ("1", "a = b"), ("2", "c = d"), ("3", "e = f"), ("4", "g = h"), ("5", "p = q = r"), ("7", "s = t"),
        ("6", "u = v")]


def test_structures_declared_in_prose_and_formulas():
    from theorem_check.authoring.scan_find import find_structures

    text = (r"Let $\Sigma \in \mathbb{R}^{n\times n}$ with $\Sigma \succ 0$, let $S \in \mathbb{R}^{n \times n}$ be "
            "symmetric,\n"
            r"$P \in \mathbb{S}^n_{++}$, $R \in \mathbb{S}^{d}$, $Q \in O(m)$, $\lambda > 0$, $a > 0.5$, "
            "$x^\\top y > 0$.\nA positive definite matrix $A$; $K$ is skew-symmetric; diagonal matrices $D, E$.")
    got = [(d.name, d.structure, d.shape) for d in find_structures(text)]
    assert sorted(got) == sorted([
        ("S", "symmetric", ()), (r"\Sigma", "spd", ()), ("A", "spd", ()), ("K", "antisymmetric", ()),
        ("D", "diagonal", ()), ("E", "diagonal", ()), ("P", "spd", ("n", "n")), ("R", "symmetric", ("d", "d")),
        ("Q", "orthogonal", ("m", "m")), (r"\lambda", "positive", ())])


def test_macros_are_found_and_expanded():
    """helper-44: every equation of a paper written with ``\\newcommand`` macros was unparsed."""
    from theorem_check.authoring.scan_macros import expand_macros, find_macros

    tex = ("\\newcommand{\\mA}{\\mathbf{A}}\n\\newcommand\\vx{\\mathbf{x}}\n\\def\\tr{\\operatorname{tr}}\n"
           "\\DeclareMathOperator{\\Tr}{Tr}\n\\newcommand{\\norm}[1]{\\left\\| #1 \\right\\|}\n"
           "\\renewcommand{\\T}{\\top}\n% \\newcommand{\\gone}{x}\n")
    m = find_macros(tex)
    assert set(m) == {"\\mA", "\\vx", "\\tr", "\\Tr", "\\norm", "\\T"} and m["\\Tr"] == (0, "\\operatorname{Tr}")
    assert " ".join(expand_macros("\\norm{\\mA \\vx}^2 = \\vx^\\T \\mA^\\T \\mA \\vx", m).split()) == \
        "{\\left\\| \\mathbf{A} \\mathbf{x} \\right\\|}^2 = \\mathbf{x} ^\\top \\mathbf{A} ^\\top \\mathbf{A} \\mathbf{x}"
    assert expand_macros("\\mAx + \\norm", m) == "\\mAx + \\norm"       # another name; arguments missing
