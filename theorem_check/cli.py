"""The command line: ``theorem-check list | show | run | report`` (DESIGN.md, "The command line").

Exit codes: 0 when every claim run is PROVED or VERIFIED; 1 when any is REFUTED, ERRATUM,
ILL-POSED or INCONCLUSIVE; 2 for usage errors and bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import shutil
import sys
import textwrap

import click

from . import terminal
from ._version import __version__
from .errors import TheoremCheckError
from .registry import REGISTRY, load_builtin, load_pack, resolve

__all__ = ["main", "cli", "color_option", "use_colour", "check_environment", "EPILOG"]

EPILOG = """\b
Verdicts:
  PROVED        the SymPy derivation closes for all sizes and the numerics agree
  VERIFIED      numeric (or fixed-size symbolic) evidence only
  REFUTED       a counterexample far above the precision floor, shrunk
  ERRATUM       as printed it fails; a corrected form holds
  ILL-POSED     as printed the shapes do not conform
  INCONCLUSIVE  grey-zone residuals, or a simulation out of budget
\b
Exit codes:
  0  every claim run is PROVED or VERIFIED
  1  some claim is REFUTED, ERRATUM, ILL-POSED or INCONCLUSIVE (findings,
     as a linter's: `run eq31` exits 1 because both eq. 31s are errata)
  2  usage error, bad input or environment (unwritable -o, full disk)
  3  internal error (THEOREM_CHECK_DEBUG=1 shows the traceback)
\b
Environment:
  THEOREM_CHECK_BUDGET  simulation budget: ci (default), paper, or a number > 0
  NO_COLOR              set (non-empty) to turn colour off with --color auto
  THEOREM_CHECK_DEBUG   set to 1 to see tracebacks of internal errors
  THEOREM_CHECK_ARB     set to 0 to keep mp50 inv/solve/det/expm in mpmath (python-flint off)
  THEOREM_CHECK_JOBS    default for --jobs (worker processes)
  THEOREM_CHECK_SYMPY_TIMEOUT  seconds per SymPy derivation step (default 20, or inf)
  THEOREM_CHECK_CACHE_DIR  folder of the cost data (longest claims first); off disables it
"""
"""The ``--help`` epilog of the group and of the commands that run claims."""

_COLOR_KEY = "theorem_check.color"


def _set_colour(ctx, param, value):
    if value is not None:
        ctx.meta[_COLOR_KEY] = value
    return value


def color_option(f):
    """``--color auto|always|never`` for a command (or the group); the value lands in ``ctx.meta``."""
    return click.option("--color", "--colour", type=click.Choice(terminal.COLOUR_MODES), default=None,
                        expose_value=False, callback=_set_colour, is_eager=True,
                        help="Colour verdicts: auto (a terminal, unless NO_COLOR is set), always, never.")(f)


def use_colour(stream=None) -> bool:
    """Whether the current command colours ``stream`` (stdout by default), from ``--color`` and the TTY."""
    ctx = click.get_current_context(silent=True)
    mode = ctx.meta.get(_COLOR_KEY, "auto") if ctx is not None else "auto"
    return terminal.colour_enabled(mode, sys.stdout if stream is None else stream)


def check_environment() -> None:
    """Checks before any claim runs (one line, exit 2): ``THEOREM_CHECK_BUDGET`` and
    ``THEOREM_CHECK_SYMPY_TIMEOUT`` parse."""
    from .symbolic import resolve_time_limit
    from .validation import check_budget

    check_budget()
    resolve_time_limit()   # InvalidArgument naming the variable and its value


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
        try:
            key = Path(p).resolve() if Path(p).is_file() else p
        except OSError:  # load_pack names the problem
            key = p
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


class _FiniteSeconds(click.FloatRange):
    """A float range that refuses NaN (which compares false with both bounds and slipped through)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        v = super().convert(value, param, ctx)
        if v != v:
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return v


def _worker_options(f):
    """--jobs and --timeout (theorem_check.workers)."""
    from .workers import DEFAULT_TIMEOUT, SLOW_TIMEOUT_FACTOR

    f = click.option("--timeout", type=_FiniteSeconds(min=0, max=1e7), default=DEFAULT_TIMEOUT, show_default=True,
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EPILOG)
@click.version_option(version=__version__, prog_name="theorem-check")
@color_option
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
@color_option
def list_cmd(paper, packs, as_json):
    """List every claim, one line each (at most 100 columns; --json has every field)."""
    from .records import dumps, list_record

    _load(packs)
    claims = REGISTRY.by_paper(paper) if paper is not None else list(REGISTRY)
    if as_json:
        click.echo(dumps(list_record(claims)))
        return
    for line in _list_lines(claims, min(LIST_COLUMNS, terminal.terminal_width(LIST_COLUMNS))):
        click.echo(line)
    click.echo(_plural(len(claims), "claim"), err=True)


LIST_COLUMNS = 100
"""``list`` lines never exceed this many columns (fewer on a narrower terminal)."""


def _list_lines(claims, columns: int) -> list[str]:
    """One line per claim: id, equation label (cut at 22 characters), title and aliases cut to fit."""
    columns = max(columns, 60)
    width = max([len(c.id) for c in claims] + [2])
    eq_width = min(max([len(c.source.equation) for c in claims] + [2]), 22)
    out = []
    for c in claims:
        eq = c.source.equation if len(c.source.equation) <= eq_width else c.source.equation[: eq_width - 3] + "..."
        extra = f"  [{', '.join(c.aliases)}]" if c.aliases else ""
        extra += "  (slow)" if c.slow else ""
        head = f"{c.id:<{width}}  {eq:<{eq_width}}  "
        room = columns - len(head)
        title_room = max(room - len(extra), min(len(c.title), 40))  # the title first, then aliases
        title = c.title if len(c.title) <= title_room else c.title[: max(title_room - 3, 0)] + "..."
        left = room - len(title)
        if len(extra) > left:  # keep whole aliases that fit, count the others
            slow_tag = "  (slow)" if c.slow else ""
            for k in range(len(c.aliases), -1, -1):
                shown = list(c.aliases[:k]) + ([f"+{len(c.aliases) - k}"] if k < len(c.aliases) else [])
                extra = f"  [{', '.join(shown)}]{slow_tag}"
                if len(extra) <= left:
                    break
            else:
                extra = ""
            if len(extra) > left:
                extra = ""
        out.append(head + title + extra)
    return out


@cli.command()
@click.argument("claim_id")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Also load claims from this .py file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the claim's LaTeX block alone (raw, not wrapped).")
@color_option
def show(claim_id, packs, as_json, as_latex):
    """Statement as printed, assumptions, derivation steps, corrected forms, controls.

    Lines are wrapped to the terminal width; derivation steps are shown in SymPy's plain notation
    (--latex gives the LaTeX block, unwrapped, for pasting).
    """
    from .records import dumps, show_record

    if as_json and as_latex:
        raise click.UsageError("give --json or --latex, not both")
    _load(packs)
    claims = resolve([claim_id])
    if as_json:
        click.echo(dumps(show_record(claims)))
        return
    if as_latex:
        from .latex import claim_latex

        for c in claims:
            click.echo(claim_latex(c))
        return
    columns = max(60, terminal.terminal_width(100))
    for c in claims:
        click.echo(_describe(c, columns=columns))


def _describe(c, *, columns: int = 100) -> str:
    """The ``show`` text of a claim, every line at most ``columns`` wide (LaTeX wrapped as text)."""
    import sympy as sp

    def para(text: str, indent: int, hang: int = 2) -> list[str]:
        return textwrap.wrap(" ".join(str(text).split()), width=columns, initial_indent=" " * indent,
                             subsequent_indent=" " * (indent + hang), break_on_hyphens=False) or [""]

    s = c.source
    lines = para(f"{c.id}: {c.title}", 0, 4)
    lines += para(f"source: {s.paper}, section {s.section}, {s.equation}", 2)
    lines += para(f"as printed (LaTeX): {s.printed}", 2, 4)
    if c.aliases:
        lines += para(f"aliases: {', '.join(c.aliases)}", 2)
    for a in c.assumptions:
        lines += para(f"assume: {a}", 2, 4)
    for st in c.statements():
        lines += para(f"[{st.kind}] {st.name}: {st.latex}", 2, 4)
        if st.note:
            lines += para(st.note, 6, 0)
        if st.derivation is not None:
            d = st.derivation()
            scope = "all sizes" if d.general else f"fixed sizes {d.sizes}"
            lines += para(f"derivation ({len(d.steps)} steps, {scope}):", 6)
            for k, step in enumerate(d.steps, 1):
                why = f"   [{step.why}]" if step.why else ""
                lines += para(f"{k}. {sp.sstr(step.lhs)} = {sp.sstr(step.rhs)}{why}", 7, 3)
    for ctl in c.controls:
        lines += para(f"[control] {ctl.name}", 2, 4)
    return "\n".join(lines)


def _progress_fn(enabled: bool):
    """A :class:`terminal.Progress` on stderr (elapsed, ETA, current claim), or None when disabled."""
    return terminal.Progress(stream=sys.stderr) if enabled else None


def _clear(progress) -> None:
    if progress is not None:
        progress.clear()


def _table(run, *, colour: bool = False) -> str:
    """Human-readable table: a header line per claim, its evidence wrapped below, then variants."""
    cols = max(60, shutil.get_terminal_size((120, 24)).columns)
    width = max([len(r.id) for r in run.results] + [2])
    rows = []

    def wrap(text: str, indent: int) -> list[str]:
        return textwrap.wrap(text, width=cols, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2),
                             break_on_hyphens=False) or [""]

    for r in run.results:
        rows.append(f"{r.id:<{width}}  {terminal.style_verdict(r.verdict.value, colour, width=12)} {r.seconds:6.2f}s")
        if r.variants:
            rows += wrap(f"as printed: {r.printed.verdict.value}: {r.printed.evidence}", 4)
        else:
            rows += wrap(r.evidence, 4)
        for sub in (*r.variants, *r.controls):
            label = sub.name if sub.name.startswith(sub.kind) else f"{sub.kind}: {sub.name}"
            rows += wrap(f"└ {label}: {sub.verdict.value}: {sub.evidence}", 4)
    return "\n".join(rows)


