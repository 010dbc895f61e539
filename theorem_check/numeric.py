"""The numeric stage: batched evaluation at several precisions, decision, shrinking.

Identities (``lhs``/``rhs``) are evaluated on ``configs`` random dimension configurations,
each with a batch of instances stacked along axis 0, at float32 and float64 (vectorised), and
in mpmath (50 digits) on the first instance of each batch and on every instance the
float32 -> float64 refinement leaves grey.  Each instance is decided by
:func:`~theorem_check.verdicts.decide_refinement` with floors
``eps_ctx * size * cond`` (``size`` = entries of one side, ``cond`` = the statement's bound on
error amplification).  A failing instance is shrunk: configurations are tried smallest first,
and the first that still fails is reported (so it is a smallest counterexample among the
configurations of the statement's :class:`~theorem_check.dims.DimSpace`).
"""

from __future__ import annotations

import math
import time
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .claims import Instance, Measurement, Statement
from .errors import ShapeMismatch
from .precision import CONTEXTS, Ctx, to_float
from .verdicts import Outcome, combine_outcomes, decide_refinement

__all__ = ["InstanceResult", "NumericResult", "evaluate_identity", "run_numeric", "derive_seed"]

_SHRINK_SECONDS = 8.0


def derive_seed(*parts: Any) -> int:
    """A stable 32-bit seed from the run seed and names (same inputs, same seed, any platform)."""
    return zlib.crc32("\x1f".join(map(str, parts)).encode()) & 0xFFFFFFFF


@dataclass(frozen=True)
class InstanceResult:
    """One instance: its dims, seed, batch index, residual per level, floors and outcome."""

    dims: Mapping[str, int]
    seed: int
    index: int
    residuals: Mapping[str, float]
    floors: Mapping[str, float]
    outcome: Outcome
    detail: str = ""
    predicted: Any = None
    measured: Any = None
    figure: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class NumericResult:
    """The numeric stage of one statement.

    ``outcome`` combines the instances (any FAILS -> FAILS; all HOLDS -> HOLDS; else GREY).
    ``ill_posed`` is a message with the smallest dims whose shapes do not conform, if any.
    ``counterexample`` is the smallest failing instance found by shrinking.
    """

    outcome: Outcome
    instances: tuple[InstanceResult, ...]
    ill_posed: str | None = None
    counterexample: InstanceResult | None = None
    seconds: float = 0.0
    note: str = ""
    errors: tuple[str, ...] = field(default_factory=tuple)

    @property
    def unevaluated(self) -> str | None:
        """Why no instance could be evaluated (every one raised or had a NaN/inf side), else None.

        Such a statement is not a mathematical verdict but a broken definition: the CLI reports
        it as bad input (exit 2) after printing the results.
        """
        if self.ill_posed or not self.instances:
            return None
        if all(i.outcome is Outcome.GREY and (not i.residuals or all(math.isnan(v) for v in i.residuals.values()))
               for i in self.instances):
            return self.instances[0].detail or "no instance could be evaluated"
        return None


def _slice(value, b: int):
    if isinstance(value, np.ndarray):
        return value[b:b + 1]
    if isinstance(value, (list, tuple)):
        return type(value)(_slice(v, b) for v in value)
    return value


def _convert(value, ctx: Ctx):
    if isinstance(value, np.ndarray):
        return ctx.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_convert(v, ctx) for v in value)
    if isinstance(value, float):
        return ctx.scalar(value)
    return value


