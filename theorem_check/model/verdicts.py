"""Verdicts and the refinement decision rule (DESIGN.md, "Verdicts").

The rule never compares a residual with a hand-tuned tolerance.  It compares *how the residual
moves* when the computation is refined with what a true statement must do:

* a level ``k`` of refinement comes with a **floor** ``f_k``: the error a true statement's
  residual may still have at that level (``eps * n * kappa`` for working precision, the
  optimiser tolerance, ``h**p`` for a step size, ``1/sqrt(N)`` for a sample size);
* with ``rho = f_first / f_last`` the predicted refinement factor of the whole sequence and
  ``rho_L = f_prev / f_last`` that of the last refinement step (``rho_L = rho`` for two levels),
  a residual sequence ``r_first ... r_prev, r_last``

  - **HOLDS** if ``r_last <= f_last`` (already at the floor), or it fell at least at half the
    predicted rate in log scale *and* ended near its finest floor: ``r_last <= r_first / sqrt(rho)``
    and ``r_last <= f_last * sqrt(rho_L)``.  "Near" is the same half-the-predicted-refinement in
    log scale, taken over the last step: ``f_last * sqrt(rho_L) = sqrt(f_prev * f_last)``, the
    geometric midpoint of the last two floors.  A residual above it has not made half of the
    last refinement's predicted fall below the previous level's floor, so the last level has not
    shown that it resolved anything: ``3.4e-4 -> 1.1e-8 -> 1.0e-8`` against floors down to
    ``8.5e-13`` did fall at rate from the first level, but stalled four decades above the finest
    floor, and is not HOLDS;
    With three levels or more it also **HOLDS** when *every* refinement step fell at least at half
    its predicted rate (``r_k / r_(k+1) >= sqrt(f_k / f_(k+1))``) and it ended within the whole
    refinement's tolerance, ``r_last <= f_last * sqrt(rho)``: a residual that keeps falling at the
    method's rate is truncation error with a larger constant than the floor's (a central difference
    of a steep function: ``4.9e-3 -> 4.9e-5 -> 4.9e-7`` against ``h**2`` floors ``1e-4 -> 1e-8``), not
    an exact gap, which would show as a stall on some step.  A gap ``g`` below
    ``f_last * sqrt(rho)`` can pass this way, the same bound as for two levels;
  - **FAILS** if it stalled or rose: ``r_last >= r_first / 2``, or (three levels or more) over the
    last refinement ``r_last >= r_prev / 2``, while ``r_last > f_last * sqrt(rho)`` (far above the
    floors on the scale of the whole refinement: above the geometric midpoint of the coarsest and
    finest floors).  The second form matters when the coarsest level carries its own error (an
    optimiser stopped early): ``1.3 -> 0.5 -> 0.5`` stalled;
  - is **GREY** otherwise (INCONCLUSIVE at claim level): a residual still moving but not yet near
    its finest floor, and (three levels or more) a stall or rise that is far above the finer
    floor (``> f_last * sqrt(rho_L)``) but not far above the whole refinement's floors
    (``<= f_last * sqrt(rho)``).

  The two constants are those of the original rule, not tuned: ``sqrt`` of a predicted factor
  (half of it in log scale) separates *reached* from *not reached*, ``2`` separates *moving*
  from *stalled*.  For two levels the *HOLDS* and *FAILS* thresholds coincide (``rho_L = rho``),
  as before; the change is that *HOLDS* no longer accepts a residual far above the finest floor
  (it used to allow up to ``sqrt(f_last)``, whatever the floor).

Guarantee (identities, precision refinement float64 -> mpmath 50 digits): ``rho ~ 1e33``;
a true identity whose instance has condition number ``kappa`` and size ``n`` leaves a residual
``O(n kappa eps)`` at each level, so it can only be called FAILS if ``n kappa >~ 1e16``, which the
samplers exclude (they cap ``kappa``); a false identity whose exact residual is ``r* > 1e-33``
stalls at ``r*`` and is called FAILS.  Only a false statement whose exact gap is below ``1e-33``
relative could be called HOLDS.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass
from typing import Sequence

from theorem_check.errors import InvalidArgument

__all__ = ["Verdict", "VerdictInfo", "VERDICTS", "Outcome", "decide_refinement", "decide_zscore", "combine_outcomes", "z_critical"]


class Verdict(str, enum.Enum):
    """Claim-level verdicts of DESIGN.md.  ``Verdict.PROVED.ok`` is True for passing ones.

    Everything else known about a verdict (its meaning, colours, whether it passes or fails) is one
    row of :data:`VERDICTS`; the CLI epilog, the terminal colours, the report's colours and legend
    read that table.
    """

    PROVED = "PROVED"
    VERIFIED = "VERIFIED"
    REFUTED = "REFUTED"
    ERRATUM = "ERRATUM"
    ILL_POSED = "ILL-POSED"
    INCONCLUSIVE = "INCONCLUSIVE"

    @property
    def info(self) -> "VerdictInfo":
        """This verdict's row of :data:`VERDICTS`."""
        return VERDICTS[self]

    @property
    def ok(self) -> bool:
        """True for PROVED and VERIFIED (exit code 0)."""
        return VERDICTS[self].ok

    @property
    def fails(self) -> bool:
        """True for REFUTED and ILL-POSED (the statement, as given, is wrong)."""
        return VERDICTS[self].fails

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


