"""Escaping and math sanitising: no claim text can break a LaTeX document."""

import re
import subprocess

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from theorem_check.output.latex import (
    claim_latex,
    control_words,
    escape,
    fmt_sci,
    math,
    provide_macros,
    text,
    text_control_words,
)

from .conftest import needs_latex

SPECIALS = "_^&%#{}\\$~[]<>|\n "
ALPHABET = SPECIALS + "abxyzAW12()=+-*/'.,:;!?αβ≤→é" + "\\"
WORDS = ["\\alpha", "\\frac{a}{b}", "\\left(", "\\right)", "\\begin{pmatrix}", "\\end{pmatrix}", "\\\\", "&",
         "\\begin{aligned}", "\\end{aligned}", "\\text{if }", "\\tr", "\\norm{x}", "^", "_", "\\top", "'", "{", "}",
         "%", "#", "$", "\\end{document}", "\\def", "\\verb|x|", "\\begin{align}", "\\end{align}", "\\label{e}",
         "x", "W_i", "\\Sigma_{xx}", "\\foo", "\\operatorname*{arg\\,min}", "\\|", "\\{", "\\}", "^^", "\\sum_{i=1}^n"]
texts = st.text(alphabet=ALPHABET, max_size=40)
mathy = st.lists(st.sampled_from(WORDS) | texts, max_size=12).map(" ".join)


@given(texts)
def test_escape_leaves_no_bare_special(s):
    out = escape(s)
    bare = re.sub(r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar|ensuremath|texttt|allowbreak)"
                  r"\{\}|\\[&%$#_{}]|\{\[\}|\{\]\}", "", out)
    bare = re.sub(r"\\ensuremath\{\\?[A-Za-z]+\}|\\texttt\{\[U\+[0-9A-F]+\]\}", "", bare)
    assert not set(bare) & set("&%$#_^~\\"), out
    assert "\n" not in out


@given(mathy)
def test_math_is_balanced_or_verbatim(s):
    m = math(s)
    if m.ok:
        body = re.sub(r"\\.", "", m.tex)  # control symbols (\\{, \\}, \\\\) are not braces
        depth = 0
        for ch in body:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0
        assert depth == 0
        assert "%" not in re.sub(r"\\%", "", m.tex) and "\n" not in m.tex
    else:
        assert m.tex.startswith(r"\texttt{") and m.reason


TABLE = [
    (r"(AB)^\top = B^\top A^\top", True, r"(AB)^{\top} = B^{\top} A^{\top}"),
    (r"$$ L = \tr(W) $$", True, r"L = \tr(W)"),
    (r"a & = b", True, r"\begin{aligned}{}a &{} = b\end{aligned}"),
    (r"\begin{align} a &= b \label{x}\end{align}", True, r"\begin{aligned}{} a &{}= b \end{aligned}"),
    (r"50% #1", True, r"50\% \#1"),
    (r"a^b^c", False, "double superscript"),
    (r"x_1_2", False, "double subscript"),
    (r"{x", False, "unbalanced braces"),
    (r"x}", False, "unbalanced braces"),
    (r"\left( x", False, r"\left without \right"),
    (r"\def\x{1}", False, r"\def is not allowed"),
    (r"x \end{document}", False, "not a math environment"),
    (r"x^", False, "without an argument"),
    (r"\left( a & b \right)", False, "outside any alignment"),
    # a control symbol as a script's argument is braced: x_\- and x_\, do not compile (a Hypothesis find, stop 37)
    (r"x_ \-", True, r"x_ {\-}"),
    (r"x^\,", True, r"x^{\,}"),
    (r"x_\\", False, "cannot be the argument"),
    # a command without its mandatory arguments, and \left, \begin as a script's argument, do not compile (the same)
    (r"\frac a", False, r"\frac without its arguments"),
    (r"x + \hat", False, r"\hat without its argument"),
    (r"x_\operatorname}", False, "needs braces"),
    (r"x^\left( a \right)", False, "needs braces"),
    (r"\begin{aligned} a ^ \end{aligned}", False, "needs braces"),
    (r"\frac ab + \hat x", True, r"\frac ab + \hat x"),
    (r"\operatorname*{arg\,min}_x f", True, r"\operatorname*{arg\,min}_x f"),
    # a bracket after \\ that is no dimension was read as \\[<dimen>]: "Illegal unit of measure" (stop 38)
    (r"\\[,;:!> ]|x", True, r"\begin{aligned}{}\\{}[,;:!> ]|x\end{aligned}"),
    (r"a \\*[x] b", True, r"\begin{aligned}{}a \\{}*[x] b\end{aligned}"),
    (r"a \\[2pt] b \\* c \\*[-1.5ex] d", True, r"\begin{aligned}{}a \\[2pt] b \\* c \\*[-1.5ex] d\end{aligned}"),
]


@pytest.mark.parametrize("src,ok,expect", TABLE, ids=[t[0] for t in TABLE])
def test_math_table(src, ok, expect):
    m = math(src)
    assert m.ok is ok
    assert (m.tex == expect) if ok else (expect in m.reason)


@needs_latex
def test_a_control_symbol_as_a_scripts_argument_compiles(tmp_path):
    body = " ".join(f"\\[{math(src).tex}\\]" for src in (r"x_\-", r"x_ \,", r"y^\;", r"z_\!", r"w^\ a", r"v_\>",
                                                        r"\\[,;:!> ]|x", r"a \\*[x] b", r"a \\[2pt] b \\*[1ex] c"))
    p = _compile(tmp_path, body)
    assert p.returncode == 0, p.stdout[-2000:]


