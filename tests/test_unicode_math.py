"""Maths in the terminal as Unicode (issue 23, item 2): ``output/unicode_math.py`` and ``list``/``show``."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorem_check import REGISTRY, load_builtin
from theorem_check.cli.catalogue import describe, list_lines
from theorem_check.output.unicode_math import cut_words, text_to_unicode, to_unicode

# a backslash followed by a letter, or a brace group: raw LaTeX left in terminal text
RAW = re.compile(r"\\[A-Za-z]|[{}]|\$")


@pytest.mark.parametrize("src, want", [
    (r"W_{i+1} \to W_{i+1} T", "Wᵢ₊₁ → Wᵢ₊₁ T"),
    (r"T^{-1} W_{i}", "T⁻¹ Wᵢ"),
    (r"h^{\top} T^{-\top}", "hᵀ T⁻ᵀ"),
    (r"e^{-2\lambda T}", "e^(-2λ T)"), (r"e^{-2\lambda}", "e^(-2λ)"),
    (r"{\rm Tr}[T\mathbb{E}[\nabla_{W_{i}}\ell]]", "Tr[T𝔼[∇_(Wᵢ)ℓ]]"),
    (r"\sigma^{2} \operatorname{Tr}[\Sigma A]", "σ² Tr[Σ A]"),
    (r"\lVert x\rVert^2 + \|y\|", "‖ x‖² + ‖y‖"),
    (r"\frac{a}{b}", "a/b"),
])
def test_to_unicode(src, want):
    assert to_unicode(src) == want


def test_text_to_unicode_keeps_prose():
    assert text_to_unicode(r"After $T$ the kernel of $h^{i+1}$ costs \$5") == r"After T the kernel of hⁱ⁺¹ costs \$5"


@given(st.text(max_size=60), st.integers(5, 80))
def test_cut_words_fits_and_cuts_at_a_space(s, width):
    out = cut_words(s, width)
    assert len(out) <= width or len(s) <= width
    if out != s:
        assert out.endswith("...") and s.startswith(out[:-3])


def _builtin():
    load_builtin()
    return [c for c in REGISTRY if c.paper in ("prh", "noise", "cascade")]


def test_list_shows_no_raw_latex_and_cuts_at_words():
    claims = [c for c in _builtin() if c.paper == "prh"]
    for line, c in zip(list_lines(claims, 100), claims):
        assert not RAW.search(line), line
        title = line.split("  ")[2] if line.count("  ") >= 2 else line
        full = text_to_unicode(c.title)
        if title.endswith("..."):   # cut between words of the converted title
            kept = title[:-3]
            assert full.startswith(kept) and full[len(kept)] in " ,;:", (kept, full)


def test_show_prh_eq31_is_unicode():
    c = next(c for c in _builtin() if c.id == "prh.eq31")
    text = describe(c, columns=80)
    assert "ℓ" in text and "∇" in text and "\\ell" not in text
    assert max(map(len, text.splitlines())) <= 80
    stmt = [ln for ln in text.splitlines() if "as printed:" in ln][0]
    assert not RAW.search(stmt), stmt
