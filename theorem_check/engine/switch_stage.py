"""Instances beside a branch switch: a counterexample hunt where an ``abs`` changes branch (design decision 194).

A side built from analytic functions and ``abs`` is analytic wherever no argument of an ``abs`` changes sign, so a
false identity of such sides fails on an open set whose boundary lies on those arguments' zero sets, and that set
can be thin or far from every scale the other stages draw: ``abs(x - 1) + abs(x - 1.001) = abs(2*x - 2.001)`` is
false only on (1, 1.001), ``abs(tanh(x/100) - 0.999999) = 0.999999 - tanh(x/100)`` only beyond x = 725 and
``abs(log(log(1 + a)) - 3) = 3 - log(log(1 + a))`` only beyond a = 5e8 (helper-55: VERIFIED at every seed).

:func:`switch_stage` finds the zero sets along rays.  From a base instance (the statement's sampler, scale 1) a ray
multiplies every input, or one input alone, by ``s`` on the log grid :data:`RAY_SCALES` (a positive multiple keeps
every structure the samplers draw: an SPD matrix, a positive scalar, an orthogonal matrix's Cayley parameter); one
input alone reaches a threshold on a ratio (``abs(x/y - 1000)``) that scaling every input leaves where it is.  Where
a switch (a real entry of an ``abs`` argument, at float64) changes sign between two grid points, Brent's method
(``scipy.optimize.brentq``, on ``log s``) finds the crossing ``s*``, and the statement is evaluated at
``s* (1 +- delta)`` for each ``delta`` of :data:`DELTAS`, by the same code path and decision rule as the far
instances (:mod:`theorem_check.engine.far`): such an instance can only refute, and one that is grey or vacuous takes
nothing away.  A crossing is a point where a switch changes sign, so a band narrower than the smallest ``delta``
times ``s*`` can still be missed, as can a switch that touches zero without changing sign.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import sympy as sp

from theorem_check import expr as ex
from theorem_check.engine.numeric import derive_seed, evaluate_instances
from theorem_check.engine.numeric_result import InstanceResult, NumericResult, with_refuting_instances
from theorem_check.expr.printing import expr_text
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome
from theorem_check.numerics.precision import FLOAT64

__all__ = ["DELTAS", "MAX_CROSSINGS", "MP_ENTRIES", "RAY_BASES", "RAY_SCALES", "SWITCH_ENTRIES", "along",
           "input_entries", "switch_arguments", "switch_stage"]

RAY_SCALES = np.logspace(-100.0, 100.0, 801)
"""The multiples ``s`` a ray's switches are evaluated at (four per decade from 1e-100 to 1e100; 1e-12 to 1e12 until
stop 45, when helper-65's ``max(log(x), -40) = log(x)``, false below ``x = e^-40 = 4e-18``, and ``max(log(x), -60)``
were VERIFIED): a switch whose sign changes between two of them has a crossing there (brackets for Brent's method).
Evaluated in float64 only; multiples where a switch overflows are no crossing."""
DELTAS = (1e-1, 3e-3, 1e-4, 3e-6, 1e-7)
"""Relative distances from a crossing ``s*`` at which the statement is evaluated (``s* (1 +- delta)``, both sides):
a band between two crossings as close as ``1e-7 s*`` has an instance inside it."""
RAY_BASES = 4
"""Base instances drawn (dealt to the configurations that were run in turn); each starts one ray per input and one
that scales every input."""
MAX_RAY_INPUTS = 6
"""At most this many inputs get a ray of their own (the first in name order); every input is in the common ray."""
MAX_CROSSINGS = 24
"""At most this many crossings are refined and sampled around (ten instances each)."""
PER_SWITCH = 4
"""At most this many crossings of one entry of a switch along one ray (the first ones, from small multiples up): a
switch that is zero at the origin (``sigmoid(x**2) - 0.5``) changes sign in rounding noise at every small multiple,
which would otherwise spend every crossing of the budget there."""
SWITCH_ENTRIES = 4096
"""Largest input (entries) at which the stage runs: beyond it, each crossing's Brent iterations would cost what a
few thousand evaluations of the switches at that size cost."""
MP_ENTRIES = 64
"""Up to this many entries in the largest input, every instance beside a crossing goes to mp50 (not only those the
float levels leave grey): a band narrower than float64 can resolve (``x = x + relu(x - 1)*relu(1.000001 - x)``, a
gap of 1e-13 at ``x = 1 + 1e-7``: helper-65) stalls there and is refuted by the far instances' rule."""


def switch_arguments(e) -> list:
    """The branch switches of the SymPy expression ``e``: the argument of each ``abs`` (``sp.Abs``) in it, as a scalar
    expression, or as the matrix of its entries for an entrywise ``abs`` of a matrix (``abs(X - Y)``); in order of
    first appearance, without repeats.  Source: design decision 194."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    out: list = []

    def walk(node):
        found = []
        if isinstance(node, sp.Abs):
            found = [node.args[0]]
        elif isinstance(node, ElementwiseApplyFunction) and isinstance(node.function, sp.Lambda):
            d, body = node.function.variables[0], node.function.expr
            found = [node.expr if a.args[0] == d else ex.nodes.apply_entrywise(sp.Lambda(d, a.args[0]), node.expr)
                     for a in body.atoms(sp.Abs) if a.has(d)]
        for a in found:
            if a not in out and not getattr(a, "is_number", False):
                out.append(a)
        for a in node.args:
            if isinstance(a, sp.Basic) and not isinstance(a, sp.Lambda):   # a Lambda's body: read above, entrywise
                walk(a)

    walk(sp.sympify(e))
    return out


def input_entries(base: dict) -> int:
    """The entries of the largest input of a base instance (batch 1)."""
    return max((int(np.prod(np.shape(v)[1:])) for k, v in base.items()
                if not k.startswith("_") and isinstance(v, np.ndarray)), default=0)


def switch_stage(statement: Statement, num: NumericResult, *, seed: int) -> NumericResult:
    """``num`` with instances beside the crossings of the statement's branch switches added: FAILS with the first
    failing one as the counterexample (its ``detail`` names the switch and the crossing).

    Runs only for an identity whose two sides are expressions (strings or SymPy: their ``symbolic`` attribute) with at
    least one ``abs`` of a real argument, whose numeric outcome so far is HOLDS, at inputs of at most
    :data:`SWITCH_ENTRIES` entries and without orthogonal inputs; returns ``num`` unchanged otherwise.  The new
    instances go to ``num.far``; the note gains one line of counts.
    A ray whose switches or instances cannot be evaluated adds nothing.
    """
    sides = (statement.lhs, statement.rhs)
    if not statement.is_identity or num.outcome is not Outcome.HOLDS or not num.configs \
            or not all(callable(getattr(s, "symbolic", None)) for s in sides) \
            or "orthogonal" in getattr(statement.lhs, "structure", {}).values():
        return num
    structure = dict(getattr(statement.lhs, "structure", {}))
    crossings: list[tuple] = []     # (configuration, ray, base instance, its seed, switch, s*)
    rays = 0
    for b in range(RAY_BASES):
        cfg = dict(num.configs[b % len(num.configs)])
        base_seed = derive_seed(seed, "switch", b)
        base = dict(statement.sample(np.random.default_rng(base_seed), cfg, 1))
        names = sorted(k for k, v in base.items() if not k.startswith("_") and isinstance(v, np.ndarray))
        if not names or input_entries(base) > SWITCH_ENTRIES:
            continue
        try:
            found = [a for s in sides for a in switch_arguments(s.symbolic(base))]
            recipes = [(a, ex.compile_expr(a)) for a in dict.fromkeys(found)]
        except Exception:  # noqa: BLE001 - a side that cannot be taken apart here: no switches from it
            continue
        if not recipes:
            return num
        for ray in [tuple(names)] + [(k,) for k in names[:MAX_RAY_INPUTS]] * (len(names) > 1):
            rays += 1
            for arg, recipe in recipes:
                for s_star in _crossings(recipe, base, ray, cfg, structure):
                    crossings.append((cfg, ray, base, base_seed, arg, s_star))
            if len(crossings) >= MAX_CROSSINGS:
                break
        if len(crossings) >= MAX_CROSSINGS:
            break
    if not crossings:
        return num
    crossings = crossings[:MAX_CROSSINGS]
    results: list[InstanceResult] = []
    unevaluated = 0
    for j, (cfg, ray, base, base_seed, arg, s_star) in enumerate(crossings):
        scales = np.array([s_star * (1 + sgn * d) for d in DELTAS for sgn in (1, -1)])
        batch = along(base, ray, scales)
        try:
            got = evaluate_instances(dataclasses.replace(statement, sample=lambda rng, d, n, inst=batch: inst,
                                                         undefined="error"),
                                     cfg, derive_seed(seed, "switch", "at", j), len(scales), far=True,
                                     every_mp=input_entries(base) <= MP_ENTRIES)
        except Exception:  # noqa: BLE001 - e.g. an overflow no level could evaluate: no evidence either way
            unevaluated += len(scales)
            continue
        scaled = f"{ray[0]} times s" if len(ray) == 1 else "every input times s"
        for r in got:
            s = float(scales[r.index])
            detail = r.detail
            if r.outcome is Outcome.FAILS:
                values = ", ".join(f"{k} = {v:.12g}" for k, v in r.values.items())
                detail = (f"beside where the argument {expr_text(arg)} of an abs changes sign: base instance seed "
                          f"{base_seed}, {scaled} = {s:.12g}" + (f" ({values})" if values else "")
                          + (f"; {r.detail}" if r.detail else ""))
            results.append(dataclasses.replace(r, detail=detail))
        if any(r.outcome is Outcome.FAILS for r in results):
            break
    text = (f"beside the branch switches (abs arguments): {len(results) + unevaluated} instances at "
            f"{len(crossings)} sign change{'s' * (len(crossings) != 1)} along {rays} ray{'s' * (rays != 1)}")
    return with_refuting_instances(num, results, unevaluated, text)


def along(base: dict, ray: tuple, scales: np.ndarray) -> dict:
    """A batch of instances: ``base`` (a batch of one) with the inputs named in ``ray`` multiplied by each of
    ``scales`` (``ray=()``: ``len(scales)`` copies of ``base``, as the branch-cut stage uses it)."""
    g = len(scales)
    out = {}
    for k, v in base.items():
        if isinstance(v, np.ndarray) and v.ndim >= 1 and v.shape[0] == 1:
            v = np.repeat(v, g, axis=0)
            if k in ray:
                v = v * scales.reshape((g,) + (1,) * (v.ndim - 1))
        out[k] = v
    out["_batch"] = np.zeros(g)
    return out


def _switch_values(recipe, base: dict, ray: tuple, scales: np.ndarray, cfg: dict, structure: dict) -> np.ndarray:
    """The switch's real entries at float64 along the ray, ``(len(scales), entries)``; NaN where not real or finite."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = np.asarray(ex.evaluate(recipe, FLOAT64, along(base, ray, scales), cfg, structure))
    v = v.reshape(len(scales), -1)
    if np.iscomplexobj(v):
        v = np.where(np.abs(v.imag) <= 1e-12 * np.abs(v.real), v.real, np.nan)
    return np.where(np.isfinite(v), v.astype(float), np.nan)


def _crossings(recipe, base: dict, ray: tuple, cfg: dict, structure: dict) -> list[float]:
    """The multiples ``s*`` at which an entry of the switch changes sign along the ray, at most
    :data:`MAX_CROSSINGS`: Brent's method in ``log s`` between two grid points of :data:`RAY_SCALES` with opposite
    signs, and where ``|switch|`` has a local minimum on the grid without a sign change, the switch's extremum
    between the two neighbours (bounded Brent minimisation): beyond zero, it changes sign twice within one step of
    the grid (``(x - 3)*(x - 3.01)``, negative on a band 3e-3 wide: helper-60), and the extremum and both crossings
    are returned."""
    try:
        vals = _switch_values(recipe, base, ray, RAY_SCALES, cfg, structure)
    except Exception:  # noqa: BLE001 - a switch that cannot be evaluated along this ray: no crossing
        return []
    from scipy.optimize import brentq, minimize_scalar  # here, not at import: every command starts 0.4 s sooner
    logs = np.log(RAY_SCALES)
    out: list[float] = []
    for j in range(vals.shape[1]):
        v = vals[:, j]

        def f(t, j=j):
            return float(_switch_values(recipe, base, ray, np.array([math.exp(t)]), cfg, structure)[0, j])
        brackets = [(logs[i], logs[i + 1]) for i in np.flatnonzero(np.sign(v[:-1]) * np.sign(v[1:]) < 0)[:PER_SWITCH]]
        a = np.abs(v)
        dips = np.flatnonzero((a[1:-1] < a[:-2]) & (a[1:-1] < a[2:]) & (np.sign(v[:-2]) == np.sign(v[2:]))
                              & (np.sign(v[1:-1]) == np.sign(v[2:])) & (v[1:-1] != 0)) + 1
        for i in dips[:PER_SWITCH]:
            sign = float(np.sign(v[i]))
            try:
                m = minimize_scalar(lambda t: sign * f(t), bounds=(logs[i - 1], logs[i + 1]), method="bounded",
                                    options={"xatol": 1e-12, "maxiter": 200})
            except (ValueError, RuntimeError, ArithmeticError):
                continue
            if np.isfinite(m.fun) and m.fun < 0:           # the other sign between two grid points of one sign
                out.append(math.exp(m.x))
                brackets += [(logs[i - 1], m.x), (m.x, logs[i + 1])]
        for lo, hi in brackets:
            try:
                out.append(math.exp(brentq(f, lo, hi, xtol=1e-15, maxiter=200)))
            except (ValueError, RuntimeError, ArithmeticError):   # NaN inside the bracket, no convergence
                continue
        out += [float(RAY_SCALES[i]) for i in np.flatnonzero(v == 0)[:PER_SWITCH]]
        if len(out) >= MAX_CROSSINGS:
            break
    return out[:MAX_CROSSINGS]