def test_text_renders_dollar_math_and_escapes_the_rest():
    assert text("Gradient of $L$ at $W_i$, 5$") == r"Gradient of $L$ at $W_i$, 5\$"
    assert text("cost $x^^$ here") == r"cost \$x\textasciicircum{}\textasciicircum{}\$ here"


def test_fmt_sci():
    assert [fmt_sci(x) for x in (0.0, 3.14e-17, 0.41, float("inf"), float("nan"))] == \
        ["0", r"3.1\times 10^{-17}", "0.41", r"\infty", r"\mathrm{NaN}"]


def test_provide_macros_gives_meanings_and_skips_standard_names():
    lines = provide_macros(control_words(r"\tr(W) + \norm{x} + \foo + \Sigma + \alpha"))
    assert r"\providecommand{\tr}{\ensuremath{\operatorname{tr}}}" in lines
    assert r"\providecommand{\norm}[1]" in lines and r"\operatorname{foo}" in lines
    assert "Sigma" not in lines and "alpha" not in lines


def _compile(tmp_path, body: str, macros: str = "") -> subprocess.CompletedProcess:
    doc = ("\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\\usepackage{amsmath,amssymb}"
           f"\n{macros}\n\\begin{{document}}\n{body}\n\\end{{document}}\n")
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, errors="replace", timeout=120)


@needs_latex
@settings(max_examples=3, deadline=None, phases=[Phase.explicit, Phase.generate])  # no shrinking: compiles are slow
@given(st.lists(st.tuples(texts, mathy), min_size=30, max_size=30))
def test_any_text_and_math_compile(tmp_path_factory, pairs):
    """Property: whatever strings claims carry, escaped prose and sanitised math compile."""
    tmp = tmp_path_factory.mktemp("tex")
    words = set()
    parts = []
    for prose, m in pairs:
        words |= control_words(m) | text_control_words(prose)
        mt = math(m)
        shown = f"\\[{mt.tex}\\]" if mt.ok else mt.tex
        parts.append(f"\\paragraph{{{escape(prose)}}} {text(prose)} {shown}\n")
    p = _compile(tmp, "\n".join(parts), provide_macros(words))
    assert p.returncode == 0, p.stdout[-2000:]


@needs_latex
def test_claim_latex_block_compiles_alone(tmp_path, pack_claims):
    claims = pack_claims("transpose", "inverse", "specials")
    body = "\n\n".join(claim_latex(c) for c in claims)
    p = _compile(tmp_path, body)
    assert p.returncode == 0, p.stdout[-2000:]


def test_repr_latex_is_the_show_block(pack_claims):
    (c, *_) = pack_claims("transpose")
    assert c._repr_latex_() == claim_latex(c)


@needs_latex
def test_every_builtin_claim_block_compiles(tmp_path):
    """Every built-in claim's text (slow simulations included, which the report tests do not run)."""
    from theorem_check import REGISTRY, load_builtin

    load_builtin()
    body = "\n\n".join(claim_latex(c) for c in REGISTRY if "." in c.id and c.paper in ("prh", "noise", "cascade"))
    p = _compile(tmp_path, body)
    assert p.returncode == 0, p.stdout[-2000:]


@pytest.mark.slow
def test_builtin_step_labels_are_plain_text():
    """Step.why is plain text too (checked here: derivations are built lazily, not at registration)."""
    from theorem_check import REGISTRY, load_builtin
    from theorem_check.model.claims import check_plain_text

    load_builtin()
    for c in REGISTRY:
        if c.paper not in ("prh", "noise", "cascade"):
            continue
        for st in c.statements():  # noqa: F402 - a statement, not the strategies module
            found = st.derivation() if st.derivation is not None else None
            if found is not None:
                for k, step in enumerate(found.steps, 1):
                    check_plain_text(step.why, f"claim {c.id} {st.name!r} step {k} why")


def test_symbol_names_and_dims():
    import sympy as sp

    from theorem_check.output.latex import dims_text, prose_dicts, retex, sympy_latex

    s2, tr = sp.symbols("sigma2 TrSigmaA")
    assert sympy_latex(s2 * tr) == r"\operatorname{Tr}\Sigma A \sigma^{2}" or "\\sigma^{2}" in sympy_latex(s2 * tr)
    assert retex(sp.latex(2 * s2 ** 2)) == r"2 {\sigma^{2}}^{2}"
    assert sympy_latex(sp.Symbol("delta^{i+2}")) == r"\delta^{i+2}"
    assert dims_text({"n": 2, "D": 3}) == "n = 2, D = 3"
    assert prose_dicts("at dims {'n': 2, 'DA': 3}, seed 1") == "at dims n = 2, DA = 3, seed 1"


def test_break_math_splits_long_displays_and_keeps_short_ones():
    from theorem_check.output.latex import break_math, math_width

    short = "a + b = c"
    assert break_math(short) == short
    long = " + ".join(f"a_{{{i}}} x^{{{i}}}" for i in range(60))
    out = break_math(long, 40)
    assert out.startswith(r"\begin{aligned}&") and math(out).ok
    assert all(math_width(line) <= 40 * 1.15 for line in out[len(r"\begin{aligned}&"):-len(r"\end{aligned}")].split(r"\\&"))
    wrapped = break_math(r"\left(" + long + r"\right)^{2}", 40)
    assert r"\bigl(" in wrapped and r"\bigr)" in wrapped and math(wrapped).ok
