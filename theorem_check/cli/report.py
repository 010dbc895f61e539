"""``theorem-check report``: a LaTeX, PDF or Markdown derivation report."""

from __future__ import annotations

import sys

import click

from theorem_check.cli.options import (
    EPILOG,
    check_environment,
    clear_progress,
    color_option,
    deprecations_noted,
    exit_reason,
    load_claims,
    plural,
    prepare_out_dir,
    progress_fn,
    report_broken,
    select_claims,
    start_workers_early,
    worker_options,
)
from theorem_check.errors import InvalidArgument
from theorem_check.output import terminal
from theorem_check.output.report.choice import FORMATS, resolve_format

__all__ = ["report"]


@click.command(epilog=EPILOG)
@click.argument("ids", nargs=-1)
@click.option("--paper", help="Report every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Report every claim: the built-in catalogue and every --pack (--pack alone reports only its claims).")
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--pdf", is_flag=True, help="Also compile DIR/report.pdf with latexmk (needs TeX Live); = --format pdf.")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default=None,
              help="; ".join(f"{k}: {v}" for k, v in FORMATS.items()) + " [default: tex]")
@click.option("--compact", is_flag=True, help="Summary table and one box per erratum only (the pages a review needs).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances per statement (custom checks run trials/8).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--slow", is_flag=True, help="Include slow simulations.")
@click.option("--controls", is_flag=True, help="Also run and report each claim's negative controls.")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Load claims from this .py file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@worker_options
@color_option
def report(ids, paper, all_, out_dir, pdf, fmt, compact, trials, seed, slow, controls, packs, quiet, jobs, timeout):
    """Write a derivation report: DIR/report.tex and figures (--pdf compiles it, --format md writes Markdown).

    An output folder that holds an older report is cleaned first (its report.* files and
    figures are removed; the command says how many); other files there are left alone.
    """
    try:
        from theorem_check.output.report import check_pdf_engine, write_report
        from theorem_check.output.report.writer import clean_out_dir
    except ImportError as exc:
        raise click.ClickException(f"reports need the [report] extra: pip install '.[report]' from the "
                                   f"checkout, or pip install 'theorem-check[report]' ({exc})")
    from theorem_check.execution.workers import run_claims_parallel
    from theorem_check.model.options import RunOptions

    check_environment()
    try:
        fmt = resolve_format(fmt, pdf)
    except InvalidArgument:
        raise click.UsageError(f"--pdf and --format {fmt} contradict each other") from None
    if fmt == "pdf":
        check_pdf_engine()  # fail in one line before running anything
    prepare_out_dir(out_dir)
    start_workers_early(jobs)
    pack_claims = load_claims(packs, timeout)
    claims, skipped = select_claims(ids, paper, all_, pack_claims, slow=slow)
    show_progress = not quiet and sys.stderr.isatty()
    progress = progress_fn(show_progress)
    try:
        with deprecations_noted():
            result = run_claims_parallel(claims, options=RunOptions(seed=seed, trials=trials, controls=controls), jobs=jobs,
                                         timeout=timeout, packs=packs, progress=progress, skipped_slow=skipped)
    finally:
        clear_progress(progress)
    old = clean_out_dir(out_dir)
    if old and not quiet:
        click.echo(f"theorem-check: {out_dir}: removed {plural(len(old), 'file')} of an older report", err=True)

    bar = terminal.Progress(stream=sys.stderr, enabled=show_progress, refresh=terminal.REFRESH_SECONDS)

    def stage(name, k, n):  # the report's stages on the same progress display as the claims
        bar(k, n, "report: figures" if name == "figures" else "report: LaTeX (latexmk, several passes)")

    import shlex

    rerun = shlex.join(["theorem-check", "report", *sys.argv[2:]]) if sys.argv[1:2] == ["report"] else None
    try:
        path = write_report(result, out_dir, fmt=fmt, compact=compact, rerun=rerun, progress=stage)
    finally:
        bar.clear()
    click.echo(str(path))
    report_broken(result)
    exit_reason(result)
    sys.exit(result.exit_code)


