"""LaTeX output that no claim text can break: escaping, math sanitising, claim blocks.

Three kinds of strings reach a LaTeX document:

* **plain text** written by claim authors (titles, assumptions, notes, statement names,
  sections) or produced by the engine (evidence, details): :func:`escape` turns every LaTeX
  special (``\\ & % $ # _ { } ~ ^ [ ] < > |``) and common Unicode math characters into
  commands that print them.  :func:`text` does the same but renders ``$...$`` spans as inline
  math (sanitised by :func:`math`), so that a title may read ``Gradient of $L$ at $W_i$``;
* **math** written by claim authors (``Source.printed``, ``Statement.latex``) or by SymPy's
  printer (derivation steps): :func:`math` keeps it as LaTeX but guarantees it compiles inside a
  display: ``%``, ``#`` and ``$`` are escaped, a trailing backslash is printed, top-level ``&``
  and ``\\\\`` get an ``aligned`` environment, wrappers (``$$``, ``\\[``, ``equation``,
  ``align``) are unwrapped, ``\\label``/``\\tag``/``\\nonumber`` dropped, and anything that
  cannot compile (unbalanced braces, ``\\left`` without ``\\right``, unknown environments,
  double sub/superscripts, ``\\def``/``\\input``/..., a script without argument) falls back to
  the verbatim text in typewriter type, with the reason;
* **macros** the statements use but no package defines (``\\tr``, ``\\diag``, ``\\E``,
  ``\\norm``): :func:`provide_macros` emits ``\\providecommand`` lines for every control word
  found, with sensible meanings for common ones and ``\\operatorname{name}`` for the rest; it
  defines nothing that is already defined.

>>> escape("50% of W_i & {x}")   # breaks allowed after _ (\\allowbreak prints nothing)
'50\\\\% of W\\\\_\\\\allowbreak{}i \\\\& \\\\{x\\\\}'
>>> math(r"\\Sigma_{xx} & = W^\\top W").tex
'\\\\begin{aligned}{}\\\\Sigma_{xx} &{} = W^{\\\\top} W\\\\end{aligned}'
>>> math(r"a^b^c").ok
False
"""

from __future__ import annotations

import functools as _functools
import math as _pymath
import re
from dataclasses import dataclass
from typing import Iterable

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # no runtime import: claims imports latex lazily for _repr_latex_
    from .claims import Claim

__all__ = ["Tex", "MathTex", "escape", "text", "math", "display", "fmt_sci", "control_words", "provide_macros",
           "claim_latex", "MATH_ENVS", "SYMBOL_NAMES", "symbol_latex", "sympy_latex", "retex", "dims_text",
           "prose_dicts", "math_width", "break_math", "md_math", "md_text", "statement_title"]


class Tex(str):
    """A string that is already valid LaTeX (the report's template does not escape it again)."""


_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
             "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "[": "{[}", "]": "{]}",
             "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}

# Unicode characters claim authors write in place of LaTeX commands (math meaning).
_UNICODE_MATH = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ϵ": r"\epsilon",
    "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ι": r"\iota", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu",
    "ν": r"\nu", "ξ": r"\xi", "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "υ": r"\upsilon",
    "φ": r"\phi", "ϕ": r"\phi", "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega", "Γ": r"\Gamma", "Δ": r"\Delta",
    "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi", "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi",
    "Ω": r"\Omega", "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "≈": r"\approx", "≡": r"\equiv", "∼": r"\sim",
    "→": r"\to", "←": r"\leftarrow", "↦": r"\mapsto", "⇒": r"\Rightarrow", "⇔": r"\Leftrightarrow",
    "∈": r"\in", "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq", "∪": r"\cup", "∩": r"\cap",
    "∀": r"\forall", "∃": r"\exists", "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∂": r"\partial",
    "∇": r"\nabla", "∞": r"\infty", "⊤": r"\top", "⊥": r"\perp", "†": r"\dagger", "⊗": r"\otimes",
    "⊕": r"\oplus", "∘": r"\circ", "·": r"\cdot", "×": r"\times", "±": r"\pm", "∓": r"\mp", "−": "-",
    "‖": r"\|", "√": r"\surd", "…": r"\ldots", "⋯": r"\cdots", "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}",
    "ℤ": r"\mathbb{Z}", "𝔼": r"\mathbb{E}", "∅": r"\emptyset", "¹": "^{1}", "²": "^{2}", "³": "^{3}",
    "⁻": "^{-}", "ᵀ": r"^{\top}", "′": "'", "≪": r"\ll", "≫": r"\gg", "∝": r"\propto", "⟨": r"\langle",
    "⟩": r"\rangle",
}
# Unicode text that the default pdfLaTeX set-up (T1, utf8) prints without help.
_TEXT_OK = set(chr(c) for c in range(0xA0, 0x100)) | set("–—‘’“”•€") - set("¹²³·×±")

MATH_ENVS = frozenset({"matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix", "cases",
                       "aligned", "alignedat", "gathered", "split", "array", "subarray", "dcases", "rcases",
                       "matrix*", "pmatrix*", "bmatrix*"})
_UNWRAP_ENVS = {"equation": "", "equation*": "", "displaymath": "", "math": "", "align": "aligned",
                "align*": "aligned", "gather": "gathered", "gather*": "gathered", "multline": "gathered",
                "multline*": "gathered", "eqnarray": "aligned", "eqnarray*": "aligned", "flalign": "aligned",
                "flalign*": "aligned"}
