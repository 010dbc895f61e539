"""Tasks and their outcomes: one claim on one seed, run in this process or in a worker, with a time limit."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from theorem_check.model.options import RunOptions

__all__ = ["BLAS_VARS", "blas_threads", "CATALOGUE_TIMEOUT", "ClaimTimeout", "DEFAULT_IMPORT_TIMEOUT", "DEFAULT_TIMEOUT", "TaskOutcome", "SLOW_TIMEOUT_FACTOR", "START_METHOD", "Task", "default_jobs", "died", "failed_result", "fmt_seconds", "pack_error_text", "pack_files", "quietly", "reissue_warnings", "run_capturing", "run_task", "timeout_for"]


DEFAULT_TIMEOUT = 120.0
"""Default per-claim time limit in seconds (``--timeout``); slow simulations get
:data:`SLOW_TIMEOUT_FACTOR` times as much.  The slowest non-slow claim takes about 6 s here."""

SLOW_TIMEOUT_FACTOR = 10
"""Multiplier of the time limit for claims marked ``slow`` (simulations)."""

DEFAULT_IMPORT_TIMEOUT = 120.0
"""Default time limit in seconds for importing the packs (the clock starts after the catalogue)."""

CATALOGUE_TIMEOUT = 600.0
"""Time limit for a worker or probe to import the built-in catalogue (seconds; a loaded machine
can take tens of seconds, a broken installation hangs)."""

START_METHOD = "forkserver"
"""The multiprocessing start method of the workers (see the module docstring)."""

BLAS_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def default_jobs() -> int:
    """The number of cores this process may use (``os.process_cpu_count`` on Python >= 3.13,
    else the scheduler affinity mask, else ``os.cpu_count``); at least 1."""
    fn = getattr(os, "process_cpu_count", None)
    if fn is not None:
        return max(1, fn() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Task:
    """One unit of work: run claim ``claim_id`` with ``options`` (picklable; no Claim inside).

    ``options`` is the run's :class:`~theorem_check.model.options.RunOptions`, validated once where
    it was built; the worker passes it to :func:`~theorem_check.engine.runner.run_claim` unchanged.
    """

    claim_id: str
    options: RunOptions = RunOptions()

    @property
    def seed(self) -> int:
        """The run seed (``options.seed``)."""
        return self.options.seed


@dataclass(frozen=True)
class TaskOutcome:
    """What came back for one task: ``kind`` is ``"ok"`` (``result`` is a
    :class:`~theorem_check.engine.runner.ClaimResult` whose ``claim`` is the claim id), ``"timeout"``,
    ``"died"`` or ``"error"`` (``message`` says what happened; ``seconds`` the wall time)."""

    kind: str
    result: object = None
    message: str = ""
    seconds: float = 0.0
    warnings: tuple = ()


class ClaimTimeout(BaseException):
    """Raised inside an in-process claim (``jobs=1``) when its time limit passes.

    A ``BaseException`` so that claim code's ``except Exception`` cannot swallow it.
    """


def pack_files(packs: Iterable[str]) -> tuple[str, ...]:
    """Absolute paths of the packs that are files, each once, in order (a pack named twice is
    loaded once, as the command line does)."""
    return tuple(dict.fromkeys(str(Path(p).resolve()) for p in packs if Path(p).is_file()))


def pack_error_text(pack: str, exc: BaseException) -> str:
    """One line for an exception a pack raised at import: a PackError's or a ClaimDefinitionError's own message
    (they name the pack already), else ``pack='...': Type: message`` (``: message`` left out when empty, as
    for a KeyboardInterrupt)."""
    from theorem_check.errors import PackError

    text = str(exc)
    if isinstance(exc, PackError) or text.startswith(f"pack={pack!r}"):
        return text
    return f"pack={pack!r}: {type(exc).__name__}" + (f": {text}" if text else "")


@contextlib.contextmanager
def quietly():
    """Discard what is printed to stdout and stderr inside the block: a pack imported again (by the command after
    its probe, by each worker) printed what it prints at import once already, from the probe (on stderr)."""
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink), \
            contextlib.redirect_stderr(sink):
        yield


def timeout_for(claim, timeout: float | None) -> float | None:
    """The time limit of ``claim``: ``timeout`` (``None`` or 0 = none), times
    :data:`SLOW_TIMEOUT_FACTOR` for slow claims."""
    if not timeout:
        return None
    return float(timeout) * (SLOW_TIMEOUT_FACTOR if getattr(claim, "slow", False) else 1)


# ---------------------------------------------------------------------------------------------
# running one task (in a worker, or in process)


def run_task(task: Task, claim=None):
    """Run ``task`` in this process; returns its ClaimResult with ``claim`` replaced by the id
    (a Claim holds functions and does not pickle).  The registry must hold the claim, unless it is
    given (``check``'s statement, run in process)."""
    from theorem_check.authoring.registry import REGISTRY
    from theorem_check.engine.runner import run_claim

    claim = REGISTRY.get(task.claim_id) if claim is None else claim
    with blas_threads():
        result = run_claim(claim, options=task.options)
    return dataclasses.replace(result, claim=claim.id)


def blas_threads():
    """A context in which BLAS runs one thread, unless the user set one of :data:`BLAS_VARS`.

    The engine's linear algebra is many products and factorisations of matrices up to a few hundred
    rows: one thread is as fast on an idle machine and, on a shared one, BLAS threads spinning on busy
    cores made a ``256 x 256`` log-det gradient check 4x slower (50 s against 13 s, measured under a
    running sweep).  Worker processes get the same setting from the environment of the fork server;
    this covers ``check`` and ``--jobs 1``, which run in the calling process after NumPy loaded BLAS
    (so only ``threadpoolctl`` can still change it).  SciPy's wheels bring a second OpenBLAS, which the engine
    loads lazily (``scipy.linalg``): it is imported first, so that both are limited.  A no-op context when the
    user set a variable.
    """
    import contextlib

    if any(os.environ.get(k) for k in BLAS_VARS):
        return contextlib.nullcontext()
    return _blas_controller().limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=1)
