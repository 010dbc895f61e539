"""Worker processes: claims run isolated, with a time limit each, on every core (issue 13).

``run``, ``report`` and ``sweep`` hand their claims to :func:`run_claims_parallel`.  With
``jobs > 1`` each claim runs in one of ``jobs`` worker processes (:class:`WorkerPool`); a claim
that outlives its time limit, or whose worker dies (``os._exit``, a segfault, the OOM killer),
becomes an INCONCLUSIVE result whose evidence says so ("timed out after 120 s", "worker died:
killed by SIGSEGV"), the worker is replaced and the run goes on.  ``jobs=1`` runs in this
process (for debuggers and ``pdb``); there the time limit is a ``SIGALRM`` that stops Python
code only, and a crash is not contained.

Determinism: a claim's seeds are derived from (run seed, claim id, statement name) inside
:func:`theorem_check.engine.runner.run_claim`, never from the worker or the order of completion, and
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
import os
import signal
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from theorem_check.errors import InvalidArgument
from theorem_check.execution.packs import check_packs
from theorem_check.execution.pool import WorkerPool, start_method_ready
from theorem_check.execution.tasks import (
    DEFAULT_IMPORT_TIMEOUT,
    DEFAULT_TIMEOUT,
    SLOW_TIMEOUT_FACTOR,
    START_METHOD,
    ClaimTimeout,
    Task,
    TaskOutcome,
    default_jobs,
    failed_result,
    fmt_seconds,
    pack_files,
    reissue_warnings,
    run_capturing,
    run_task,
    timeout_for,
)
from theorem_check.model.options import RunOptions

__all__ = ["DEFAULT_TIMEOUT", "SLOW_TIMEOUT_FACTOR", "DEFAULT_IMPORT_TIMEOUT", "START_METHOD", "Task",
           "TaskOutcome", "WorkerPool", "ClaimTimeout", "default_jobs", "timeout_for", "pack_files", "check_packs",
           "run_claims_parallel", "run_task", "run_tasks", "run_isolated", "outcome_result", "failed_result",
           "reissue_warnings", "start_method_ready", "run_in_process", "run_in_child", "child_main", "close_isolated",
           "CHILD_IMPORT_ALLOWANCE"]


def _in_process(task: Task, limit: float | None, claim=None) -> TaskOutcome:
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
        result, warns = run_capturing(task, claim)
        return TaskOutcome("ok", result=result, seconds=time.perf_counter() - t0, warnings=warns)
    except ClaimTimeout:
        return TaskOutcome("timeout", message=f"timed out after {fmt_seconds(limit)}", seconds=time.perf_counter() - t0)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # as in a worker: claim code does not decide the run's exit status
        return TaskOutcome("error", message=f"SystemExit: sys.exit({exc.code!r}) in claim code",
                       seconds=time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - the same result as in a worker (MemoryError included)
        if os.environ.get("THEOREM_CHECK_DEBUG"):
            raise
        return TaskOutcome("error", message=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - t0)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def run_tasks(tasks: Sequence[Task], *, jobs: int, timeouts: Sequence[float | None], packs: Sequence[str] = (),
              on_done: Callable[[int, TaskOutcome], None] | None = None,
              import_timeout: float | None = DEFAULT_IMPORT_TIMEOUT, keep: bool = True) -> list[TaskOutcome]:
    """Execute tasks in process (``jobs == 1``, in the given order) or on a :class:`WorkerPool`
    (longest first by the cost data of :mod:`theorem_check.execution.durations`); outcomes in the tasks'
    order either way (see :meth:`WorkerPool.run` for ``on_done`` and ``keep``).  Each task's
    wall time is recorded as cost data for the next run."""
    from theorem_check.execution import durations

    seconds: dict[str, float] = {}

    def done(i: int, o: TaskOutcome) -> None:
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


def run_isolated(task: Task, timeout: float | None, packs: Sequence[str] = ()) -> TaskOutcome:
    """Run one task in a worker process kept for this process (used inside Dask workers).

    The worker is reused across calls with the same packs and replaced after a timeout or a
    crash.  Where this process may not have multiprocessing children (a daemonic Dask worker, as
    ``dask worker`` starts them), the task runs in a child process of its own (:func:`run_in_child`),
    under the same time limit.
    """
    global _LOCAL_POOL
    packs = pack_files(packs)
    try:
        if _LOCAL_POOL is None or _LOCAL_POOL.packs != packs:
            if _LOCAL_POOL is not None:
                _LOCAL_POOL.close()
            _LOCAL_POOL = WorkerPool(1, packs=packs)
        return _LOCAL_POOL.run([task], timeouts=[timeout])[0]
    except AssertionError:  # "daemonic processes are not allowed to have children": a subprocess may
        _LOCAL_POOL = None
        return run_in_child(task, timeout, packs)


def close_isolated() -> None:
    """Close the worker process :func:`run_isolated` keeps in this process (a Dask worker, before the
    cluster shuts down: no worker is left with a child to kill)."""
    global _LOCAL_POOL
    if _LOCAL_POOL is not None:
        _LOCAL_POOL.close()
        _LOCAL_POOL = None


_loaded_here: set[str] = set()


def outcome_result(claim, task: Task, o: TaskOutcome):
    """The ClaimResult of an outcome, with ``claim`` attached (INCONCLUSIVE for a failure)."""
    if o.kind == "ok":
        return dataclasses.replace(o.result, claim=claim)
    evidence = o.message if o.kind != "error" else f"claim raised: {o.message}"
    return failed_result(claim, task, evidence, o.seconds)


def run_claims_parallel(claims: Iterable, *, seed: int = 0, trials: int = 16, controls: bool = False, fuzz: int = 0,
                        dims: Mapping[str, int] | None = None, options: RunOptions | None = None,
                        jobs: int | None = None,
                        timeout: float | None = DEFAULT_TIMEOUT, packs: Sequence[str] = (),
                        progress: Callable[[int, int, object], None] | None = None,
                        skipped_slow: tuple[str, ...] = ()):
    """Run claims on ``jobs`` worker processes (default: :func:`default_jobs`; 1 = in process).

    Same result as :func:`theorem_check.engine.runner.run_claims` with the same seed, except that a
    claim that exceeds its time limit (:func:`timeout_for`) or kills its worker is INCONCLUSIVE
    with evidence saying so.  ``packs`` are the pack files the claims come from (workers import
    them).  ``progress(k, n, claim)`` is called with ``k = 0`` first, then as each claim finishes
    (``k`` claims done, ``claim`` the one that just finished).  ``options`` replaces the keyword run
    options when given.  Returns a :class:`~theorem_check.engine.runner.RunResult`.
    """
    from theorem_check.engine.runner import run_result

    if options is None:
        options = RunOptions(seed=seed, trials=trials, controls=controls, fuzz=fuzz, dims=dims or ())
    claims = list(claims)
    jobs = default_jobs() if jobs is None else int(jobs)
    if jobs < 1:
        raise InvalidArgument(f"jobs={jobs!r} must be >= 1")
    options.check_claims(claims)
    tasks = [Task(c.id, options) for c in claims]
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
    return run_result(results, options, started, time.perf_counter() - t0, skipped_slow)


def run_in_process(claim, *, options: RunOptions, timeout: float | None = DEFAULT_TIMEOUT):
    """Run one claim that need not be in the registry (``check``'s statement) in this process, under the
    time limit of ``jobs=1`` (a ``SIGALRM``: it stops Python code, mpmath's included, not a hang inside a
    C extension); a claim over it is INCONCLUSIVE ("timed out after 120 s").  Returns a RunResult."""
    from theorem_check.engine.runner import run_result

    options.check_claim(claim)
    task = Task(claim.id, options)
    t0 = time.perf_counter()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    o = _in_process(task, timeout_for(claim, timeout), claim=claim)
    reissue_warnings([o])
    return run_result((outcome_result(claim, task, o),), options, started, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------
# --dims NAME=VALUE,...


CHILD_IMPORT_ALLOWANCE = 120.0
"""Seconds a claim's child process (:func:`run_in_child`) may spend importing the catalogue and packs
on top of the claim's own limit, before the parent kills it."""


def run_in_child(task: Task, timeout: float | None, packs: Sequence[str] = ()) -> TaskOutcome:
    """Run one task in a fresh child process (``subprocess``, so also from a daemonic Dask worker and
    from any thread); returns its TaskOutcome.

    The child imports the catalogue and ``packs`` and runs the task in its main thread under the
    ``SIGALRM`` limit of ``jobs=1`` ("timed out after 1 s", as on local workers); the parent kills it
    at ``timeout`` + :data:`CHILD_IMPORT_ALLOWANCE` (a hang in C code).  A child that ends without a
    result (``os._exit``, a crash, a signal) is that task's ``"died"`` outcome, never the caller's end.
    Source: issue 23 (time limits and ``os._exit`` on a Dask cluster).
    """
    import pickle
    import subprocess
    import sys
    import tempfile

    root = str(Path(__file__).resolve().parents[2])   # the directory holding this theorem_check package
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="theorem-check-task-") as d:
        inp, out = Path(d) / "task.pickle", Path(d) / "outcome.pickle"
        inp.write_bytes(pickle.dumps((task, timeout, tuple(pack_files(packs)))))
        cmd = [sys.executable, "-c", "from theorem_check.execution.workers import child_main; child_main()",
               str(inp), str(out)]
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            _, err = proc.communicate(timeout=None if timeout is None else timeout + CHILD_IMPORT_ALLOWANCE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return TaskOutcome("timeout", message=f"timed out after {fmt_seconds(timeout)}",
                               seconds=time.perf_counter() - t0)
        if proc.returncode != 0 or not out.is_file():
            from theorem_check.execution.tasks import died

            last = (err or b"").decode(errors="replace").strip().splitlines()[-1:] if proc.returncode else []
            msg = died(proc.returncode) + (f"; {last[0]}" if last and proc.returncode == 3 else "")
            return TaskOutcome("died", message=msg, seconds=time.perf_counter() - t0)
        return pickle.loads(out.read_bytes())


def child_main() -> None:
    """Entry of :func:`run_in_child`'s process: ``argv[1]`` the pickled (task, timeout, packs), ``argv[2]``
    where to write the pickled TaskOutcome.  Exit 3 with the reason on stderr when the packs do not load."""
    import pickle
    import sys

    from theorem_check.authoring.registry import load_builtin, load_pack

    task, timeout, packs = pickle.loads(Path(sys.argv[1]).read_bytes())
    try:
        load_builtin()
        for p in packs:
            load_pack(p)
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(3)
    o = _in_process(task, timeout)
    Path(sys.argv[2]).write_bytes(pickle.dumps(o))