# Commands that could change the document around a statement or do not belong in math.
_FORBIDDEN = frozenset({
    "def", "edef", "gdef", "xdef", "let", "futurelet", "newcommand", "renewcommand", "providecommand",
    "DeclareMathOperator", "newenvironment", "renewenvironment", "input", "include", "InputIfFileExists", "write",
    "immediate", "openout", "openin", "read", "catcode", "lccode", "uccode", "csname", "endcsname", "verb",
    "documentclass", "usepackage", "RequirePackage", "begingroup", "endgroup", "makeatletter", "makeatother",
    "expandafter", "special", "par", "item", "section", "subsection", "paragraph", "chapter", "newpage",
    "clearpage", "vskip", "hskip", "everypar", "output", "shipout", "end", "begin", "afterassignment",
    "aftergroup", "global", "long", "outer", "noexpand", "string", "detokenize", "scantokens", "endinput",
    "dump", "errmessage", "message", "typeout", "relax", "iffalse", "iftrue", "fi", "else", "or", "if", "ifx",
    "ifnum", "ifdim", "loop", "repeat", "directlua", "pdfprimitive", "tracingall",
    # text-mode accents and letters: an error in math
    "a", "b", "c", "d", "H", "k", "r", "t", "u", "v", "G", "l", "L", "o", "O", "aa", "AA", "ae", "AE", "oe", "OE",
    "ss", "i", "j", "textsuperscript", "textsubscript", "footnote", "marginpar", "cite", "ref", "url", "href",
})  # begin/end are handled separately (only math environments pass)
_TEXT_CMDS = frozenset({"text", "textrm", "textit", "textbf", "texttt", "textsf", "textnormal", "mbox",
                        "textup", "textsc", "emph"})
_CONTROL_SYMBOLS = frozenset({"\\\\", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\{", "\\}", "\\|", "\\%", "\\#", "\\$",
                              "\\&", "\\_", "\\>", "\\-"})
_DROP = {"label": 1, "tag": 1, "eqref": 1, "nonumber": 0, "notag": 0}
_TOKEN = re.compile(r"\\[A-Za-z]+|\\[^A-Za-z]|\\\Z|\s+|.", re.S)


def _text_char(ch: str) -> str:
    if ch in _SPECIALS:
        return _SPECIALS[ch]
    if ord(ch) < 128 or ch in _TEXT_OK:
        return ch
    if ch in _UNICODE_MATH:
        return rf"\ensuremath{{{_UNICODE_MATH[ch]}}}"
    return rf"\texttt{{[U+{ord(ch):04X}]}}"


def escape(text: str) -> Tex:
    """Plain text -> LaTeX that prints it literally.

    Escapes ``\\ & % $ # _ { } ~ ^ [ ] < > |``, collapses whitespace (so that no blank line can
    end a paragraph inside a macro argument), maps Unicode math characters (``α``, ``≤``,
    ``→``) to ``\\ensuremath{...}`` and any other character pdfLaTeX cannot print to
    ``[U+XXXX]``.
    """
    s = re.sub(r"\s+", " ", str(text))
    out = []
    for k, ch in enumerate(s):
        out.append(_text_char(ch))
        # long identifiers and key=value runs may break after _ . = / (never a visible change)
        if ch in "_=/" or (ch == "." and k + 1 < len(s) and s[k + 1].isalpha() and k > 0 and s[k - 1].isalnum()):
            if k + 1 < len(s) and not s[k + 1].isspace():
                out.append(r"\allowbreak{}")
    return Tex("".join(out))


@dataclass(frozen=True)
class MathTex:
    """A sanitised math string: ``tex`` compiles in math mode when ``ok``; otherwise ``tex`` is
    the verbatim fallback (text mode) and ``reason`` says why."""

    tex: Tex
    ok: bool
    reason: str = ""
    source: str = ""


def _strip_wrappers(s: str) -> str:
    s = s.strip()
    for a, b in (("$$", "$$"), (r"\[", r"\]"), (r"\(", r"\)"), ("$", "$")):
        if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b) and not s.endswith("\\" + b):
            return s[len(a):len(s) - len(b)].strip()
    return s


class _Fallback(Exception):
    pass


