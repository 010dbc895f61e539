"""Time limits for SymPy steps: a SIGALRM timer in the main thread, a forked child elsewhere.

:func:`run_limited` runs a callable under a limit in seconds and raises :class:`StepTimeout` when it is
exceeded (a ``BaseException``, so SymPy's ``except Exception`` cannot swallow it) and :class:`ChildError`
when the callable raised in a forked child.  Used by :mod:`theorem_check.engine.symbolic`; split from it
so that the module checking derivations holds no process machinery.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import select
import signal
import sys
import threading
import time
import warnings
from typing import Callable

from theorem_check.errors import InvalidArgument

__all__ = ["DEFAULT_TIME_LIMIT", "TIME_LIMIT_ENV", "Alarm", "StepTimeout", "ChildError", "run_limited",
           "resolve_time_limit", "describe_exception"]

DEFAULT_TIME_LIMIT = 20.0
"""Seconds each derivation step may take when neither ``time_limit`` nor the environment sets it."""
TIME_LIMIT_ENV = "THEOREM_CHECK_SYMPY_TIMEOUT"
"""Environment variable with the per-step time limit in seconds (a positive number, or ``inf``)."""

class StepTimeout(BaseException):
    """Raised by the SIGALRM handler (a BaseException, so SymPy's ``except Exception`` cannot swallow it)."""


class ChildError(Exception):
    """A step run in a forked child raised; the message is ``"<ExceptionName>: <message>"``."""


_REPEAT_SECONDS = 0.25
"""After the limit, the alarm repeats at this interval until the step is left (in case code swallowed it)."""


class Alarm:
    """Raise :class:`StepTimeout` in the main thread when ``fn`` runs longer than ``seconds`` (:meth:`run`).

    Uses ``signal.setitimer(ITIMER_REAL)``, at most the remaining time of a timer already armed (a claim's
    ``--timeout`` around a step's limit).  :meth:`stop` (run however ``fn`` ends) disarms the
    timer, restores the previous SIGALRM handler and re-arms a previously armed timer with its
    remaining time.  The handler raises only while the step's own frame (:func:`_run_marked`) is on
    the stack; fired anywhere else (the step has ended but a signal slipped in before
    :meth:`stop`) it stops the alarm instead, so no alarm of ours can stay pending or hit other code.
    """

    current: "Alarm | None" = None

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.active = False

    def _inside(self, frame) -> bool:
        while frame is not None:
            if frame.f_code is _run_marked.__code__ and frame.f_locals.get("alarm") is self:
                return True
            frame = frame.f_back
        return False

    def _handler(self, signum, frame):
        if self.active and self._inside(frame):
            raise StepTimeout()
        self.stop()

    def start(self) -> None:
        stale = Alarm.current
        if stale is not None and stale.active and not stale._inside(sys._getframe()):
            stale.stop()
        self.t0 = time.monotonic()
        self.outer = Alarm.current
        self.old_handler = signal.signal(signal.SIGALRM, self._handler)
        self.active = True
        Alarm.current = self
        # an outer timer (a claim's --timeout) due before this limit fires first: this step stops then, and stop()
        # re-arms the outer one, which fires at once (a nested limit never outlives the caller's deadline)
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        first = self.seconds if remaining <= 0 else min(self.seconds, remaining)
        self.old_timer = signal.setitimer(signal.ITIMER_REAL, first, _REPEAT_SECONDS)

    def stop(self) -> None:
        if not self.active:
            return
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old_handler)
        Alarm.current = self.outer
        delay, interval = self.old_timer
        if delay > 0:
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self.t0), 1e-6), interval)

    def run(self, fn: Callable[[], object]):
        self.start()
        try:
            return _run_marked(self, fn)
        finally:
            self.stop()


def _run_marked(alarm: Alarm, fn: Callable[[], object]):
    """Call ``fn``; this frame marks "inside the step" for ``alarm``'s handler."""
    return fn()


def describe_exception(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {msg[0]}" if msg else type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _in_child(fn: Callable[[], object], seconds: float):
    """Run ``fn`` in a forked child; its (picklable) result comes back through a pipe.

    Raises :class:`StepTimeout` (after killing the child) when no result arrives in ``seconds``,
    :class:`ChildError` when ``fn`` raised in the child.
    """
    r, w = os.pipe()
    with warnings.catch_warnings():   # Python >= 3.12 warns about fork() in a multi-threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow forks)
        code = 0
        try:
            os.close(r)
            try:
                payload = ("ok", fn())
            except BaseException as exc:  # noqa: BLE001 - reported to the parent by name
                payload = ("error", describe_exception(exc))
            data = pickle.dumps(payload)
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    reaped = False
    try:
        deadline = time.monotonic() + seconds
        chunks = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StepTimeout()
            ready, _, _ = select.select([r], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        os.waitpid(pid, 0)
        reaped = True
        if not chunks:
            raise ChildError("ChildProcessError: the step's process ended without a result")
        kind, payload = pickle.loads(b"".join(chunks))
        if kind == "error":
            raise ChildError(payload)
        return payload
    finally:
        os.close(r)
        if not reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def run_limited(fn: Callable[[], object], seconds: float | None):
    """``fn()`` under a time limit of ``seconds`` (None: no limit); see the module docstring."""
    if seconds is None:
        return fn()
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        return Alarm(seconds).run(fn)
    if hasattr(os, "fork"):
        return _in_child(fn, seconds)
    return fn()  # pragma: no cover - no SIGALRM and no fork (Windows): documented, runs without a limit


def resolve_time_limit(time_limit: float | None = None) -> float | None:
    """The per-step time limit in seconds (None: no limit).

    ``time_limit`` if given, else the environment variable ``THEOREM_CHECK_SYMPY_TIMEOUT``, else
    :data:`DEFAULT_TIME_LIMIT`.  Either must be a positive number of seconds; ``inf`` means no
    limit.  Raises InvalidArgument naming the argument or the variable otherwise.
    """
    if time_limit is None:
        raw = os.environ.get(TIME_LIMIT_ENV, "").strip()
        if not raw:
            return DEFAULT_TIME_LIMIT
        name, shown = TIME_LIMIT_ENV, raw
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
    else:
        name, shown = "time_limit", time_limit
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)):
            raise InvalidArgument(f"time_limit={time_limit!r} must be a positive number of seconds (or inf)")
        value = float(time_limit)
    if not value > 0:
        raise InvalidArgument(f"{name}={shown!r} must be a positive number of seconds (or inf)")
    return None if math.isinf(value) else value
