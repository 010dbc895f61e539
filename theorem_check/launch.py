"""The console script's entry point: start the worker processes' fork server, then load the command line.

``theorem-check run --all`` spends ~0.6 s importing SymPy and the engine in this process before Click even
parses the arguments, and the fork server (which imports the catalogue, SymPy and SciPy for the workers,
:func:`theorem_check.execution.pool.context`) used to start only after that.  For the commands that run
claims on workers (``run``, ``report``, ``sweep``) it is started here first, so that both imports overlap.
The commands start it anyway (``cli.options.start_workers_early``, idempotent): this only moves it earlier, and
it is skipped where no pool will be used (``--jobs 1``, ``THEOREM_CHECK_JOBS=1``, one core, ``--help``).
Design decision 133.
"""

from __future__ import annotations

import os
import sys

__all__ = ["main"]

WORKER_COMMANDS = ("run", "report", "sweep")
"""The subcommands that run claims on a worker pool."""


def _jobs_text(args: list[str]) -> str | None:
    """The value given to ``--jobs``/``-j`` (the last one), else None."""
    value = None
    for k, a in enumerate(args):
        if a in ("--jobs", "-j") and k + 1 < len(args):
            value = args[k + 1]
        elif a.startswith("--jobs="):
            value = a.split("=", 1)[1]
        elif a.startswith("-j") and len(a) > 2 and not a.startswith("--"):
            value = a[2:]
    return value


def workers_wanted(args: list[str]) -> bool:
    """True when ``args`` (the command line without the program name) runs claims on more than one worker."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command not in WORKER_COMMANDS or any(a in ("--help", "-h") for a in args):
        return False
    jobs = _jobs_text(args) or os.environ.get("THEOREM_CHECK_JOBS")
    if jobs is not None:
        try:
            return int(jobs.strip()) != 1   # "01" is one job too
        except ValueError:
            return True   # the command reports the bad value; starting the fork server early costs nothing then
    from theorem_check.execution.tasks import default_jobs

    return default_jobs() > 1


def main(argv=None) -> None:
    """Console-script entry point (``theorem-check``): :func:`theorem_check.cli.main.main` after starting the
    fork server where workers will run (module docstring).  Never raises for a fork server that cannot start:
    the command starts or reports it itself."""
    args = list(sys.argv[1:] if argv is None else argv)
    if workers_wanted(args):
        try:
            from theorem_check.execution.pool import start_method_ready

            start_method_ready()
        except Exception:  # noqa: BLE001 - the command starts the pool itself and reports what fails
            pass
    from theorem_check.cli.main import main as cli_main

    cli_main(argv)