def _sanitize(src: str) -> tuple[str, list[str]]:
    """Token-level rewrite; raises _Fallback(reason) when the math cannot be made to compile."""
    toks = _TOKEN.findall(_strip_wrappers(src))
    out: list[str] = []
    env_stack: list[str] = []
    depth = 0
    lr = 0
    needs_aligned = False
    words: list[str] = []
    # script state per brace level: (has_sup, has_sub, has_prime); None when no nucleus yet
    state: list[list[bool]] = [[False, False, False]]
    pending_script: list[str | None] = [None]   # '^' or '_' waiting for its argument at this level
    i = 0
    prime_adjacent = False

    def read_group(j: int) -> tuple[str, int]:
        """Read a {…} group starting at toks[j] == '{' (raw, no rewriting); returns (content, next)."""
        d, k, buf = 0, j, []
        while k < len(toks):
            t = toks[k]
            if t == "{":
                d += 1
            elif t == "}":
                d -= 1
                if d == 0:
                    return "".join(buf[1:]), k + 1
            buf.append(t)
            k += 1
        raise _Fallback("unbalanced braces")

    def atom_done():
        """A script argument or a plain atom was consumed at the current level."""
        if pending_script[-1] is not None:
            pending_script[-1] = None
        else:
            state[-1] = [False, False, False]

    while i < len(toks):
        t = toks[i]
        i += 1
        if t.isspace():
            out.append(" ")
            prime_adjacent = False
            continue
        was_adjacent, prime_adjacent = prime_adjacent, False
        if pending_script[-1] is not None and t in ("'", "~", "&", "\\\\"):
            raise _Fallback(f"{t!r} cannot be the argument of '{pending_script[-1]}'")
        if t.startswith("\\") and len(t) > 1 and t[1:].isascii() and t[1:].isalpha():
            name = t[1:]
            if name in _DROP:
                if _DROP[name]:
                    j = i
                    while j < len(toks) and toks[j].isspace():
                        j += 1
                    if j < len(toks) and toks[j] == "{":
                        _, i = read_group(j)
                continue
            if name in ("begin", "end"):
                j = i
                while j < len(toks) and toks[j].isspace():
                    j += 1
                if j >= len(toks) or toks[j] != "{":
                    raise _Fallback(f"\\{name} without an environment name")
                env, i = read_group(j)
                env = env.strip()
                if env in _UNWRAP_ENVS:
                    env = _UNWRAP_ENVS[env]
                    if not env:
                        continue
                if env not in MATH_ENVS:
                    raise _Fallback(f"environment {env!r} is not a math environment")
                if name == "begin":
                    env_stack.append(env)
                    # array/alignedat take a mandatory argument: copy it through raw
                    out.append(rf"\begin{{{env}}}{{}}")
                    if env in ("array", "subarray", "alignedat"):
                        j = i
                        while j < len(toks) and toks[j].isspace():
                            j += 1
                        if j < len(toks) and toks[j] == "{":
                            arg, i = read_group(j)
                            if not re.fullmatch(r"[\w|@{}:.\s*\-!]*", arg):
                                raise _Fallback(f"bad {env} column specification")
                            out[-1] = rf"\begin{{{env}}}{{{arg}}}{{}}"
                else:
                    if not env_stack or env_stack[-1] != env:
                        raise _Fallback(f"\\end{{{env}}} does not close the open environment")
                    env_stack.pop()
                    out.append(rf"\end{{{env}}}")
                atom_done()
                continue
            if name in _FORBIDDEN or "@" in name:
                raise _Fallback(f"\\{name} is not allowed in a statement")
            if name == "left":
                lr += 1
            elif name == "right":
                lr -= 1
                if lr < 0:
                    raise _Fallback("\\right without \\left")
            if name in _TEXT_CMDS:
                j = i
                while j < len(toks) and toks[j].isspace():
                    j += 1
                if j < len(toks) and toks[j] == "{":
                    content, i = read_group(j)
                    words.extend(text_control_words(content))
                    out.append(t + "{" + text(content) + "}")
                    atom_done()
                    continue
            if name in ("limits", "nolimits"):
                out.append(t)
                continue
            if pending_script[-1] is not None:
                j = i
                while j < len(toks) and toks[j].isspace():
                    j += 1
                if name in _MACRO_ARGS or (j < len(toks) and toks[j] == "{"):
                    raise _Fallback(f"\\{name} with arguments as a sub/superscript needs braces")
            words.append(name)
            out.append("{" + t + "}" if pending_script[-1] is not None else t)  # x_\foo -> x_{\foo}
            # a letter-named command followed by a letter needs a space
            if i < len(toks) and toks[i][:1].isalpha():
                out.append(" ")
            atom_done()
            continue
        if t == "\\":  # trailing backslash
            out.append(r"\backslash ")
            atom_done()
            continue
        if t.startswith("\\"):  # control symbol
            if t not in _CONTROL_SYMBOLS:
                raise _Fallback(f"control symbol {t!r} does not belong in math")
            if t == r"\\":
                if not env_stack:
                    if lr > 0:
                        raise _Fallback("'\\\\' between \\left and \\right outside any alignment")
                    if depth == 0:
                        needs_aligned = True
                j = i
                while j < len(toks) and toks[j].isspace():
                    j += 1
                # "{}" opens each alignment cell: a cell that starts with \begin{...} breaks \halign
                out.append(t if j < len(toks) and toks[j] in ("[", "*") else t + "{}")
                atom_done()
                continue
            out.append(t)
            atom_done()
            continue
        if t == "{":
            depth += 1
            state.append([False, False, False])
            pending_script.append(None)
            out.append(t)
            continue
        if t == "}":
            depth -= 1
            if depth < 0:
                raise _Fallback("unbalanced braces: '}' without '{'")
            if pending_script[-1] is not None:
                raise _Fallback(f"'{pending_script[-1]}' without an argument")
            state.pop()
            pending_script.pop()
            out.append(t)
            atom_done()
            continue
        if t in "^_":
            if pending_script[-1] is not None:
                raise _Fallback(f"'{t}' directly after '{pending_script[-1]}'")
            k = 0 if t == "^" else 1
            if t == "^" and state[-1][2] and not was_adjacent:
                raise _Fallback("superscript after a prime (double superscript)")
            if state[-1][k]:
                raise _Fallback("double superscript" if t == "^" else "double subscript")
            state[-1][k] = True
            pending_script[-1] = t
            out.append(t)
            continue
        if t == "'":
            if state[-1][0] and not state[-1][2]:
                raise _Fallback("prime after a superscript (double superscript)")
            if state[-1][2] and not was_adjacent:
                raise _Fallback("primes separated by a space (double superscript)")
            state[-1][2] = True
            prime_adjacent = True
            out.append(t)
            continue
        if t == "&":
            if not env_stack:
                if depth == 0 and lr == 0:
                    needs_aligned = True
                else:
                    raise _Fallback("'&' inside braces or \\left...\\right outside any alignment")
            out.append("&{}")
            atom_done()
            continue
        if t in "%#$":
            out.append("\\" + t)
            atom_done()
            continue
        if ord(t) >= 128:
            rep = _UNICODE_MATH.get(t)
            if rep is None:
                rep = rf"\text{{{_text_char(t)}}}"
            elif rep[:1] == "\\" and rep[1:].isalpha():
                words.append(rep[1:])
            out.append(rep + (" " if rep[-1:].isalpha() else ""))
            if rep.startswith("^"):
                if state[-1][0]:
                    raise _Fallback("double superscript")
                state[-1][0] = True
            else:
                atom_done()
            continue
        out.append(t)
        atom_done()
    if depth != 0:
        raise _Fallback("unbalanced braces: '{' not closed")
    if env_stack:
        raise _Fallback(f"environment {env_stack[-1]!r} not closed")
    if lr != 0:
        raise _Fallback("\\left without \\right")
    if pending_script[-1] is not None:
        raise _Fallback(f"'{pending_script[-1]}' without an argument")
    body = "".join(out).strip()
    body = re.sub(r" {2,}", " ", body)
    if not body:
        raise _Fallback("empty statement")
    if needs_aligned:
        body = rf"\begin{{aligned}}{{}}{body}\end{{aligned}}"
    return body, words


