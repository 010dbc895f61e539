"""Worker processes: claims run isolated, with a time limit each, on every core (issue 13).

``run``, ``report`` and ``sweep`` hand their claims to :func:`run_claims_parallel`.  With
``jobs > 1`` each claim runs in one of ``jobs`` worker processes (:class:`WorkerPool`); a claim
that outlives its time limit, or whose worker dies (``os._exit``, a segfault, the OOM killer),
becomes an INCONCLUSIVE result whose evidence says so ("timed out after 120 s", "worker died:
killed by SIGSEGV"), the worker is replaced and the run goes on.  ``jobs=1`` runs in this
process (for debuggers and ``pdb``); there the time limit is a ``SIGALRM`` that stops Python
code only, and a crash is not contained.

Determinism: a claim's seeds are derived from (run seed, claim id, statement name) inside
:func:`theorem_check.runner.run_claim`, never from the worker or the order of completion, and
results are returned in the order of the claims: same seed, same output, whatever ``jobs``.

Start method: ``forkserver`` with the catalogue preloaded.  ``fork`` from the main process
would copy whatever threads it holds (OpenBLAS's pool, a Dask client's event loop) into a
child where they do not exist, which can deadlock; ``spawn`` re-imports the catalogue in every
worker (about 2.5 s of CPU each, and again for every replacement).  The fork server is started
once, single-threaded, imports the catalogue once, and forks each worker from that state
(benchmarks/bench_parallel.py prints the start-up cost of the three methods).  Workers run
BLAS single-threaded (``OMP_NUM_THREADS=1`` etc. unless the user set them) so that ``jobs``
processes do not oversubscribe the cores.

Packs: a user pack is imported first in a probe process (:func:`check_packs`) with a time
limit, so that a pack that hangs, calls ``sys.exit`` or ``os._exit`` at import is a one-line
:class:`~theorem_check.errors.PackError` (exit 2) and never the exit status of the run.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait as _wait
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from .errors import InvalidArgument, PackError

__all__ = ["DEFAULT_TIMEOUT", "SLOW_TIMEOUT_FACTOR", "DEFAULT_IMPORT_TIMEOUT", "START_METHOD", "Task",
           "Outcome", "WorkerPool", "ClaimTimeout", "default_jobs", "timeout_for", "pack_files", "check_packs",
           "run_claims_parallel", "run_task", "run_tasks", "run_isolated", "outcome_result", "failed_result",
           "reissue_warnings", "start_method_ready", "parse_dims", "check_dims", "Progress"]

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

_BLAS_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


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
    """One unit of work: run claim ``claim_id`` with these options (picklable; no Claim inside).

    ``dims`` is a partial or full override of the claim's sizes (``run --dims``), passed to
    :func:`~theorem_check.runner.run_claim` as ``dims=`` when not empty.
    """

    claim_id: str
    seed: int = 0
    trials: int = 16
    controls: bool = False
    fuzz: int = 0
    dims: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What came back for one task: ``kind`` is ``"ok"`` (``result`` is a
    :class:`~theorem_check.runner.ClaimResult` whose ``claim`` is the claim id), ``"timeout"``,
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


def timeout_for(claim, timeout: float | None) -> float | None:
    """The time limit of ``claim``: ``timeout`` (``None`` or 0 = none), times
    :data:`SLOW_TIMEOUT_FACTOR` for slow claims."""
    if not timeout:
        return None
    return float(timeout) * (SLOW_TIMEOUT_FACTOR if getattr(claim, "slow", False) else 1)


# ---------------------------------------------------------------------------------------------
# running one task (in a worker, or in process)


def run_task(task: Task):
    """Run ``task`` in this process; returns its ClaimResult with ``claim`` replaced by the id
    (a Claim holds functions and does not pickle).  The registry must hold the claim."""
    from .registry import REGISTRY
    from .runner import run_claim

    claim = REGISTRY.get(task.claim_id)
    kwargs = dict(seed=task.seed, trials=task.trials, controls=task.controls, fuzz=task.fuzz)
    if task.dims:
        kwargs["dims"] = dict(task.dims)
    result = run_claim(claim, **kwargs)
    return dataclasses.replace(result, claim=claim.id)


def _run_capturing(task: Task):
    """:func:`run_task`, with the warnings it issued as picklable tuples
    ``(category module, category name, message, filename, lineno)``."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_task(task)
    # one claim may issue the same warning several times (shrinking, repeated checks): once each
    return result, tuple(dict.fromkeys((w.category.__module__, w.category.__qualname__, str(w.message), w.filename,
                                        w.lineno) for w in caught))


