"""``theorem-check run``: run claims, print the table or a JSON record, exit 0/1/2."""

from __future__ import annotations

import sys

import click

from theorem_check.cli.options import (
    EPILOG,
    check_environment,
    clear_progress,
    color_option,
    deprecations_noted,
    load_claims,
    plural,
    progress_fn,
    report_broken,
    result_table,
    select_claims,
    start_workers_early,
    use_colour,
    worker_options,
)
from theorem_check.output import terminal

__all__ = ["run"]


@click.command(epilog=EPILOG)
@click.argument("ids", nargs=-1)
@click.option("--paper", help="Run every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Run every claim: the built-in catalogue and every --pack (--pack alone runs only its claims).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances per statement (custom checks run trials/8).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--json", "as_json", is_flag=True, help="Write a JSON record to stdout instead of the table.")
@click.option("--slow", is_flag=True, help="Include slow simulations in --paper/--all runs.")
@click.option("--controls", is_flag=True, help="Also run each claim's negative controls (they should be REFUTED).")
@click.option("--fuzz", type=click.IntRange(0, 100_000), default=0, show_default=True,
              help="Hypothesis examples per identity that hunt for a counterexample (shrunk).")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Load claims from this .py file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@click.option("--dims", "dims_text", metavar="NAME=VALUE,...", help="Run at these sizes only, inside the claim's ranges (e.g. D=3,d1=2); sizes not given keep their "
                   "generic value, and no sizes beyond the ranges are tried.")
@worker_options
@color_option
def run(ids, paper, all_, trials, seed, as_json, slow, controls, fuzz, packs, quiet, dims_text, jobs, timeout):
    """Run claims: symbolic derivation, numeric stage, verdict.

    IDS are claim ids (prh.eq31) or bare labels (eq31), which run every paper's match.
    """
    from theorem_check.execution.workers import run_claims_parallel
    from theorem_check.model.options import RunOptions
    from theorem_check.output.json_record import dumps, run_record

    check_environment()
    options = RunOptions(seed=seed, trials=trials, controls=controls, fuzz=fuzz, dims=RunOptions.parse_dims(dims_text))
    start_workers_early(jobs)
    pack_claims = load_claims(packs, timeout)
    claims, skipped = select_claims(ids, paper, all_, pack_claims, slow=slow)
    show_progress = not quiet and not as_json and sys.stderr.isatty()
    progress = progress_fn(show_progress)
    try:
        with deprecations_noted():  # workers send their warnings back; they are re-issued here
            result = run_claims_parallel(claims, options=options, jobs=jobs, timeout=timeout, packs=packs,
                                         progress=progress, skipped_slow=skipped)
    finally:
        clear_progress(progress)
    if as_json:
        click.echo(dumps(run_record(result)))
    else:
        colour = use_colour()
        click.echo(result_table(result, colour=colour), color=colour)
        counts = ", ".join(f"{n} {terminal.style_verdict(v, colour)}" for v, n in result.counts().items())
        skip = f"; {len(skipped)} slow skipped (--slow)" if skipped else ""
        ctl = ""
        if controls:
            bad = result.unrefuted_controls
            ctl = (f"; controls: {result.controls_run - len(bad)}/{result.controls_run} refuted"
                   + (f" (NOT refuted: {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''})" if bad else ""))
        click.echo(f"{plural(len(result.results), 'claim')}: {counts} in {result.seconds:.1f} s (seed {seed}){skip}{ctl}",
                   color=colour)
    report_broken(result)
    sys.exit(result.exit_code)