def math(src: str) -> MathTex:
    """Sanitise a math-mode LaTeX string (see the module docstring).

    Returns a :class:`MathTex`; when ``ok`` is False, ``tex`` is text-mode LaTeX showing the
    source verbatim and ``reason`` says why it could not be typeset.
    """
    src = str(src)
    try:
        body, _ = _sanitize(src)
    except _Fallback as exc:
        return MathTex(Tex(r"\texttt{" + escape(src) + "}"), False, str(exc), src)
    return MathTex(Tex(body), True, "", src)


def control_words(src: str) -> set[str]:
    """Names of the control words (``\\name``) that the sanitised form of ``src`` uses."""
    try:
        _, words = _sanitize(str(src))
    except _Fallback:
        return set()
    return set(words)


def display(src: str) -> Tex:
    """A display of ``src`` that compiles anywhere (``equation*``, or verbatim with the reason)."""
    m = math(src)
    if m.ok:
        return Tex("\\begin{equation*}\n" + m.tex + "\n\\end{equation*}")
    return Tex(r"\begin{quote}" + m.tex + r"\\ {\small(shown verbatim: " + escape(m.reason) + r")}\end{quote}")


def text(src: str) -> Tex:
    """Plain text with ``$...$`` spans rendered as inline math (each sanitised by :func:`math`).

    An unpaired ``$`` is printed as a dollar sign; a span that cannot compile is shown verbatim.
    """
    s = str(src)
    parts = re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", s)
    out = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            out.append(escape(part.replace(r"\$", "$")) if part else "")
        else:
            m = math(part)
            out.append(f"${_inline_breaks(m.tex)}$" if m.ok and r"\begin{aligned}" not in m.tex
                       else escape("$" + part + "$"))
    return Tex("".join(out))


def _top_level(toks: list[str]):
    """Walk a token list: yields ``(k, token, top)`` where ``top`` is True outside every brace group,
    ``\\left ... \\right`` pair and environment, False inside, and None for the structural tokens
    themselves (``{``, ``}``, ``\\left``, ``\\right``, ``\\begin``, ``\\end``).  The one depth walk
    behind inline breaks, display split points and row/column splitting."""
    depth = lr = env = 0
    for k, t in enumerate(toks):
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        elif t == r"\left":
            lr += 1
        elif t == r"\right":
            lr -= 1
        elif t == r"\begin":
            env += 1
        elif t == r"\end":
            env -= 1
        else:
            yield k, t, depth == 0 and lr == 0 and env == 0
            continue
        yield k, t, None


def _inline_breaks(tex: str) -> str:
    """Let long inline math break after top-level ``,`` and ``/`` (TeX breaks only after relations/operators)."""
    if len(tex) < 30:
        return tex
    out = []
    toks = _BREAK_TOKEN.findall(tex)
    for k, t, top in _top_level(toks):
        out.append(t)
        if top and t in (",", "/") and 0 < k < len(toks) - 1:
            out.append(r"\allowbreak ")
    return "".join(out)


