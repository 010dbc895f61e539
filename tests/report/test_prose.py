"""Evidence typeset in reports (issue 23, item 1): ``output/prose.py`` and the report built with it."""

from __future__ import annotations

import re
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_check import RunResult
from theorem_check.engine.runner import versions
from theorem_check.output.prose import prose, sci_number
from theorem_check.output.report import write_report
from theorem_check.output.tex import math

from .conftest import HAVE_LATEX, HAVE_PDFTOTEXT, builtin_claims, cached_results

# Plain-text maths, reprs and mixed number formats that must not reach a reader of the report.
BAD = {
    "array repr": re.compile(r"array\("),
    "ASCII norm": re.compile(r"\|\|"),
    "ASCII arrow": re.compile(r"->"),
    "plain-text expectation": re.compile(r"E\[grad"),
    "plain-text transpose": re.compile(r"[A-Za-z_]\^T\b"),
    "plain-text subscript": re.compile(r"\b(?:e_j|grad_W\d|dC_B)\b"),
    "plain-text derivative": re.compile(r"dC_B/dt"),
    "code product": re.compile(r"eps\*size\*cond"),
    "e-notation number": re.compile(r"\b\d\.\d+e[-+]\d\d\b"),
    "hidden left side": re.compile(r"(?:\.\s?\.\s?\.|\\ldots|\\dots|…)\s*="),
}
# Claims whose evidence has each pattern above (seed 0), about 4 s together.
CLAIMS = ["prh.eq30", "prh.eq27", "prh.lambda_unique", "noise.rank1_sign", "noise.thmd1_p3", "noise.eq2"]


def _bad(txt: str) -> dict[str, list[str]]:
    return {name: pat.findall(txt)[:3] for name, pat in BAD.items() if pat.search(txt)}


@pytest.mark.parametrize("src, want", [
    ("T = e_j e_j^T", r"$T = e_{j} e_{j}^{\top}$"),
    ("E[grad_W2 grad_W2^T] is 1x1", r"$\mathbb{E}[\nabla_{W_{2}} \nabla_{W_{2}}^{\top}]$ is $1\times 1$"),
    ("dC_B/dt = 0", r"$\mathrm{d}C_{B}/\mathrm{d}t = 0$"),
    ("floors eps*size*cond", r"floors $\varepsilon \cdot \mathrm{size} \cdot \mathrm{cond}$"),
    ("3.7e-01 -> 1.2e-14", r"$0.37$ $\to$ $1.2\times 10^{-14}$"),
    ("predicted array(50,), measured array(1, 3, 3)", r"predicted 50 values, measured an array of size $1\times 3\times 3$"),
    ("||Sigma_yx|| = 1.8", r"$\Vert \Sigma_{\mathrm{yx}}\Vert = 1.8$"),
    ("dims n=3 D=4", "dims $n=3$ $D=4$"),
    ("reading: $B^{\\top}$ holds", r"reading: $B^{\top}$ holds"),
])
def test_prose_typesets_plain_text_maths(src, want):
    assert prose(src) == want


def test_one_number_format():
    """e-notation in evidence prints like the residual columns (fmt_sci), with the digits it was written with."""
    assert sci_number("3.7e-01") == "0.37" and sci_number("5.0e-01") == "0.5"
    assert sci_number("1.2e-14") == r"1.2\times 10^{-14}" and sci_number("0.0e+00") == "0"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("aTEeWjdtxC_^*|/=+-.,:;()[]{}$ 0123456789") + ["->", "||", "e-01", "theta"]),
                max_size=40).map("".join))
def test_prose_never_leaves_unbalanced_math(s):
    """Whatever the text, every $...$ span prose writes is math that sanitises (the document compiles)."""
    out = prose(s)
    spans = re.split(r"(?<!\\)\$", out)
    assert len(spans) % 2 == 1, out
    for k in range(1, len(spans), 2):
        assert math(spans[k]).ok, (s, out)


def _report(tmp_path, pdf: bool):
    claims = [c for c in builtin_claims() if c.id in CLAIMS]
    assert len(claims) == len(CLAIMS)
    run = RunResult(tuple(cached_results(claims)), 0, 16, versions(), "2026-01-01T00:00:00")
    return write_report(run, tmp_path, pdf=pdf)


def _tex_text(tex: str) -> str:
    """The report's typeset prose: the document body without math spans and displays (LaTeX code aside)."""
    body = tex.split(r"\begin{document}", 1)[1]
    body = re.sub(r"\\begin\{(equation\*|aligned)\}.*?\\end\{\1\}", " ", body, flags=re.S)
    body = re.sub(r"\\tcdisplay\{.*", " ", body)
    return re.sub(r"(?<!\\)\$[^$]*(?<!\\)\$", " ", body)


def test_report_tex_has_no_plain_text_maths(tmp_path):
    path = _report(tmp_path, pdf=False)
    tex = path.read_text()
    assert not _bad(_tex_text(tex)), _bad(_tex_text(tex))
    # the rerun command is on page 1: before the summary table
    assert tex.index("rerun with") < tex.index(r"\section*{Summary}")


@pytest.mark.slow
@pytest.mark.skipif(not (HAVE_LATEX and HAVE_PDFTOTEXT), reason="latexmk/pdflatex or pdftotext not installed")
def test_report_pdf_has_no_plain_text_maths(tmp_path):
    pdf = _report(tmp_path, pdf=True)
    txt = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert not _bad(txt), _bad(txt)
    first = subprocess.run(["pdftotext", "-l", "1", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "rerun with" in first


def test_a_spaced_bar_is_a_separator_not_an_absolute_value():
    """helper-56: the evidence's ``dims n=3 | n=1 | n=2 | n=4; far from the origin: ...`` paired its separators as
    bars and set the rest of the sentence as maths (an overfull line in the PDF); ``|x|`` stays a norm."""
    out = prose("dims n=3 | n=1 | n=2 | n=4; far from the origin: 53 instances (|x| = 2)")
    assert out.count(r"\textbar{}") == 3 and "far from the origin" in out and r"\vert x\vert" in out
