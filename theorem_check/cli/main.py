"""The command line: ``theorem-check list | show | run | report`` (DESIGN.md, "The command line").

Exit codes: 0 when every claim run is PROVED or VERIFIED; 1 when any is REFUTED, ERRATUM,
ILL-POSED or INCONCLUSIVE; 2 for usage errors and bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import contextlib
import sys

import click

from theorem_check._version import __version__
from theorem_check.cli.options import EPILOG, check_environment, color_option, use_colour
from theorem_check.errors import InternalError, TheoremCheckError
from theorem_check.output import terminal

__all__ = ["main", "cli", "color_option", "use_colour", "check_environment", "EPILOG"]


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




def _one_line(exc: click.ClickException) -> str:
    """Click's message on one line, with the help hint of usage errors (no 'Usage:' block)."""
    msg = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.NoSuchOption) and not str(exc.option_name).startswith("--") and ctx is not None \
            and ctx.info_name in ("check", "derive"):
        msg += (f" (a statement that starts with '-' goes last, after '--': theorem-check {ctx.info_name} --shape "
                "X=n,n -- \"-X*X = ...\")")
    if isinstance(exc, click.UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg




def main(argv=None) -> None:
    """Console-script entry point: runs the CLI, turning package errors into one line + exit 2.

    Environment problems met while writing (a full disk or closed pipe on stdout, an unwritable
    file) are one line and exit 2 as well; stdout is flushed here so that they surface before exit.
    Output streams whose encoding cannot print a character fall back to ASCII
    (:func:`terminal.install_ascii_fallback`).  Arguments over 200 characters are cut in messages.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    _said.clear()
    from theorem_check.expr import sympy_rng

    with _native_stdout_on_stderr():
        terminal.install_ascii_fallback()
        with sympy_rng.seeded(0):   # one command line, one output: SymPy's own generators too (decision 118)
            code = _run_main(argv, args)
        code = _flush_stdout(code)
    sys.exit(code)


@contextlib.contextmanager
def _native_stdout_on_stderr():
    """What C libraries write to file descriptor 1 themselves goes to stderr while the command runs: LAPACK's
    ``** On entry to DLASCL parameter number 4 had an illegal value`` (an ``expm`` of an overflowed matrix) came
    before ``--json``'s output and made it invalid JSON (helper-69).  Python's ``sys.stdout`` writes to a duplicate
    of the original descriptor meanwhile, so stdout carries only what theorem-check prints; both are restored after.
    Only where ``sys.stdout`` is the process's own stdout on descriptor 1 (not under a test's capture)."""
    import os

    out = sys.stdout
    try:
        if out is not sys.__stdout__ or out.fileno() != 1:
            raise ValueError
        out.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):
        yield
        return
    sys.stdout = os.fdopen(saved, "w", encoding=out.encoding, errors=out.errors)
    sys.stdout.reconfigure(line_buffering=out.line_buffering)
    try:
        yield
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.dup2(saved, 1)
        try:
            sys.stdout.close()
        except (OSError, ValueError):
            pass
        sys.stdout = out


def _pacify_wrapper() -> tuple:
    """Click's wrapper of stdout after a broken pipe, as a class tuple for ``isinstance`` (empty if none):
    ``click.utils.PacifyFlushWrapper`` up to Click 8.4; Click 8.5 renamed it ``_PacifyFlushWrapper`` and warns
    (DeprecationWarning) on the old name, which Click 9 removes."""
    import warnings

    cls = getattr(click.utils, "_PacifyFlushWrapper", None)
    if cls is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            cls = getattr(click.utils, "PacifyFlushWrapper", None)
    return (cls,) if isinstance(cls, type) else ()


_said: list[str] = []


def _error(message: str, args) -> None:
    """One line on stderr, once: a write error met while the command runs and again at the final flush of stdout
    (a full disk) is said once."""
    line = f"theorem-check: error: {terminal.shorten_args(message, args)}"
    if _said and _said[-1] == line:
        return
    _said.append(line)
    try:
        click.echo(line, err=True)
    except (OSError, UnicodeError):  # stderr itself is unusable: the exit code still says it
        pass


def _json_error(code: int, message: str, args) -> None:
    """With ``--json`` among the arguments (before a ``--``), also write an ``error`` record on stdout (docs/json.md):
    a script that reads stdout gets JSON even when the command failed (helper-74: a pack that failed to load)."""
    head = args[:args.index("--")] if "--" in args else args
    if "--json" not in head:
        return
    import json

    from theorem_check.output.json_record import header

    command = next((a for a in head if a in cli.commands), None)
    record = {**header("error"), "exit_code": code, "error": terminal.shorten_args(message, args), "command": command}
    try:
        click.echo(json.dumps(record))
    except (OSError, ValueError):  # stdout itself is unusable: stderr and the exit code still say it
        pass


def _run_main(argv, args) -> int:
    code, message = _run_command(argv, args)
    if message is not None:   # bad input or a bug; not a failed write of stdout (OSError): no message for JSON
        _json_error(code, message, args)
    return code


def _run_command(argv, args) -> tuple[int, str | None]:
    """The exit code, and the message of a failure an ``error`` record reports (bad input, a bug) or None."""
    try:
        rv = cli.main(args=argv, prog_name="theorem-check", standalone_mode=False)
        if isinstance(rv, int) and not isinstance(rv, bool):  # standalone_mode=False returns Exit codes
            return rv, None
    except click.exceptions.Exit as exc:
        return exc.exit_code, None
    except click.Abort:
        click.echo("theorem-check: aborted", err=True)
        return 130, None
    except click.ClickException as exc:
        if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
            exc.show()  # bare `theorem-check`: the help text is the useful answer
            return 2, None
        _error(_one_line(exc), args)
        return 2, _one_line(exc)
    except InternalError as exc:  # a failed self-check: a bug, not bad input
        import os

        if os.environ.get("THEOREM_CHECK_DEBUG"):   # as for any other internal error (helper-40)
            raise
        click.echo(f"theorem-check: internal error: {terminal.shorten_args(str(exc), args)} (set "
                   "THEOREM_CHECK_DEBUG=1 for the traceback)", err=True)
        return 3, str(exc)
    except TheoremCheckError as exc:
        _error(str(exc), args)
        return 2, str(exc)
    except SystemExit as exc:
        if isinstance(sys.stdout, _pacify_wrapper()):  # Click met EPIPE (`| head`) and exits 1
            return 2, None
        return (exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)), None
    except BrokenPipeError:  # the reader of stdout left (`| head`): exit quietly
        _silence_stdout()
        return 2, None
    except OSError as exc:  # the environment (disk full, read-only, bad path), not the mathematics
        _error(terminal.environment_error(exc), args)
        return 2, None
    except UnicodeEncodeError as exc:  # a stream the ASCII fallback could not be installed on
        _error(f"cannot write output in encoding {exc.encoding!r} (set PYTHONIOENCODING=utf-8)", args)
        return 2, None
    except Exception as exc:  # noqa: BLE001 - never a traceback for users; THEOREM_CHECK_DEBUG=1 shows it
        import os

        if os.environ.get("THEOREM_CHECK_DEBUG"):
            raise
        click.echo(f"theorem-check: internal error: {type(exc).__name__}: "
                   f"{terminal.shorten_args(str(exc), args)} (set THEOREM_CHECK_DEBUG=1 for the traceback)", err=True)
        return 3, f"{type(exc).__name__}: {exc}"
    return 0, None


def _flush_stdout(code: int) -> int:
    """Flush stdout; a write error (ENOSPC) becomes one line on stderr and exit code 2 (EPIPE: no line); a closed
    stdout (``>&-``: Python's ``sys.stdout`` is None, and nothing was written) is one line and exit code 2."""
    if sys.stdout is None:
        _error("stdout is closed: the output had nowhere to go", [])
        return 2
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


def _register_commands() -> None:
    """Add each command (one module per command) to the group."""
    from theorem_check.cli.catalogue import list_cmd, show
    from theorem_check.cli.check import check
    from theorem_check.cli.derive import derive
    from theorem_check.cli.report import report
    from theorem_check.cli.run import run
    from theorem_check.cli.scan import scan
    from theorem_check.cli.sweep import sweep

    for command in (list_cmd, show, run, report, sweep, check, derive, scan):
        cli.add_command(command)


_register_commands()