def text_control_words(src: str) -> set[str]:
    """Control words used in the ``$...$`` spans of a plain-text string (see :func:`text`)."""
    words: set[str] = set()
    for k, part in enumerate(re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", str(src))):
        if k % 2:
            words |= control_words(part)
    return words


def fmt_sci(x: float | None, digits: int = 1) -> Tex:
    """A residual in math mode: ``3.1\\times10^{-17}``, ``0``, ``\\infty``, ``\\mathrm{NaN}``."""
    if x is None:
        return Tex("")
    try:
        x = float(x)
    except (TypeError, ValueError):
        return escape(str(x))
    if _pymath.isnan(x):
        return Tex(r"\mathrm{NaN}")
    if _pymath.isinf(x):
        return Tex(r"\infty" if x > 0 else r"-\infty")
    if x == 0:
        return Tex("0")
    if 1e-3 <= abs(x) < 1e4:
        plain = f"{x:.{digits + 1}g}"
        if "e" not in plain:
            return Tex(plain)
    mant, exp = f"{x:.{digits}e}".split("e")
    return Tex(rf"{mant}\times 10^{{{int(exp)}}}")


# Meanings for macros common in papers but defined by no standard package.  Each is emitted with
# \providecommand, so a definition already present (from a package or the user's preamble) wins.
_MACRO_MEANINGS = {
    "tr": r"\operatorname{tr}", "Tr": r"\operatorname{Tr}", "trace": r"\operatorname{tr}",
    "diag": r"\operatorname{diag}", "Diag": r"\operatorname{Diag}", "rank": r"\operatorname{rank}",
    "vect": r"\operatorname{vec}", "vecop": r"\operatorname{vec}", "sgn": r"\operatorname{sgn}",
    "sign": r"\operatorname{sign}", "Var": r"\operatorname{Var}", "Cov": r"\operatorname{Cov}",
    "span": r"\operatorname{span}", "softmax": r"\operatorname{softmax}", "argmin": r"\operatorname*{arg\,min}",
    "argmax": r"\operatorname*{arg\,max}", "E": r"\mathbb{E}", "EE": r"\mathbb{E}", "R": r"\mathbb{R}",
    "RR": r"\mathbb{R}", "N": r"\mathbb{N}", "Z": r"\mathbb{Z}", "Id": r"\mathrm{I}", "eye": r"\mathrm{I}",
    "T": r"{\top}", "mathscr": r"\mathcal", "mathbbm": r"\mathbb", "bm": r"\boldsymbol",
    "coloneqq": r"\mathrel{:=}", "eqqcolon": r"\mathrel{=:}", "defeq": r"\mathrel{:=}",
    "sech": r"\operatorname{sech}", "Tanh": r"\operatorname{tanh}",
}
_MACRO_ARGS = {"norm": (1, r"\left\lVert #1\right\rVert"), "abs": (1, r"\left\lvert #1\right\rvert"),
               "inner": (2, r"\left\langle #1, #2\right\rangle"), "set": (1, r"\left\{#1\right\}"),
               "floor": (1, r"\left\lfloor #1\right\rfloor"), "ceil": (1, r"\left\lceil #1\right\rceil")}


# Names every LaTeX + amsmath set-up defines (skipped by provide_macros only to keep it short).
_STANDARD = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho varrho
sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
frac dfrac tfrac sqrt sum prod int oint partial nabla infty top bot perp left right middle big Big bigg Bigg
cdot cdots ldots dots vdots ddots times div pm mp le leq ge geq ne neq approx equiv sim simeq propto to
rightarrow leftarrow Rightarrow Leftarrow Leftrightarrow iff mapsto in notin subset subseteq supset cup cap
forall exists mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak boldsymbol operatorname hat bar tilde
widehat widetilde vec dot ddot overline underline lVert rVert lvert rvert langle rangle lfloor rfloor lceil
rceil quad qquad text log ln exp sin cos tan tanh det min max sup inf lim arg dim ker prime circ otimes oplus
star ast dagger ell imath jmath emptyset setminus mid parallel colon Vert vert binom tbinom dbinom substack
underbrace overbrace stackrel overset underset displaystyle textstyle scriptstyle limits nolimits intercal
""".split())


def provide_macros(names: Iterable[str]) -> str:
    """``\\providecommand`` lines for control words that may be undefined (one per line).

    Common paper macros get their usual meaning (``\\tr`` -> ``\\operatorname{tr}``,
    ``\\norm{x}`` -> ``\\lVert x\\rVert``); any other name ``\\foo`` becomes
    ``\\operatorname{foo}`` so that the document still compiles.  Already-defined names are
    left alone by ``\\providecommand`` itself.
    """
    lines = []
    for n in sorted(set(names)):
        if not (n.isascii() and n.isalpha()) or n in _STANDARD:
            continue
        if n in _MACRO_ARGS:
            k, body = _MACRO_ARGS[n]
            lines.append(rf"\providecommand{{\{n}}}[{k}]{{{body}}}")
        else:
            body = _MACRO_MEANINGS.get(n, rf"\operatorname{{{n}}}")
            lines.append(rf"\providecommand{{\{n}}}{{\ensuremath{{{body}}}}}" if n not in ("mathscr", "mathbbm", "bm")
                         else rf"\providecommand{{\{n}}}{{{body}}}")
    return "\n".join(lines)


def claim_words(claim: Claim) -> set[str]:
    """Every control word a claim's math and ``$...$`` prose uses (for :func:`provide_macros`)."""
    words = control_words(claim.source.printed)
    for st in (*claim.statements(), *claim.controls):
        words |= control_words(st.latex) | text_control_words(st.note) | text_control_words(st.name)
    for s in (claim.title, *claim.assumptions):
        words |= text_control_words(s)
    return words


def claim_latex(claim: Claim, *, derivations: bool = True) -> str:
    """A self-contained LaTeX block for ``claim`` (``theorem-check show ID --latex``, notebooks).

    Needs only ``amsmath`` and ``amssymb``: macros the statements use that may be undefined are
    provided first (``\\providecommand``).  With ``derivations=True`` the SymPy derivation of each
    statement is listed step by step (printed by SymPy's LaTeX printer, not checked here: run
    ``theorem-check report`` for checked steps).
    """
    import sympy as sp

    s = claim.source
    steps_by_stmt = []
    words = claim_words(claim)
    if derivations:
        for st in claim.statements():
            if st.derivation is None:
                continue
            d = st.derivation()
            rows = [(sympy_latex(step.lhs), sympy_latex(step.rhs), step.why) for step in d.steps]
            for lhs, rhs, _ in rows:
                words |= control_words(lhs) | control_words(rhs)
            steps_by_stmt.append((st, d, rows))
    lines = []
    macros = provide_macros(words)
    if macros:
        lines += ["% macros the statements use, defined only where missing", macros]
    lines += [rf"\paragraph{{\texttt{{{escape(claim.id)}}}: {text(claim.title)}}}",
              rf"Source: {escape(s.paper)}, Section~{escape(s.section)}, {escape(s.equation)}. As printed:",
              display(s.printed)]
    if claim.assumptions:
        lines.append(r"Assumptions:")
        lines.append(r"\begin{itemize}")
        lines += [rf"\item {text(a)}" for a in claim.assumptions]
        lines.append(r"\end{itemize}")
    for v in claim.variants:
        lines += [rf"\noindent {escape(v.kind.capitalize())} ({text(v.name)}):", display(v.latex)]
        if v.note:
            lines.append(rf"\noindent{{\small {text(v.note)}}}")
    for st, d, rows in steps_by_stmt:
        scope = "valid for every size" if d.general else f"explicit matrices at fixed sizes {d.sizes}"
        lines.append(rf"\noindent Derivation of the statement {text(st.name)} ({text(scope)}):")
        lines.append(r"\begin{enumerate}")
        for lhs, rhs, why in rows:
            lines.append(rf"\item {text(why) if why else ''}" + "\n" + display_step(lhs, rhs))
        lines.append(r"\end{enumerate}")
    return "\n".join(lines)


def step_math(lhs: str, rhs: str, *, wrap: int = 110) -> MathTex:
    """``lhs = rhs`` as one sanitised math string (two lines in ``aligned`` when long)."""
    ml, mr = math(lhs), math(rhs)
    if not (ml.ok and mr.ok):
        bad = ml if not ml.ok else mr
        return MathTex(Tex(r"\texttt{" + escape(lhs) + "} = " + r"\texttt{" + escape(rhs) + "}"), False, bad.reason)
    if len(lhs) + len(rhs) > wrap:
        return MathTex(Tex(rf"\begin{{aligned}}&{{}}{ml.tex}\\&\quad= {mr.tex}\end{{aligned}}"), True)
    return MathTex(Tex(f"{ml.tex} = {mr.tex}"), True)


def display_step(lhs: str, rhs: str) -> Tex:
    """A display of the derivation step ``lhs = rhs`` (see :func:`step_math`)."""
    m = step_math(lhs, rhs)
    if m.ok:
        return Tex("\\begin{equation*}\n" + m.tex + "\n\\end{equation*}")
    return Tex(r"\begin{quote}" + m.tex + r"\\ {\small(shown verbatim: " + escape(m.reason) + r")}\end{quote}")


# -- SymPy symbol names, dims, evidence text ---------------------------------------------------

SYMBOL_NAMES: dict[str, str] = {
    "sigma2": r"\sigma^{2}", "TrSigmaA": r"\operatorname{Tr}\Sigma A", "Sigma_eps": r"\Sigma_{\varepsilon}",
    "Sigma_u^{1/2}": r"\Sigma_u^{1/2}", "h^i(x_1)": r"h^{i}(x_1)", "h^i(x_2)": r"h^{i}(x_2)",
}
"""LaTeX for SymPy symbol names that SymPy's printer would mangle (``sigma2`` -> ``\\sigma_{2}``,
``TrSigmaA`` verbatim).  Keys are ``Symbol.name``; extend it from a claim pack
(``theorem_check.latex.SYMBOL_NAMES["rho2"] = r"\\rho^{2}"``).  Names that start with a Greek
letter's word followed by ``_`` or ``^`` (``delta^{i+2}``, ``Sigma_u``) get the backslash
automatically (:func:`symbol_latex`)."""

_GREEK_WORDS = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
                "rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi "
                "Psi Omega").split()
