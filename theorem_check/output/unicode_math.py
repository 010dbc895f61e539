"""LaTeX shown in a terminal: mathematics as Unicode text, never raw macros.

:func:`to_unicode` turns a math-mode LaTeX string (``Source.printed``, ``Statement.latex``) into
plain Unicode with pylatexenc's LaTeX-to-text converter (``\\nabla`` -> ∇, ``\\mathbb{E}`` -> 𝔼,
``\\frac{a}{b}`` -> a/b, ``\\sqrt{x}`` -> √(x)).  Sub- and superscripts are written as Unicode
scripts where every character has one (``W_{i+1}`` -> Wᵢ₊₁, ``x^{\\top}`` -> xᵀ, ``T^{-1}`` -> T⁻¹),
otherwise as a parenthesised group (``e^{-2\\lambda T}`` -> e^(-2λT)), so that a script never
swallows what follows it.  :func:`text_to_unicode` does the same to the ``$...$`` spans of a title
or a name; :func:`cut_words` shortens a converted line at a word boundary.

Source: issue 23 (``list --paper prh`` cut titles inside a macro; ``show prh.eq31`` wrapped inside
``\\ell``); pylatexenc, https://pylatexenc.readthedocs.io (``latex2text.LatexNodes2Text``).

>>> to_unicode(r"{\\rm Tr}[T\\mathbb{E}[\\nabla_{W_{i}}\\ell\\nabla_{W_{i}}^{\\top}\\ell]]")
'Tr[T𝔼[∇_(Wᵢ)ℓ∇_(Wᵢ)ᵀℓ]]'
>>> text_to_unicode(r"$W_{i} \\to T^{-1} W_{i}$ leaves the loss unchanged")
'Wᵢ → T⁻¹ Wᵢ leaves the loss unchanged'
"""

from __future__ import annotations

import functools
import re

__all__ = ["to_unicode", "text_to_unicode", "cut_words", "SUPERSCRIPTS", "SUBSCRIPTS"]

SUPERSCRIPTS = dict(zip("0123456789+-=()niT*ᵀ⊤−'", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ*ᵀᵀ⁻′"))
"""Characters with a Unicode superscript form (``T`` and ``⊤`` are the transpose ᵀ)."""
SUBSCRIPTS = dict(zip("0123456789+-=()aehijklmnoprstuvx−", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₋"))
"""Characters with a Unicode subscript form."""

_GROUP = re.compile(r"([_^])\{([^{}]*)\}")
_SINGLE = re.compile(r"([_^])(\\[A-Za-z]+|[A-Za-z0-9*])")
_OPNAME = re.compile(r"(?<=([A-Za-z0-9}]))?(?:\\operatorname\*?\{([^{}]*)\}|\{\\rm\s+([^{}]*)\})(?=([A-Za-z\\]))?")
_NORMS = {r"\|": "‖", r"\lVert": "‖", r"\rVert": "‖", r"\Vert": "‖", r"\lvert": "|", r"\rvert": "|", r"\vert": "|"}


@functools.lru_cache(maxsize=1)
def _converter():
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


def _plain(latex: str) -> str:
    return _converter().latex_to_text(latex)


def _script(kind: str, body: str) -> str:
    """One sub/superscript whose body is already Unicode text."""
    body = body.strip()
    table = SUPERSCRIPTS if kind == "^" else SUBSCRIPTS
    if body and all(ch in table for ch in body):
        return "".join(table[ch] for ch in body)
    if len(body) == 1:
        return kind + body
    return f"{kind}({body})"


def to_unicode(latex: str) -> str:
    """A math-mode LaTeX string as one line of Unicode text (see the module docstring).

    Never raises: text pylatexenc cannot parse is returned with its whitespace collapsed.
    """
    s = str(latex)
    s = _OPNAME.sub(lambda m: (" " if m.group(1) else "") + (m.group(2) if m.group(2) is not None else m.group(3))
                    + (" " if m.group(4) else ""), s)
    s = re.sub(r"\\mathrm\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\\||\\[lr]?[vV]ert(?![A-Za-z])", lambda m: _NORMS[m.group(0)], s)
    s = re.sub(r"(\\[A-Za-z]+) +(?=[^\s{}^_])", "\\1\x03 ", s)   # TeX eats the space after a macro; the reader wants it
    s = re.sub(r"\\(left|right|big|Big|bigg|Bigg)[lr]?(?![A-Za-z])", "", s)
    try:
        # innermost script groups first, so that W_{i+1}^{\lambda} nests into one unambiguous text
        for _ in range(20):
            new = _GROUP.sub(lambda m: "\x01" + _script(m.group(1), _plain(m.group(2))) + "\x02", s)
            if new == s:
                break
            s = new
        s = _SINGLE.sub(lambda m: "\x01" + _script(m.group(1), _plain(m.group(2))) + "\x02", s)
        s = _plain(s.replace("\x01", "{").replace("\x02", "}"))
    except Exception:  # noqa: BLE001 - a display aid: fall back to the source text
        pass
    s = re.sub(r"\s+", " ", s.replace("\x03", "")).strip()
    return re.sub(r"\s+([,;.)\]])", r"\1", s)


def text_to_unicode(text: str) -> str:
    """A title or name: ``$...$`` spans as Unicode maths (:func:`to_unicode`), the rest as written."""
    parts = re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", str(text))
    return "".join(to_unicode(p) if k % 2 else p for k, p in enumerate(parts))


def cut_words(text: str, width: int, ellipsis: str = "...") -> str:
    """``text`` cut to at most ``width`` characters at a word boundary, with ``ellipsis`` when cut."""
    if len(text) <= width:
        return text
    room = max(width - len(ellipsis), 0)
    head = text[:room + 1]
    cut = head.rfind(" ")
    head = head[:cut] if cut > room // 2 else text[:room]
    return head.rstrip(" ,;:") + ellipsis
