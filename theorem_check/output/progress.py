"""A progress bar for sweeps (a bar on a terminal, a plain line every 10% otherwise)."""

from __future__ import annotations

import sys
import time


__all__ = ["Progress"]


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