@dataclass(frozen=True)
class VerdictInfo:
    """One row of the verdict table.

    Attributes
    ----------
    meaning : str
        One line for ``--help`` and the report's legend.
    ok : bool
        The claim passes (exit code 0).
    fails : bool
        The statement as given is wrong (a control with this verdict is refuted).
    terminal : str
        Click colour name of the verdict on a terminal.
    hex : str
        RGB colour of the verdict in LaTeX reports (``\\definecolor{v-<key>}{HTML}{hex}``).
    """

    meaning: str
    ok: bool
    fails: bool
    terminal: str
    hex: str


VERDICTS: dict[Verdict, VerdictInfo] = {
    Verdict.PROVED: VerdictInfo("the SymPy derivation closes for all sizes and the numerics agree", True, False,
                                "green", "1B7837"),
    Verdict.VERIFIED: VerdictInfo("numeric (or fixed-size symbolic) evidence only", True, False, "green", "4D9221"),
    Verdict.REFUTED: VerdictInfo("a counterexample far above the precision floor, shrunk", False, True, "red", "B2182B"),
    Verdict.ERRATUM: VerdictInfo("as printed it fails; a corrected form holds", False, False, "yellow", "C46200"),
    Verdict.ILL_POSED: VerdictInfo("as printed the shapes do not conform", False, True, "red", "B2182B"),
    Verdict.INCONCLUSIVE: VerdictInfo("grey-zone residuals, or a simulation out of budget", False, False, "magenta",
                                      "7B3294"),
}
"""The verdict table: one row per :class:`Verdict` (checked complete at import)."""
assert set(VERDICTS) == set(Verdict), "every Verdict needs a row in VERDICTS"


class Outcome(str, enum.Enum):
    """Per-instance outcome of the refinement rule."""

    HOLDS = "holds"
    FAILS = "fails"
    GREY = "grey"


def _fell_at_rate(residuals: Sequence[float], floors: Sequence[float]) -> bool:
    """Every refinement step fell at least at half the predicted rate in log scale:
    ``r_k / r_{k+1} >= sqrt(f_k / f_{k+1})`` for each k (a zero residual counts as a full fall)."""
    for (r0, r1), (f0, f1) in zip(zip(residuals, residuals[1:]), zip(floors, floors[1:])):
        r0, r1 = float(r0), float(r1)
        if r1 > 0 and not r0 / r1 >= math.sqrt(f0 / f1):
            return False
        if r1 == 0 and r0 == 0:
            return False
    return True


