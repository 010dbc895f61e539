"""``docs/errata.md``: the printed statements that fail, generated from the verdicts.

Regenerate with ``python -m theorem_check.output.errata > docs/errata.md`` (seed 0, 16 trials, the
``run`` defaults; ``--slow`` also runs slow claims); a test fails when the checked-in file is
stale.

Only the *candidates* are run: claims that carry a corrected form or reading, or declare an
``expected`` verdict.  That is exact, not a shortcut that could miss an erratum: the registry
test requires every other claim to come back PROVED, VERIFIED or ERRATUM, and a claim without
variants cannot be an ERRATUM, so it passes as printed.
"""

from __future__ import annotations

import sys
from typing import Iterable, Sequence

from theorem_check.engine.runner import ClaimResult, run_claim
from theorem_check.model.claims import Claim
from theorem_check.output.latex import dims_text, prose_dicts, statement_title

__all__ = ["errata_candidates", "render_errata", "generate", "main"]

SEED = 0
TRIALS = 16


def errata_candidates(claims: Iterable[Claim]) -> list[Claim]:
    """Claims that can fail as printed under a green registry test (see the module docstring)."""
    return [c for c in claims if c.variants or c.expected is not None]


def _fmt(x: float) -> str:
    return f"{x:.2g}"


def _counterexample(r) -> str:
    num = r.numeric
    if num is None:
        sym = r.symbolic
        if sym is not None:
            bad = next((s for s in sym.steps if not s.closed), None)
            if bad is not None:
                return f"the derivation step “{bad.why}” fails ({bad.method}" + (f" at {bad.point}" if bad.point else "") + ")"
        return r.evidence
    if num.ill_posed:
        return f"the sides do not conform: {prose_dicts(num.ill_posed)}"
    c = num.counterexample
    if c is None:
        return r.evidence
    out = f"dims {dims_text(c.dims)}, seed {c.seed}"
    if c.residuals:
        level, value = list(c.residuals.items())[-1]
        out += f": relative residual {_fmt(value)} at {level}"
    if c.detail:
        out += f" ({prose_dicts(c.detail)})"
    return out


def _math_block(latex: str) -> list[str]:
    return ["$$", " ".join(latex.split()), "$$"]


def render_errata(results: Sequence[ClaimResult], *, seed: int = SEED, trials: int = TRIALS,
                  not_run: Sequence[str] = ()) -> str:
    """Markdown listing every claim of ``results`` whose printed statement fails."""
    out = ["# Errata", "",
           "Generated from the verdicts by `python -m theorem_check.output.errata > docs/errata.md` "
           f"(seed {seed}, {trials} trials); do not edit. A test fails when this file is stale.", "",
           "Each entry is a statement that fails **as printed** (REFUTED or ILL-POSED), with the smallest "
           "counterexample found and, where the claim gives one, the corrected statement, which is checked "
           "by the same code path. `theorem-check run ID` reproduces any entry; `theorem-check report ID -o DIR` "
           "shows the derivations and the evidence in full.", ""]
    bad = [r for r in results if r.printed.verdict.fails or r.verdict.fails]
    if not bad:
        out += ["No built-in printed statement fails.", ""]
    papers: list[str] = []
    for r in bad:
        if r.claim.paper not in papers:
            papers.append(r.claim.paper)
    for paper in papers:
        out += [f"## `{paper}`", ""]
        for r in (x for x in bad if x.claim.paper == paper):
            c, s = r.claim, r.claim.source
            out += [f"### `{c.id}`: {c.title}", "",
                    f"Source: {s.paper}, section {s.section}, {s.equation}. Verdict: **{r.verdict.value}**.", "",
                    f"As printed ({r.printed.verdict.value}):", "", *_math_block(s.printed), "",
                    f"Counterexample: {_counterexample(r.printed)}.", ""]
            for v in r.variants:
                out += [f"{statement_title(v.name, v.kind)} ({v.verdict.value}):", "", *_math_block(v.latex), ""]
            if not r.variants:
                out += ["The claim gives no corrected form.", ""]
    if not_run:
        out += ["## Not run", "", "Slow claims that could fail as printed, not run for this page "
                "(`python -m theorem_check.output.errata --slow`): " + ", ".join(f"`{x}`" for x in not_run) + ".", ""]
    return "\n".join(out).rstrip() + "\n"


def generate(*, slow: bool = False, claims: Iterable[Claim] | None = None) -> str:
    """Run the candidates among the built-in claims (or ``claims``) and render the page."""
    from theorem_check.authoring.registry import REGISTRY, load_builtin

    if claims is None:
        load_builtin()
        claims = list(REGISTRY)
    cands = errata_candidates(claims)
    run = [c for c in cands if slow or not c.slow]
    results = [run_claim(c, seed=SEED, trials=TRIALS) for c in run]
    return render_errata(results, not_run=[c.id for c in cands if c not in run])


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m theorem_check.output.errata [--slow]``: the page on stdout."""
    argv = list(sys.argv[1:] if argv is None else argv)
    unknown = [a for a in argv if a != "--slow"]
    if unknown:
        print(f"usage: python -m theorem_check.output.errata [--slow] (unknown argument {unknown[0]!r})", file=sys.stderr)
        return 2
    sys.stdout.write(generate(slow="--slow" in argv))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
