"""``theorem-check sweep``: verdict stability across seeds (local workers or Dask)."""

from __future__ import annotations

import sys

import click

from theorem_check.cli.options import (
    color_option,
    load_claims,
    report_broken,
    select_claims,
    start_workers_early,
    worker_options,
)
from theorem_check.output import terminal

__all__ = ["sweep"]


@click.command()
@click.argument("ids", nargs=-1)
@click.option("--seeds", "seeds_text", default="0:10", show_default=True, metavar="A:B|N",
              help="Seeds A..B-1, or a count N (seeds 0..N-1).")
@click.option("--paper", help="Sweep every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Sweep every claim: the built-in catalogue and every --pack (--pack alone sweeps only its claims).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances per statement (custom checks run trials/8).")
@click.option("--slow", is_flag=True, help="Include slow simulations in --paper/--all sweeps.")
@click.option("--controls", is_flag=True, help="Also run each claim's negative controls on every seed.")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Load claims from this .py file.")
@click.option("--scheduler", default="local", show_default=True, metavar="local|dask|tcp://HOST:PORT",
              help="Local worker processes, a Dask LocalCluster, or a running Dask scheduler.")
@click.option("--json", "as_json", is_flag=True, help="Write the sweep's JSON record to stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@worker_options
@color_option
def sweep(ids, seeds_text, paper, all_, trials, slow, controls, packs, scheduler, as_json, quiet, jobs, timeout):
    """Run claims on many seeds: verdict counts, the seeds that disagree, surviving mutants.

    Exit code 1 when any verdict changes across seeds, or (with --controls) a control is not
    refuted on some seed.
    """
    from theorem_check.execution.sweep import format_sweep, parse_seeds, run_sweep, sweep_record
    from theorem_check.output.json_record import dumps

    seeds = parse_seeds(seeds_text)
    if scheduler == "local":
        start_workers_early(jobs)
    pack_claims = load_claims(packs, timeout)
    claims, skipped = select_claims(ids, paper, all_, pack_claims, slow=slow)
    bar = terminal.Progress(len(claims) * len(seeds), enabled=not quiet,
                             refresh=terminal.REFRESH_SECONDS)
    try:
        res = run_sweep(claims, seeds, trials=trials, controls=controls, jobs=jobs, timeout=timeout, packs=packs,
                        scheduler=scheduler, progress=lambda k, n, label: bar.update(k, label), skipped_slow=skipped)
    finally:
        bar.close()
    click.echo(dumps(sweep_record(res)) if as_json else format_sweep(res))
    report_broken(res)
    sys.exit(res.exit_code)


