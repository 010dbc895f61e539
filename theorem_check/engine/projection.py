"""When the numeric stage checks a derivative along random directions instead of entry by entry.

An identity one of whose sides is a single derivative node (``grad(f, X)``, ``jacobian(F, x)``,
``hessian(f, x)``, or the oracle side of ``tc.gradient`` with a callable ``f``) and whose other side is not,
is checked along :data:`~theorem_check.numerics.directions.DIRECTIONS` random directions when the full
oracle would need more than :data:`~theorem_check.numerics.directions.FULL_LIMIT` difference quotients
(:func:`~theorem_check.numerics.directions.projects`); see :mod:`theorem_check.numerics.directions` for the
method, its sensitivity and its floors, and docs/design-decisions.md (item 93).  The directions are drawn
from their own seed (``derive_seed(instance seed, "directions")``), so the instances themselves are the
ones the full check draws.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from theorem_check.model.claims import Instance, Statement
from theorem_check.numerics.directions import Projection, projects

__all__ = ["KEY", "plan", "derivative_side"]

KEY = "_projection"
"""The instance entry holding the batch's :class:`Projection` (names starting with ``_`` are no inputs)."""


def derivative_side(statement: Statement, inst: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """``(side, kind, variable)`` when exactly one side of ``statement`` is a derivative node on this
    instance's sizes (``side`` is ``"lhs"`` or ``"rhs"``), else None."""
    found = []
    for which in ("lhs", "rhs"):
        fn = getattr(statement, which)
        info = None
        if callable(getattr(fn, "derivative", None)) and callable(getattr(fn, "along", None)):
            try:
                info = fn.derivative(Instance(inst))
            except Exception:  # noqa: BLE001 - a side that does not parse at these sizes: the full path decides
                info = None
        found.append((which, *info) if info else None)
    hits = [f for f in found if f is not None]
    return hits[0] if len(hits) == 1 else None


def plan(statement: Statement, inst: Mapping[str, Any], seed: int) -> Projection | None:
    """The batch's random directions, or None for the full check (no single derivative side, or a small
    one).  ``seed`` seeds the directions only."""
    if not statement.is_identity:
        return None
    found = derivative_side(statement, inst)
    if found is None:
        return None
    _, kind, name = found
    x = inst.get(name)
    if not isinstance(x, np.ndarray) or x.ndim < 2:
        return None
    if not projects(kind, int(np.prod(x.shape[1:]))):
        return None
    return Projection.draw(np.random.default_rng(seed), kind, x.shape)
