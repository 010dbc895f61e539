"""Options and helpers every command shares: colour, claim selection, pack loading, worker options,
the result table, progress lines, exit reasons (one place for each)."""

from __future__ import annotations

import contextlib
import shutil
import sys
import textwrap

import click

from theorem_check.authoring.registry import REGISTRY, load_builtin, load_pack, resolve
from theorem_check.model.verdicts import VERDICTS
from theorem_check.output import terminal
from theorem_check.output.unicode_math import text_to_unicode
from theorem_check.validation import plural

__all__ = ["EPILOG", "color_option", "use_colour", "check_environment", "load_claims", "start_workers_early",
           "FiniteSeconds", "timeout_option", "worker_options", "select_claims", "progress_fn", "clear_progress",
           "result_table", "deprecations_noted", "report_broken", "exit_reason", "plural", "prepare_out_dir"]

EPILOG = "\b\nVerdicts:\n" + "".join(f"  {v.value:<14}{info.meaning}\n" for v, info in VERDICTS.items()) + """\b
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
  THEOREM_CHECK_CACHE_DIR  folder of the cost data (longest claims first) and cached SymPy results; off disables it
  THEOREM_CHECK_CACHE   set to 0 to recompute SymPy results instead of reading them from the cache
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
    """Checks before any claim runs (one line, exit 2): ``THEOREM_CHECK_BUDGET``,
    ``THEOREM_CHECK_SYMPY_TIMEOUT`` and ``THEOREM_CHECK_ARB`` parse."""
    from theorem_check.engine.symbolic import resolve_time_limit
    from theorem_check.validation import check_budget

    check_budget()
    resolve_time_limit()   # InvalidArgument naming the variable and its value
    _check_arb()


def _check_arb() -> None:
    """``THEOREM_CHECK_ARB`` reads as on or off (helper-61: ``maybe`` was taken as on, silently)."""
    import os

    from theorem_check.errors import InvalidArgument
    from theorem_check.numerics.arb import ARB_ENV, ARB_OFF, ARB_ON

    raw = os.environ.get(ARB_ENV)
    if raw is not None and raw.strip().lower() not in ARB_ON + ARB_OFF:
        raise InvalidArgument(f"{ARB_ENV}={raw!r} must be 1 or 0 (on, off, true, false, yes, no)")


def load_claims(packs: tuple[str, ...], timeout: float | None = None) -> list:
    from pathlib import Path

    from theorem_check.errors import PackError
    from theorem_check.execution.tasks import pack_files, quietly
    from theorem_check.execution.workers import DEFAULT_IMPORT_TIMEOUT, check_packs

    # packs are imported first in a probe process with a time limit: a pack that hangs, exits or
    # crashes at import is a one-line error (exit 2), never the run's exit status
    probed = check_packs(packs, DEFAULT_IMPORT_TIMEOUT if timeout is None else (timeout or None))
    probed_files = {Path(f) for f in pack_files(packs)}
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
            # a file pack was imported by the probe first, which showed what it prints at import (on stderr)
            with quietly() if key in probed_files else contextlib.nullcontext():
                new.extend(load_pack(p))
        except SystemExit as exc:
            raise PackError(f"pack={p!r} called sys.exit({exc.code!r}) at import") from None
    return new


def start_workers_early(jobs) -> None:
    """Start the workers' fork server now: it imports the catalogue while this process does."""
    from theorem_check.execution.workers import default_jobs, start_method_ready

    if (jobs or default_jobs()) > 1:
        start_method_ready()


class FiniteSeconds(click.FloatRange):
    """A float range that refuses NaN (which compares false with both bounds and slipped through)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        v = super().convert(value, param, ctx)
        if v != v:
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return v


def timeout_option(f):
    """--timeout (theorem_check.execution.workers): seconds per claim, 0 = no limit."""
    from theorem_check.execution.workers import DEFAULT_TIMEOUT, SLOW_TIMEOUT_FACTOR

    return click.option("--timeout", type=FiniteSeconds(min=0, max=1e7), default=DEFAULT_TIMEOUT, show_default=True,
                        help=f"Seconds per claim (x{SLOW_TIMEOUT_FACTOR} for slow simulations; also bounds pack "
                             "imports); a claim over it is INCONCLUSIVE. 0 = no limit.")(f)


def worker_options(f):
    """--jobs and --timeout (theorem_check.execution.workers)."""
    f = timeout_option(f)
    return click.option("--jobs", "-j", type=click.IntRange(1, 4096), default=None, envvar="THEOREM_CHECK_JOBS",
                        show_envvar=True,
                        help="Worker processes [default: the number of cores]; 1 runs in this process.")(f)


def select_claims(ids, paper, all_, pack_claims, *, slow: bool):
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


def progress_fn(enabled: bool):
    """A :class:`terminal.Progress` on stderr (elapsed, ETA, current claim), or None when disabled."""
    return terminal.Progress(stream=sys.stderr, refresh=terminal.REFRESH_SECONDS) if enabled else None


def clear_progress(progress) -> None:
    if progress is not None:
        progress.clear()


def result_table(run, *, colour: bool = False) -> str:
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
            label = text_to_unicode(label)     # the variant's $...$ maths as show prints it, not raw LaTeX
            rows += wrap(f"└ {label}: {sub.verdict.value}: {sub.evidence}", 4)
    return "\n".join(rows)


@contextlib.contextmanager
def deprecations_noted():
    """Collect the deprecated-API warnings of a run into one stderr note (not one warning per statement)."""
    import warnings

    from theorem_check.errors import TheoremCheckDeprecationWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TheoremCheckDeprecationWarning)
        yield
    dep = [w for w in caught if issubclass(w.category, TheoremCheckDeprecationWarning)]
    for w in caught:
        if w not in dep:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if dep:
        click.echo(f"theorem-check: note: {plural(len(dep), 'statement')} decided by their own check (deprecated "
                   "tc.Measurement: no mutant can test them; return tc.Refinement or tc.MonteCarlo, see "
                   "docs/writing-claims.md)", err=True)


def report_broken(result) -> None:
    """One stderr line for statements that could not be evaluated at all (exit code 2)."""
    broken = result.broken
    if broken:
        more = f" (and {len(broken) - 1} more statements)" if len(broken) > 1 else ""
        click.echo(f"theorem-check: error: {broken[0]}{more}", err=True)


def exit_reason(result) -> None:
    """Why the exit code is 1 (one stderr line), e.g. ``exit 1: 9 claims are ERRATUM, 1 is REFUTED``."""
    if result.exit_code != 1:
        return
    bad = [(v, n) for v, n in result.counts().items() if v not in ("PROVED", "VERIFIED")]
    parts = [f"{n} claim{'s' if n != 1 else ''} {'are' if n != 1 else 'is'} {v}" if k == 0 else
             f"{n} {'are' if n != 1 else 'is'} {v}" for k, (v, n) in enumerate(bad)]
    if parts:
        click.echo("theorem-check: exit 1: " + ", ".join(parts), err=True)


def prepare_out_dir(out_dir: str) -> None:
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


