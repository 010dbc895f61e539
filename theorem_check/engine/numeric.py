"""The numeric stage: batched evaluation at several precisions, decision, mutants, shrinking.

Identities (``lhs``/``rhs``) are evaluated on dimension configurations (every one of a space with at most
``trials`` of them, :meth:`~theorem_check.model.dims.DimSpace.plan`; else the
:meth:`~theorem_check.model.dims.DimSpace.generic` one first, then others drawn without replacement),
each with a batch of instances stacked along axis 0, at float32 and float64 (vectorised), and
in mpmath (50 digits) on the first instance of each batch and on every instance the
float32 -> float64 refinement leaves grey.  Custom checks report measured and predicted values
(:mod:`theorem_check.model.checks`) and the engine decides them the same way.  Every instance that
holds also decides the automatic mutants of :mod:`theorem_check.engine.mutants` from the same numbers.  Each instance is decided by
:func:`~theorem_check.model.verdicts.decide_refinement` with floors
``eps_ctx * size * cond`` (``size`` = entries of one side, ``cond`` = the statement's bound on
error amplification).  A failing instance is shrunk: configurations are tried smallest first,
and the first that still fails is reported (so it is a smallest counterexample among the
configurations of the statement's :class:`~theorem_check.model.dims.DimSpace`).

Trust model 3 (docs/verdicts.md, "the magnitude of the computation"): residuals of expression sides are
taken against ``max(|lhs|, |rhs|, M0)`` with ``M0`` the magnitude of their computation
(:mod:`theorem_check.expr.magnitude`); an instance whose two sides vanish below ``floor * M`` at its
deciding level holds *vacuously* (never a counterexample); a float-only failure is re-decided at mp50.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
import zlib
from typing import Any, Mapping

import numpy as np

from theorem_check.engine.configuration import user_configuration
from theorem_check.engine.escalation import defined_with_more_digits, escalate, far_confirmed, same_gap
from theorem_check.engine.evaluate import evaluate_result
from theorem_check.engine.mutants import (
    LADDER,
    SideStats,
    identity_mutants,
    refinement_mutant_outcomes,
    stats_residual,
)
from theorem_check.engine.numeric_result import InstanceResult, NumericResult
from theorem_check.engine.projection import KEY as PROJECTION_KEY
from theorem_check.engine.projection import mp_directions
from theorem_check.engine.projection import plan as plan_projection
from theorem_check.engine.sides import (
    UNDEFINED_ERRORS,
    FailedLevel,
    SideError,
    evaluate_identity,
    level_floor,
    scalar_inputs,
    stats_or_errors,
    take,
)
from theorem_check.engine.vacuity import is_defined, magnitudes, vanishes, with_magnitude
from theorem_check.errors import (
    BadClaim,
    ShapeMismatch,
    TheoremCheckDeprecationWarning,
    TheoremCheckError,
)
from theorem_check.model.checks import measure
from theorem_check.model.claims import Measurement, Statement
from theorem_check.model.verdicts import Outcome, combine_outcomes, decide_refinement
from theorem_check.numerics.precision import CONTEXTS, FLOAT_LITERAL_HINT, watch_floats

__all__ = ["InstanceResult", "NumericResult", "evaluate_identity", "evaluate_instances", "run_numeric", "derive_seed",
           "shrink", "TheoremCheckDeprecationWarning", "IDENTITY_DELTA", "SMALL_ENTRIES", "largest_input"]

IDENTITY_DELTA = 1e-6
"""The small relative mutant of identities: right side times ``1 + 1e-6``."""


_SHRINK_CONFIGS = 24
"""Smaller configurations a shrink tries (two draws each), smallest first: a count, so the shrunk
counterexample is the same on an idle and a loaded machine (an 8 s wall-clock budget made
``noise.cor_b4``'s, and so docs/errata.md, depend on the load)."""
_SHRINK_SECONDS = 120.0
"""A guard against a runaway shrink only (each configuration is one claim evaluation): not reached by
any built-in claim, whose shrinks try at most a handful of configurations."""


def derive_seed(*parts: Any) -> int:
    """A stable 32-bit seed from the run seed and names (same inputs, same seed, any platform)."""
    return zlib.crc32("\x1f".join(map(str, parts)).encode()) & 0xFFFFFFFF



def _undefined_fails(entries: list) -> bool:
    """``undefined="fails"``: the finest entry is undefined mathematically, i.e. NaN/inf or a recognised
    linear-algebra error there, or any error there where a coarser precision was so undefined (mpmath
    raising a TypeError on a matrix float64 found singular).  Another error alone (a side calling
    ``np.linalg`` at mp50) leaves the instance unevaluated, never a counterexample."""
    def math_undefined(e):
        return not is_defined(e) and not (isinstance(e, FailedLevel) and not e.recognised)
    return bool(entries) and not is_defined(entries[-1]) and (math_undefined(entries[-1])
                                                          or any(math_undefined(e) for e in entries[:-1]))


_COMPLEX_AT_MP = (" (mp50 evaluates it: where the cause is a log or square root of a negative number, mp50 takes its "
                  "complex value; for a real statement, declare the domain, e.g. --assume X=spd or a positive "
                  "scalar, or write log(abs(...)); where it is an overflow, exp of a large number, smaller inputs "
                  "or sizes decide it)")
"""Said of an instance undefined at the float levels and defined at mp50 (helper-33: ``log(det(X))`` of a general
``X``, whose determinant is negative on half the instances, read as undefined at float64 "only").  A hint, not a
diagnosis: a float overflow mp50 does not have is undefined at float only too."""


def _why_undefined(entry, ctx_name: str) -> str:
    if isinstance(entry, str):
        return entry
    return f"a side is NaN, infinite or complex at {ctx_name}"


def _vacuous_mutants():
    """Mutant and ladder outcomes of a vacuous instance: GREY (it can tell no right side from another)."""
    return ({m.name: Outcome.GREY for m in identity_mutants(IDENTITY_DELTA)}, {d: Outcome.GREY for d in LADDER})


def _check_batched(inst, batch: int, dims) -> None:
    """BadClaim when the sampler returned an array without the leading batch axis (length ``batch``, or 1: one draw
    shared by the batch): ``gaussian(rng, n, n)`` without ``batch=`` made ``A@A = A@A`` ILL-POSED, a verdict about the
    mathematics, where a side that drops the axis is a malformed claim (helper-74)."""
    for k, v in inst.items():
        for a in (v if isinstance(v, (list, tuple)) else [v]):
            if not k.startswith("_") and isinstance(a, np.ndarray) and (a.ndim == 0 or a.shape[0] not in (batch, 1)):
                raise BadClaim(f"sample() returned {k!r} of shape {a.shape} for a batch of {batch} at dims "
                               f"{dict(dims)}: every array needs the leading batch axis (e.g. sampling.gaussian(rng, "
                               f"n, n, batch=batch))")


def _identity_instances(statement: Statement, dims, seed: int, batch: int, far: bool = False, every_mp: bool = False):
    """Evaluate one batch; returns list of InstanceResult (raises ShapeMismatch, BadClaim, SideError).

    An instance whose finest deciding level has both sides below the floor of their computation's
    magnitude holds *vacuously* (never a counterexample).  An instance that fails at float precisions
    is confirmed at mp50 (unless an earlier instance of the batch already failed there).  The first
    instance of the batch is evaluated at mp50 too, unless ``far`` (instances far from the origin,
    :mod:`theorem_check.engine.far`): then the first instance the float levels leave grey or vacuous is
    (their floors times a large input's magnitude can exceed a wrong statement's gap; mp50's floor is 10^34
    lower), and the others stay as the float levels left them (a far instance can only refute).
    """
    rng = np.random.default_rng(seed)
    inst = dict(statement.sample(rng, dims, batch))
    _check_batched(inst, batch, dims)
    proj = plan_projection(statement, inst, derive_seed(seed, "directions"))
    if proj is not None:    # a large derivative: checked along random directions (numerics/directions.py)
        inst[PROJECTION_KEY] = proj
    ctxs = [CONTEXTS[c] for c in statement.contexts]
    fast = [c for c in ctxs if not c.is_mp]
    mp = next((c for c in ctxs if c.is_mp), None)
    entries: dict[str, list] = {}
    size = 1
    for c in fast:
        entries[c.name], size = stats_or_errors(statement, inst, c, batch)
    mags = magnitudes(statement, inst, batch, ctxs)
    fails_undefined = statement.undefined == "fails"
    confirmed = False
    far_mp = 1
    out = []
    scalars = scalar_inputs(inst, batch)
    for b in range(batch):
        levels: list[tuple[str, Any, float]] = [(c.name, with_magnitude(entries[c.name][b], mags, b),
                                                 level_floor(c, size, statement.cond)) for c in fast]
        r = {name: (stats_residual(e) if isinstance(e, SideStats) else float("nan")) for name, e, _ in levels}
        fl = {name: f for name, _, f in levels}
        defined = [lv for lv in levels if is_defined(lv[1])]
        outcome, decision, detail, vacuous, undefined = Outcome.GREY, [], "", False, False
        if len(fast) >= 2 and len(defined) == len(fast):
            decision = levels
            vacuous = vanishes(levels[-1][1], levels[-1][2], mags, levels[-1][0], b)
            outcome = Outcome.HOLDS if vacuous else \
                decide_refinement([stats_residual(e) for _, e, _ in levels], [f for _, _, f in levels])
        need_mp = every_mp or (b == 0 and not far) or (far and vacuous) or outcome is Outcome.GREY \
            or len(fast) < 2 or (outcome is Outcome.FAILS and not confirmed)
        if far and need_mp and outcome is not Outcome.FAILS and not every_mp:   # one grey/vacuous far instance
            need_mp, far_mp = far_mp > 0, far_mp - 1
        rounded: list = []
        if mp is not None and need_mp:
            inst_b = {k: take(v, b) for k, v in inst.items()}
            cut = mp_directions(inst_b)     # fewer random directions at mp50: float64 is redone on them
            mags_b, bb = (magnitudes(statement, inst_b, 1, ctxs), 0) if cut else (mags, b)
            with watch_floats() as rounded:   # float64-rounded constants of claim code: a hint, never a verdict
                e_mp = with_magnitude(stats_or_errors(statement, inst_b, mp, 1)[0][0], mags_b, bb)
            f_mp = level_floor(mp, size, statement.cond)
            r[mp.name] = stats_residual(e_mp) if isinstance(e_mp, SideStats) else float("nan")
            fl[mp.name] = f_mp
            last = levels[-1] if levels else None
            if cut and last is not None:
                last = (last[0], with_magnitude(stats_or_errors(statement, inst_b, fast[-1], 1)[0][0], mags_b, 0), last[2])
            vacuous = False
            if is_defined(e_mp) and last is not None and is_defined(last[1]):
                decision = [last, (mp.name, e_mp, f_mp)]
                vacuous = vanishes(e_mp, f_mp, mags_b, mp.name, bb)
                outcome = Outcome.HOLDS if vacuous else \
                    decide_refinement([stats_residual(last[1]), r[mp.name]], [last[2], f_mp])
                if outcome is Outcome.GREY and not vacuous:   # one level more before grey (decision 120)
                    outcome, decision, vacuous = escalate(statement, inst_b, size, (mp.name, e_mp, f_mp), r, fl)
                elif not vacuous and not far and (
                        (outcome is Outcome.HOLDS and r[mp.name] > f_mp)   # held by the half-rate allowance (139)
                        or (outcome is Outcome.FAILS and (r[mp.name] > 2 * stats_residual(last[1])   # rose (140)
                                                           or not same_gap(last[1], e_mp)))):   # another gap (215)
                    # above mp50's floor, or risen from float64 more than a stall's factor 2 (conditioning beyond
                    # 50 digits, or a gap float64 rounded away): mp100 confirms or tells them apart
                    esc = escalate(statement, inst_b, size, (mp.name, e_mp, f_mp), r, fl)
                    if len(esc[1]) > 1:     # mp100 evaluated the sides: it decides
                        outcome, decision, vacuous = esc
                elif vacuous and not far:   # a cancellation 50 digits miss? (128)
                    r_hi, fl_hi = dict(r), dict(fl)
                    esc = escalate(statement, inst_b, size, (mp.name, e_mp, f_mp), r_hi, fl_hi)
                    if not esc[2] and esc[0] is not Outcome.GREY:   # mp100 resolves the sides: it decides
                        (outcome, decision, vacuous), r, fl = esc, r_hi, fl_hi
                elif far and outcome is Outcome.FAILS:
                    outcome, decision, vacuous, detail = far_confirmed(statement, inst_b, size, (mp.name, e_mp, f_mp),
                                                                        decision, r, fl)
                confirmed = confirmed or outcome is Outcome.FAILS
            elif not is_defined(e_mp):
                decision, outcome, undefined = [], Outcome.GREY, True
                detail = _why_undefined(e_mp, mp.name)
                if far and defined_with_more_digits(statement, inst_b):   # a cancellation, not undefinedness
                    undefined, detail = False, f"{detail}; defined at more digits (a cancellation): undecided"
                if fails_undefined and _undefined_fails([e for _, e, _ in levels] + [e_mp]):
                    outcome, detail = Outcome.FAILS, f"undefined at {mp.name}: {detail}"
            else:
                decision, outcome = [], Outcome.GREY
                detail = f"undefined at {last[0] if last else 'float64'} only: " + \
                    _why_undefined(last[1] if last else None, last[0] if last else "float64") + _COMPLEX_AT_MP
        elif len(defined) < len(fast):
            bad = next(lv for lv in levels if not is_defined(lv[1]))
            detail = _why_undefined(bad[1], bad[0])
            if fails_undefined and mp is None and _undefined_fails([e for _, e, _ in levels]):
                outcome, detail = Outcome.FAILS, f"undefined at {levels[-1][0]}: {detail}"
        if not detail and any(math.isnan(v) for v in r.values()):
            nonfinite = [name for name, v in r.items() if math.isnan(v)]
            detail = f"a side is NaN, infinite or complex at {', '.join(nonfinite)} (residual undefined)"
        r_mp = r.get(mp.name, math.nan) if mp is not None else math.nan
        if rounded and outcome is not Outcome.HOLDS and r_mp <= level_floor(CONTEXTS["float64"], size, statement.cond):
            hint = FLOAT_LITERAL_HINT.format(values=", ".join(f"{v!r}" for v in rounded[:3]))
            if outcome is Outcome.FAILS:   # a gap a rounded literal can make: undecided, not a counterexample (204)
                outcome, hint = Outcome.GREY, f"{hint}; undecided"
            detail = f"{detail}; {hint}" if detail else hint
        muts, ladder = ({}, {})
        if vacuous and outcome is Outcome.HOLDS:
            muts, ladder = _vacuous_mutants()
            detail = detail or "vacuous: both sides below the floor of their computation's magnitude"
        elif outcome is Outcome.HOLDS and decision:
            muts, ladder = refinement_mutant_outcomes([e for _, e, _ in decision], [f for _, _, f in decision],
                                                      IDENTITY_DELTA)
        out.append(InstanceResult(dict(dims), seed, b, r, fl, outcome, detail, mutants=muts, ladder=ladder,
                                  vacuous=vacuous and outcome is Outcome.HOLDS,
                                  values={k: float(v[b]) for k, v in scalars.items()},
                                  undefined=undefined and outcome is Outcome.GREY))
    return out


_warned: set[str] = set()


def _check_instance(statement: Statement, dims, seed: int) -> InstanceResult:
    try:
        m = measure(statement.check, np.random.default_rng(seed), dict(dims))
    except TheoremCheckError:
        raise
    except UNDEFINED_ERRORS as exc:
        if statement.undefined == "fails":
            return InstanceResult(dict(dims), seed, 0, {}, {}, Outcome.FAILS,
                                  f"undefined: check raised {type(exc).__name__}: {exc}")
        raise
    if isinstance(m, Measurement):
        key = f"{statement.name}:{getattr(statement.check, '__qualname__', '')}"
        if key not in _warned:
            _warned.add(key)
            warnings.warn(f"statement {statement.name!r}: check {getattr(statement.check, '__qualname__', '?')} returns a "
                          "decided tc.Measurement (deprecated: return tc.Refinement or tc.MonteCarlo so that the "
                          "engine decides and tests mutants)", TheoremCheckDeprecationWarning, stacklevel=2)
        return InstanceResult(dict(dims), seed, 0, dict(m.residuals), {}, m.outcome, m.detail, m.predicted,
                              m.measured, m.figure, decided_by="check")
    ev = evaluate_result(m, f"check at dims {dict(dims)}")
    return InstanceResult(dict(dims), seed, 0, ev.residuals, ev.floors, ev.outcome, ev.detail, ev.predicted,
                          ev.measured, ev.figure, mutants=ev.mutants, ladder=ev.ladder)


def evaluate_instances(statement: Statement, dims, seed: int, batch: int, *, far: bool = False,
                       every_mp: bool = False) -> list[InstanceResult]:
    """One batch of ``batch`` instances at ``dims`` drawn with ``seed`` (a custom check: one run).

    ``far=True`` (instances far from the origin, :mod:`theorem_check.engine.far`): an identity's instance goes
    to mp50 where the float levels leave it grey, failing or vacuous, the first one not otherwise.
    ``every_mp=True``: every instance goes to mp50 (the branch-switch stage's instances of small inputs: a gap
    below float64's floor beside a switch, helper-65).  Raises ShapeMismatch (the shapes do not conform at
    ``dims``), BadClaim, SideError."""
    if statement.is_identity:
        return _identity_instances(statement, dims, seed, batch, far, every_mp)
    return [_check_instance(statement, dims, seed)]


def shrink(statement: Statement, failing: InstanceResult, base_seed: int, *, ill_posed: bool,
           far: bool = False) -> InstanceResult | None:
    """Smallest configuration that still fails (or is ill-posed, with the shape message as detail); None if none.

    Configurations smaller than ``failing.dims`` (:meth:`~theorem_check.model.dims.DimSpace.smaller`) are tried in
    order, two batches of two instances each (``far``: as :func:`evaluate_instances`), for at most 24
    configurations within the ranges, then 24 beyond them smaller than ``failing``'s (:func:`_beyond_smaller`), and
    120 s."""
    t0 = time.perf_counter()
    candidates = itertools.chain(itertools.islice(statement.dims.smaller(failing.dims), _SHRINK_CONFIGS),
                                 _beyond_smaller(statement.dims, failing.dims))
    for k, dims in enumerate(candidates):   # each part of the chain is capped at _SHRINK_CONFIGS
        if time.perf_counter() - t0 > _SHRINK_SECONDS:
            break
        for rep in range(2):
            seed = derive_seed(base_seed, "shrink", k, rep)
            try:
                results = evaluate_instances(statement, dims, seed, 2, far=far)
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


def _beyond_smaller(space, dims) -> list:
    """Configurations beyond ``space``'s ranges and smaller than ``dims`` (a far instance's sizes beyond those drawn,
    decision 209), smallest total first: each letter above its range takes the sizes between the range's top and its
    value.  helper-81: the fifth Newton identity fails from n = 5 only; found at n = 6 beyond the default 1..4, it was
    shrunk within the range only and reported at n = 6.  None for a space with a constraint or a normal form."""
    if space.where is not None or space.normalize is not None:
        return []
    choices = [range(int(space.ranges[k][1]) + 1, v + 1) if k in space.ranges and v > int(space.ranges[k][1]) else (v,)
               for k, v in dims.items()]
    out = [dict(zip(dims, c)) for c in itertools.product(*choices) if dict(zip(dims, c)) != dict(dims)]
    return sorted(out, key=lambda d: sum(d.values()))[:_SHRINK_CONFIGS]


SMALL_ENTRIES = 16
"""Inputs of at most this many entries (4 x 4) make a configuration small: its instances cost little, so a
statement of few such configurations gets the trials of a default run (:func:`run_numeric`) and at least
``FAR_SMALL_TOTAL`` far instances (:mod:`theorem_check.engine.far`).  Design decision 170."""


def largest_input(statement: Statement, dims, seed: int) -> int:
    """The entries of the largest input of one instance drawn at ``dims`` from its own generator (``seed``; the
    other draws are unchanged): 1 for scalars or ``1 x 1``, 0 when it cannot be drawn."""
    try:
        inst = statement.sample(np.random.default_rng(seed), dims, 1)
    except Exception:  # noqa: BLE001 - the instances themselves report a sampler that fails
        return 0
    return max((int(np.prod(np.shape(v)[1:])) for v in inst.values() if isinstance(v, np.ndarray)), default=0)


def run_numeric(statement: Statement, *, seed: int, trials: int = 16,
                dims: Mapping[str, int] | None = None) -> NumericResult:
    """Run the numeric stage of ``statement``.

    Parameters
    ----------
    seed : int
        Seeds every instance (via :func:`derive_seed`); same seed, same result.
    trials : int
        Instances for identities: over every dims configuration when the space has at most ``trials``
        (:meth:`~theorem_check.model.dims.DimSpace.plan`), else over ``min(trials, 4)`` configurations, the
        generic one first, the rest drawn without replacement; custom checks run ``ceil(trials / 8)`` instances.
    dims : mapping, optional
        Run at these sizes only (see :func:`user_configuration`); every trial uses that configuration.
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    if statement.is_identity:
        configs = max(1, min(trials, 4))
        batch = max(1, math.ceil(trials / configs))
    else:
        configs, batch = max(1, math.ceil(trials / 8)), 1
    if dims is not None:
        fixed = user_configuration(statement, dims)
        plan = [fixed] if statement.is_identity else [fixed] * configs
        if statement.is_identity:
            batch = max(1, trials)
    elif statement.is_identity:
        plan = statement.dims.plan(rng, configs, max(1, trials))
        small = len(plan) < configs and all(
            0 < largest_input(statement, c, derive_seed(seed, "probe")) <= SMALL_ENTRIES for c in plan)
        # a small space of fewer configurations than planned gets the trials all the same (a fixed-size statement,
        # --shape A=2,2, ran 4 instances; helper-41); a large one keeps a quarter (n = 256 costs what it did)
        batch = max(1, math.ceil(trials / (len(plan) if small else max(len(plan), configs))))
    else:
        plan = statement.dims.configurations(rng, configs)
    instances: list[InstanceResult] = []
    errors: list[str] = []
    ill_inst: InstanceResult | None = None
    for k, cfg in enumerate(plan):
        s = derive_seed(seed, k)
        try:
            instances.extend(evaluate_instances(statement, cfg, s, batch))
        except ShapeMismatch as exc:
            ill_inst = InstanceResult(dict(cfg), s, 0, {}, {}, Outcome.FAILS, str(exc))
            break
        except BadClaim as exc:
            return NumericResult(Outcome.GREY, tuple(instances), seconds=time.perf_counter() - t0,
                                 bad=f"{exc} (dims {dict(cfg)})", configs=tuple(plan))
        except Exception as exc:  # noqa: BLE001 - reported, decided GREY
            what = str(exc) if isinstance(exc, SideError) else f"{'check' if not statement.is_identity else ''} raised {type(exc).__name__}: {exc}".lstrip()
            errors.append(f"dims {dict(cfg)}: {what}")
            instances.append(InstanceResult(dict(cfg), s, 0, {}, {}, Outcome.GREY, f"{what} at dims {dict(cfg)}"))
    if ill_inst is not None:
        cex = (shrink(statement, ill_inst, seed, ill_posed=True) if dims is None else None) or ill_inst
        ill = f"dims {dict(cex.dims)}: {cex.detail}"
        return NumericResult(Outcome.FAILS, tuple(instances), ill, cex, time.perf_counter() - t0,
                             errors=tuple(errors), configs=tuple(plan))
    outcome = combine_outcomes([i.outcome for i in instances])
    cex = None
    if outcome is Outcome.FAILS:
        first = next(i for i in instances if i.outcome is Outcome.FAILS)
        cex = (shrink(statement, first, seed, ill_posed=False) if dims is None else None) or first
    note = ""
    if statement.is_identity:
        note = (f"floors eps*size*cond with cond={statement.cond:g}; precisions "
                f"{' -> '.join(statement.contexts)}")
    return NumericResult(outcome, tuple(instances), None, cex, time.perf_counter() - t0, note, tuple(errors),
                         configs=tuple(plan))
