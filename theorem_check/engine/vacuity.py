"""How big the computation of a side is, and when both sides vanish (issue 18, trust model 3).

An identity is judged against the magnitude of its computation, not only against its two results:
:func:`magnitudes` gives, per instance, the expression tree's magnitude (evaluated on absolute values,
:mod:`theorem_check.expr.magnitude`) or, for callable sides, the inputs' largest entry; :func:`vanishes`
says whether both sides are below the working precision's floor of it (a *vacuous* instance: it holds,
and is never a counterexample).  See docs/verdicts.md, "the magnitude of the computation".
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Mapping

import numpy as np

from theorem_check.engine.mutants import SideStats, stats_residual
from theorem_check.model.claims import Instance, Statement
from theorem_check.numerics.balls import BallArray, balls_of
from theorem_check.numerics.precision import CONTEXTS, Ctx

__all__ = ["convert", "is_defined", "input_magnitude", "magnitudes", "with_magnitude", "vanishes"]


def convert(value, ctx: Ctx, *, balls: bool = False):
    """An instance value at precision ``ctx``: an exact sample rebuilt there (:meth:`Exact.at`), an array
    converted (:meth:`Ctx.asarray`), lists and tuples entry by entry, a float as a scalar.

    ``balls`` (mp50, for statements whose sides are all expressions): a large real matrix goes straight
    to the ball array its expression side would make of it (:func:`~theorem_check.expr.compile.with_balls`),
    without the object array of ``mpf`` in between -- the same values (a float64 and a midpoint are exact
    balls), a million fewer Python objects at n = 256."""
    if balls and ctx.is_mp and isinstance(value, np.ndarray):
        b = value.balls(ctx) if callable(getattr(value, "balls", None)) else None
        if b is None and value.dtype == np.float64 and not getattr(value, "has_recipe", False):
            b = balls_of(value.view(np.ndarray))
        if isinstance(b, BallArray):
            return b
    at = getattr(value, "at", None)
    if at is not None and getattr(value, "has_recipe", False):
        return at(ctx)
    if isinstance(value, np.ndarray):
        return ctx.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, ctx) for v in value)
    if isinstance(value, float):
        return ctx.scalar(value)
    return value


def is_defined(entry) -> bool:
    return isinstance(entry, SideStats) and math.isfinite(stats_residual(entry)) and math.isfinite(entry.L) \
        and math.isfinite(entry.R)


def input_magnitude(inst: Mapping[str, Any], batch: int) -> np.ndarray:
    """The largest absolute entry (modulus, for complex inputs) of the instance's inputs per batch element
    (names not starting with ``_``)."""
    out = np.zeros(batch)
    for k, v in inst.items():
        if k.startswith("_") or not isinstance(v, np.ndarray) or v.ndim < 1 or v.shape[0] != batch \
                or v.dtype.kind not in "biufc":
            continue
        a = np.abs(v.reshape(batch, -1)).astype(float)   # the modulus of complex entries
        if a.shape[1]:
            out = np.maximum(out, np.nan_to_num(a.max(axis=1), nan=0.0, posinf=0.0))
    return out


def magnitudes(statement: Statement, inst: Mapping[str, Any], batch: int, ctxs) -> dict | None:
    """Magnitudes of the sides' computation per instance: ``"mag"`` (level-free, for the residual) and,
    per context name, the magnitude below whose floor a side *vanishes* there.  None when the statement
    declares its own ``scale`` (it is judged against that scale and is never vacuous).

    An expression side contributes the magnitude of its expression tree
    (:func:`theorem_check.expr.magnitude.magnitude`, with the derivative oracle's rounding floor at each
    context); a callable side, or a tree without a rule, the largest absolute entry of the inputs.
    """
    if statement.scale is not None:
        return None
    f64 = Instance({k: convert(v, CONTEXTS["float64"]) for k, v in inst.items()})
    names = [c.name for c in ctxs]
    out = {"mag": np.zeros(batch), **{n: np.zeros(batch) for n in names}}
    m_in = None
    for fn in (statement.lhs, statement.rhs):
        mag = getattr(fn, "magnitude", None)
        try:
            if mag is None:
                raise LookupError
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                proj = inst.get("_projection")
                per = dict(zip([None, *names], mag(f64, [None, *ctxs]) if proj is None
                               else mag(f64, [None, *ctxs], projection=proj)))
            per = {k: _beyond_float64(v) for k, v in per.items()}
            if any(v.shape != (batch,) for v in per.values()):
                raise ValueError("magnitude of the wrong shape")
        except LookupError:   # a callable side: the inputs' magnitude
            m_in = input_magnitude(inst, batch) if m_in is None else m_in
            per = {None: np.zeros(batch), **{n: m_in for n in names}}
        except Exception:  # noqa: BLE001 - a node without a rule, or one instance's computation raised
            m_in = input_magnitude(inst, batch) if m_in is None else m_in
            per = _one_by_one(mag, f64, ctxs, names, inst, batch, m_in)
        out["mag"] = np.maximum(out["mag"], per[None])
        for n in names:
            out[n] = np.maximum(out[n], per[n])
    return out


def _beyond_float64(v) -> np.ndarray:
    """A magnitude as floats, infinite where its float64 computation overflowed (``inf``, or ``nan`` from ``inf -
    inf``): the terms of that computation are beyond float64's range, and sides that vanish against them decide
    nothing (:func:`vanishes`).  Before, such a magnitude was 0 (none): ``det(expm(A*B)) = exp(trace(A*B))`` at inputs
    of scale 16 (eigenvalues 1227 and -253: the 2 x 2 determinant cancels ~640 digits, and mp50 and mp100 both
    computed the left side as 0) stalled at a relative residual of 1 and the true statement was REFUTED (helper-72,
    design decision 215).  The residual itself is not divided by it (:func:`with_magnitude`)."""
    return np.nan_to_num(np.asarray(v, dtype=float), nan=np.inf, posinf=np.inf)


def _one_by_one(mag, f64, ctxs, names, inst, batch: int, m_in) -> dict:
    """The magnitudes of a batch whose computation raised, instance by instance: an instance that raises alone gets
    the inputs' magnitude (no residual reference), the others their own.  Before, one instance far from the origin
    whose bound overflowed took the reference from every instance of its batch, and the same instance evaluated
    alone (mp100, decision 120) had another: ``logm(expm(A)) = A`` failed at mp50 against the one and held at mp100
    against the other, and went grey (helper-41)."""
    out = {None: np.zeros(batch), **{n: np.array(m_in, dtype=float, copy=True) for n in names}}
    if batch <= 1 or inst.get("_projection") is not None:
        return out
    for b in range(batch):
        one = Instance({k: (v[b:b + 1] if isinstance(v, np.ndarray) and v.ndim >= 1 and v.shape[0] == batch
                            and not k.startswith("_") else v) for k, v in f64.items()})
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                vals = mag(one, [None, *ctxs])
        except Exception:  # noqa: BLE001 - this instance alone: the inputs' magnitude, as before
            continue
        for k, v in zip([None, *names], vals):
            v = _beyond_float64(v)
            if v.shape == (1,):
                out[k][b] = v[0]
    return out


def with_magnitude(entry, mags, b: int):
    """``entry`` with the magnitude of its computation as the residual's reference; unchanged where that magnitude is
    infinite (beyond float64: the residual relative to the sides is reported, and :func:`vanishes` makes the
    instance vacuous; helper-75 read "mp50 0.0" for ``log(sigmoid(x - 800)) = 5*x``, false by a factor)."""
    if mags is None or not isinstance(entry, SideStats) or not math.isfinite(float(mags["mag"][b])):
        return entry
    return dataclasses.replace(entry, mag=entry.scaled(float(mags["mag"][b])))


def vanishes(entry, floor: float, mags, name: str, b: int) -> bool:
    """Both sides below ``floor`` times the magnitude of their computation at this level."""
    if mags is None or not is_defined(entry):
        return False
    return math.sqrt(max(entry.L, entry.R)) <= floor * entry.scaled(float(mags[name][b]))
