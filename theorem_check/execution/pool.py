"""The worker pool: long-lived worker processes (forkserver) that import the catalogue once and run tasks
with a per-claim time limit; a hung or crashed worker is replaced and its claim is INCONCLUSIVE."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from multiprocessing.connection import wait as _wait
from typing import Callable, Sequence

from theorem_check.errors import InvalidArgument, PackError
from theorem_check.execution.tasks import (
    BLAS_VARS,
    CATALOGUE_TIMEOUT,
    DEFAULT_IMPORT_TIMEOUT,
    START_METHOD,
    Task,
    TaskOutcome,
    died,
    fmt_seconds,
    pack_files,
    quietly,
    run_capturing,
)

__all__ = ["WorkerPool", "context", "exit_when_gone", "probe_context", "start_method_ready"]


def exit_when_gone(pid: int) -> None:
    """Loop until the process ``pid`` is gone, then exit this one (``os._exit(1)``): run in a daemon thread of a
    worker (``pid``: its parent, the fork server or the main process, which exits with the main process) and of
    the pack probe (``pid``: the command), so that none outlives the command, nor keeps the fork server's pipe
    open so that it outlives it too.  Gone: this process was reparented (its parent exited), or ``pid`` no
    longer exists or is a zombie (its own parent has not reaped it yet: waiting, perhaps, for the pipes this
    process still holds).  Checked every half second."""
    ppid = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != ppid or _gone(pid):
            os._exit(1)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:   # ESRCH, or EPERM: a process of another user took the pid, so ours is gone
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):   # no /proc (macOS): kill(pid, 0) alone decides
        return False


def _load_everything(packs: Sequence[str], conn) -> None:
    from theorem_check.authoring.registry import load_builtin, load_pack

    load_builtin()
    conn.send(("packs", None))  # the parent's import clock for the packs starts now
    for p in packs:
        with quietly():   # the probe showed what the pack prints at import (on stderr), once
            load_pack(p)


def _worker_main(conn, packs: tuple[str, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how a Ctrl-C ends the run
    # the parent is the fork server (or the main process), which exits with the main process
    threading.Thread(target=exit_when_gone, args=(os.getppid(),), daemon=True).start()
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
            out = ("ok", index, *run_capturing(task))
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

RUN_MODULES = ("scipy.optimize", "scipy.special", "scipy.integrate", "scipy.linalg")
"""Modules the papers' checks import when they run (not at import, so that ``list`` and ``show`` start without
them): the fork server imports them once for every worker, instead of each worker on its first claim."""


def context():
    """The multiprocessing context (fork server preloaded with the catalogue, BLAS single-threaded)."""
    global _preload_done
    ctx = mp.get_context(START_METHOD)
    if START_METHOD == "forkserver" and not _preload_done:
        _preload_done = True
        try:
            from theorem_check.authoring.catalogues import catalogue_modules

            mods = ["theorem_check.engine.runner", "theorem_check.authoring.registry"] + [
                f"{pkg}.{m}" for pkg, papers in catalogue_modules() for m in papers] + list(RUN_MODULES)
        except ImportError:
            mods = ["theorem_check.engine.runner"]
        ctx.set_forkserver_preload(mods)
        saved = {k: os.environ.get(k) for k in (*BLAS_VARS, "PYTHONSAFEPATH")}
        for k in BLAS_VARS:
            os.environ.setdefault(k, "1")
        # the fork server runs `python -c`, which puts the working directory first on its path, where a
        # `string.py` beside the user's pack shadowed the standard library's in every worker (helper-69)
        os.environ["PYTHONSAFEPATH"] = "1"
        try:
            from multiprocessing import forkserver

            forkserver.ensure_running()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return ctx


def probe_context():
    """The context of a short-lived helper process (the pack probe, :mod:`theorem_check.execution.packs`).

    ``"fork"`` where the platform has it (not macOS, whose system libraries are not fork-safe), this process
    runs one thread and has not started the fork server: the probe is then this warm process forked, in
    milliseconds.  Otherwise :func:`context`: a fork server first imports the catalogue, SymPy and SciPy
    (about 1 s of CPU), worth it only for the workers that a run with ``--jobs`` above 1 starts from it anyway.
    Design decision 141."""
    if _preload_done or sys.platform == "darwin" or threading.active_count() > 1 \
            or "fork" not in mp.get_all_start_methods():
        return context()
    return mp.get_context("fork")


def start_method_ready() -> None:
    """Start the fork server now (it imports the catalogue while this process does other work)."""
    context()


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
        self._ctx = context()
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
            on_done: Callable[[int, TaskOutcome], None] | None = None, keep: bool = True,
            order: Sequence[int] | None = None) -> list[TaskOutcome]:
        """Execute ``tasks``; returns one :class:`TaskOutcome` per task, in the tasks' order.

        ``order`` (a permutation of ``range(len(tasks))``) is the order tasks are handed to idle
        workers (default: as given); :func:`run_tasks` passes the longest first
        (:mod:`theorem_check.execution.durations`).  It changes when results arrive, never what they are.

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
        out: list[TaskOutcome | None] = [None] * n
        t_start: dict[int, float] = {}
        remaining = n

        def finish(i: int, o: TaskOutcome) -> None:
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
                    finish(i, TaskOutcome("ok", result=msg[2], seconds=secs, warnings=msg[3]) if kind == "ok"
                           else TaskOutcome("error", message=msg[2], seconds=secs))
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
                    raise PackError(f"worker died while importing the catalogue and packs ({died(code)})")
                if w.task is not None:
                    i = w.task
                    finish(i, TaskOutcome("died", message=died(code), seconds=time.monotonic() - t_start[i]))
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
                    finish(i, TaskOutcome("timeout", message=f"timed out after {fmt_seconds(timeouts[i])}",
                                      seconds=now - t_start[i]))
                    if pending:
                        self._spawn()
        return out  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# packs: a probe process with a time limit
