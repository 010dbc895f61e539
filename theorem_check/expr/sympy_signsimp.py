"""SymPy's ``signsimp`` made to leave alone a matrix product it cannot rebuild (SymPy 1.14).

``sqrt(1/trace(A*(U*V - A)))`` did not parse: SymPy's ``Pow`` asks whether ``1/trace(...)`` is an integer,
which takes ``Abs``, which calls ``signsimp``, whose pre-pass (``sympy.simplify.cse_opts.sub_pre``) rewrites
``-A`` inside the ``MatMul`` as a noncommutative ``Mul``, and ``MatMul`` raises NotImplementedError
("noncommutative scalars in MatMul are not supported"); the parser read that error as a division by a matrix.
The pre-pass is only a cosmetic step of a simplification: :func:`install` wraps it so that where it raises
NotImplementedError the expression is returned as it was (``signsimp`` goes on with it).  Nothing else changes.
Installed when :mod:`theorem_check.expr` is imported (as :mod:`theorem_check.expr.sympy_shapes`); skipped when a
SymPy release no longer has the function.
"""

from __future__ import annotations

import importlib

__all__ = ["install", "installed"]


def install() -> bool:
    """Wrap ``signsimp``'s pre-pass (idempotent).  Returns True when the wrapper is in place."""
    mod = importlib.import_module("sympy.simplify.simplify")
    pre = getattr(mod, "sub_pre", None)
    if pre is None:
        return False
    if getattr(pre, "_theorem_check_safe", False):
        return True

    def sub_pre(e):
        try:
            return pre(e)
        except NotImplementedError:   # a MatMul that cannot hold the rewritten -1 factor: keep e
            return e

    sub_pre._theorem_check_safe = True
    sub_pre.__doc__ = pre.__doc__
    mod.sub_pre = sub_pre
    return True


def installed() -> bool:
    """True when :func:`install` has put the wrapper in place."""
    return getattr(getattr(importlib.import_module("sympy.simplify.simplify"), "sub_pre", None),
                   "_theorem_check_safe", False)