def _blas_controller():
    """One threadpoolctl controller for the process: building one scans every loaded shared library (7 ms a
    claim in ``run --all``, 2 % of its CPU); limiting through it afterwards costs 10 us."""
    import scipy.linalg  # noqa: F401 - SciPy ships its own OpenBLAS, loaded on first import: limit that one too
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def run_capturing(task: Task, claim=None):
    """:func:`run_task`, with the warnings it issued as picklable tuples
    ``(category module, category name, message, filename, lineno)``."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_task(task, claim)
    # one claim may issue the same warning several times (shrinking, repeated checks): once each
    return result, tuple(dict.fromkeys((w.category.__module__, w.category.__qualname__, str(w.message), w.filename,
                                        w.lineno) for w in caught))


def reissue_warnings(outcomes: Iterable[TaskOutcome]) -> None:
    """Issue again, in this process and in task order, the warnings the tasks issued."""
    import importlib
    import warnings

    for o in outcomes:
        for mod, name, message, filename, lineno in o.warnings:
            try:
                category = getattr(importlib.import_module(mod), name)
                if not (isinstance(category, type) and issubclass(category, Warning)):
                    raise TypeError
            except Exception:  # noqa: BLE001 - a category defined in a pack the parent cannot name
                category, message = UserWarning, f"{mod}.{name}: {message}"
            warnings.warn_explicit(message, category, filename, lineno)


def failed_result(claim, task: Task, evidence: str, seconds: float = 0.0):
    """An INCONCLUSIVE ClaimResult for a claim that timed out or whose worker died."""
    from theorem_check.engine.runner import ClaimResult, StatementResult
    from theorem_check.model.verdicts import Verdict

    st = claim.statements()[0]
    printed = StatementResult(name=st.name, kind=st.kind, latex=st.latex, verdict=Verdict.INCONCLUSIVE,
                              evidence=evidence, symbolic=None, numeric=None, seed=task.seed, seconds=seconds)
    return ClaimResult(claim=claim, verdict=Verdict.INCONCLUSIVE, evidence=evidence, printed=printed, variants=(),
                       controls=(), seed=task.seed, seconds=seconds)


def fmt_seconds(s: float) -> str:
    return f"{s:g} s"


def died(exitcode: int | None) -> str:
    if exitcode is None:
        return "worker died"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if -exitcode == signal.SIGKILL else ""
        return f"worker died: killed by {name}{hint}"
    return f"worker died: exit code {exitcode} (os._exit or sys.exit in claim code)"


# ---------------------------------------------------------------------------------------------
# the worker process
