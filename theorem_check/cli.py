"""The command line: ``theorem-check list | show | run | report`` (DESIGN.md, "The command line").

Exit codes: 0 when every claim run is PROVED or VERIFIED; 1 when any is REFUTED, ERRATUM,
ILL-POSED or INCONCLUSIVE; 2 for usage errors and bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import shutil
import sys
import textwrap

import click

from . import __version__
from .errors import TheoremCheckError
from .registry import REGISTRY, load_builtin, load_pack, resolve

__all__ = ["main", "cli"]

_VERDICT_COLOURS = {"PROVED": "green", "VERIFIED": "green", "ERRATUM": "yellow", "REFUTED": "red",
                    "ILL-POSED": "red", "INCONCLUSIVE": "magenta"}


def _load(packs: tuple[str, ...], timeout: float | None = None) -> list:
    from pathlib import Path

    from .errors import PackError
    from .workers import DEFAULT_IMPORT_TIMEOUT, check_packs

    # packs are imported first in a probe process with a time limit: a pack that hangs, exits or
    # crashes at import is a one-line error (exit 2), never the run's exit status
    probed = check_packs(packs, DEFAULT_IMPORT_TIMEOUT if timeout is None else (timeout or None))
    load_builtin()
    probed()
    new, seen = [], set()
    for p in packs:
        key = Path(p).resolve() if Path(p).is_file() else p
        if key in seen:  # the same pack named twice is loaded once
            continue
        seen.add(key)
        try:
            new.extend(load_pack(p))
        except SystemExit as exc:
            raise PackError(f"pack={p!r} called sys.exit({exc.code!r}) at import") from None
    return new


def _start_workers_early(jobs) -> None:
    """Start the workers' fork server now: it imports the catalogue while this process does."""
    from .workers import default_jobs, start_method_ready

    if (jobs or default_jobs()) > 1:
        start_method_ready()


def _worker_options(f):
    """--jobs and --timeout (theorem_check.workers)."""
    from .workers import DEFAULT_TIMEOUT, SLOW_TIMEOUT_FACTOR

    f = click.option("--timeout", type=click.FloatRange(min=0), default=DEFAULT_TIMEOUT, show_default=True,
                     help=f"Seconds per claim (x{SLOW_TIMEOUT_FACTOR} for slow simulations; also bounds pack "
                          "imports); a claim over it is INCONCLUSIVE. 0 = no limit.")(f)
    return click.option("--jobs", "-j", type=click.IntRange(1, 4096), default=None, envvar="THEOREM_CHECK_JOBS",
                        show_envvar=True,
                        help="Worker processes [default: the number of cores]; 1 runs in this process.")(f)


def _select(ids, paper, all_, pack_claims, *, slow: bool):
    """Claims selected by ids / --paper / --all (packs alone select their own claims)."""
    if sum(bool(x) for x in (ids, paper is not None, all_)) > 1:
        raise click.UsageError("give claim ids, --paper or --all, not several")
    explicit = bool(ids)
    if ids:
        claims = resolve(ids)
    elif paper is not None:
        claims = REGISTRY.by_paper(paper)
    elif all_:
        claims = list(REGISTRY)
    elif pack_claims:
        claims, explicit = pack_claims, True
    else:
        raise click.UsageError("name claim ids (e.g. eq31), --paper P, --all, or --pack FILE")
    skipped = tuple(c.id for c in claims if c.slow and not slow and not explicit)
    return [c for c in claims if c.id not in skipped], skipped


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="theorem-check")
def cli():
    """Check the mathematics of deep-learning-theory papers, claim by claim.

    \b
    Examples:
      theorem-check list --paper prh
      theorem-check show prh.eq31
      theorem-check run eq31 --seed 1
      theorem-check run --paper noise --json > noise.json
      theorem-check run --pack my_claims.py
    """