def evaluate_identity(statement: Statement, inst: Mapping[str, Any], ctx: Ctx) -> tuple[np.ndarray, int]:
    """Relative residuals ``|lhs - rhs| / scale`` of a batch at precision ``ctx``.

    Returns ``(residuals of shape (batch,), size of one side)``.  Raises ShapeMismatch when
    the sides do not conform (numpy's own shape errors are turned into ShapeMismatch too).
    """
    cinst = Instance({k: _convert(v, ctx) for k, v in inst.items()})
    with ctx.active(), np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN/inf sides are reported, not warned about
        lhs = _side(statement.lhs, "lhs", cinst, ctx)
        rhs = _side(statement.rhs, "rhs", cinst, ctx)
        if lhs.shape != rhs.shape:
            raise ShapeMismatch(f"lhs has shape {lhs.shape[1:]}, rhs has shape {rhs.shape[1:]}")
        diff = ctx.norm(lhs - rhs)
        ref = statement.scale(cinst, ctx) if statement.scale is not None else None
        if ref is None:
            nl, nr = to_float(ctx.norm(lhs)), to_float(ctx.norm(rhs))
            ref_f = np.maximum(nl, nr)
        else:
            ref_f = to_float(ref)
        diff_f = np.atleast_1d(to_float(diff))
        ref_f = np.broadcast_to(np.atleast_1d(ref_f), diff_f.shape)
        res = np.where(diff_f == 0, 0.0, diff_f / np.where(ref_f == 0, np.nan, ref_f))
        res = np.where(np.isnan(res) & (diff_f > 0), np.inf, res)
    size = int(np.prod(lhs.shape[1:])) if lhs.ndim > 1 else 1
    return res, size


class SideError(RuntimeError):
    """A side (or custom check) of a statement raised: the message names it, the precision and the error."""


_SHAPE_WORDS = ("shape", "mismatch", "broadcast", "operand", "aligned", "dimension")


def _side(fn, name: str, cinst: Instance, ctx: Ctx) -> np.ndarray:
    """Evaluate one side; shape errors become ShapeMismatch, anything else SideError naming the side."""
    try:
        return np.asarray(fn(cinst, ctx))
    except ShapeMismatch:
        raise
    except ValueError as exc:
        msg = str(exc)
        if any(w in msg for w in _SHAPE_WORDS):
            raise ShapeMismatch(msg.splitlines()[0]) from None
        raise SideError(f"{name} raised {type(exc).__name__}: {exc} ({ctx.name})") from exc
    except Exception as exc:  # noqa: BLE001 - user code: reported with the side that raised
        raise SideError(f"{name} raised {type(exc).__name__}: {exc} ({ctx.name})") from exc


def _floor(ctx: Ctx, size: int, cond: float) -> float:
    return ctx.eps * max(1, size) * max(1.0, cond)


def _identity_instances(statement: Statement, dims, seed: int, batch: int, *, mp_all: bool = False):
    """Evaluate one batch; returns list of InstanceResult (raises ShapeMismatch)."""
    rng = np.random.default_rng(seed)
    inst = dict(statement.sample(rng, dims, batch))
    ctxs = [CONTEXTS[c] for c in statement.contexts]
    fast = [c for c in ctxs if not c.is_mp]
    mp = next((c for c in ctxs if c.is_mp), None)
    res: dict[str, np.ndarray] = {}
    size = 1
    for c in fast:
        res[c.name], size = evaluate_identity(statement, inst, c)
    out = []
    for b in range(batch):
        r = {name: float(v[b]) for name, v in res.items()}
        fl = {c.name: _floor(c, size, statement.cond) for c in fast}
        outcome = Outcome.GREY
        if len(fast) >= 2:
            outcome = decide_refinement([r[c.name] for c in fast], [fl[c.name] for c in fast])
        if mp is not None and (b == 0 or outcome is Outcome.GREY or mp_all or len(fast) < 2):
            rmp, _ = evaluate_identity(statement, {k: _slice(v, b) for k, v in inst.items()}, mp)
            r[mp.name] = float(rmp[0])
            fl[mp.name] = _floor(mp, size, statement.cond)
            prev = fast[-1].name
            outcome = decide_refinement([r[prev], r[mp.name]], [fl[prev], fl[mp.name]])
        nonfinite = [name for name, v in r.items() if math.isnan(v)]
        detail = (f"a side is NaN, infinite or complex at {', '.join(nonfinite)} (residual undefined)"
                  if nonfinite else "")
        out.append(InstanceResult(dict(dims), seed, b, r, fl, outcome, detail))
    return out


