"""A statement's two sides at one precision: evaluation, validation and the relative residual.

The numeric stage (:mod:`theorem_check.engine.numeric`) and the escalation to more digits
(:mod:`theorem_check.engine.escalation`) both evaluate through here: an instance (a batch of inputs stacked along
axis 0) is converted to the context (:func:`~theorem_check.engine.vacuity.convert`), each side is called, its
result validated (a batched numeric array; numpy's shape errors become :class:`~theorem_check.errors.ShapeMismatch`,
anything else a :class:`SideError` naming the side and the precision), and the per-instance
:class:`~theorem_check.engine.mutants.SideStats` computed.  A level's floor is ``eps * size * cond``.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

import numpy as np

from theorem_check.engine.mutants import SideStats, side_stats, stats_residual
from theorem_check.engine.projection import KEY as PROJECTION_KEY
from theorem_check.engine.projection import projected_sides
from theorem_check.engine.vacuity import convert
from theorem_check.errors import BadClaim, ShapeMismatch
from theorem_check.model.claims import Instance, Statement
from theorem_check.numerics.balls import BallArray
from theorem_check.numerics.directions import Projection
from theorem_check.numerics.precision import Ctx, to_float

__all__ = ["FailedLevel", "SideError", "UNDEFINED_ERRORS", "evaluate_identity", "expression_sides", "expressions_only", "instance_stats",
           "level_floor", "scalar_inputs", "stats_or_errors", "take"]


def take(value, b: int):
    """Instance ``b`` of a batched value, as a batch of one (a projection, an exact sample and lists alike)."""
    if isinstance(value, Projection):
        return value.take(b)
    if getattr(value, "has_recipe", False):  # sampling.Exact: slice the recipe too
        return value.take(b)
    if isinstance(value, np.ndarray):
        return value[b:b + 1]
    if isinstance(value, (list, tuple)):
        return type(value)(take(v, b) for v in value)
    return value


UNDEFINED_ERRORS = (np.linalg.LinAlgError, ZeroDivisionError, FloatingPointError, OverflowError)


def _batch_of(inst: Mapping[str, Any]) -> int | None:
    for v in inst.values():
        if isinstance(v, np.ndarray) and v.ndim >= 1:
            return int(v.shape[0])
        if isinstance(v, (list, tuple)) and v and isinstance(v[0], np.ndarray) and v[0].ndim >= 1:
            return int(v[0].shape[0])
    return None


def expression_sides(statement: Statement) -> bool:
    """True when both sides are expression sides (parsed strings or SymPy: they carry ``symbolic``) and there is
    no ``scale``: no claim code computes a value (to a tolerance of its own) from the instance."""
    return statement.scale is None and all(callable(getattr(s, "symbolic", None)) for s in (statement.lhs, statement.rhs))


def expressions_only(statement: Statement) -> bool:
    """True for :func:`expression_sides` without orthogonal variables: no claim code sees the converted instance,
    so large real matrices may go to balls directly (:func:`~theorem_check.engine.vacuity.convert`)."""
    return expression_sides(statement) and not any("orthogonal" in getattr(s, "structure", {}).values()
                                                   for s in (statement.lhs, statement.rhs))


def _sides(statement: Statement, inst: Mapping[str, Any], ctx: Ctx):
    """Both sides of a batch at precision ``ctx`` (validated arrays), the optional scale and the size of
    one (unprojected) side."""
    balls = ctx.is_mp and expressions_only(statement)
    cinst = Instance({k: convert(v, ctx, balls=balls) for k, v in inst.items()})
    batch = _batch_of(inst)
    proj = cinst.get(PROJECTION_KEY)
    if isinstance(proj, Projection):
        (lhs, rhs), size = projected_sides(statement, cinst, ctx, proj, lambda fn, which: _side(fn, which, cinst, ctx, batch))
    else:
        lhs, rhs = (_side(fn, which, cinst, ctx, batch) for fn, which in ((statement.lhs, "lhs"), (statement.rhs, "rhs")))
        if {lhs.shape[1:], rhs.shape[1:]} == {(), (1, 1)}:   # a 1 x 1 callable side is a scalar, as an expression's
            lhs, rhs = lhs.reshape(lhs.shape[:1]), rhs.reshape(rhs.shape[:1])   # is (helper-56)
        elif lhs.shape != rhs.shape:
            raise ShapeMismatch(f"lhs has shape {lhs.shape[1:]}, rhs has shape {rhs.shape[1:]}")
        size = int(np.prod(lhs.shape[1:])) if lhs.ndim > 1 else 1
    ref = statement.scale(cinst, ctx) if statement.scale is not None else None
    return lhs, rhs, ref, size


def instance_stats(statement: Statement, inst: Mapping[str, Any], ctx: Ctx) -> tuple[list[SideStats], int]:
    """Per-instance :class:`SideStats` of a batch at precision ``ctx``, and the size of one side."""
    with ctx.active(), np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN/inf sides are reported, not warned about
        lhs, rhs, ref, size = _sides(statement, inst, ctx)
        if ref is not None:
            ref_f = np.atleast_1d(to_float(ref))
            if ref_f.shape not in ((1,), (lhs.shape[0],)):
                raise BadClaim(f"scale returned shape {np.shape(ref)}, expected ({lhs.shape[0]},)")
            if np.any(ref_f <= 0):
                raise BadClaim(f"scale returned a value <= 0 ({float(ref_f.min()):.3g}) at {ctx.name}: a reference "
                               "scale must be positive")
            ref = ref_f
        stats = side_stats(lhs, rhs, scale=ref)
    return stats, size


def evaluate_identity(statement: Statement, inst: Mapping[str, Any], ctx: Ctx) -> tuple[np.ndarray, int]:
    """Relative residuals ``|lhs - rhs| / scale`` of a batch at precision ``ctx``.

    Returns ``(residuals of shape (batch,), size of one side)``.  Raises ShapeMismatch when
    the sides do not conform (numpy's own shape errors are turned into ShapeMismatch too) and
    BadClaim when a side returns something that is not a batched numeric array.
    """
    stats, size = instance_stats(statement, inst, ctx)
    return np.array([stats_residual(s) for s in stats]), size


class SideError(RuntimeError):
    """A side (or custom check) of a statement raised: the message names it, the precision and the error."""

    def __init__(self, message: str, *, undefined: bool = False):
        super().__init__(message)
        self.undefined = undefined


_SHAPE_WORDS = ("core dimension", "broadcast", "not aligned", "must be square", "non-square", "matmul", "shape mismatch",
                "shapes", "dimension mismatch")


def _side(fn, name: str, cinst: Instance, ctx: Ctx, batch: int | None) -> np.ndarray:
    """Evaluate one side; shape errors become ShapeMismatch, anything else SideError naming the side;
    a result that is not a batched numeric array is a BadClaim."""
    try:
        out = fn(cinst, ctx)
    except (ShapeMismatch, BadClaim):
        raise
    except UNDEFINED_ERRORS as exc:
        if isinstance(exc, ValueError) and any(w in str(exc) for w in _SHAPE_WORDS):
            raise ShapeMismatch(str(exc).splitlines()[0]) from None
        raise SideError(f"{name} raised {type(exc).__name__}: {exc} ({ctx.name})", undefined=True) from exc
    except ValueError as exc:
        msg = str(exc)
        if any(w in msg for w in _SHAPE_WORDS):
            raise ShapeMismatch(msg.splitlines()[0]) from None
        raise SideError(f"{name} raised {type(exc).__name__}: {exc} ({ctx.name})") from exc
    except Exception as exc:  # noqa: BLE001 - user code: reported with the side that raised
        raise SideError(f"{name} raised {type(exc).__name__}: {exc} ({ctx.name})") from exc
    if isinstance(out, BallArray):   # an expression side's matrix kept in balls for the projection (balls.keeping)
        if batch is not None and out.shape[0] != batch:
            raise BadClaim(f"{name} returned shape {out.shape}, which drops the leading batch axis (batch = {batch})")
        return out
    if not isinstance(out, (np.ndarray, np.generic, int, float, complex)) and not _numeric_sequence(out):
        raise BadClaim(f"{name} returned {type(out).__name__} {str(out)[:60]!r}, not an array of shape (batch, ...)")
    arr = np.asarray(out)
    if arr.dtype.kind not in "biufcO":
        raise BadClaim(f"{name} returned an array of dtype {arr.dtype} ({str(out)[:60]!r}), not numbers")
    if batch is not None and (arr.ndim == 0 or arr.shape[0] != batch):
        raise BadClaim(f"{name} returned shape {arr.shape}, which drops the leading batch axis (batch = {batch}; a "
                       "scalar side returns shape (batch,))")
    if arr.dtype.kind in "biu":   # an integer side (a constant) in the context's numbers: int64 squares of 1e16
        arr = ctx.asarray(arr)    # wrapped to negative sums, and every mutant of a true statement held (helper-38)
    return arr


def _numeric_sequence(x) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(v, (int, float, complex, np.number, np.ndarray))
                                                or type(v).__module__.startswith("mpmath") for v in x)


def scalar_inputs(inst: Mapping[str, Any], batch: int) -> dict:
    """The real scalar inputs of a batch (arrays of shape ``(batch,)``, names not starting with ``_``): the values a
    counterexample names (``at x = -2.54``)."""
    return {k: v for k, v in inst.items()
            if k[0] != "_" and isinstance(v, np.ndarray) and v.shape == (batch,) and v.dtype.kind in "fi"}


def level_floor(ctx: Ctx, size: int, cond: float) -> float:
    """What a true statement's relative residual may still be at ``ctx``: ``eps * max(1, size) * max(1, cond)``."""
    return ctx.eps * max(1, size) * max(1.0, cond)


class FailedLevel(str):
    """One instance's evaluation error at one precision (its message); ``recognised`` when it is a
    linear-algebra error (:data:`UNDEFINED_ERRORS`), not some other exception (TypeError, NoConvergence)."""

    recognised = False


def stats_or_errors(statement: Statement, inst: Mapping[str, Any], ctx: Ctx, batch: int):
    """Per-instance stats (or a :class:`_Failed` message) at ``ctx``; with ``undefined="fails"`` a batch
    that raises anything is evaluated one instance at a time, so that one instance cannot spoil the rest."""
    try:
        stats, size = instance_stats(statement, inst, ctx)
        return list(stats), size
    except SideError:
        if statement.undefined != "fails":
            raise
    out, size = [], 1
    for b in range(batch):
        try:
            st, size = instance_stats(statement, {k: take(v, b) for k, v in inst.items()}, ctx)
            out.append(st[0])
        except SideError as exc:
            out.append(FailedLevel(str(exc)))
            out[-1].recognised = exc.undefined
    return out, size
