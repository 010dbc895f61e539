"""Instances far from the origin: a counterexample hunt at larger input scales (design decision 131).

The ordinary instances draw inputs of scale 1 (standard normal entries, positive scalars within a decade
of 1), and a statement false only where some input is large is VERIFIED by them: ``logm(expm(X)) = X``
fails exactly when an eigenvalue of ``X`` has ``|Im| > pi``, which standard normal ``2 x 2 .. 4 x 4`` matrices
reach with probability 1e-5 .. 3e-4.  Once an identity's ordinary instances all hold, :func:`far_stage`
evaluates it again, by the same code path and decision rule, on instances at each scale of
:data:`FAR_SCALES` (:data:`FAR_PER_INSTANCE` per ordinary instance, dealt to the configurations that were run:
12 far instances for the default 16 trials; a statement of scalars also at scale 64, 64 instances), drawn by
the statement's ``sample_at_scale`` (every input multiplied by the scale, its structure kept).

A far instance never proves: one that fails (at float64 and mp50, and again from mp50 to mp100: far out a
side can lose digits no magnitude bound records) makes the statement REFUTED, its counterexample shrunk over
smaller sizes at the same scale, then over smaller scales.  One that is grey at a float level or vacuous takes
nothing away from the ordinary instances' evidence: large inputs overflow float32, and a true statement's
cancellation can exceed what a precision resolves there; such instances are counted in the evidence, never
turned into a verdict.  One undefined at the highest precision (a side NaN, infinite or complex at mp50, a
singular matrix: the statement is not defined there) makes the numeric outcome GREY, INCONCLUSIVE, as an
ordinary instance undefined at mp50 does (design decision 179).  Besides its ladder the stage tries the scales the
statement's constants suggest (``Statement.far_scales``, decision 172) and the configurations of sizes beyond the
default ones (``Statement.far_dims``, decisions 175, 199 and 202: every one of them, at every seed).  A statement
without ``sample_at_scale`` (a custom sampler, whose inputs the engine cannot rescale without breaking their
structure) has no far instances.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from theorem_check.engine.numeric import (
    SMALL_ENTRIES,
    derive_seed,
    evaluate_instances,
    largest_input,
    shrink,
)
from theorem_check.engine.numeric_result import InstanceResult, NumericResult
from theorem_check.engine.sides import SideError
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome

__all__ = ["BEYOND_LADDER_ENTRIES", "MAX_BEYOND", "FAR_PER_INSTANCE", "FAR_PER_INSTANCE_SCALAR", "FAR_SCALES",
           "FAR_SCALES_SCALAR", "FAR_SCALES_SMALL", "FAR_SMALL_TOTAL", "far_stage"]

FAR_PER_INSTANCE = 0.75
"""Far instances per ordinary instance, rounded up to whole ladders of :data:`FAR_SCALES` (one instance at each
scale): 12 for the default 16 trials, 3 for 4.  The ladders are dealt to the configurations that were run in
turn (the generic one first), one batch per configuration: with 4 configurations and 4 ladders each gets one."""
FAR_PER_INSTANCE_SCALAR = 16
"""As :data:`FAR_PER_INSTANCE` for a statement of scalars (``DimSpace(scalar=True)``), whose batch costs little:
64 for its 4 ordinary instances.  A helper's ``abs(x*y - 50) = 50 - x*y`` (false where ``xy > 50``) passed 16
far instances at one seed in three."""

FAR_SCALES = (4.0, 8.0, 16.0)
"""Input scales of the far instances.  At 4, 8 and 16 a real ``n x n``
Gaussian matrix has an eigenvalue with ``|Im| > pi`` with probability 0.11, 0.22, 0.27 (n = 2), 0.34, 0.53,
0.61 (n = 3), 0.58, 0.79, 0.85 (n = 4), so the four configurations of the default sizes 1..4 miss such a
failure set with probability below 1e-3.  Not beyond 16 for matrices: SciPy's float64 ``logm`` of
``expm(S) expm(S)`` at scale 64 (eigenvalues ``e^+-400``) ran for minutes in its inverse scaling and squaring."""
FAR_SCALES_SMALL = (0.25, 4.0, 8.0, 16.0)
"""The scales for small configurations (:data:`~theorem_check.engine.numeric.SMALL_ENTRIES`), near the origin too:
``abs(trace(A*A.T) - 1/2) = trace(A*A.T) - 1/2`` at 2 x 2 fails only where ``|A|_F^2 < 1/2`` (2.6 % of standard
instances, about 80 % at scale 1/4) and was VERIFIED at three seeds in four (helper-42)."""
FAR_SCALES_SCALAR = (4.0, 8.0, 16.0, 64.0)
"""The scales for a statement of scalars: 64 too, for thresholds beyond 10 (``|x - 20| = 20 - x``: a standard
normal scalar times 16 passes 20 with probability 0.21, times 64 with 0.75); there float32 often overflows, and
such instances are undecided, never counterexamples."""


MAX_BEYOND = 4
"""At most this many configurations of ``Statement.far_dims`` are run, every one at every seed (the short forms give
three rotations of 6, 5, 7 and one at 11, decision 202): one per seed left ``det(2*eye(n)) = sum_{k<=5} C(n, k)``,
false from ``n = 6``, VERIFIED at the seeds that drew 5 (helper-58; design decision 199)."""


BEYOND_LADDER_ENTRIES = 64
"""A configuration beyond the default sizes whose largest input has more entries than this (the one at 11, decision
202, for a matrix) gets its instance at scale 1 only, not the ladder: it is there for statements false from some
size on, which one instance shows, and the ladder at 11 x 11 doubled the cost of a short check."""


def _at_scale(statement: Statement, scale) -> Statement:
    """``statement`` drawing its instances at ``scale`` (a number, or one per batch element) through its
    ``sample_at_scale``; ``undefined="error"``: a far instance undefined in floating point is no counterexample."""
    def sample(rng, dims, batch):
        return statement.sample_at_scale(rng, dims, batch, scale)
    return dataclasses.replace(statement, sample=sample, undefined="error")


def _scalar_inputs(statement: Statement, dims, seed: int) -> bool:
    """True when every input of one instance drawn at ``dims`` is a scalar or ``1 x 1``
    (:func:`~theorem_check.engine.numeric.largest_input`): a space declared scalar (no size letter) can hold
    fixed-size matrices (``--shape A=128,128``), whose far batches are not cheap and take the matrix ladder."""
    return largest_input(statement, dims, derive_seed(seed, "far", "probe")) <= 1


FAR_SMALL_TOTAL = 48
"""Far instances of a statement whose configurations are all small (12 ladders of :data:`FAR_SCALES_SMALL`): a failure set as thin as ``|Im
lambda| > pi`` of a 2 x 2 matrix (probability 0.11, 0.23, 0.27 at scales 4, 8, 16) is missed with probability
about 1e-4; ``logm(expm(A)) = A`` pinned at ``n = 2`` had 3 (then 12) and was VERIFIED at two seeds in four
(helper-41)."""


def far_stage(statement: Statement, num: NumericResult, *, seed: int, beyond_sizes: bool = True) -> NumericResult:
    """``num`` with the far instances' evidence added: FAILS with a counterexample when one of them fails.

    Runs only for an identity with ``sample_at_scale`` whose ordinary instances all hold (``num.outcome`` is
    HOLDS), at the configurations ``num.configs`` that were run, and, when ``beyond_sizes``, at the statement's
    ``far_dims`` too (False when the user fixed the sizes, ``run --dims``: helper-63 got a counterexample at sizes
    it had excluded); returns ``num`` unchanged otherwise.  The far
    instances are ``num.far`` (each with its ``scale``); the note gains one line of counts.  A configuration
    that raises (a side that cannot be evaluated at a large scale) is counted as undecided, never raised.
    """
    if statement.sample_at_scale is None or not statement.is_identity or num.outcome is not Outcome.HOLDS \
            or not num.configs:
        return num
    scalar = statement.dims is not None and statement.dims.scalar and _scalar_inputs(statement, num.configs[0], seed)
    per, ladder = (FAR_PER_INSTANCE_SCALAR, FAR_SCALES_SCALAR) if scalar else (FAR_PER_INSTANCE, FAR_SCALES)
    total = max(len(ladder), math.ceil(per * len(num.instances)))
    if not scalar and all(0 < largest_input(statement, c, derive_seed(seed, "far", "probe")) <= SMALL_ENTRIES
                          for c in num.configs):
        ladder = FAR_SCALES_SMALL
        total = max(total, FAR_SMALL_TOTAL)
    rounds = math.ceil(total / len(ladder))      # whole ladders, dealt to the configurations in turn
    ladder = tuple(sorted({*ladder, *(float(s) for s in statement.far_scales)}))    # the statement's constants'
    results: list[InstanceResult] = []
    unevaluated = 0
    undefined: list[str] = []
    for k, cfg in enumerate(num.configs):
        scales = np.array([s for j in range(k, rounds, len(num.configs)) for s in ladder])
        if not len(scales):
            continue
        try:
            batch = evaluate_instances(_at_scale(statement, scales), cfg, derive_seed(seed, "far", k), len(scales),
                                       far=True)
        except Exception:  # noqa: BLE001 - e.g. an overflow no level could evaluate: no evidence either way
            unevaluated += len(scales)
            undefined += _undefined_at_mp(statement, cfg, derive_seed(seed, "far", k), scales)
            continue
        results += [dataclasses.replace(r, scale=float(scales[r.index])) for r in batch]
        if any(r.outcome is Outcome.FAILS for r in results):
            break
    beyond_dims = statement.far_dims[:MAX_BEYOND] if beyond_sizes else ()
    if beyond_sizes and statement.dims is not None:     # the top of the ranges, where no draw and no size beyond
        top = statement.dims.largest()                  # reached it (decision 209)
        if top not in num.configs and not any(all(c.get(k, 0) >= v for k, v in top.items()) for c in beyond_dims):
            beyond_dims += (top,)
    beyond = 0
    for j, cfg in enumerate(beyond_dims):          # sizes beyond the ranges sampled, each rotation (decisions 175, 199)
        if any(r.outcome is Outcome.FAILS for r in results):
            break
        # one instance at scale 1 as an ordinary one (its first instance goes to mp50, where a divisor that is 0 or
        # an inverse that does not exist at these sizes shows), then the ladder as far instances
        parts = ((np.array([1.0]), False), (np.array(ladder), True))
        if largest_input(statement, dict(cfg), derive_seed(seed, "far", "probe")) > BEYOND_LADDER_ENTRIES:
            parts = parts[:1]           # a size-only failure shows at scale 1; the ladder is the rotations' (202)
        for part, (scales, far) in enumerate(parts):
            beyond += len(scales)
            s = derive_seed(seed, "far", "beyond", j, part)
            try:
                batch = evaluate_instances(_at_scale(statement, scales), dict(cfg), s, len(scales), far=far)
            except Exception:  # noqa: BLE001 - sizes at which the statement cannot be evaluated: no evidence
                unevaluated += len(scales)
                undefined += _undefined_at_mp(statement, dict(cfg), s, scales)
                continue
            results += [dataclasses.replace(r, scale=float(scales[r.index])) for r in batch]
    bad = next((r for r in results if r.outcome is Outcome.FAILS), None)
    undecided = unevaluated + sum(r.outcome is Outcome.GREY for r in results)
    vacuous = sum(r.vacuous for r in results)
    text = (f"far from the origin: {len(results) + unevaluated} instances at input scales "
            f"{', '.join(f'{s:g}' for s in ladder)}")
    if beyond:
        sizes = " | ".join(" ".join(f"{k}={v}" for k, v in cfg.items()) for cfg in beyond_dims)
        text += f" ({beyond} of them at sizes beyond those drawn: {sizes})"
    undefined += [f"{r.detail} (dims {dict(r.dims)}, inputs at scale {r.scale:g})" for r in results if r.undefined]
    if bad is None and undefined:      # not defined on the whole domain: no proof, no refutation (decision 179)
        text += f", none fails, but the statement is undefined at {len(undefined)}: {undefined[0]}"
        return dataclasses.replace(num, outcome=Outcome.GREY, far=tuple(results),
                                   note=f"{num.note}; {text}".lstrip("; "))
    if bad is None:
        counts = [f"{undecided} undecided"] * bool(undecided) + [f"{vacuous} vacuous"] * bool(vacuous)
        text += ", none fails" + (f" ({', '.join(counts)})" if counts else "")
        return dataclasses.replace(num, far=tuple(results), note=f"{num.note}; {text}".lstrip("; "))
    cex = _smallest(statement, bad, seed, ladder)
    return dataclasses.replace(num, outcome=Outcome.FAILS, counterexample=cex, far=tuple(results),
                               note=f"{num.note}; {text}, counterexample found and shrunk".lstrip("; "))


def _undefined_at_mp(statement: Statement, dims, seed: int, scales) -> list[str]:
    """Why the first instance of a far batch that raised is undefined at the statement's highest precision (a
    singular matrix, a divisor 0, a NaN: the statement is not defined there), or [] when that precision evaluates
    it, or it raised something else (an overflow of a float level, a non-convergence)."""
    top = dataclasses.replace(_at_scale(statement, np.asarray(scales)[:1]), contexts=statement.contexts[-1:])
    try:
        [r] = evaluate_instances(top, dims, seed, 1, far=True)
    except SideError as exc:
        return [f"{exc} (inputs at scale {float(scales[0]):g})"] if exc.undefined else []
    except Exception:  # noqa: BLE001 - not a mathematical undefinedness: no evidence either way
        return []
    return [f"{r.detail} (dims {dict(dims)}, inputs at scale {float(scales[0]):g})"] if r.undefined else []


def _smallest(statement: Statement, bad: InstanceResult, seed: int, ladder: tuple) -> InstanceResult:
    """A smaller counterexample than the far instance ``bad``: the smallest sizes that still fail at its scale
    (:func:`~theorem_check.engine.numeric.shrink`), then the smallest scale of ``ladder`` that fails at
    those sizes (two batches of two instances each); ``bad`` itself when neither is smaller."""
    small = shrink(_at_scale(statement, bad.scale), bad, derive_seed(seed, "far"), ill_posed=False, far=True)
    cex = dataclasses.replace(small, scale=bad.scale) if small is not None else bad
    for scale in (s for s in ladder if s < cex.scale):
        for rep in range(2):
            try:
                batch = evaluate_instances(_at_scale(statement, scale), cex.dims, derive_seed(seed, "far", scale, rep), 2,
                                           far=True)
            except Exception:  # noqa: BLE001 - an instance that cannot be evaluated is no counterexample
                continue
            failing = next((r for r in batch if r.outcome is Outcome.FAILS), None)
            if failing is not None:
                return dataclasses.replace(failing, scale=scale)
    return cex
