"""Float64-rounded constants entering mp50 arithmetic from claim code (a hint of the evidence, never a verdict).

Claim code that writes ``0.1 * A`` holds an mp50 side to float64 accuracy (``0.1`` is ``1/10`` only to
``5.6e-18``); :func:`watch_floats` records such floats while a side is evaluated at mp50, and the engine adds
:data:`FLOAT_LITERAL_HINT` to an instance that does not hold.  The engine's own conversions and the floats
inside library routines (mpmath's ``logm`` compares with ``0.001``) are not claim code: they run under
:func:`engine_floats`.  Split from :mod:`theorem_check.numerics.precision`, which re-exports the names.
"""

from __future__ import annotations

import contextlib
import math
from decimal import Decimal

__all__ = ["FLOAT_LITERAL_HINT", "engine_floats", "watch_floats"]

FLOAT_LITERAL_HINT = ("a float literal in the claim code ({values}) limits mp50 to float64 accuracy: write "
                      "a fraction (A / 10, not 0.1 * A) or ctx.scalar(\"0.1\"); a float64 value the claim code "
                      "computes (np.linalg.solve, math.exp) does the same: use ctx.solve, ctx.inv, ctx.exp")
"""The evidence note of :func:`watch_floats` (a hint only: it never changes an outcome)."""

_watch: dict = {"seen": None, "quiet": 0}


def _rounded(x) -> bool:
    """True for a finite float whose shortest decimal (``0.1``, what was typed) is not its binary value."""
    x = float(x)
    return math.isfinite(x) and Decimal(x) != Decimal(repr(x))


@contextlib.contextmanager
def engine_floats():
    """A block whose floats are not claim code: the engine's own float64 -> mp50 conversions (instances,
    :meth:`~theorem_check.numerics.precision.Ctx.asarray`) and library routines (mpmath's matrix functions)."""
    _watch["quiet"] += 1
    try:
        yield
    finally:
        _watch["quiet"] -= 1


@contextlib.contextmanager
def watch_floats():
    """Record the floats that enter mpmath arithmetic in the block and are not the decimals they print
    as (``0.1``, ``1/3``, ``np.pi``; not ``0.5`` or ``2.0``): float64-rounded constants of claim code,
    which hold an mp50 side to float64 accuracy (``0.1 * A`` is ``A / 10`` only to ``5.6e-18``).

    Yields the list of such floats (distinct, in order).  mpmath turns a Python or NumPy float operand
    into an ``mpf`` through ``from_float`` of ``mpmath.ctx_mp_python``, which is wrapped for the block;
    :meth:`Ctx.asarray` and :meth:`Ctx.scalar` (the engine converting instances) are not recorded.
    A float already turned into ``mpf`` by claim code (``mpmath.mpf(0.1)``) is recorded too.
    """
    from mpmath import ctx_mp_python as cmp

    seen: list = []
    original, outer = cmp.from_float, _watch["seen"]

    def from_float(x, *args, **kw):
        if not _watch["quiet"] and _watch["seen"] is not None and _rounded(x) and float(x) not in _watch["seen"]:
            _watch["seen"].append(float(x))
        return original(x, *args, **kw)

    cmp.from_float, _watch["seen"] = from_float, seen
    try:
        yield seen
    finally:
        cmp.from_float, _watch["seen"] = original, outer
