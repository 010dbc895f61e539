"""Commands the LaTeX reader does not read, each with what to write instead: the hint of its "unexpected" error
(:func:`theorem_check.expr.latex_tree.read`).  Kept apart from :mod:`~theorem_check.expr.latex_refusals`, which
imports the tree reader."""

from __future__ import annotations

__all__ = ["UNREAD_COMMANDS"]

UNREAD_COMMANDS = {
    "\\prod": " (a product in index notation, which the reader does not read: write it of whole matrices, e.g. "
              "\\det(\\operatorname{diag}(x)) for \\prod_i x_i, W_3 W_2 W_1 for a fixed number of factors)",
    "\\begin": " (an environment: block matrices and arrays are not read; write the statement of whole matrices, "
               "or declare each block as a name)",
}
"""Commands the reader refuses, with what to write instead (helper-73: block matrices twice; ``\\sum`` is read since decision 221)."""