_GREEK_HEAD = re.compile(r"^(" + "|".join(sorted(_GREEK_WORDS, key=len, reverse=True)) + r")(?=[_^])")


def symbol_latex(name: str) -> str | None:
    """LaTeX for a SymPy symbol name, or None when SymPy's own printing is right.

    >>> symbol_latex("sigma2"), symbol_latex("delta^{i+2}"), symbol_latex("W_i")
    ('\\\\sigma^{2}', '\\\\delta^{i+2}', None)
    """
    if name in SYMBOL_NAMES:
        return SYMBOL_NAMES[name]
    m = _GREEK_HEAD.match(name)
    if m and ("{" in name or "^" in name):
        return "\\" + name
    return None


def expr_latex(expr) -> str:
    """LaTeX of a parsed expression side (:mod:`theorem_check.expr`): ``sympy.latex`` except that a
    determinant prints as ``\\det\\left(X\\right)``, not SymPy's ``\\left|X\\right|`` (which reads as
    a norm, and as ``||X||`` inside ``abs``)."""
    return _expr_printer()().doprint(expr)


@_functools.lru_cache(maxsize=1)
def _expr_printer():
    """The printer class of :func:`expr_latex` (built once; SymPy is imported lazily)."""
    from sympy.printing.latex import LatexPrinter

    class _Printer(LatexPrinter):
        def _print_Determinant(self, e):
            return r"\det\left(" + self._print(e.arg) + r"\right)"

    return _Printer


def sympy_latex(expr) -> str:
    """``sympy.latex(expr)`` with :func:`symbol_latex` names for the symbols SymPy would mangle."""
    import sympy as sp

    names = {}
    try:
        free = expr.free_symbols
    except AttributeError:
        free = set()
    for s in free:
        tex = symbol_latex(getattr(s, "name", ""))
        if tex is not None:
            names[s] = tex
    return sp.latex(expr, symbol_names=names) if names else sp.latex(expr)


_RETEX: list[tuple[re.Pattern, str]] | None = None


