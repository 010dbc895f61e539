"""The LaTeX reader's pre-pass: the text lark reads, made from the text as a paper prints it.

What it does, left to right, keeping for every character it writes the column of the character it comes from
(error messages name columns of the text as given):

* removes what carries no mathematics: ``\\left``, ``\\right``, ``\\big``..., spacing (``\\,``, ``\\;``, ``\\:``,
  ``\\!``, ``\\quad``, ``~``), ``&``, ``\\\\``, ``\\label{..}``, ``\\tag{..}``, a final ``.`` or ``,``;
* decides for every ``|`` and ``\\|`` whether it opens or closes a bar (``\\lvert``/``\\rvert``,
  ``\\lVert``/``\\rVert``): it closes when a bar of its kind is open and what precedes it ends an operand;
* writes old-style font switches as commands: ``{\\bf I}`` is ``\\mathbf{I}`` (the identity, as ``\\mathbf{I}``
  is), ``{\\rm d}`` is ``\\mathrm{d}``, ``{\\cal L}`` is ``\\mathcal{L}``;
* delimits an operator's argument where the paper delimits it: ``\\det{A}`` and ``\\operatorname{tr}[A B]``
  are ``\\det(A)`` and ``\\operatorname{tr}(A B)`` (the braces or brackets hold the argument, as parentheses
  do), and an argument written without brackets ends at explicit spacing: ``\\det X \\, X^{-\\top}`` is
  ``\\det(X) X^{-\\top}`` (without the space the argument is the whole product that follows, as
  ``\\operatorname{tr} A B`` is ``tr(A B)``; the grammar ends it before another operator:
  ``\\det A \\det B`` is ``det(A) det(B)``).

Source: the notation of the papers of the catalogue and of the outside statements helpers wrote (design
decisions 92, 142, 144).
"""

from __future__ import annotations

import re

__all__ = ["GREEK", "prepass"]

GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi "
         "rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
         "Upsilon Phi Psi Omega ell").split()
"""Greek letters read as names (``\\lambda`` is the name ``lamda``; ``\\varepsilon`` is ``epsilon``)."""

