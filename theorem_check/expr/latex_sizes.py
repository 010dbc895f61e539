"""Sizes in the LaTeX reader's shapes (:mod:`theorem_check.expr.latex`): a shape is ``(rows, cols)`` of ints, SymPy
size expressions (``n``, ``m*n``) or ``"?"``; a scalar's is None."""

from __future__ import annotations

import sympy as sp

__all__ = ["is_one", "is_1x1", "is_column", "size_text", "quotient"]


def is_one(x) -> bool:
    """The number 1 (an int or SymPy Integer), not a size letter that may be 1."""
    return isinstance(x, (int, sp.Integer)) and int(x) == 1


def is_1x1(sh) -> bool:
    """A ``1 x 1`` shape (a product such as ``x^T y``, a scalar to papers)."""
    return isinstance(sh, tuple) and is_one(sh[0]) and is_one(sh[1])


def is_column(sh) -> bool:
    """A column vector's shape: one column, rows not the number 1."""
    return isinstance(sh, tuple) and is_one(sh[1]) and not is_one(sh[0])


def size_text(x) -> str:
    """A size as string syntax: ``n``, ``3``, ``m*n`` (SymPy prints products of size letters so)."""
    return str(x)


def quotient(total, part):
    """``total / part`` for sizes (``n*p / p = n``) when it is a whole size above 1, else None (``n / p``, unknown
    sizes, and 1: a bare ``I`` of size 1 would be the number 1, ``I \\otimes A = A`` PROVED; helper-50)."""
    if total in (None, "?") or part in (None, "?"):
        return None
    try:
        q = sp.cancel(sp.sympify(total) / sp.sympify(part))
    except (sp.SympifyError, TypeError, ZeroDivisionError):
        return None
    num, den = sp.fraction(q)
    if den != 1 or not (q.is_integer or q.is_Symbol or q.is_Mul or q.is_Pow) or (q.is_number and q <= 1):
        return None
    return q