def retex(src: str) -> str:
    """Rewrite SymPy's default printing of the :data:`SYMBOL_NAMES` symbols in an already printed string.

    Derivation steps reach the report as LaTeX strings (printed by :mod:`theorem_check.symbolic`);
    this maps e.g. ``\\sigma_{2}`` (SymPy's rendering of the name ``sigma2``) to ``\\sigma^{2}``,
    at token boundaries.  Only the explicit table is applied (a rendering such as ``\\sigma_{2}``
    could also come from a symbol named ``sigma_2``: keep the table's names distinctive).
    """
    global _RETEX
    import sympy as sp

    if _RETEX is None or len(_RETEX) != len(SYMBOL_NAMES):
        pats = []
        for name, tex in SYMBOL_NAMES.items():
            default = sp.latex(sp.Symbol(name))
            if default != tex:
                pats.append((re.compile(re.escape(default) + r"(?![A-Za-z0-9])"), tex))
        _RETEX = pats
    for pat, tex in _RETEX:
        src = pat.sub(lambda _m, t=tex: "{" + t + "}", src)
    return src


def dims_text(dims) -> str:
    """``{"n": 2, "D": 3}`` -> ``"n = 2, D = 3"`` (``"none"`` when empty)."""
    return ", ".join(f"{k} = {v}" for k, v in dict(dims).items()) or "none"


_DICT_RE = re.compile(r"\{('[^'{}]+': [^,{}]+(?:, '[^'{}]+': [^,{}]+)*)\}")


def prose_dicts(s: str) -> str:
    """Python dict reprs inside engine text (``dims {'n': 2, 'D': 3}``) -> ``n = 2, D = 3``."""
    def one(m: re.Match) -> str:
        return ", ".join(f"{k.strip()[1:-1]} = {v.strip()}" for k, v in
                         (item.split(":", 1) for item in re.split(r", (?=')", m.group(1))))

    return _DICT_RE.sub(one, str(s))


# -- long displays ---------------------------------------------------------------------------

_BREAK_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}]|[^\\{}]")


def math_width(tex: str) -> float:
    """Rough typeset width of math in units of one average glyph (for line breaking, not layout).

    Commands count as one glyph (``\\alpha``) or nothing (``\\left``, ``\\mathrm``, spacing);
    sub/superscripts count 0.7.
    """
    zero = {"left", "right", "mathrm", "operatorname", "mathbf", "mathit", "boldsymbol", "begin", "end", "bigl",
            "bigr", "Bigl", "Bigr", "displaystyle", "limits", "text", "mathcal", "mathbb", "quad", "qquad"}
    w, script, depth_script = 0.0, 0, []
    toks = _BREAK_TOKEN.findall(tex)
    i = 0
    depth = 0
    while i < len(toks):
        t = toks[i]
        i += 1
        if t in "^_":
            depth_script.append(depth)
            script += 1
            if i < len(toks) and toks[i] != "{":
                w += 0.7
                i += 1
                script -= 1
                depth_script.pop()
            continue
        if t == "{":
            depth += 1
            continue
        if t == "}":
            depth -= 1
            if depth_script and depth_script[-1] == depth:
                depth_script.pop()
                script -= 1
            continue
        if t.isspace():
            continue
        if t.startswith("\\") and len(t) > 2:
            if t[1:] in zero:
                continue
            if t[1:] == "frac":
                w += 0.5
                continue
        k = 0.7 if script else 1.0
        if t in "=+-<>" or t in (r"\le", r"\ge", r"\cdot", r"\times", r"\to"):
            k *= 1.8
        w += k
    return w


def _split_points(toks: list[str]) -> list[int]:
    """Token indexes where a display may break: before a top-level relation, ``+`` or ``-``."""
    points = []
    prev = ""
    for k, t, top in _top_level(toks):
        if top and k > 0 and prev in (";", ",", ":") and t in (r"\ ", r"\quad", r"\qquad", r"\;"):
            points.append(k + 1)
        elif top and k > 0 and (
                t in ("+", "-", "=", "<", ">", r"\le", r"\ge", r"\approx", r"\quad") or t.startswith(r"\text")):
            if prev not in ("", "(", "[", "{", "=", "+", "-", "^", "_", "&", r"\left"):
                points.append(k)
        if not t.isspace():
            prev = t
    return points


def _top_split(tex: str, sep: str) -> list[str]:
    """Split at top-level occurrences of ``sep`` (``\\\\`` or ``&``), outside braces and nested environments."""
    parts, cur = [], []
    for _, t, top in _top_level(_BREAK_TOKEN.findall(tex)):
        if t == sep and top:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(t)
    parts.append("".join(cur))
    return parts


def _break_rows(body: str, budget: float) -> str:
    """Break each row of an ``aligned`` body that is wider than ``budget``."""
    rows = _top_split(body, "\\\\")
    out = []
    for row in rows:
        if math_width(row) <= budget:
            out.append(row)
            continue
        cells = _top_split(row, "&")
        if len(cells) > 2:
            out.append(row)
            continue
        head = cells[0] + "&" if len(cells) == 2 else "&"
        broken = break_math(cells[-1].strip().removeprefix("{}"), budget - math_width(cells[0]))
        if broken.startswith(r"\begin{aligned}&"):
            lines = broken[len(r"\begin{aligned}&"):-len(r"\end{aligned}")].split("\\\\&")
            out.append(head + lines[0] + "".join("\\\\&" + ln for ln in lines[1:]))
        else:
            out.append(row)
    return "\\\\".join(out)


_MATRIX = re.compile(r"^\\left\[\\begin\{matrix\}(?:\{\})?(.*)\\end\{matrix\}\\right\]$", re.S)


def matrix_entries(tex: str) -> list[list[str]] | None:
    """Entries of a SymPy-printed explicit matrix ``\\left[\\begin{matrix}...\\end{matrix}\\right]`` (else None)."""
    m = _MATRIX.match(tex.strip())
    if not m or r"\begin{matrix}" in m.group(1):
        return None
    return [[c.strip().removeprefix("{}").strip() for c in _top_split(r, "&")]
            for r in _top_split(m.group(1), "\\\\")]