def _check_instance(statement: Statement, dims, seed: int) -> InstanceResult:
    m = statement.check(np.random.default_rng(seed), dict(dims))
    if not isinstance(m, Measurement):
        raise TypeError(f"check() must return a Measurement, got {type(m).__name__}")
    return InstanceResult(dict(dims), seed, 0, dict(m.residuals), {}, m.outcome, m.detail, m.predicted,
                          m.measured, m.figure)


def _one(statement: Statement, dims, seed: int, batch: int) -> list[InstanceResult]:
    if statement.is_identity:
        return _identity_instances(statement, dims, seed, batch)
    return [_check_instance(statement, dims, seed)]


def _shrink(statement: Statement, failing: InstanceResult, base_seed: int, *, ill_posed: bool) -> InstanceResult | None:
    """Smallest configuration that still fails (or is ill-posed, with the shape message as detail); None if none."""
    t0 = time.perf_counter()
    for k, dims in enumerate(statement.dims.smaller(failing.dims)):
        if time.perf_counter() - t0 > _SHRINK_SECONDS:
            break
        for rep in range(2):
            seed = derive_seed(base_seed, "shrink", k, rep)
            try:
                results = _one(statement, dims, seed, 2)
            except ShapeMismatch as exc:
                if ill_posed:
                    return InstanceResult(dict(dims), seed, 0, {}, {}, Outcome.FAILS, str(exc))
                continue
            except Exception:  # noqa: BLE001 - an instance that cannot be evaluated is no counterexample
                continue
            bad = [r for r in results if r.outcome is Outcome.FAILS]
            if bad and not ill_posed:
                return bad[0]
    return None


def run_numeric(statement: Statement, *, seed: int, trials: int = 16) -> NumericResult:
    """Run the numeric stage of ``statement``.

    Parameters
    ----------
    seed : int
        Seeds every instance (via :func:`derive_seed`); same seed, same result.
    trials : int
        Instances for identities (spread over ``min(trials, 4)`` dims configurations);
        custom checks run ``ceil(trials / 8)`` instances.
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    if statement.is_identity:
        configs = max(1, min(trials, 4))
        batch = max(1, math.ceil(trials / configs))
    else:
        configs, batch = max(1, math.ceil(trials / 8)), 1
    instances: list[InstanceResult] = []
    errors: list[str] = []
    ill_inst: InstanceResult | None = None
    for k in range(configs):
        dims = statement.dims.draw(rng)
        s = derive_seed(seed, k)
        try:
            instances.extend(_one(statement, dims, s, batch))
        except ShapeMismatch as exc:
            ill_inst = InstanceResult(dict(dims), s, 0, {}, {}, Outcome.FAILS, str(exc))
            break
        except Exception as exc:  # noqa: BLE001 - reported, decided GREY
            what = str(exc) if isinstance(exc, SideError) else f"{'check' if not statement.is_identity else ''} raised {type(exc).__name__}: {exc}".lstrip()
            errors.append(f"dims {dict(dims)}: {what}")
            instances.append(InstanceResult(dict(dims), s, 0, {}, {}, Outcome.GREY, f"{what} at dims {dict(dims)}"))
    if ill_inst is not None:
        cex = _shrink(statement, ill_inst, seed, ill_posed=True) or ill_inst
        ill = f"dims {dict(cex.dims)}: {cex.detail}"
        return NumericResult(Outcome.FAILS, tuple(instances), ill, cex, time.perf_counter() - t0,
                             errors=tuple(errors))
    outcome = combine_outcomes([i.outcome for i in instances])
    cex = None
    if outcome is Outcome.FAILS:
        first = next(i for i in instances if i.outcome is Outcome.FAILS)
        cex = _shrink(statement, first, seed, ill_posed=False) or first
    note = ""
    if statement.is_identity:
        note = (f"floors eps*size*cond with cond={statement.cond:g}; precisions "
                f"{' -> '.join(statement.contexts)}")
    return NumericResult(outcome, tuple(instances), None, cex, time.perf_counter() - t0, note, tuple(errors))
