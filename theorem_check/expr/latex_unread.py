"""Commands the LaTeX reader does not read, each with what to write instead: the hint of its "unexpected" error
(:func:`theorem_check.expr.latex_tree.read`).  Kept apart from :mod:`~theorem_check.expr.latex_refusals`, which
imports the tree reader."""

from __future__ import annotations

__all__ = ["UNREAD_COMMANDS"]

UNREAD_COMMANDS = {
    "\\sum": " (a sum in index notation, which the reader does not read: write it of whole vectors and matrices, "
             "e.g. \\mathbf{1}^\\top x for \\sum_i x_i, x^\\top y for \\sum_i x_i y_i, \\operatorname{tr}(A) for "
             "\\sum_i A_{ii}, \\operatorname{tr}(A^\\top B) for \\sum_{ij} A_{ij} B_{ij}, W_1 + W_2 + W_3 for a fixed "
             "number of terms)",
    "\\prod": " (a product in index notation, which the reader does not read: write it of whole matrices, e.g. "
              "\\det(\\operatorname{diag}(x)) for \\prod_i x_i, W_3 W_2 W_1 for a fixed number of factors)",
    "\\begin": " (an environment: block matrices and arrays are not read; write the statement of whole matrices, "
               "or declare each block as a name)",
}
"""Commands the reader refuses, with what to write instead (helper-73: ``\\sum`` 3 times, block matrices twice)."""