@cli.command(epilog=EPILOG)
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
@color_option
def run(ids, paper, all_, trials, seed, as_json, slow, controls, fuzz, packs, quiet, dims_text, jobs, timeout):
    """Run claims: symbolic derivation, numeric stage, verdict.

    IDS are claim ids (prh.eq31) or bare labels (eq31), which run every paper's match.
    """
    from .records import dumps, run_record
    from .workers import check_dims, parse_dims, run_claims_parallel

    check_environment()
    dims = parse_dims(dims_text)
    _start_workers_early(jobs)
    pack_claims = _load(packs, timeout)
    claims, skipped = _select(ids, paper, all_, pack_claims, slow=slow)
    check_dims(claims, dims)
    show_progress = not quiet and not as_json and sys.stderr.isatty()
    progress = _progress_fn(show_progress)
    try:
        with _deprecations_noted():  # workers send their warnings back; they are re-issued here
            result = run_claims_parallel(claims, seed=seed, trials=trials, controls=controls, fuzz=fuzz, dims=dims,
                                         jobs=jobs, timeout=timeout, packs=packs, progress=progress,
                                         skipped_slow=skipped)
    finally:
        _clear(progress)
    if as_json:
        click.echo(dumps(run_record(result)))
    else:
        colour = use_colour()
        click.echo(_table(result, colour=colour), color=colour)
        counts = ", ".join(f"{n} {terminal.style_verdict(v, colour)}" for v, n in result.counts().items())
        skip = f"; {len(skipped)} slow skipped (--slow)" if skipped else ""
        ctl = ""
        if controls:
            bad = result.unrefuted_controls
            ctl = (f"; controls: {result.controls_run - len(bad)}/{result.controls_run} refuted"
                   + (f" (NOT refuted: {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''})" if bad else ""))
        click.echo(f"{_plural(len(result.results), 'claim')}: {counts} in {result.seconds:.1f} s (seed {seed}){skip}{ctl}",
                   color=colour)
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


