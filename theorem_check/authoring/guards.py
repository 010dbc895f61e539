"""What a string side divides by, evaluated beside it: SymPy cancels while it builds a side, so a divisor
that is 0 everywhere could vanish with its quotient and the statement would be checked as if it were defined.

* a matrix the side inverts (``(X.T*X)**-1*X.T*X*w``: ``X.T*X`` is singular when ``X`` has fewer rows than
  columns, and ``M**-1*M`` is ``I`` before any number is computed): its inverse is evaluated beside the side,
  and a singular one raises, as an inverse in the side itself would;
* a scalar the side divides by (``x*trace(K)/trace(K)`` with ``K`` antisymmetric, ``det(y*y.T)/det(y*y.T)``
  with ``y`` a vector of two or more rows: SymPy's ``Mul`` cancels the two factors, and ``x/det(y*y.T)`` on
  both sides is the same huge number at float64): at a multiple-precision context it is evaluated beside the
  side, and where it is 0 to that precision (``|d| <= eps^(3/4) M(d)``, ``M`` its computation's magnitude,
  :mod:`theorem_check.expr.magnitude`: at mp50 ``1e-37`` of the terms it is computed from, which a divisor
  that is not 0 at a random instance never is) the side raises ``ZeroDivisionError``.  The engine reports
  such a configuration grey (no value), so a statement that is nowhere defined is INCONCLUSIVE, not PROVED.

* a function defined on part of the reals (``log``, ``sqrt``, ``logm``, ``sqrtm``, a fractional power) whose call
  SymPy removed (``0*log(-1 - t**2) = 0``, ``exp(log(t)) = t``, ``sqrt(t)*sqrt(t) = t``: PROVED, helper-43): it is
  evaluated beside the side, and at an instance where its value is not a finite real number the side's value is
  NaN there, as it would be had the call stayed in the side (the engine reports such instances undefined, per
  instance: ``exp(log(t)) = t`` is INCONCLUSIVE, as ``log(t) = log(t)`` is).

A scalar divisor SymPy knows is not 0 (a number, ``sqrt(n)``, ``1 + exp(x)``) gets no guard; a call the side still
holds gets none either (the side's own value says where it is undefined).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from theorem_check import expr as ex
from theorem_check.numerics.precision import to_float

__all__ = ["Guards", "side_guards"]

ZERO_EXPONENT = 0.75
"""A divisor is 0 at a multiple-precision context when ``|d| <= eps**ZERO_EXPONENT * M(d)`` (mp50:
``1e-37``): far above the rounding of a computation that is 0 (``~eps M``), far below any value a random
instance gives a divisor that is not identically 0."""


def _float64(v):
    """A context's value (mpmath object arrays, python-flint balls converted by the caller) as float64 or
    complex128."""
    a = np.asarray(v)
    if a.dtype != object:
        return a
    try:
        return a.astype(float)
    except (TypeError, ValueError):
        return a.astype(complex)


@dataclass(frozen=True)
class Guards:
    """The inverted matrices SymPy cancelled (``inverses``), the scalar divisors (``divisors``) and the calls SymPy
    removed (``calls``) of one string side, as source text; :meth:`check` and :meth:`undefined_where` evaluate them
    at an instance."""

    inverses: tuple[str, ...] = ()
    divisors: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    real: bool = True          # a real statement: a removed call's complex value is undefined there

    def __bool__(self) -> bool:
        return bool(self.inverses or self.divisors or self.calls)

    def undefined_where(self, value, parse_at: Callable[[str], Any], ctx, values: Mapping[str, Any],
                        dims: Mapping[str, int], structure: Mapping[str, str]):
        """``value`` (the side's, a batch) with NaN at every instance where a removed call (``calls``) is not a
        finite number, real in a real statement (``exp(log(z)) = z`` of a complex ``z`` keeps the principal
        log's complex value), in ``ctx``; ``value`` itself where every one is.  A call that raises raises, as it
        would in the side."""
        bad = None
        for g in self.calls:
            v = ex.evaluate(ex.compile_expr(parse_at(g)), ctx, values, dims, structure)
            v = to_float(v) if self.real else np.asarray(_float64(v))      # to_float: NaN where not real
            flags = ~np.isfinite(v) if v.size else np.zeros(v.shape, bool)
            flags = flags.reshape(flags.shape[0], -1).any(axis=1) if flags.ndim else np.atleast_1d(flags)
            bad = flags if bad is None else bad | flags
        if bad is None or not bad.any():
            return value
        out = np.array(value, copy=True)
        if out.dtype == object:
            import mpmath

            out[bad] = mpmath.mpf("nan")
        else:
            out = out.astype(np.result_type(out.dtype, np.float32))
            out[bad] = np.nan
        return out

    def check(self, parse_at: Callable[[str], Any], ctx, values: Mapping[str, Any], dims: Mapping[str, int],
              structure: Mapping[str, str]) -> None:
        """Raise where the side is not defined at ``values`` (a batch, in ``ctx``).

        ``parse_at(text)`` parses a fragment at the instance's sizes.  Raises ``numpy.linalg.LinAlgError``
        for a cancelled inverse that does not exist (not finite; at multiple-precision contexts the inverse itself
        raises ``ZeroDivisionError`` for a matrix singular to working precision, invertible only by rounding:
        :data:`~theorem_check.numerics.linalg.SINGULAR_EXPONENT`), ``ZeroDivisionError`` for a scalar divisor
        that is 0 to ``ctx``'s working precision (checked at multiple-precision contexts only: at float32 a
        divisor that is not 0 can round to a value that small)."""
        for g in self.inverses:
            inv = ex.evaluate(ex.compile_expr(sp.MatPow(parse_at(g), -1)), ctx, values, dims, structure)
            if not np.all(np.isfinite(_float64(inv))):
                raise np.linalg.LinAlgError(f"({g})**-1 does not exist (singular matrix)")
        if not self.divisors or not getattr(ctx, "is_mp", False):
            return
        from theorem_check.expr.magnitude import NoMagnitude, magnitude

        floats = {k: _float64(v) if isinstance(v, np.ndarray) else v for k, v in values.items()}
        for g in self.divisors:
            d = parse_at(g)
            if sp.sympify(d).is_number:
                continue        # a number at these sizes: 0 was refused by the parser
            value = np.abs(_float64(ex.evaluate(ex.compile_expr(d), ctx, values, dims, structure)))
            try:
                [scale] = magnitude(d, floats, dims, structure)
            except NoMagnitude:
                scale = np.zeros_like(value, dtype=float)      # no magnitude: only an exact 0 counts
            if np.any(value <= ctx.eps ** ZERO_EXPONENT * np.asarray(scale, dtype=float)):
                raise ZeroDivisionError(f"the divisor {g} is 0 to {ctx.name}'s working precision (a division by zero)")


def side_guards(text: str, parsed, shapes: Mapping[str, tuple], complex_names: tuple,
                letters: tuple) -> Guards:
    """The guards of the string side ``text`` (parsed at symbolic sizes as ``parsed``).

    Inverses: the matrix bases the side inverts (:func:`theorem_check.expr.inverted_bases`) whose inverse
    ``parsed`` no longer holds (``(X.T*X)**-1*X.T*X*w = w`` with fewer rows than columns was PROVED).
    Divisors: the scalar divisors (:func:`theorem_check.expr.denominators`) SymPy does not know to be nonzero
    (``x*trace(K)/trace(K) = x`` with ``K`` antisymmetric was VERIFIED; helper-42).  Calls: the calls of
    :func:`theorem_check.expr.domain_calls` that ``parsed`` no longer holds (``0*log(-1 - t**2) = 0`` was PROVED;
    helper-43).  A fragment that does not parse on its own gets no guard."""
    held = {a.base if isinstance(a, sp.MatPow) else a.arg for a in parsed.atoms(sp.MatPow, sp.Inverse)
            if isinstance(a, sp.Inverse) or (a.exp.is_number and a.exp < 0)}
    inverses, divisors, calls = [], [], []
    inverted = set(ex.inverted_bases(text))
    for g in ex.domain_calls(text):
        try:
            call = ex.parse(g, shapes, complex_names=complex_names, sizes=letters)
        except Exception:  # noqa: BLE001 - a fragment that is no expression of its own: nothing to guard
            continue
        if not parsed.has(call) and not sp.sympify(call).is_number:
            calls.append(g)
    for g in ex.denominators(text):
        try:
            base = ex.parse(g, shapes, complex_names=complex_names, sizes=letters)
        except Exception:  # noqa: BLE001 - a fragment that is no expression of its own: nothing to guard
            continue
        if isinstance(base, sp.MatrixExpr):
            if g in inverted and base not in held:
                inverses.append(g)
        elif not base.is_number and base.is_zero is not False:
            divisors.append(g)
    return Guards(tuple(inverses), tuple(divisors), tuple(calls), real=not complex_names)