_PRE = [
    # ^\mathsf{T} without the script's braces: the font command is the whole script (helper-49: it was ^\mathsf, then
    # a factor {T}, read as the matrix power **T); ^{\mathsf{T}} already reads as the transpose
    (re.compile(r"\^\s*\\(mathsf|mathrm|mathit|mathbf|text|textsf|textrm)\s*\{\s*(T|\\top|\\intercal)\s*\}"), r"^{\top}"),
    (re.compile(r"\^\s*\{\s*\\(text|textsf|textrm|textit|mathit|mathbf)\s*\{\s*T\s*\}\s*\}"), r"^{\top}"),
    (re.compile(r"\^\s*\{\s*-\s*\\(text|textsf|textrm|textit|mathit|mathbf|mathsf|mathrm)\s*\{\s*T\s*\}\s*\}"),
     r"^{-\top}"),
    (re.compile(r"\\left\s*(\\\||\\Vert(?![A-Za-z])|\\lVert(?![A-Za-z]))"), r"\lVert "),
    (re.compile(r"\\right\s*(\\\||\\Vert(?![A-Za-z])|\\rVert(?![A-Za-z]))"), r"\rVert "),
    (re.compile(r"\\left\s*(\||\\vert(?![A-Za-z])|\\lvert(?![A-Za-z]))"), r"\lvert "),
    (re.compile(r"\\right\s*(\||\\vert(?![A-Za-z])|\\rvert(?![A-Za-z]))"), r"\rvert "),
    (re.compile(r"\\(left|right)\s*\."), " "),
    (re.compile(r"\\(bigl|Bigl|biggl|Biggl)\s*(\\\||\\Vert(?![A-Za-z])|\\lVert(?![A-Za-z]))"), r"\lVert "),
    (re.compile(r"\\(bigr|Bigr|biggr|Biggr)\s*(\\\||\\Vert(?![A-Za-z])|\\rVert(?![A-Za-z]))"), r"\rVert "),
    (re.compile(r"\\(bigl|Bigl|biggl|Biggl)\s*(\||\\vert(?![A-Za-z])|\\lvert(?![A-Za-z]))"), r"\lvert "),
    (re.compile(r"\\(bigr|Bigr|biggr|Biggr)\s*(\||\\vert(?![A-Za-z])|\\rvert(?![A-Za-z]))"), r"\rvert "),
    (re.compile(r"\\(left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![A-Za-z])"), " "),
    (re.compile(r"\\(label|tag)\s*\{[^{}]*\}"), " "),
    (re.compile(r"\\(quad|qquad|displaystyle|textstyle|nonumber|notag|limits|mathstrut)(?![A-Za-z])"), " "),
    (re.compile(r"\\[,;:!> ]|~|&|\\\\"), " "),
    (re.compile(r"\\\{"), "("),     # \{ ... \}: braces printed as grouping brackets
    (re.compile(r"\\\}"), ")"),
]
_SIZED_BAR = re.compile(r"\\(big|Big|bigg|Bigg)(?![A-Za-z])\s*(\\\||\\Vert(?![A-Za-z])|\||\\vert(?![A-Za-z]))")
"""A bar sized without a side (``\\Big\\|``): the first opens, the next with the same sizing closes (helper-66)."""
_BAR2 = re.compile(r"\\\||\\Vert(?![A-Za-z])")
_BAR1 = re.compile(r"\||\\vert(?![A-Za-z])|\\mid(?![A-Za-z])")
_CMD = re.compile(r"\\[A-Za-z]+")
_OPENS_BEFORE = tuple("([{+-=,^_/*")
_OPENING_CMDS = re.compile(r"\\(lvert|lVert|langle|cdot|times|odot|circ|otimes|oplus|frac|sqrt|left)\s*$")

_OLD_FONT = re.compile(r"\{\s*\\(bf|bm|rm|it|sf|cal|tt)(?![A-Za-z])\s*([^{}\\]*?)\s*\}")
_FONT_COMMAND = {"bf": "mathbf", "bm": "mathbf", "rm": "mathrm", "it": "mathit", "sf": "mathsf", "cal": "mathcal",
                 "tt": "mathtt"}
_SCRIPT = r"(?:\s*[_^]\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[A-Za-z0-9]))"
_FACTOR = (r"(?:[A-Za-z0-9]|\\(?:" + "|".join(GREEK) + r")(?![A-Za-z])"
           r"|\\(?:mathbf|boldsymbol|bm|mathrm|mathit|mathsf|mathcal|mathbb|hat|tilde|bar|widehat|widetilde|vec)"
           r"\s*\{[^{}]*\})" + _SCRIPT + "*")
_SCRIPT_COMMAND = re.compile(r"([_^])\s*(\\(?:mathbf|boldsymbol|bm|mathrm|mathit|mathsf|mathcal|hat|tilde|bar|widehat"
                             r"|widetilde|vec)\s*\{(?:[^{}]|\{[^{}]*\})*\}|\\(?:odot|circ)(?![A-Za-z]))")
"""A script that is a font or accent command with its argument, unbraced (``\\nabla_\\mathbf{W}``, ``x_\\mathrm{a}``):
TeX sets it as ``_{\\mathbf{W}}``, and so does the pre-pass (helper-73: "unexpected '\\mathbf'"); ``\\exp_\\odot`` too
(helper-77: in an operator's bare argument the unbraced ``\\odot`` ended the product, "unexpected ')'")."""
_SPACING = re.compile(r"\\[,;:> ]|~|\\quad(?![A-Za-z])|\\qquad(?![A-Za-z])")
"""Explicit spacing, which ends an operator's argument written without brackets (``\\det X \\, X^{-\\top}``)."""
_STOP = re.compile(r"[+\-=<>,&|]|\\\\|\\(cdot|times|odot|circ|otimes|oplus|le|leq|ge|geq|ne|neq|approx|equiv|"
                   r"simeq|sim|propto|in|to|mid|vert|Vert|lvert|rvert|lVert|rVert|coloneqq|triangleq)(?![A-Za-z])")
