"""More digits for one instance: the engine's levels beyond a statement's own (mp100, mp200, mp400).

A statement is decided at its contexts (float32, float64, mp50: :mod:`theorem_check.engine.numeric`); an instance
those leave grey gets one level more (:func:`escalate`, design decision 120), a far instance's failure is kept only
where mp100 sees the same gap (:func:`far_confirmed`), an instance undefined at mp50 is looked at with more digits
to tell a cancellation from a point where the statement is not defined (:func:`defined_with_more_digits`, decision
198), and :func:`beyond_fifty_digits` decides one instance between mp100 and mp200 for the stage that looks for gaps
below mp50's floor (:mod:`theorem_check.engine.deep_stage`, decision 208).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from theorem_check.engine.mutants import SideStats, stats_residual
from theorem_check.engine.sides import level_floor, stats_or_errors
from theorem_check.engine.vacuity import is_defined, magnitudes, vanishes, with_magnitude
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome, decide_refinement
from theorem_check.numerics.precision import MP100, MP200, MP400, Ctx

__all__ = ["beyond_fifty_digits", "defined_with_more_digits", "escalate", "far_confirmed", "same_gap"]


def escalate(statement: Statement, inst_b: Mapping[str, Any], size: int, level, r: dict, fl: dict, hi: Ctx = MP100):
    """A grey instance decided again between ``level`` (the mp50 level: name, stats, floor) and ``hi``
    (:data:`~theorem_check.numerics.precision.MP100`; MP200 above an mp100 level) on the same instance (design
    decision 120).

    A gap the coarse levels could not resolve (``X/10**40`` at float64) left the float64 -> mp50 pair grey
    although mp50 sees it 10**8 times above its floor; at 100 digits a false statement's gap stays (stalled:
    FAILS) and a true statement's falls with the floor (HOLDS).  Records the level in ``r`` and ``fl``;
    returns ``(outcome, decision, vacuous)``, GREY with the old decision when the side is undefined there.
    """
    name, e_mp, f_mp = level
    mags = magnitudes(statement, inst_b, 1, [hi])   # the level-free magnitude and the level's floor
    e_hi = with_magnitude(stats_or_errors(statement, inst_b, hi, 1)[0][0], mags, 0)
    f_hi = level_floor(hi, size, statement.cond)
    r[hi.name] = stats_residual(e_hi) if isinstance(e_hi, SideStats) else float("nan")
    fl[hi.name] = f_hi
    if not is_defined(e_hi):
        return Outcome.GREY, [(name, e_mp, f_mp)], False
    decision = [(name, e_mp, f_mp), (hi.name, e_hi, f_hi)]
    if vanishes(e_hi, f_hi, mags, hi.name, 0):
        return Outcome.HOLDS, decision, True
    out = decide_refinement([stats_residual(e_mp), r[hi.name]], [f_mp, f_hi])
    if out is Outcome.FAILS and not same_gap(e_mp, e_hi):
        return Outcome.GREY, decision, False
    return out, decision, False


def same_gap(a, b) -> bool:
    """True when two levels' :class:`~theorem_check.engine.mutants.SideStats` of one instance show the same difference
    ``|lhs - rhs|`` within a factor 2 (shifts undone): a stall of the relative residual is a gap of the mathematics
    only then.  ``det(expm(A*B)) = exp(trace(A*B))`` at inputs of scale 16 cancels ~640 digits: mp50 and mp100 both
    computed garbage, relative residual 1 at each (a "stall"), with differences of 2**1405 and 2**3202 (helper-72;
    design decision 215)."""
    if not (isinstance(a, SideStats) and isinstance(b, SideStats)):
        return True
    if a.D <= 0 or b.D <= 0:
        return a.D == b.D
    return abs((0.5 * math.log2(a.D) + a.shift) - (0.5 * math.log2(b.D) + b.shift)) <= 1.0


def defined_with_more_digits(statement: Statement, inst_b: Mapping[str, Any]) -> bool:
    """True when the instance ``inst_b`` (a batch of one), whose sides are not defined at mp50, is defined at mp100 or
    mp400: ``1 - sigmoid(120)`` cancels to 0 at 50 digits, so ``log(1 - sigmoid(x)) = -softplus(x)`` was undefined
    far out and INCONCLUSIVE at one seed in ten (helper-58), where a statement undefined there stays so at every
    precision (``log(5 - t**2)`` beyond ``sqrt 5``, a singular matrix).  Design decision 198."""
    return any(is_defined(stats_or_errors(statement, inst_b, ctx, 1)[0][0]) for ctx in (MP100, MP400))


def far_confirmed(statement: Statement, inst_b, size: int, level, decision, r: dict, fl: dict):
    """A far instance's float64 -> mp50 failure, kept only if mp100 sees the same gap (mp50 -> mp100 stalls).

    Far from the origin a side can lose digits that no magnitude bound records (a derivative oracle's
    difference of two sigmoids within ``e^-300`` of 1 at ``dps + 40`` digits): mp50 then shows a gap that
    float64 did not and that is rounding, not mathematics.  Returns ``(outcome, decision, vacuous, detail)``.
    """
    esc = escalate(statement, inst_b, size, level, r, fl, MP200 if level[0] == MP100.name else MP100)
    if esc[0] is Outcome.FAILS:
        return Outcome.FAILS, esc[1], False, ""
    return Outcome.GREY, decision, False, "far from the origin: mp100 does not confirm the gap seen at mp50"


def beyond_fifty_digits(statement: Statement, inst_b: Mapping[str, Any]) -> tuple[Outcome, dict, dict]:
    """One instance (a batch of one) decided between mp100 and mp200: ``(outcome, residuals, floors)`` by level name.

    HOLDS when mp100's residual is within its floor (mp200 is not evaluated) or falls with the floor, or when the
    sides vanish (vacuous: no evidence); FAILS when the residual stalls far above mp100's floor: a gap mp50 rounds
    away (``exp(-150) + x = x``, 7e-66; design decision 208); GREY when a side is undefined at either level."""
    mags = magnitudes(statement, inst_b, 1, [MP100, MP200])
    r: dict = {}
    fl: dict = {}
    seen = []
    for ctx in (MP100, MP200):
        stats, size = stats_or_errors(statement, inst_b, ctx, 1)
        e = with_magnitude(stats[0], mags, 0)
        if not is_defined(e):
            return Outcome.GREY, r, fl
        seen.append(e)
        r[ctx.name], fl[ctx.name] = stats_residual(e), level_floor(ctx, size, statement.cond)
        if vanishes(e, fl[ctx.name], mags, ctx.name, 0) or r[ctx.name] <= fl[ctx.name]:
            return Outcome.HOLDS, r, fl
    out = decide_refinement([r[MP100.name], r[MP200.name]], [fl[MP100.name], fl[MP200.name]])
    return (Outcome.GREY if out is Outcome.FAILS and not same_gap(*seen) else out), r, fl
