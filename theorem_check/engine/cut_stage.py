"""Instances on the branch cut of complex inputs: the real axis (design decision 207).

A statement about complex inputs drawn CN(0, 1) never meets the negative real axis, where the principal branches of
``log``, ``sqrt`` and non-integer powers jump, so an identity false exactly there (``log(conj(z)) = conj(log(z))``,
``sqrt(conj(z)) = conj(sqrt(z))``, ``log(1/z) = -log(z)``: false at every ``z < 0``) was VERIFIED at every seed
(helper-65).  After the ordinary, far and branch-switch instances hold, this stage evaluates the statement at base
instances whose complex inputs are put on the real axis (their real parts, then the negated absolute values: every
entry negative), every instance at mp50, by the far instances' decision rule: it can only refute.  mpmath's complex
numbers have no signed zero, so ``conj(-2)`` is ``-2`` there, as in mathematics; NumPy's ``conj(-2+0j)`` is
``-2-0j``, on the other side of the cut, which is why the float levels alone would not see it.

Limits: complex inputs of at most :data:`CUT_ENTRIES` entries, identities with expression or callable sides alike
(the inputs are the sampler's); a cut elsewhere than the real axis (``log(z - 1j)``) is not reached.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from theorem_check.engine.numeric import derive_seed, evaluate_instances
from theorem_check.engine.numeric_result import NumericResult, with_refuting_instances
from theorem_check.engine.switch_stage import along, input_entries
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import Outcome

__all__ = ["CUT_BASES", "CUT_ENTRIES", "cut_stage"]

CUT_BASES = 4
"""Base instances drawn (dealt to the configurations that were run); each gives two instances on the real axis."""
CUT_ENTRIES = 64
"""Largest complex input (entries) at which the stage runs: every one of its instances goes to mp50."""


def _complex_inputs(inst: dict) -> list[str]:
    return sorted(k for k, v in inst.items() if not k.startswith("_") and isinstance(v, np.ndarray)
                  and np.iscomplexobj(v))


def cut_stage(statement: Statement, num: NumericResult, *, seed: int) -> NumericResult:
    """``num`` with instances on the real axis of its complex inputs added: FAILS with the first failing one as the
    counterexample.  Runs only for an identity whose numeric outcome so far is HOLDS and whose sampler draws a complex
    input of at most :data:`CUT_ENTRIES` entries; returns ``num`` unchanged otherwise.  The new instances go to
    ``num.far``; the note gains one line ("on the branch cut (complex inputs on the real axis): ...").  A base
    instance that cannot be evaluated adds nothing."""
    if not statement.is_identity or num.outcome is not Outcome.HOLDS or not num.configs:
        return num
    results, unevaluated = [], 0
    for b in range(CUT_BASES):
        cfg = dict(num.configs[b % len(num.configs)])
        base_seed = derive_seed(seed, "cut", b)
        base = dict(statement.sample(np.random.default_rng(base_seed), cfg, 1))
        names = _complex_inputs(base)
        if not names or input_entries({k: base[k] for k in names}) > CUT_ENTRIES:
            return num if b == 0 else _done(num, results, unevaluated)
        batch = along(base, (), np.ones(2))          # two copies of the base instance
        for k in names:   # the real parts (both signs), then every entry negative: the cut itself
            batch[k] = np.stack([batch[k][0].real, -np.abs(batch[k][1].real)]).astype(complex)
        try:
            got = evaluate_instances(dataclasses.replace(statement, sample=lambda rng, d, n, inst=batch: inst,
                                                         undefined="error"),
                                     cfg, derive_seed(seed, "cut", "at", b), 2, far=True, every_mp=True)
        except Exception:  # noqa: BLE001 - a side that cannot be evaluated on the real axis: no evidence either way
            unevaluated += 2
            continue
        for r in got:
            detail = (f"on the branch cut: base instance seed {base_seed} with {', '.join(names)} "
                      f"{'put on the real axis' if r.index == 0 else 'put on the negative real axis'}"
                      + (f"; {r.detail}" if r.detail else "")) if r.outcome is Outcome.FAILS else r.detail
            results.append(dataclasses.replace(r, detail=detail))
        if any(r.outcome is Outcome.FAILS for r in results):
            break
    return _done(num, results, unevaluated)


def _done(num: NumericResult, results: list, unevaluated: int) -> NumericResult:
    if not results and not unevaluated:
        return num
    text = f"on the branch cut (complex inputs on the real axis): {len(results) + unevaluated} instances"
    return with_refuting_instances(num, results, unevaluated, text)