"""What ends the product an operator's bare argument is, at its bracket depth: a sum, a relation, an explicit
product or Hadamard/Kronecker sign, a bar (the grammar ends the argument there itself)."""
_FIRST_FACTOR = re.compile(_FACTOR)
_TRANSPOSED = re.compile(r"\^\s*(\{\s*)?(\\top|\\intercal|T)(?![A-Za-z])\s*\}?$")
_SIZED_OPEN = re.compile(r"\\(left|bigl|Bigl|biggl|Biggl|big|Big|bigg|Bigg)(?![A-Za-z])\s*([\[(])")
"""A sized opening bracket right after an operator (``\\left[``, ``\\left(``): the argument's bracket, as ``[``
or ``(`` is."""


def prepass(text: str, operator: re.Pattern | None = None, nabla: re.Pattern | None = None) -> tuple[str, list[int]]:
    """The text lark reads and, for each of its characters, the index of the character of ``text`` it comes
    from (see the module docstring).  ``operator``: the grammar's operator token (``\\det``,
    ``\\operatorname{tr}``, ...), whose argument the pre-pass delimits; None leaves arguments as written.
    ``nabla``: the grammar's gradient token (``\\nabla_x``): where explicit spacing ends the product after it,
    the gradient is bracketed there (``\\nabla_x \\|x\\|^2 \\, \\|x\\|^2`` is ``(\\nabla_x \\|x\\|^2) \\|x\\|^2``,
    as ``\\det X \\, Y`` is ``\\det(X) Y``; helper-44: it was the gradient of the product)."""
    stripped = _unbrace_calls(_SCRIPT_COMMAND.sub(r"\1{\2}", text.rstrip()))   # columns move by two: messages only
    while True:   # a final . , ; and the spacing around it (helper-78: "A = B \, ." met the \ of "\,")
        end = re.search(r"(?:\\[,;:!]|\\q?quad|(?<!\\)[.,;])\s*$", stripped)
        if not end:
            break
        stripped = stripped[:end.start()].rstrip()
    out: list[str] = []
    where: list[int] = []
    opened: list[str] = []        # bars
    closing: list[str] = []       # for each open { or [: what its closing bracket is written as
    ends: dict[int, int] = {}     # text index -> how many ")" close operators' arguments written without brackets
    i = 0

    def put(s: str, at: int) -> None:
        out.append(s)
        where.extend([at] * len(s))

    while i < len(stripped):
        for e in sorted(k for k in ends if k <= i):     # an argument's end reached (or passed by a longer token)
            put(")" * ends.pop(e), i)
        m = _SIZED_BAR.match(stripped, i)
        if m:    # \Big\| x \Big\|: a sized bar is closed by the same sizing only, never by a bare bar inside it
            two = m.group(2) == "\\|" or "Vert" in m.group(2)
            tag = (r"\lVert!" if two else r"\lvert!") + m.group(1)
            if opened and opened[-1] == tag:
                opened.pop()
                put(r"\rVert " if two else r"\rvert ", i)
            else:
                opened.append(tag)
                put(r"\lVert " if two else r"\lvert ", i)
            i = m.end()
            continue
        for pat, rep in _PRE:
            m = pat.match(stripped, i)
            if m:
                if rep.startswith(r"\l"):   # an explicit \left\| is closed by its \right\| only, never by a bare \|
                    opened.append(rep.strip() + "!")     # inside it (helper-66: \left\| 2 \|x\| y \right\|)
                elif rep.startswith(r"\r") and opened:
                    opened.pop()
                put(rep, i)
                i = m.end()
                break
        else:
            m = _OLD_FONT.match(stripped, i)
            if m:    # in a script its braces are the script's: ^{\rm T} is ^{\mathrm{T}}, \nabla_{\bf w} _{\mathbf{w}}
                script = "".join(out).rstrip().endswith(("^", "_"))
                cmd = rf"\{_FONT_COMMAND[m.group(1)]}{{{m.group(2)}}}"
                put("{" + cmd + "}" if script else cmd, i)
                i = m.end()
                if not script and operator is not None and operator.fullmatch(cmd):
                    i = _argument(stripped, i, put, closing, ends, operator)   # {\rm Tr}[A B], as \mathrm{Tr}[A B]
                continue
            m2, m1 = _BAR2.match(stripped, i), _BAR1.match(stripped, i)
            m = m2 or m1
            if m:
                kind = r"\lVert" if m2 else r"\lvert"
                before = "".join(out).rstrip()
                ends_operand = bool(before) and not before.endswith(_OPENS_BEFORE) \
                    and not _OPENING_CMDS.search(before) and not before.endswith("\\in")
                if opened and opened[-1] == kind and ends_operand:
                    opened.pop()
                    put((r"\rVert " if m2 else r"\rvert "), i)
                else:
                    opened.append(kind)
                    put(kind + " ", i)
                i = m.end()
                continue
            m = nabla.match(stripped, i) if nabla is not None else None
            if m:
                end = _spaced_product_end(stripped, m.end(), nabla)
                if end is not None:
                    put("(", i)
                    ends[end] = ends.get(end, 0) + 1
                put(m.group(0), i)
                i = m.end()
                continue
            m = operator.match(stripped, i) if operator is not None else None
            if m:
                put(m.group(0), i)
                i = _argument(stripped, m.end(), put, closing, ends, operator)
                continue
            m = _CMD.match(stripped, i)
            if m:
                put(m.group(0), i)
                i = m.end()
                continue
            c = stripped[i]
            if c in "{[":
                closing.append("}" if c == "{" else "]")
            elif c in "}]" and closing:
                c = closing.pop()
            put(c, i)
            i += 1
    for e in sorted(ends):
        put(")" * ends.pop(e), max(len(stripped) - 1, 0))
    return "".join(out), where