@cli.command(epilog=EPILOG)
@click.argument("ids", nargs=-1)
@click.option("--paper", help="Report every claim of this paper.")
@click.option("--all", "all_", is_flag=True, help="Report every claim.")
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--pdf", is_flag=True, help="Also compile DIR/report.pdf with latexmk (needs TeX Live); = --format pdf.")
@click.option("--format", "fmt", type=click.Choice(["tex", "pdf", "md"]), default=None,
              help="tex (default): DIR/report.tex; pdf: also compile it; md: DIR/report.md (Markdown, $...$ math).")
@click.option("--compact", is_flag=True, help="Summary table and one box per erratum only (the pages a review needs).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances per statement (custom checks run trials/8).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--slow", is_flag=True, help="Include slow simulations.")
@click.option("--controls", is_flag=True, help="Also run and report each claim's negative controls.")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Load claims from this .py file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@_worker_options
@color_option
def report(ids, paper, all_, out_dir, pdf, fmt, compact, trials, seed, slow, controls, packs, quiet, jobs, timeout):
    """Write a derivation report: DIR/report.tex and figures (--pdf compiles it, --format md writes Markdown).

    An output folder that holds an older report is cleaned first (its report.* files and
    figures are removed; the command says how many); other files there are left alone.
    """
    try:
        from .report import check_pdf_engine, write_report
        from .report.writer import OUTPUTS, clean_out_dir
    except ImportError as exc:
        raise click.ClickException(f"reports need the [report] extra: pip install '.[report]' from the "
                                   f"checkout, or pip install 'theorem-check[report]' ({exc})")
    from .workers import run_claims_parallel

    check_environment()
    if pdf and fmt not in (None, "pdf"):
        raise click.UsageError(f"--pdf and --format {fmt} contradict each other")
    fmt = fmt or ("pdf" if pdf else "tex")
    if fmt == "pdf":
        check_pdf_engine()  # fail in one line before running anything
    _prepare_out_dir(out_dir)
    _start_workers_early(jobs)
    pack_claims = _load(packs, timeout)
    claims, skipped = _select(ids, paper, all_, pack_claims, slow=slow)
    show_progress = not quiet and sys.stderr.isatty()
    progress = _progress_fn(show_progress)
    try:
        with _deprecations_noted():
            result = run_claims_parallel(claims, seed=seed, trials=trials, controls=controls, jobs=jobs,
                                         timeout=timeout, packs=packs, progress=progress, skipped_slow=skipped)
    finally:
        _clear(progress)
    old = clean_out_dir(out_dir)
    if old and not quiet:
        click.echo(f"theorem-check: {out_dir}: removed {_plural(len(old), 'file')} of an older report", err=True)

    def stage(name, k, n):
        if show_progress:
            label = f"figures {k + 1}/{n}" if name == "figures" else "LaTeX (latexmk, several passes)"
            click.echo(f"\r[report] {label:<50}", err=True, nl=False)

    import shlex

    rerun = shlex.join(["theorem-check", "report", *sys.argv[2:]]) if sys.argv[1:2] == ["report"] else None
    path = write_report(result, out_dir, fmt=fmt, compact=compact, rerun=rerun, progress=stage)
    _clear_progress(show_progress)
    click.echo(str(path))
    _report_broken(result)
    _exit_reason(result)
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

    Exit code 1 when any verdict changes across seeds, or (with --controls) a control is not
    refuted on some seed.
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
    _report_broken(res)
    sys.exit(res.exit_code)