@cli.command("list")
@click.option("--paper", help="Only this paper's claims (prh, noise, cascade, or a pack's key).")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Also load claims from this .py file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(paper, packs, as_json):
    """List every claim, one line each."""
    from .records import claim_record, dumps

    _load(packs)
    claims = REGISTRY.by_paper(paper) if paper is not None else list(REGISTRY)
    if as_json:
        click.echo(dumps([claim_record(c) for c in claims]))
        return
    width = max([len(c.id) for c in claims] + [2])
    eq_width = min(max([len(c.source.equation) for c in claims] + [2]), 24)
    for c in claims:
        extra = f"  [{', '.join(c.aliases)}]" if c.aliases else ""
        slow = "  (slow)" if c.slow else ""
        click.echo(f"{c.id:<{width}}  {c.source.equation:<{eq_width}}  {c.title}{extra}{slow}")
    click.echo(_plural(len(claims), "claim"), err=True)


@cli.command()
@click.argument("claim_id")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Also load claims from this .py file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the claim's LaTeX block alone.")
def show(claim_id, packs, as_json, as_latex):
    """Statement as printed, assumptions, derivation steps, corrected forms, controls."""
    from .records import claim_record, dumps

    if as_json and as_latex:
        raise click.UsageError("give --json or --latex, not both")
    _load(packs)
    claims = resolve([claim_id])
    if as_json:
        click.echo(dumps([claim_record(c) for c in claims]))
        return
    if as_latex:
        from .latex import claim_latex

        for c in claims:
            click.echo(claim_latex(c))
        return
    for c in claims:
        click.echo(_describe(c))


def _describe(c) -> str:
    import sympy as sp

    s = c.source
    lines = [f"{c.id}: {c.title}", f"  source: {s.paper}, section {s.section}, {s.equation}",
             f"  as printed: {s.printed}"]
    if c.aliases:
        lines.append(f"  aliases: {', '.join(c.aliases)}")
    for a in c.assumptions:
        lines.append(f"  assume: {a}")
    for st in c.statements():
        lines.append(f"  [{st.kind}] {st.name}: {st.latex}")
        if st.note:
            lines.append(textwrap.indent(textwrap.fill(st.note, 96), "      "))
        if st.derivation is not None:
            d = st.derivation()
            scope = "all sizes" if d.general else f"fixed sizes {d.sizes}"
            lines.append(f"      derivation ({len(d.steps)} steps, {scope}):")
            for k, step in enumerate(d.steps, 1):
                lines.append(f"       {k}. {sp.latex(step.lhs)} = {sp.latex(step.rhs)}" + (f"   [{step.why}]" if step.why else ""))
    for ctl in c.controls:
        lines.append(f"  [control] {ctl.name}")
    return "\n".join(lines)


def _progress_fn(enabled: bool):
    if not enabled:
        return None

    def progress(k, n, claim):
        click.echo(f"\r[{k + 1}/{n}] {claim.id:<40}", err=True, nl=False)

    return progress


def _table(run) -> str:
    """Human-readable table: a header line per claim, its evidence wrapped below, then variants."""
    cols = max(60, shutil.get_terminal_size((120, 24)).columns)
    width = max([len(r.id) for r in run.results] + [2])
    rows = []

    def wrap(text: str, indent: int) -> list[str]:
        return textwrap.wrap(text, width=cols, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2),
                             break_on_hyphens=False) or [""]

    for r in run.results:
        rows.append(f"{r.id:<{width}}  {r.verdict.value:<12} {r.seconds:6.2f}s")
        if r.variants:
            rows += wrap(f"as printed: {r.printed.verdict.value}: {r.printed.evidence}", 4)
        else:
            rows += wrap(r.evidence, 4)
        for sub in (*r.variants, *r.controls):
            label = sub.name if sub.name.startswith(sub.kind) else f"{sub.kind}: {sub.name}"
            rows += wrap(f"└ {label}: {sub.verdict.value}: {sub.evidence}", 4)
    return "\n".join(rows)


