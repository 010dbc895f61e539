"""What the LaTeX reader does not read: the one-line message of a parse error (:func:`error_line`, for
:func:`theorem_check.expr.latex_tree.read`), with what to write instead of a command it does not read
(:data:`UNREAD_COMMANDS`).  Kept apart from :mod:`~theorem_check.expr.latex_refusals`, which imports the tree
reader."""

from __future__ import annotations

import re

from theorem_check.validation import quoted

__all__ = ["UNREAD_COMMANDS", "error_line"]

_COMMAND = re.compile(r"\\[A-Za-z]+")

UNREAD_COMMANDS = {
    "\\prod": " (a product in index notation, which the reader does not read: write it of whole matrices, e.g. "
              "\\det(\\operatorname{diag}(x)) for \\prod_i x_i, W_3 W_2 W_1 for a fixed number of factors)",
    "\\begin": " (an environment: block matrices and arrays are not read; write the statement of whole matrices, "
               "or declare each block as a name)",
}
"""Commands the reader refuses, with what to write instead (helper-73: block matrices twice; ``\\sum`` is read since decision 221)."""


def error_line(text: str, src: str, where: list[int], exc, what: str) -> str:
    """The one-line message of lark's ``exc`` on the pre-passed ``src`` of ``text``: the unexpected token and its
    column in ``text`` (``where`` maps columns of ``src`` to columns of ``text``), with a hint for a command the
    reader does not know."""
    import lark

    pos = getattr(exc, "pos_in_stream", None)
    tok = getattr(exc, "token", None)
    if isinstance(exc, lark.exceptions.UnexpectedEOF) or pos is None or pos >= len(src) or \
            getattr(tok, "type", "") == "$END":
        return f"{what}={quoted(text)}: unexpected end of input (an unclosed brace, bar or parenthesis?)"
    col = where[pos] + 1
    shown = str(tok) if tok is not None and str(tok) else (_COMMAND.match(src, pos) or re.match(r"\S", src[pos:]) or
                                                          re.match(".", src[pos:])).group(0)
    unread = shown.startswith("\\") and isinstance(exc, lark.exceptions.UnexpectedCharacters)
    hint = UNREAD_COMMANDS.get(shown.strip(), " (a command the LaTeX reader does not know)") if unread else ""
    return f"{what}={quoted(text)}: unexpected {quoted(shown.strip())} at column {col}{hint}"