def _clear_progress(shown: bool) -> None:
    """End a progress line (carriage-return updates on stderr) so that the next output starts clean."""
    if shown:
        click.echo("\r" + " " * 60 + "\r", err=True, nl=False)


def _exit_reason(result) -> None:
    """Why the exit code is 1 (one stderr line), e.g. ``exit 1: 9 claims are ERRATUM, 1 is REFUTED``."""
    if result.exit_code != 1:
        return
    bad = [(v, n) for v, n in result.counts().items() if v not in ("PROVED", "VERIFIED")]
    parts = [f"{n} claim{'s' if n != 1 else ''} {'are' if n != 1 else 'is'} {v}" if k == 0 else
             f"{n} {'are' if n != 1 else 'is'} {v}" for k, (v, n) in enumerate(bad)]
    if parts:
        click.echo("theorem-check: exit 1: " + ", ".join(parts), err=True)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _prepare_out_dir(out_dir: str) -> None:
    """Create the report directory before any claim runs; bad paths are a one-line error (exit 2)."""
    import os
    from pathlib import Path

    if not out_dir.strip():
        raise click.BadParameter(f"{out_dir!r} must name a directory", param_hint="'-o' / '--out'")
    path = Path(out_dir)
    if path.exists() and not path.is_dir():
        raise click.BadParameter(f"{out_dir!r} exists and is not a directory", param_hint="'-o' / '--out'")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(f"{out_dir!r} cannot be created: {exc.strerror or exc}",
                                 param_hint="'-o' / '--out'") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise click.BadParameter(f"{out_dir!r} is not writable", param_hint="'-o' / '--out'")
    import tempfile

    try:  # os.access says yes to root on a read-only mount or /proc: try it
        with tempfile.TemporaryFile(dir=path, prefix=".theorem-check-probe-"):
            pass
    except OSError as exc:
        raise click.BadParameter(f"{out_dir!r} is not writable: {exc.strerror or exc}",
                                 param_hint="'-o' / '--out'") from None