@cli.command()
@click.argument("ids", nargs=-1)
@click.option("--paper", help="Run every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Run every claim.")
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
@click.option("--dims", "dims_text", metavar="NAME=VALUE,...", help="Run at these sizes (e.g. D=10,d1=2048).")
@_worker_options
def run(ids, paper, all_, trials, seed, as_json, slow, controls, fuzz, packs, quiet, dims_text, jobs, timeout):
    """Run claims: symbolic derivation, numeric stage, verdict.

    IDS are claim ids (prh.eq31) or bare labels (eq31), which run every paper's match.
    """
    from .records import dumps, run_record
    from .workers import check_dims, parse_dims, run_claims_parallel

    dims = parse_dims(dims_text)
    _start_workers_early(jobs)
    pack_claims = _load(packs, timeout)
    claims, skipped = _select(ids, paper, all_, pack_claims, slow=slow)
    check_dims(claims, dims)
    show_progress = not quiet and not as_json and sys.stderr.isatty()
    with _deprecations_noted():  # workers send their warnings back; they are re-issued here
        result = run_claims_parallel(claims, seed=seed, trials=trials, controls=controls, fuzz=fuzz, dims=dims,
                                     jobs=jobs, timeout=timeout, packs=packs, progress=_progress_fn(show_progress),
                                     skipped_slow=skipped)
    if show_progress:
        click.echo("\r" + " " * 60 + "\r", err=True, nl=False)
    if as_json:
        click.echo(dumps(run_record(result)))
    else:
        click.echo(_table(result))
        counts = ", ".join(f"{n} {v}" for v, n in result.counts().items())
        skip = f"; {len(skipped)} slow skipped (--slow)" if skipped else ""
        ctl = ""
        if controls:
            bad = result.unrefuted_controls
            ctl = (f"; controls: {result.controls_run - len(bad)}/{result.controls_run} refuted"
                   + (f" (NOT refuted: {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''})" if bad else ""))
        click.echo(f"{_plural(len(result.results), 'claim')}: {counts} in {result.seconds:.1f} s (seed {seed}){skip}{ctl}")
    _report_broken(result)
    sys.exit(result.exit_code)


import contextlib


@contextlib.contextmanager
def _deprecations_noted():
    """Collect the deprecated-API warnings of a run into one stderr note (not one warning per statement)."""
    import warnings

    from .numeric import TheoremCheckDeprecationWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TheoremCheckDeprecationWarning)
        yield
    dep = [w for w in caught if issubclass(w.category, TheoremCheckDeprecationWarning)]
    for w in caught:
        if w not in dep:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if dep:
        click.echo(f"theorem-check: note: {_plural(len(dep), 'statement')} decided by their own check (deprecated "
                   "tc.Measurement: no mutant can test them; return tc.Refinement or tc.MonteCarlo, see "
                   "docs/writing-claims.md)", err=True)


def _report_broken(result) -> None:
    """One stderr line for statements that could not be evaluated at all (exit code 2)."""
    broken = result.broken
    if broken:
        more = f" (and {len(broken) - 1} more statements)" if len(broken) > 1 else ""
        click.echo(f"theorem-check: error: {broken[0]}{more}", err=True)


@cli.command()
@click.argument("ids", nargs=-1)
@click.option("--paper", help="Report every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Report every claim.")
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--pdf", is_flag=True, help="Also compile DIR/report.pdf with latexmk (needs TeX Live).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances per statement (custom checks run trials/8).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--slow", is_flag=True, help="Include slow simulations.")
@click.option("--controls", is_flag=True, help="Also run and report each claim's negative controls.")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Load claims from this .py file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@_worker_options
def report(ids, paper, all_, out_dir, pdf, trials, seed, slow, controls, packs, quiet, jobs, timeout):
    """Write a LaTeX derivation report (DIR/report.tex, figures; --pdf compiles it)."""
    try:
        from .report import check_pdf_engine, write_report
    except ImportError as exc:
        raise click.ClickException(f"reports need the [report] extra: pip install 'theorem-check[report]' ({exc})")
    from .workers import run_claims_parallel

    if pdf:
        check_pdf_engine()  # fail in one line before running anything
    _prepare_out_dir(out_dir)
    _start_workers_early(jobs)
    pack_claims = _load(packs, timeout)
    claims, skipped = _select(ids, paper, all_, pack_claims, slow=slow)
    show_progress = not quiet and sys.stderr.isatty()
    result = run_claims_parallel(claims, seed=seed, trials=trials, controls=controls, jobs=jobs, timeout=timeout,
                                 packs=packs, progress=_progress_fn(show_progress), skipped_slow=skipped)
    path = write_report(result, out_dir, pdf=pdf)
    click.echo(str(path))
    _report_broken(result)
    sys.exit(result.exit_code)


