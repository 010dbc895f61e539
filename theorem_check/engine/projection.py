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

from theorem_check.errors import ShapeMismatch
from theorem_check.model.claims import Instance, Statement
from theorem_check.numerics.balls import keeping
from theorem_check.numerics.directions import Projection, projects

__all__ = ["KEY", "MP_ENTRIES", "plan", "derivative_side", "projected_sides", "mp_directions"]

MP_ENTRIES = 1024
"""At mp50 an instance keeps ``max(1, k * MP_ENTRIES // N)`` of its ``k`` directions (all of them up to
``N = 1024`` entries, e.g. ``32 x 32``; two at ``64 x 64``, one from ``91 x 91``), so that the mp50 rung costs about what a few
products of its size cost; the float64 residual it is paired with is recomputed on the same directions."""

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
    if not any(isinstance(v, np.ndarray) and v.ndim >= 2 and projects("hessian", int(np.prod(v.shape[1:])))
               for k, v in inst.items() if not k.startswith("_")):
        return None   # no input large enough for any kind to project (the hessian's count grows fastest): no need
        # to find the derivative side, which parses and compiles the sides at these sizes (a tenth of a small check)
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


def projected_sides(statement: Statement, cinst: Instance, ctx, proj: Projection, side):
    """Both sides of a batch along ``proj``'s directions, at precision ``ctx``, and the unprojected size.

    ``side(fn, which)`` evaluates one side callable ``fn`` (``"lhs"``/``"rhs"``) as the numeric stage does
    (validated, errors named).  The derivative side goes through its ``along`` (the oracle along the
    directions), the other is evaluated in full and projected (:meth:`Projection.apply`).  Raises
    ShapeMismatch when the other side does not have the derivative's shape.
    """
    which = derivative_side(statement, cinst)[0]
    other = "rhs" if which == "lhs" else "lhs"
    box: dict = {}

    def oracle(i, c):
        box["v"], box["m"] = getattr(statement, which).along(i, c, proj)
        return box["v"]

    d = side(oracle, which)
    with keeping():           # a large expression side stays in balls: projected by one ball product
        full = side(getattr(statement, other), other)
    try:
        e = proj.apply(ctx, full, box["m"])
    except ShapeMismatch as exc:
        if which == "rhs":   # the message names the derivative side lhs
            msg = str(exc).replace("lhs has", "\0").replace("rhs has", "lhs has").replace("\0", "rhs has")
            raise ShapeMismatch(msg) from None
        raise
    size = int(np.prod(full.shape[1:])) if full.ndim > 1 else 1
    return ((d, e) if which == "lhs" else (e, d)), size


def mp_directions(inst: dict) -> bool:
    """Cut the (one-instance) ``inst``'s projection to its first ``max(1, k * MP_ENTRIES // N)`` directions
    for the mp50 rung (:data:`MP_ENTRIES`); True when it was cut (then the float64 residual the mp50 one is
    compared with must be recomputed on the same directions)."""
    proj = inst.get(KEY)
    if not isinstance(proj, Projection):
        return False
    n = int(np.prod(proj.U.shape[2:]))
    keep = max(1, proj.k * MP_ENTRIES // max(n, 1))
    if keep >= proj.k:
        return False
    inst[KEY] = proj.first(keep)
    return True