def _one_line(exc: click.ClickException) -> str:
    """Click's message on one line, with the help hint of usage errors (no 'Usage:' block)."""
    msg = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


@cli.command("check", epilog=EPILOG)
@click.argument("statement")
@click.option("--shape", "shape", multiple=True, metavar="NAME=ROWS,COLS",
              help="A matrix and its shape; sizes are numbers or letters (drawn, 1..4 unless --size).")
@click.option("--assume", "assume", multiple=True, metavar="NAME=KIND",
              help="Structure: symmetric, spd, orthogonal, invertible, diagonal, antisymmetric (positive: scalars).")
@click.option("--size", "size", multiple=True, metavar="LETTER=LO:HI", help="Range of a size letter (default 1:4).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances (spread over min(trials, 4) size configurations).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--json", "as_json", is_flag=True, help="Write a JSON record to stdout instead of the table.")
@click.option("--controls", is_flag=True, help="Also run the derived negative controls (they should be REFUTED).")
@click.option("--latex", "from_latex", is_flag=True,
              help="Read STATEMENT as LaTeX (SymPy's LaTeX parser; scalar statements only).")
def check(statement, shape, assume, size, trials, seed, as_json, controls, from_latex):
    """Check one identity "LHS = RHS" given in SymPy syntax.

    \b
    `*` is the matrix product, `.T` the transpose, `**-1` the inverse; trace, det, log(det(X)),
    grad(f, X), jacobian(F, x), hessian(f, x), softmax, logsumexp, sigmoid, softplus, vec, kron,
    diag, hadamard, expm, logm, sqrtm, sin, cos, exp, log, sqrt, abs (elementwise on matrices).
    Names without --shape are scalars (size letters are integers).  grad with respect to a
    symmetric/spd matrix is the symmetric gradient (G + G^T)/2 (arXiv:1911.06491).

    \b
    Examples:
      theorem-check check "grad(trace(X*X*B), X) = (X*B + B*X).T" --shape X=n,n --shape B=n,n
      theorem-check check "grad(log(det(X)), X) = X**-1" --shape X=n,n --assume X=spd
      theorem-check check "(A*B).T = A.T*B.T" --shape A=m,k --shape B=k,n      # ILL-POSED, exit 1
    """
    from .check_cmd import _latex_statement, _options, build_claim, scalar_names
    from .errors import InvalidArgument
    from .records import dumps, run_record
    from .runner import run_claims

    shapes, structure, sizes = _options(shape, assume, size)
    if from_latex:
        if shapes:
            raise InvalidArgument("--latex reads scalar statements only (SymPy's LaTeX parser multiplies "
                                  "commuting symbols); give matrix statements in SymPy syntax")
        statement = _latex_statement(statement)
    claim = build_claim(statement, shapes, structure, sizes)
    scalars = scalar_names(statement, shapes)
    if scalars:
        click.echo(f"theorem-check: note: {', '.join(scalars)} {'has' if len(scalars) == 1 else 'have'} no --shape: "
                   f"taken as real scalar{'s' if len(scalars) > 1 else ''}", err=True)
    with _deprecations_noted():
        result = run_claims([claim], seed=seed, trials=trials, controls=controls)
    if as_json:
        rec = {**run_record(result, kind="check"), "statement": statement,
               "shapes": {k: list(v) for k, v in shapes.items()}, "assume": dict(structure),
               "sizes": {k: list(v) for k, v in claim.statement.dims.ranges.items()}}
        click.echo(dumps(rec))
    else:
        click.echo(_table(result))
        counts = ", ".join(f"{n} {v}" for v, n in result.counts().items())
        click.echo(f"{_plural(len(result.results), 'claim')}: {counts} in {result.seconds:.1f} s (seed {seed})")
    _report_broken(result)
    sys.exit(result.exit_code)