def _argument(text: str, j: int, put, closing: list, ends: dict, operator: re.Pattern) -> int:
    """After an operator ending at ``j``: where its argument starts.  A ``{`` or ``[`` right after it is written
    ``(`` (its closing bracket ``)``).  An argument without brackets gets ``(`` here and ``)`` at its end
    (``ends``: index -> count) where explicit spacing ends it (``\\log \\det X \\; y``), and where it opens with a
    row (a factor transposed) followed by another operator: ``\\log \\mathbf{1}^\\top \\exp(z)`` is the log of the
    inner product, not ``log(1^T) exp(z)`` (the grammar ends a bare argument before an operator otherwise)."""
    k = j
    while k < len(text) and text[k].isspace():
        k += 1
    if k < len(text) and text[k] in "{[":
        put("(", k)
        closing.append(")")
        return k + 1
    m = _SIZED_OPEN.match(text, k)
    if m and m.group(2) == "[":             # \mathrm{Tr}\left[ ... \right]: the \right is dropped, ] written )
        put("(", k)
        closing.append(")")
        return m.end()
    if m or text.startswith("(", k):
        return j                            # \operatorname{tr}(A) B: its parentheses are its argument
    end, spaced = _bare_end(text, k)
    if end is not None and (spaced or _row_then_operator(text, k, operator)):
        put("(", k)
        ends[end] = ends.get(end, 0) + 1
        return k
    return j


def _bare_end(text: str, k: int) -> tuple[int | None, bool]:
    """``(end, spaced)`` of the bare argument starting at ``k``: the index after its last character and whether
    explicit spacing ends it; ``(None, False)`` when it is empty or a closing bracket ends it first.  The
    argument is what follows at bracket depth 0 up to spacing, a stop (:data:`_STOP`) or the end of the text."""
    depth, last = 0, None
    while k < len(text):
        if depth == 0:
            if _SPACING.match(text, k):
                return last, last is not None
            if _STOP.match(text, k):
                return last, False
        k, depth, last = _advance(text, k, depth, last)
        if depth < 0:
            return last, False
    return last, False