@cli.command()
@click.argument("ids", nargs=-1)
@click.option("--seeds", "seeds_text", default="0:10", show_default=True, metavar="A:B|N",
              help="Seeds A..B-1, or a count N (seeds 0..N-1).")
@click.option("--paper", help="Sweep every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Sweep every claim.")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances per statement (custom checks run trials/8).")
@click.option("--slow", is_flag=True, help="Include slow simulations in --paper/--all sweeps.")
@click.option("--controls", is_flag=True, help="Also run each claim's negative controls on every seed.")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Load claims from this .py file.")
@click.option("--scheduler", default="local", show_default=True, metavar="local|dask|tcp://HOST:PORT",
              help="Local worker processes, a Dask LocalCluster, or a running Dask scheduler.")
@click.option("--json", "as_json", is_flag=True, help="Write the sweep's JSON record to stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@_worker_options
def sweep(ids, seeds_text, paper, all_, trials, slow, controls, packs, scheduler, as_json, quiet, jobs, timeout):
    """Run claims on many seeds: verdict counts, the seeds that disagree, surviving mutants.

    Exit code 1 when any verdict changes across seeds.
    """
    from .records import dumps
    from .sweep import format_sweep, parse_seeds, run_sweep, sweep_record
    from .workers import Progress

    seeds = parse_seeds(seeds_text)
    if scheduler == "local":
        _start_workers_early(jobs)
    pack_claims = _load(packs, timeout)
    claims, skipped = _select(ids, paper, all_, pack_claims, slow=slow)
    bar = Progress(len(claims) * len(seeds), enabled=not quiet)
    try:
        res = run_sweep(claims, seeds, trials=trials, controls=controls, jobs=jobs, timeout=timeout, packs=packs,
                        scheduler=scheduler, progress=lambda k, n, label: bar.update(k, label), skipped_slow=skipped)
    finally:
        bar.close()
    click.echo(dumps(sweep_record(res)) if as_json else format_sweep(res))
    broken = res.broken
    if broken:
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        click.echo(f"theorem-check: error: {broken[0]}{more}", err=True)
    sys.exit(res.exit_code)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _prepare_out_dir(out_dir: str) -> None:
    """Create the report directory before any claim runs; bad paths are a one-line error (exit 2)."""
    import os
    from pathlib import Path

    if not out_dir.strip():
        raise click.BadParameter(f"{out_dir!r} must name a directory", param_hint="'-o' / '--out'")
    path = Path(out_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(f"{out_dir!r} cannot be created: {exc.strerror or exc}",
                                 param_hint="'-o' / '--out'") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise click.BadParameter(f"{out_dir!r} is not writable", param_hint="'-o' / '--out'")


def _one_line(exc: click.ClickException) -> str:
    """Click's message on one line, with the help hint of usage errors (no 'Usage:' block)."""
    msg = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


def main(argv=None) -> None:
    """Console-script entry point: runs the CLI, turning package errors into one line + exit 2."""
    try:
        cli.main(args=argv, prog_name="theorem-check", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("theorem-check: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
            exc.show()  # bare `theorem-check`: the help text is the useful answer
        else:
            click.echo(f"theorem-check: error: {_one_line(exc)}", err=True)
        sys.exit(2)
    except TheoremCheckError as exc:
        click.echo(f"theorem-check: error: {exc}", err=True)
        sys.exit(2)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - never a traceback for users; THEOREM_CHECK_DEBUG=1 shows it
        import os

        if os.environ.get("THEOREM_CHECK_DEBUG"):
            raise
        click.echo(f"theorem-check: internal error: {type(exc).__name__}: {exc} (set THEOREM_CHECK_DEBUG=1 for "
                   "the traceback)", err=True)
        sys.exit(3)
    sys.exit(0)
