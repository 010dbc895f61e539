"""User packs imported first in a probe process with a time limit: a pack that hangs, calls ``sys.exit``
or ``os._exit`` at import is a one-line :class:`~theorem_check.errors.PackError` (exit 2)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import Callable, Sequence

from theorem_check.errors import PackError
from theorem_check.execution.pool import exit_when_gone, probe_context
from theorem_check.execution.tasks import CATALOGUE_TIMEOUT, DEFAULT_IMPORT_TIMEOUT, died, pack_error_text, pack_files

__all__ = ["check_packs"]


def _flush_streams() -> None:
    """Write out what sits in stdout's and stderr's buffers (closed or missing streams are skipped)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _finish(conn, message) -> None:
    """Flush what the packs printed, then send the probe's last message: the parent kills the probe once it has
    read it, and a buffer not yet written would be lost (or cut mid-line) with it."""
    _flush_streams()
    conn.send(message)


def _probe_main(conn, packs: tuple[str, ...], main_pid: int | None = None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if main_pid is not None:
        threading.Thread(target=exit_when_gone, args=(main_pid,), daemon=True).start()
    from theorem_check.authoring.registry import load_builtin, load_pack

    load_builtin()
    for p in packs:
        conn.send(("start", p))  # the parent's clock for this pack starts now
        try:
            with contextlib.redirect_stdout(sys.stderr):   # stdout is the command's (a table, --json): not a pack's
                load_pack(p)
        except SystemExit as exc:
            _finish(conn, ("error", f"pack={p!r} called sys.exit({exc.code!r}) at import"))
            return
        except BaseException as exc:  # noqa: BLE001
            _finish(conn, ("error", pack_error_text(p, exc)))
            return
    _finish(conn, ("ok", None))


class _PackProbe:
    def __init__(self, packs: Sequence[str], timeout: float | None):
        self.packs = tuple(packs)
        self.timeout = timeout
        self.t0 = time.monotonic()
        ctx = probe_context()
        _flush_streams()   # a forked probe must not write this process's buffers again
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_probe_main, args=(child, self.packs, os.getpid()), daemon=True,
                                name="theorem-check-pack-probe")
        self.proc.start()
        child.close()

    def wait(self) -> None:
        current, t_pack, told = None, None, False
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
                    raise PackError(f"{which} ended the process at import ({died(self.proc.exitcode).split(': ', 1)[-1]})"
                                    ) from None
                if kind == "start":
                    current, t_pack = value, time.monotonic()
                elif kind == "error":
                    told = True
                    raise PackError(value)
                else:
                    told = True
                    return
        finally:
            if told:   # the probe's last message came: it is returning, let it exit on its own (a second at most)
                self.proc.join(1.0)
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
            self.conn.close()


def check_packs(packs: Sequence[str], timeout: float | None = DEFAULT_IMPORT_TIMEOUT) -> Callable[[], None]:
    """Start importing ``packs`` in a probe process; returns a function that waits for it.

    Call the returned function before importing the packs in this process: it returns when the
    probe imported them, and raises :class:`PackError` (one line) if a pack raises, calls
    ``sys.exit``/``os._exit``, crashes or takes longer than ``timeout`` seconds at import.
    Packs that are not existing files are left to :func:`~theorem_check.authoring.registry.load_pack`.
    """
    files = pack_files(packs)
    if not files:
        return lambda: None
    probe = _PackProbe(files, timeout)
    return probe.wait


# ---------------------------------------------------------------------------------------------
# in-process runs with SIGALRM