def break_math(tex: str, budget: float = 72.0) -> str:
    """Break one long line of sanitised math into ``aligned`` lines of about ``budget`` glyphs.

    Breaks before top-level ``=``, ``+``, ``-`` (never inside braces); when no such point is
    left, ``\\left``/``\\right`` pairs become ``\\bigl``/``\\bigr`` so that their insides can
    break too.  Math that already has alignment (``&``, ``\\\\``) or fits is returned unchanged.
    """
    if math_width(tex) <= budget:
        return tex
    if tex.startswith(r"\begin{aligned}") and tex.endswith(r"\end{aligned}") and \
            tex.count(r"\begin{aligned}") == 1:
        body = tex[len(r"\begin{aligned}"):-len(r"\end{aligned}")]
        return r"\begin{aligned}" + _break_rows(body, budget) + r"\end{aligned}"
    if len(_top_split(tex, "\\\\")) > 1 or len(_top_split(tex, "&")) > 1:
        return tex
    for attempt in range(2):
        toks = _BREAK_TOKEN.findall(tex)
        points = _split_points(toks)
        lines, start = [], 0
        cur_w = 0.0
        last_ok = None
        for p in points + [len(toks)]:
            seg = "".join(toks[start:p])
            if math_width("".join(toks[start:p])) > budget and last_ok is not None and last_ok > start:
                lines.append("".join(toks[start:last_ok]))
                start = last_ok
            last_ok = p
        lines.append("".join(toks[start:]))
        too_long = any(math_width(ln) > budget * 1.15 for ln in lines)
        if not too_long or attempt == 1 or r"\left" not in tex:
            break
        tex = re.sub(r"\\left(?=[(\[|.]|\\\{|\\lVert|\\lvert|\\langle)", r"\\bigl", tex)
        tex = re.sub(r"\\right(?=[)\]|.]|\\\}|\\rVert|\\rvert|\\rangle)", r"\\bigr", tex)
        tex = tex.replace(r"\bigl.", "").replace(r"\bigr.", "")
    if len(lines) == 1:
        return tex
    def tidy(ln: str) -> str:
        ln = ln.strip()
        return ln + " " if ln.endswith("\\") else ln       # keep a control space (``\ ``) at the end

    out = [tidy(lines[0])] + [r"\quad " + tidy(ln) for ln in lines[1:]]
    return r"\begin{aligned}&" + r"\\&".join(out) + r"\end{aligned}"



# -- Markdown (OpenReview, GitHub: MathJax / KaTeX) -------------------------------------------

_MD_SPECIALS = re.compile(r"([\\`*_\[\]<|])")


def _expand_macros(tex: str) -> str:
    """Replace the paper macros :func:`provide_macros` would define by their meaning (MathJax knows none)."""
    def arg_macro(m: re.Match) -> str:
        return m.group(0)

    for name, (k, body) in _MACRO_ARGS.items():
        pat = re.compile(r"\\" + name + r"(?![A-Za-z])" + r"\s*\{((?:[^{}]|\{[^{}]*\})*)\}" * k)
        tex = pat.sub(lambda m, b=body: re.sub(r"#(\d)", lambda g: m.group(int(g.group(1))), b), tex)
    for name, body in _MACRO_MEANINGS.items():
        tex = re.sub(r"\\" + name + r"(?![A-Za-z])", lambda _m, b=body: b + " ", tex)
    return re.sub(r"\\operatorname\*", r"\\operatorname", tex)


def md_math(src: str) -> str | None:
    """Math for Markdown (``$...$``/``$$...$$`` body): sanitised, paper macros expanded; None if it cannot compile."""
    m = math(src)
    if not m.ok:
        return None
    tex = _expand_macros(m.tex)
    return " ".join(tex.split())


def md_text(src: str) -> str:
    """Plain text for Markdown: specials escaped outside ``$...$``; math spans kept (sanitised, macros expanded)."""
    s = re.sub(r"\s+", " ", str(src))
    parts = re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", s)
    out = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            out.append(_MD_SPECIALS.sub(r"\\\1", part.replace(r"\$", "$")).replace("$", r"\$"))
        else:
            tex = md_math(part)
            if tex is not None:   # '|' would split a Markdown table cell
                tex = re.sub(r"\\\|", r"\\Vert ", tex).replace("|", r"\vert ")
            out.append(f"${tex}$" if tex is not None and r"\begin{aligned}" not in tex
                       else "`" + part.replace("`", "'") + "`")
    return "".join(out)


_KIND_LABELS = {"corrected": "Corrected", "reading": "Reading", "control": "Control", "printed": "As printed"}


def statement_title(name: str, kind: str) -> str:
    """A statement's heading without doubled labels (plain text, ``$...$`` math kept).

    >>> statement_title("corrected: $W^\\top$", "corrected"), statement_title("corrected (loss (12)): x", "corrected")
    ('Corrected: $W^\\top$', 'Corrected (loss (12)): x')
    >>> statement_title("i, j over hidden layers", "reading"), statement_title("corrected", "corrected")
    ('Reading: i, j over hidden layers', 'Corrected')
    """
    s = name.strip()
    label = _KIND_LABELS.get(kind, kind.capitalize())
    for word in (kind, "corrected", "reading", "control"):
        if s.lower() == word:
            return _KIND_LABELS.get(word, label)
        if s.lower().startswith(word) and s[len(word):len(word) + 1] in (":", " ", "("):
            return _KIND_LABELS.get(word, label) + s[len(word):]
    return f"{label}: {s}"