def reissue_warnings(outcomes: Iterable[Outcome]) -> None:
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
    from .runner import ClaimResult, StatementResult
    from .verdicts import Verdict

    st = claim.statements()[0]
    printed = StatementResult(name=st.name, kind=st.kind, latex=st.latex, verdict=Verdict.INCONCLUSIVE,
                              evidence=evidence, symbolic=None, numeric=None, seed=task.seed, seconds=seconds)
    return ClaimResult(claim=claim, verdict=Verdict.INCONCLUSIVE, evidence=evidence, printed=printed, variants=(),
                       controls=(), seed=task.seed, seconds=seconds)


def _fmt_seconds(s: float) -> str:
    return f"{s:g} s"


def _died(exitcode: int | None) -> str:
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


def _watch_parent(ppid: int) -> None:
    """Exit when the parent goes away (the fork server exits with the main process)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != ppid:
            os._exit(1)


def _load_everything(packs: Sequence[str], conn) -> None:
    from .registry import load_builtin, load_pack

    load_builtin()
    conn.send(("packs", None))  # the parent's import clock for the packs starts now
    for p in packs:
        load_pack(p)


def _worker_main(conn, packs: tuple[str, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how a Ctrl-C ends the run
    # the parent is the fork server (or the main process), which exits with the main process
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        _load_everything(packs, conn)
    except SystemExit as exc:
        conn.send(("error", f"a pack called sys.exit({exc.code!r}) at import"))
        return
    except BaseException as exc:  # noqa: BLE001 - reported in one line by the parent
        conn.send(("error", str(exc) if isinstance(exc, PackError) else f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        index, task = msg
        try:
            out = ("ok", index, *_run_capturing(task))
        except SystemExit as exc:
            out = ("error", index, f"SystemExit: sys.exit({exc.code!r}) in claim code")
        except BaseException as exc:  # noqa: BLE001 - a claim's failure is a result, never the run's
            out = ("error", index, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(out)
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable value in a result
            conn.send(("error", index, f"result could not be sent back: {type(exc).__name__}: {exc}"))
        if out[0] == "error":
            return  # state may be corrupt (MemoryError, sys.exit): a fresh worker takes the next task


_preload_done = False


def _context():
    """The multiprocessing context (fork server preloaded with the catalogue, BLAS single-threaded)."""
    global _preload_done
    ctx = mp.get_context(START_METHOD)
    if START_METHOD == "forkserver" and not _preload_done:
        _preload_done = True
        try:
            import derivations

            mods = ["theorem_check.runner", "theorem_check.registry"] + [f"derivations.{m}" for m in derivations.PAPERS]
        except ImportError:
            mods = ["theorem_check.runner"]
        ctx.set_forkserver_preload(mods)
        saved = {k: os.environ.get(k) for k in _BLAS_VARS}
        for k in _BLAS_VARS:
            os.environ.setdefault(k, "1")
        try:
            from multiprocessing import forkserver

            forkserver.ensure_running()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
    return ctx


def start_method_ready() -> None:
    """Start the fork server now (it imports the catalogue while this process does other work)."""
    _context()


class _Worker:
    def __init__(self, ctx, packs):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child, packs), daemon=True,
                                name="theorem-check-worker")
        self.proc.start()
        child.close()
        self.ready = False
        self.task: int | None = None
        self.started = time.monotonic()
        self.deadline: float | None = None

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


class WorkerPool:
    """``jobs`` worker processes, each with the catalogue and ``packs`` loaded.

    Use as a context manager; :meth:`run` executes tasks with per-task time limits, replacing
    workers that hang or die.  Raises :class:`PackError` (one line) if a worker cannot import
    the catalogue and packs within ``import_timeout`` seconds, or exits while importing.
    """

    def __init__(self, jobs: int, *, packs: Sequence[str] = (), import_timeout: float | None = DEFAULT_IMPORT_TIMEOUT):
        if jobs < 1:
            raise InvalidArgument(f"jobs={jobs!r} must be >= 1")
        self.jobs = int(jobs)
        self.packs = pack_files(packs)
        self.import_timeout = import_timeout
        self._ctx = _context()
        self._workers: list[_Worker] = []

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close(force=exc[0] is not None)

    def close(self, *, force: bool = False) -> None:
        """Stop every worker (ask politely unless ``force``, then kill what is left)."""
        for w in self._workers:
            if not force and w.task is None and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
        deadline = time.monotonic() + (0 if force else 2.0)
        for w in self._workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            w.kill()
        self._workers = []

    def _spawn(self) -> _Worker:
        w = _Worker(self._ctx, self.packs)
        w.deadline = w.started + CATALOGUE_TIMEOUT
        self._workers.append(w)
        return w

    def _retire(self, w: _Worker) -> None:
        w.kill()
        self._workers.remove(w)

    def run(self, tasks: Sequence[Task], *, timeouts: Sequence[float | None] | None = None,
            on_done: Callable[[int, Outcome], None] | None = None, keep: bool = True,
            order: Sequence[int] | None = None) -> list[Outcome]:
        """Execute ``tasks``; returns one :class:`Outcome` per task, in the tasks' order.

        ``order`` (a permutation of ``range(len(tasks))``) is the order tasks are handed to idle
        workers (default: as given); :func:`run_tasks` passes the longest first
        (:mod:`theorem_check.durations`).  It changes when results arrive, never what they are.

        ``timeouts[i]`` bounds task ``i`` (seconds, ``None`` = no limit); ``on_done(i, outcome)``
        is called as each task finishes (in completion order).  With ``keep=False`` outcomes are
        only passed to ``on_done`` (the list returned holds ``None``s): long sweeps keep no results.
        """
        n = len(tasks)
        timeouts = list(timeouts) if timeouts is not None else [None] * n
        if order is None:
            order = range(n)
        elif sorted(order) != list(range(n)):
            raise InvalidArgument(f"order={list(order)[:8]!r}... must be a permutation of the {n} task indices")
        pending = deque(order)
        out: list[Outcome | None] = [None] * n
        t_start: dict[int, float] = {}
        remaining = n

        def finish(i: int, o: Outcome) -> None:
            nonlocal remaining
            out[i] = o if keep else None
            remaining -= 1
            if on_done:
                on_done(i, o)

        while len(self._workers) < min(self.jobs, n):
            self._spawn()
        while remaining:
            now = time.monotonic()
            for w in list(self._workers):
                if w.ready and w.task is None and pending:
                    i = pending.popleft()
                    w.conn.send((i, tasks[i]))
                    w.task, t_start[i] = i, now
                    w.deadline = now + timeouts[i] if timeouts[i] else None
            deadlines = [w.deadline for w in self._workers if w.deadline is not None]
            wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            objs = {}
            for w in self._workers:
                objs[w.conn] = w
                objs[w.proc.sentinel] = w
            ready = _wait(list(objs), timeout=wait_for)
            handled = set()
            for obj in ready:
                w = objs[obj]
                if id(w) in handled or w not in self._workers:
                    continue
                handled.add(id(w))
                msg = None
                if w.conn.poll():
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        msg = None
                if msg is not None and msg[0] == "packs":
                    w.deadline = time.monotonic() + self.import_timeout if self.import_timeout else None
                    continue
                if msg is not None and msg[0] == "ready":
                    w.ready, w.deadline = True, None
                    continue
                if msg is not None and not w.ready:  # ("error", message) while importing
                    self._retire(w)
                    raise PackError(f"worker could not load the catalogue and packs: {msg[1]}")
                if msg is not None:
                    kind, i = msg[0], msg[1]
                    secs = time.monotonic() - t_start[i]
                    finish(i, Outcome("ok", result=msg[2], seconds=secs, warnings=msg[3]) if kind == "ok"
                           else Outcome("error", message=msg[2], seconds=secs))
                    w.task, w.deadline = None, None
                    if kind != "ok":
                        w.proc.join(5)
                        self._retire(w)
                        if pending:
                            self._spawn()
                    continue
                # no message: the worker died
                w.proc.join(5)
                code = w.proc.exitcode
                if not w.ready:
                    self._retire(w)
                    raise PackError(f"worker died while importing the catalogue and packs ({_died(code)})")
                if w.task is not None:
                    i = w.task
                    finish(i, Outcome("died", message=_died(code), seconds=time.monotonic() - t_start[i]))
                self._retire(w)
                if pending:
                    self._spawn()
            now = time.monotonic()
            for w in list(self._workers):
                if w.deadline is not None and now >= w.deadline and id(w) not in handled:
                    if not w.ready:
                        self._retire(w)
                        raise PackError(f"importing the catalogue and packs took longer than {self.import_timeout:g} s "
                                        "(a pack that hangs at import? raise --timeout if it is just slow)")
                    i = w.task
                    self._retire(w)
                    finish(i, Outcome("timeout", message=f"timed out after {_fmt_seconds(timeouts[i])}",
                                      seconds=now - t_start[i]))
                    if pending:
                        self._spawn()
        return out  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# packs: a probe process with a time limit


def _probe_main(conn, packs: tuple[str, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .registry import load_builtin, load_pack

    load_builtin()
    for p in packs:
        conn.send(("start", p))  # the parent's clock for this pack starts now
        try:
            load_pack(p)
        except SystemExit as exc:
            conn.send(("error", f"pack={p!r} called sys.exit({exc.code!r}) at import"))
            return
        except BaseException as exc:  # noqa: BLE001
            conn.send(("error", str(exc) if isinstance(exc, PackError) else f"pack={p!r}: {type(exc).__name__}: {exc}"))
            return
    conn.send(("ok", None))


class _PackProbe:
    def __init__(self, packs: Sequence[str], timeout: float | None):
        self.packs = tuple(packs)
        self.timeout = timeout
        self.t0 = time.monotonic()
        ctx = _context()
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_probe_main, args=(child, self.packs), daemon=True,
                                name="theorem-check-pack-probe")
        self.proc.start()
        child.close()

    def wait(self) -> None:
        current, t_pack = None, None
        try:
            while True:
                if current is None:
                    left = self.t0 + CATALOGUE_TIMEOUT - time.monotonic()
                else:
                    left = None if not self.timeout else t_pack + self.timeout - time.monotonic()
                if left is not None and left <= 0:
                    if current is None:
                        raise PackError(f"the catalogue did not finish importing within {CATALOGUE_TIMEOUT:g} s")
                    raise PackError(f"pack={current!r} did not finish importing within {self.timeout:g} s "
                                    "(does it loop at import? see --timeout)")
                if not self.conn.poll(left):
                    continue
                try:
                    kind, value = self.conn.recv()
                except (EOFError, OSError):
                    self.proc.join(5)
                    which = f"pack={current!r}" if current else "the catalogue"
                    raise PackError(f"{which} ended the process at import ({_died(self.proc.exitcode).split(': ', 1)[-1]})"
                                    ) from None
                if kind == "start":
                    current, t_pack = value, time.monotonic()
                elif kind == "error":
                    raise PackError(value)
                else:
                    return
        finally:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
            self.conn.close()


def check_packs(packs: Sequence[str], timeout: float | None = DEFAULT_IMPORT_TIMEOUT) -> Callable[[], None]:
    """Start importing ``packs`` in a probe process; returns a function that waits for it.

    Call the returned function before importing the packs in this process: it returns when the
    probe imported them, and raises :class:`PackError` (one line) if a pack raises, calls
    ``sys.exit``/``os._exit``, crashes or takes longer than ``timeout`` seconds at import.
    Packs that are not existing files are left to :func:`~theorem_check.registry.load_pack`.
    """
    files = pack_files(packs)
    if not files:
        return lambda: None
    probe = _PackProbe(files, timeout)
    return probe.wait


# ---------------------------------------------------------------------------------------------
# in-process runs with SIGALRM


def _in_process(task: Task, limit: float | None) -> Outcome:
    t0 = time.perf_counter()
    use_alarm = (limit is not None and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread()
                 and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))
    old = None
    if use_alarm:
        def on_alarm(signum, frame):
            raise ClaimTimeout()

        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        result, warns = _run_capturing(task)
        return Outcome("ok", result=result, seconds=time.perf_counter() - t0, warnings=warns)
    except ClaimTimeout:
        return Outcome("timeout", message=f"timed out after {_fmt_seconds(limit)}", seconds=time.perf_counter() - t0)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # as in a worker: claim code does not decide the run's exit status
        return Outcome("error", message=f"SystemExit: sys.exit({exc.code!r}) in claim code",
                       seconds=time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - the same result as in a worker (MemoryError included)
        if os.environ.get("THEOREM_CHECK_DEBUG"):
            raise
        return Outcome("error", message=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - t0)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def run_tasks(tasks: Sequence[Task], *, jobs: int, timeouts: Sequence[float | None], packs: Sequence[str] = (),
              on_done: Callable[[int, Outcome], None] | None = None,
              import_timeout: float | None = DEFAULT_IMPORT_TIMEOUT, keep: bool = True) -> list[Outcome]:
    """Execute tasks in process (``jobs == 1``, in the given order) or on a :class:`WorkerPool`
    (longest first by the cost data of :mod:`theorem_check.durations`); outcomes in the tasks'
    order either way (see :meth:`WorkerPool.run` for ``on_done`` and ``keep``).  Each task's
    wall time is recorded as cost data for the next run."""
    from . import durations

    seconds: dict[str, float] = {}

    def done(i: int, o: Outcome) -> None:
        seconds[tasks[i].claim_id] = max(seconds.get(tasks[i].claim_id, 0.0), o.seconds)
        if on_done:
            on_done(i, o)

    try:
        if jobs == 1:
            outs = []
            for i, t in enumerate(tasks):
                o = _in_process(t, timeouts[i])
                outs.append(o if keep else None)
                done(i, o)
            return outs
        order = durations.longest_first([t.claim_id for t in tasks])
        with WorkerPool(min(jobs, max(1, len(tasks))), packs=packs, import_timeout=import_timeout) as pool:
            return pool.run(tasks, timeouts=timeouts, on_done=done, keep=keep, order=order)
    finally:
        durations.record(seconds)


_LOCAL_POOL: "WorkerPool | None" = None


def run_isolated(task: Task, timeout: float | None, packs: Sequence[str] = ()) -> Outcome:
    """Run one task in a worker process kept for this process (used inside Dask workers).

    The worker is reused across calls with the same packs and replaced after a timeout or a
    crash.  Where this process may not have children (a daemonic Dask worker), the task runs
    in this process, without a time limit on threads other than the main one.
    """
    global _LOCAL_POOL
    packs = pack_files(packs)
    try:
        if _LOCAL_POOL is None or _LOCAL_POOL.packs != packs:
            if _LOCAL_POOL is not None:
                _LOCAL_POOL.close()
            _LOCAL_POOL = WorkerPool(1, packs=packs)
        return _LOCAL_POOL.run([task], timeouts=[timeout])[0]
    except AssertionError:  # "daemonic processes are not allowed to have children"
        _LOCAL_POOL = None
        from .registry import load_builtin, load_pack

        load_builtin()
        for p in packs:
            if Path(p).stem not in _loaded_here:
                _loaded_here.add(Path(p).stem)
                load_pack(p)
        return _in_process(task, timeout)


_loaded_here: set[str] = set()


def outcome_result(claim, task: Task, o: Outcome):
    """The ClaimResult of an outcome, with ``claim`` attached (INCONCLUSIVE for a failure)."""
    if o.kind == "ok":
        return dataclasses.replace(o.result, claim=claim)
    evidence = o.message if o.kind != "error" else f"claim raised: {o.message}"
    return failed_result(claim, task, evidence, o.seconds)


def run_claims_parallel(claims: Iterable, *, seed: int = 0, trials: int = 16, controls: bool = False, fuzz: int = 0,
                        dims: Mapping[str, int] | None = None, jobs: int | None = None,
                        timeout: float | None = DEFAULT_TIMEOUT, packs: Sequence[str] = (),
                        progress: Callable[[int, int, object], None] | None = None,
                        skipped_slow: tuple[str, ...] = ()):
    """Run claims on ``jobs`` worker processes (default: :func:`default_jobs`; 1 = in process).

    Same result as :func:`theorem_check.runner.run_claims` with the same seed, except that a
    claim that exceeds its time limit (:func:`timeout_for`) or kills its worker is INCONCLUSIVE
    with evidence saying so.  ``packs`` are the pack files the claims come from (workers import
    them).  ``progress(k, n, claim)`` is called with ``k = 0`` first, then as each claim finishes
    (``k`` claims done, ``claim`` the one that just finished).
    Returns a :class:`~theorem_check.runner.RunResult`.
    """
    from .runner import RunResult, versions

    claims = list(claims)
    jobs = default_jobs() if jobs is None else int(jobs)
    if jobs < 1:
        raise InvalidArgument(f"jobs={jobs!r} must be >= 1")
    dims_t = tuple(sorted((dims or {}).items()))
    tasks = [Task(c.id, seed, trials, controls, fuzz, dims_t) for c in claims]
    t0 = time.perf_counter()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    done = 0

    def on_done(i, o):
        nonlocal done
        done += 1
        if progress:
            progress(done, len(claims), claims[i])

    if progress and claims:
        progress(0, len(claims), claims[0])
    outs = run_tasks(tasks, jobs=jobs, timeouts=[timeout_for(c, timeout) for c in claims], packs=packs,
                     on_done=on_done, import_timeout=timeout or None)
    reissue_warnings(outs)
    results = tuple(outcome_result(c, t, o) for c, t, o in zip(claims, tasks, outs))
    return RunResult(results, seed, trials, versions(), started, time.perf_counter() - t0, skipped_slow)


# ---------------------------------------------------------------------------------------------
# --dims NAME=VALUE,...


def parse_dims(text: str | None) -> dict[str, int]:
    """Parse ``"NAME=VALUE,NAME=VALUE"`` into a dict of non-negative integers.

    >>> parse_dims("D=10, d0=2048")
    {'D': 10, 'd0': 2048}

    Raises InvalidArgument naming the bad item (missing ``=``, a value that is not a
    non-negative integer, a name given twice).
    """
    out: dict[str, int] = {}
    if text is None or not text.strip():
        return out
    for item in text.split(","):
        item = item.strip()
        name, eq, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name.isidentifier():
            raise InvalidArgument(f"dims item {item!r} must read NAME=VALUE (e.g. --dims D=10,d0=2048)")
        if name in out:
            raise InvalidArgument(f"dims name {name!r} is given twice")
        try:
            v = int(value, 10)
        except ValueError:
            raise InvalidArgument(f"{name}={value!r} must be a non-negative integer") from None
        if v < 0:
            raise InvalidArgument(f"{name}={v!r} must be a non-negative integer")
        out[name] = v
    return out


def check_dims(claims: Sequence, dims: Mapping[str, int]) -> None:
    """Every name in ``dims`` must be a dimension of some statement (or control) of every claim
    (the rule of :func:`~theorem_check.runner.run_claim`, checked here before any worker starts).

    Raises InvalidArgument naming the unknown name and the claim's dimension names, or saying
    that this engine's ``run_claim`` does not take ``dims`` yet.
    """
    if not dims:
        return
    for c in claims:
        names: set[str] = set()
        for st in (*c.statements(), *c.controls):
            if st.dims is not None:
                names |= set(st.dims.ranges)
        unknown = sorted(set(dims) - names)
        if unknown:
            known = ", ".join(sorted(names)) or "none"
            raise InvalidArgument(f"dims name={unknown[0]!r} is not a dimension of claim {c.id} (its dimensions: "
                                  f"{known})")
    import inspect

    from .runner import run_claim

    if "dims" not in inspect.signature(run_claim).parameters:
        raise InvalidArgument(f"dims={dict(dims)!r}: this version of the engine cannot run claims at given sizes yet")


# ---------------------------------------------------------------------------------------------
# progress with elapsed time and ETA


class Progress:
    """Progress on stderr: a bar with elapsed time and ETA on a terminal, a plain line every
    10% (or 30 s) otherwise; nothing when ``enabled`` is false.

    ``update(done, label)`` after each finished unit; ``close()`` at the end.
    """

    def __init__(self, total: int, *, enabled: bool = True, stream=None, tty: bool | None = None):
        self.total = max(0, int(total))
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and self.total > 0
        self.tty = self.stream.isatty() if tty is None else tty
        self.t0 = time.monotonic()
        self._last_line = -1.0
        self._last_step = -1

    @staticmethod
    def _clock(s: float) -> str:
        s = int(round(s))
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"

    def line(self, done: int) -> str:
        """The status text for ``done`` finished units."""
        el = time.monotonic() - self.t0
        eta = "?" if done == 0 else self._clock(el / done * (self.total - done))
        return f"{done}/{self.total} ({100 * done // max(1, self.total)}%), {self._clock(el)} elapsed, ETA {eta}"

    def update(self, done: int, label: str = "") -> None:
        """Report ``done`` finished units (the last one being ``label``)."""
        if not self.enabled:
            return
        if self.tty:
            width = 24
            fill = width * done // self.total
            text = f"\r[{'#' * fill}{'.' * (width - fill)}] {self.line(done)}  {label[:30]:<30}"
            self.stream.write(text)
            self.stream.flush()
            return
        step = 10 * done // self.total
        now = time.monotonic()
        if step != self._last_step or now - self._last_line >= 30 or done == self.total:
            self._last_step, self._last_line = step, now
            self.stream.write(f"theorem-check: {self.line(done)}\n")
            self.stream.flush()

    def close(self) -> None:
        """Clear the bar (terminal only)."""
        if self.enabled and self.tty:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()
