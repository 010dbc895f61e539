"""A memo for the shape of SymPy's ``MatMul``: SymPy 1.14 recomputes it through the whole tree, exponentially.

``MatMul.shape`` is ``(first.rows, last.cols)`` of its matrix factors, and ``rows``/``cols`` are
``shape[0]``/``shape[1]``, each computing the *whole* shape of the factor again: a product whose first and last
factors are themselves products costs two recursive calls per level, never remembered.  SymPy's
``simplify``/``factor_terms``/``powsimp`` build exactly such nested, unflattened products (``MatMul(MatMul(...),
...)``) inside ``Trace`` and ``MatAdd``, and ask their shape at every node they rebuild: one ``simplify`` of
``sin(2*tr(ABC)) - sin(2*tr(C^T B^T A^T))`` made 721,475 ``MatMul.shape`` calls; the closed-form layer-norm
gradient's cosmetic simplify (``matrix_calculus._tidy``) 3.3 million, 13 of its 15 s, until the derivation's
time limit gave up on it (issue 21).

:func:`install` replaces the property by one that keeps the value in the node's ``__dict__`` (SymPy
expressions are immutable: a node's shape never changes): the same value, computed once per node.  Nothing
else of SymPy's behaviour changes (equality, hashing and printing read ``args``, never ``__dict__``).  It is
installed when :mod:`theorem_check.expr` is imported and skipped when a SymPy release no longer defines the
property.  Design decision 137.
"""

from __future__ import annotations

from sympy.matrices.expressions.matmul import MatMul

__all__ = ["install", "installed"]

_KEY = "_theorem_check_shape"


def install() -> bool:
    """Make ``MatMul.shape`` remember its value per node (idempotent).

    Returns True when the memo is in place, False when ``MatMul.shape`` is not a plain property (a SymPy
    release that changed it: left alone).
    """
    prop = MatMul.__dict__.get("shape")
    if not isinstance(prop, property) or prop.fget is None:
        return False
    if getattr(prop.fget, "_theorem_check_memo", False):
        return True
    compute = prop.fget

    def shape(self):
        d = self.__dict__
        s = d.get(_KEY)
        if s is None:
            s = d[_KEY] = compute(self)
        return s

    shape._theorem_check_memo = True
    shape.__doc__ = compute.__doc__
    MatMul.shape = property(shape, doc=prop.__doc__)
    return True


def installed() -> bool:
    """True when :func:`install` has put the memo in place."""
    prop = MatMul.__dict__.get("shape")
    return isinstance(prop, property) and getattr(prop.fget, "_theorem_check_memo", False)