def main(argv=None) -> None:
    """Console-script entry point: runs the CLI, turning package errors into one line + exit 2.

    Environment problems met while writing (a full disk or closed pipe on stdout, an unwritable
    file) are one line and exit 2 as well; stdout is flushed here so that they surface before exit.
    Output streams whose encoding cannot print a character fall back to ASCII
    (:func:`terminal.install_ascii_fallback`).  Arguments over 200 characters are cut in messages.
    """
    terminal.install_ascii_fallback()
    args = list(sys.argv[1:] if argv is None else argv)
    code = _run_main(argv, args)
    sys.exit(_flush_stdout(code))


def _error(message: str, args) -> None:
    try:
        click.echo(f"theorem-check: error: {terminal.shorten_args(message, args)}", err=True)
    except (OSError, UnicodeError):  # stderr itself is unusable: the exit code still says it
        pass


def _run_main(argv, args) -> int:
    try:
        rv = cli.main(args=argv, prog_name="theorem-check", standalone_mode=False)
        if isinstance(rv, int) and not isinstance(rv, bool):  # standalone_mode=False returns Exit codes
            return rv
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("theorem-check: aborted", err=True)
        return 130
    except click.ClickException as exc:
        if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
            exc.show()  # bare `theorem-check`: the help text is the useful answer
        else:
            _error(_one_line(exc), args)
        return 2
    except TheoremCheckError as exc:
        _error(str(exc), args)
        return 2
    except SystemExit as exc:
        if isinstance(sys.stdout, click.utils.PacifyFlushWrapper):  # Click met EPIPE (`| head`) and exits 1
            return 2
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BrokenPipeError:  # the reader of stdout left (`| head`): exit quietly
        _silence_stdout()
        return 2
    except OSError as exc:  # the environment (disk full, read-only, bad path), not the mathematics
        _error(terminal.environment_error(exc), args)
        return 2
    except UnicodeEncodeError as exc:  # a stream the ASCII fallback could not be installed on
        _error(f"cannot write output in encoding {exc.encoding!r} (set PYTHONIOENCODING=utf-8)", args)
        return 2
    except Exception as exc:  # noqa: BLE001 - never a traceback for users; THEOREM_CHECK_DEBUG=1 shows it
        import os

        if os.environ.get("THEOREM_CHECK_DEBUG"):
            raise
        click.echo(f"theorem-check: internal error: {type(exc).__name__}: "
                   f"{terminal.shorten_args(str(exc), args)} (set THEOREM_CHECK_DEBUG=1 for the traceback)", err=True)
        return 3
    return 0


def _flush_stdout(code: int) -> int:
    """Flush stdout; a write error (ENOSPC) becomes one line on stderr and exit code 2 (EPIPE: no line)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (`| head`): nothing to tell it
        _silence_stdout()
        return 2
    except OSError as exc:
        _silence_stdout()
        _error(terminal.environment_error(exc), [])
        return 2
    return code


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's own flush at exit cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