def _advance(text: str, k: int, depth: int, last):
    """One step of a scan of an argument at ``k``: a command skipped whole, a bracket counted (``depth``), ``last``
    the index after the last character that is not a space; returns ``(k, depth, last)``."""
    c = text[k]
    if c == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", text[k:])
        k += len(m.group(0)) if m else 1
        return k, depth, k
    if c in "([{":
        depth += 1
    elif c in ")]}":
        depth -= 1
    return k + 1, depth, (k + 1 if not c.isspace() else last)


_BARS = re.compile(r"\\left\s*(\\\||\||\\[lr]?[vV]ert(?![A-Za-z]))|\\right\s*(\\\||\||\\[lr]?[vV]ert(?![A-Za-z]))"
                   r"|\\\||\\[lr]?[vV]ert(?![A-Za-z])|\|")


def _spaced_product_end(text: str, k: int, nabla: re.Pattern | None = None) -> int | None:
    """The index where explicit spacing, or another gradient (``nabla``: ``\\nabla_w (w^\\top x)^\\top \\nabla_w
    (w^\\top z)`` is a product of two gradients, helper-71), ends the product that starts at ``k`` (after
    ``\\nabla_x``), or None when a sum, a relation or the end of the text comes first.  Brackets and bars nest
    (``\\|W X - Y\\|_F^2`` is one factor); a bar closes the innermost bar of its kind that is open."""
    depth, bars, last = 0, [], None
    while k < len(text):
        if depth == 0 and not bars:
            if _SPACING.match(text, k) or (nabla is not None and last is not None and nabla.match(text, k)):
                return last
            if _STOP.match(text, k) and not _BARS.match(text, k):
                return None
        m = _BARS.match(text, k)
        if m:
            kind = "2" if ("\\|" in m.group(0) or "Vert" in m.group(0)) else "1"
            if bars and bars[-1] == kind and last is not None and not text[:k].rstrip().endswith(_OPENS_BEFORE):
                bars.pop()
            else:
                bars.append(kind)
            k = m.end()
            last = k
            continue
        k, depth, last = _advance(text, k, depth, last)
        if depth < 0:
            return None
    return None


def _row_then_operator(text: str, k: int, operator: re.Pattern) -> bool:
    """True when the bare argument at ``k`` opens with a factor transposed (a row: ``\\mathbf{1}^\\top``,
    ``w^T``) directly followed by another operator."""
    m = _FIRST_FACTOR.match(text, k)
    if not m or not _TRANSPOSED.search(m.group(0).rstrip()):
        return False
    rest = m.end()
    while rest < len(text) and text[rest].isspace():
        rest += 1
    return bool(operator.match(text, rest))


_BRACED_CALL = re.compile(r"\\sigma\s*\{")


def _unbrace_calls(text: str) -> str:
    """``\\sigma{\\left(u \\right)}`` (SymPy's ``latex()`` of a function applied) as ``\\sigma\\left(u \\right)``: the
    braces hold the call, whose parenthesis opens right inside them (helper-82: read as the product ``sigma*u``, a true
    ``\\sigma(\\lambda) = 1 - \\sigma(-\\lambda)`` REFUTED).  Other braces after ``\\sigma`` stay as written."""
    out, k = [], 0
    for m in _BRACED_CALL.finditer(text):
        if m.start() < k:
            continue
        depth, j = 0, m.end() - 1
        while j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        inner = text[m.end():j].strip() if j < len(text) else ""
        if re.match(r"(\\left\s*)?\(", inner) and re.search(r"\)$", inner):
            out.append(text[k:m.start()] + "\\sigma" + _unbrace_calls(inner))
            k = j + 1
    return "".join(out) + text[k:]