def decide_refinement(residuals: Sequence[float], floors: Sequence[float]) -> Outcome:
    """Decide one instance from residuals measured at increasingly refined levels.

    Parameters
    ----------
    residuals : sequence of float, length >= 2
        Relative residuals ``r_k >= 0``, coarsest level first.
    floors : sequence of float, same length
        What a true statement's residual may still be at each level (strictly decreasing).

    Returns
    -------
    Outcome
        HOLDS, FAILS or GREY by the rule in the module docstring.  NaN residuals are GREY.

    Raises
    ------
    InvalidArgument
        (a ``ValueError``) if the sequences are shorter than 2, differ in length, floors do not
        decrease or are not positive, or a residual is negative (a residual is a relative *gap*,
        never signed: a signed value would let a sign-flipped prediction pass).

    >>> decide_refinement([3e-15, 2e-48], [2.2e-16, 1e-49])   # a true identity
    <Outcome.HOLDS: 'holds'>
    >>> decide_refinement([0.41, 0.41], [2.2e-16, 1e-49])      # a false one
    <Outcome.FAILS: 'fails'>
    >>> decide_refinement([1.27, 0.5, 0.5], [1e-3, 1e-8, 1e-11])   # coarse optimiser, then stalled
    <Outcome.FAILS: 'fails'>
    >>> decide_refinement([3.4e-4, 1.1e-8, 1.0e-8], [5e-4, 1e-7, 8.5e-13])   # stalled far above the finest floor
    <Outcome.GREY: 'grey'>
    >>> decide_refinement([3e-2, 8.8e-8, 9.9e-7], [1e-3, 1e-8, 1e-11])   # rose far above every floor
    <Outcome.FAILS: 'fails'>
    >>> decide_refinement([4.9e-3, 4.9e-5, 4.9e-7], [1e-4, 1e-6, 1e-8])   # h**2 error, constant 49
    <Outcome.HOLDS: 'holds'>
    """
    if len(residuals) < 2 or len(residuals) != len(floors):
        raise InvalidArgument(f"residuals={list(residuals)!r} and floors={list(floors)!r} must have the same "
                              "length >= 2")
    if not all(a > b for a, b in zip(floors, floors[1:])) or not float(floors[-1]) > 0:
        raise InvalidArgument(f"floors={list(floors)!r} must be positive and decrease strictly")
    neg = [float(r) for r in residuals if float(r) < 0]
    if neg:
        raise InvalidArgument(f"residuals={list(residuals)!r} must be >= 0 (relative gaps, never signed; "
                              f"got {neg[0]!r})")
    r_first, r_last = float(residuals[0]), float(residuals[-1])
    f_first, f_last = float(floors[0]), float(floors[-1])
    if math.isnan(r_first) or math.isnan(r_last):
        return Outcome.GREY
    rho, rho_last = f_first / f_last, float(floors[-2]) / f_last
    if r_last <= f_last:
        return Outcome.HOLDS
    if r_last <= r_first / math.sqrt(rho) and r_last <= f_last * math.sqrt(rho_last):
        return Outcome.HOLDS
    if len(residuals) > 2 and r_last <= f_last * math.sqrt(rho) and _fell_at_rate(residuals, floors):
        return Outcome.HOLDS
    stalled = r_last >= r_first / 2 or (len(residuals) > 2 and r_last >= float(residuals[-2]) / 2)
    if stalled and r_last > f_last * math.sqrt(rho):
        return Outcome.FAILS
    return Outcome.GREY


def decide_zscore(estimate: float, predicted: float, stderr: float, *, alpha: float = 1e-6) -> Outcome:
    """Decide a Monte Carlo comparison by a two-sided z-test with false-alarm rate ``alpha``.

    HOLDS when ``|estimate - predicted| / stderr`` is below the ``1 - alpha/2`` normal quantile
    (``z = 4.89`` for the default ``alpha = 1e-6``: a true prediction is called FAILS with
    probability ``alpha``); FAILS when it exceeds twice that (the gap is resolved far beyond
    noise); GREY between.  ``stderr`` must be finite and > 0 (InvalidArgument otherwise).

    >>> decide_zscore(1.02, 1.0, 0.01)
    <Outcome.HOLDS: 'holds'>
    >>> decide_zscore(2.0, 1.0, 0.01)
    <Outcome.FAILS: 'fails'>
    """

    if not (stderr > 0 and math.isfinite(stderr)):
        raise InvalidArgument(f"stderr={stderr!r} must be a finite number > 0")
    if not (math.isfinite(estimate) and math.isfinite(predicted)):
        raise InvalidArgument(f"estimate={estimate!r} and predicted={predicted!r} must be finite")
    z_crit = z_critical(alpha)
    z = abs(estimate - predicted) / stderr
    if z <= z_crit:
        return Outcome.HOLDS
    if z > 2 * z_crit:
        return Outcome.FAILS
    return Outcome.GREY


def combine_outcomes(outcomes: Sequence[Outcome]) -> Outcome:
    """All instances HOLD -> HOLDS; any FAILS -> FAILS; otherwise GREY."""
    if any(o is Outcome.FAILS for o in outcomes):
        return Outcome.FAILS
    if outcomes and all(o is Outcome.HOLDS for o in outcomes):
        return Outcome.HOLDS
    return Outcome.GREY


def z_critical(alpha: float = 1e-6) -> float:
    """The two-sided normal quantile ``z`` with ``P(|Z| > z) = alpha`` (4.89 for ``alpha = 1e-6``)."""
    if not 0 < alpha < 1:
        raise InvalidArgument(f"alpha={alpha!r} must lie in (0, 1)")
    return _z_critical(float(alpha))


@functools.lru_cache(maxsize=64)
def _z_critical(alpha: float) -> float:
    """The quantile once per ``alpha`` (a Monte Carlo verdict asks for the same few thousands of times):
    ``-ndtri(alpha / 2)``, what ``scipy.stats.norm.isf`` computes, without importing scipy.stats (0.4 s)."""
    from scipy.special import ndtri

    return float(-ndtri(alpha / 2))
