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

import math as _pymath
import re
from dataclasses import dataclass
from typing import Iterable

__all__ = ["Tex", "MathTex", "escape", "text", "math", "display", "fmt_sci", "control_words", "text_control_words",
           "provide_macros", "MATH_ENVS", "MACRO_ARGS", "MACRO_MEANINGS", "BREAK_TOKEN", "top_level_tokens"]


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
_SPACING = re.compile(r"\*?\s*(\[\s*[-+]?(\d+\.?\d*|\.\d+)\s*(pt|em|ex|mm|cm|in|bp|pc|dd|cc|sp|mu)\s*\])?")
_TOKEN = re.compile(r"\\[A-Za-z]+|\\[^A-Za-z]|\\\Z|\s+|.", re.S)
BREAK_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}]|[^\\{}]")


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


_ARITY = {**{n: 2 for n in ("frac", "dfrac", "tfrac", "binom", "tbinom", "dbinom", "overset", "underset", "stackrel")},
          **{n: 1 for n in ("sqrt", "operatorname", "hat", "bar", "tilde", "widehat", "widetilde", "vec", "dot", "ddot",
                            "overline", "underline", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathcal",
                            "mathbb", "mathfrak", "boldsymbol", "substack", "underbrace", "overbrace")}}
"""Mandatory arguments of the standard commands that take some (the provided ones: :data:`MACRO_ARGS`)."""
_NOT_AN_ARGUMENT = frozenset({"}", "&", "\\\\", "^", "_", "\\end", "\\begin", "\\left", "\\right"})


def _arguments_follow(toks: list[str], i: int, k: int) -> bool:
    """True when ``k`` arguments (a ``{...}`` group or one token; a ``*`` after ``\\operatorname`` is skipped by
    the caller) follow ``toks[i:]``: ``\\frac a``, ``\\hat`` at the end and ``_{\\operatorname}`` do not compile."""
    for _ in range(k):
        while i < len(toks) and toks[i].isspace():
            i += 1
        if i >= len(toks) or toks[i] in _NOT_AN_ARGUMENT:
            return False
        if toks[i] == "{":
            depth = 0
            while i < len(toks):
                depth += {"{": 1, "}": -1}.get(toks[i], 0)
                i += 1
                if depth == 0:
                    break
        else:
            i += 1
    return True


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
        if pending_script[-1] is not None and t in _CONTROL_SYMBOLS:   # x_\- and x_\, do not compile: x_{\-}
            out.append("{" + t + "}")
            atom_done()
            continue
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
            if pending_script[-1] is not None and name in ("begin", "end", "left", "right"):
                raise _Fallback(f"\\{name} as the argument of '{pending_script[-1]}' (it needs braces)")
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
            arity = MACRO_ARGS[name][0] if name in MACRO_ARGS else _ARITY.get(name, 0)
            if pending_script[-1] is not None:
                j = i
                while j < len(toks) and toks[j].isspace():
                    j += 1
                if arity or (j < len(toks) and toks[j] == "{"):
                    raise _Fallback(f"\\{name} with arguments as a sub/superscript needs braces")
            star = i < len(toks) and toks[i] == "*" and name == "operatorname"
            if arity and not _arguments_follow(toks, i + star, arity):
                raise _Fallback(f"\\{name} without its argument{'s' if arity > 1 else ''}")
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
                rest = "".join(toks[i:i + 24]).lstrip()   # \\* and \\[<dimen>] stay; a bracket that is no
                spacing = _SPACING.match(rest)             # dimension (\\[,;]) would be read as one: "{}" first
                # "{}" opens each alignment cell: a cell that starts with \begin{...} breaks \halign
                out.append(t if rest[:1] in ("[", "*") and not rest[spacing.end():].lstrip().startswith("[")
                           else t + "{}")
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


def top_level_tokens(toks: list[str]):
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
    toks = BREAK_TOKEN.findall(tex)
    for k, t, top in top_level_tokens(toks):
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
MACRO_MEANINGS = {
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
MACRO_ARGS = {"norm": (1, r"\left\lVert #1\right\rVert"), "abs": (1, r"\left\lvert #1\right\rvert"),
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
        if n in MACRO_ARGS:
            k, body = MACRO_ARGS[n]
            lines.append(rf"\providecommand{{\{n}}}[{k}]{{{body}}}")
        else:
            body = MACRO_MEANINGS.get(n, rf"\operatorname{{{n}}}")
            lines.append(rf"\providecommand{{\{n}}}{{\ensuremath{{{body}}}}}" if n not in ("mathscr", "mathbbm", "bm")
                         else rf"\providecommand{{\{n}}}{{{body}}}")
    return "\n".join(lines)
