"""The macros a paper defines (``\\newcommand``, ``\\def``, ``\\DeclareMathOperator``) and their expansion in its
equations, for ``scan`` (:mod:`theorem_check.authoring.scan`): an equation written with a paper's macros is read as
the macros expand it (helper-44: every equation of a paper written with macros was unparsed)."""

from __future__ import annotations

import re

from theorem_check.authoring.scan_find import matching_brace, strip_comments

__all__ = ["expand_macros", "find_macros"]

_MACRO_DEF = re.compile(r"\\(?:re)?newcommand\*?\s*(?:\{\s*(\\[A-Za-z]+)\s*\}|(\\[A-Za-z]+))\s*(?:\[(\d)\])?\s*\{"
                        r"|\\def\s*(\\[A-Za-z]+)\s*\{"
                        r"|\\DeclareMathOperator\*?\s*\{\s*(\\[A-Za-z]+)\s*\}\s*\{")


def find_macros(text: str) -> dict[str, tuple[int, str]]:
    """The macros a paper defines, name -> (number of arguments, body): ``\\newcommand{\\mA}{\\mathbf{A}}``,
    ``\\newcommand{\\norm}[1]{\\left\\| #1 \\right\\|}``, ``\\renewcommand``, ``\\def\\tr{..}`` (no parameters),
    ``\\DeclareMathOperator{\\Tr}{Tr}`` (the body ``\\operatorname{Tr}``).  Helper-44: every equation of a paper
    written with macros was unparsed ("unexpected '\\mA'")."""
    out: dict[str, tuple[int, str]] = {}
    for m in _MACRO_DEF.finditer(strip_comments(text)):
        end = matching_brace(text, m.end() - 1)
        if end < 0:
            continue
        body = text[m.end():end]
        if m.group(5):
            out[m.group(5)] = (0, f"\\operatorname{{{body.strip()}}}")
        else:
            out[m.group(1) or m.group(2) or m.group(4)] = (int(m.group(3) or 0), body)
    return out


def expand_macros(latex: str, macros: dict[str, tuple[int, str]], depth: int = 8) -> str:
    """``latex`` with the paper's macros (:func:`find_macros`) expanded, arguments in braces (``\\norm{x}``) or
    single tokens; nested macros to ``depth`` levels.  A macro whose arguments are missing is left as written."""
    if not macros:
        return latex
    pat = re.compile("|".join(re.escape(k) + r"(?![A-Za-z])" for k in sorted(macros, key=len, reverse=True)))
    for _ in range(depth):
        out, i, changed = [], 0, False
        for m in pat.finditer(latex):
            if m.start() < i:
                continue
            nargs, body = macros[m.group(0)]
            j, args = m.end(), []
            for _k in range(nargs):
                while j < len(latex) and latex[j].isspace():
                    j += 1
                if j < len(latex) and latex[j] == "{":
                    end = matching_brace(latex, j)
                    if end < 0:
                        break
                    args.append(latex[j + 1:end])
                    j = end + 1
                elif j < len(latex):
                    args.append(latex[j])
                    j += 1
            if len(args) != nargs:
                continue
            text = body
            for k, a in enumerate(args, start=1):
                text = text.replace(f"#{k}", a)
            out.append(latex[i:m.start()] + "{" + text + "}" if nargs else latex[i:m.start()] + text + " ")
            i, changed = j, True
        latex = "".join(out) + latex[i:]
        if not changed:
            break
    return latex
