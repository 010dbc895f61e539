"""Terminal helpers shared by the commands: colour, progress with ETA, "did you mean", safe output.

Everything here is presentation; nothing decides a verdict.  The helpers are small and
reusable by any command (``run``, ``report``, ``check``, ``sweep``, the worker pool):

* :func:`colour_enabled` / :func:`style_verdict`: colour on a TTY, ``--color auto|always|never``,
  ``NO_COLOR`` honoured (https://no-color.org: set and non-empty disables colour in ``auto``);
* :class:`Progress`: one line on stderr, ``[k/n] 12% 0:07 elapsed, ETA 0:41  prh.eq31``, cleared
  with :meth:`Progress.clear` before the final output;
* :func:`did_you_mean`: close matches (:class:`difflib.SequenceMatcher` ratios, as in :func:`difflib.get_close_matches`), case-insensitive;
* :func:`shorten` / :func:`shorten_args`: arguments longer than 200 characters cut in messages;
* :func:`install_ascii_fallback`: output streams whose encoding cannot print a character
  (``PYTHONIOENCODING=latin-1`` or ``ascii``) get an ASCII transliteration instead of a crash;
* :func:`environment_error`: the one-line message for an ``OSError`` met while writing output.

>>> shorten("x" * 300, 10)
'xxxxxxxxxx... [300 characters]'
>>> did_you_mean("PRH.EQ31", ["prh.eq31", "prh.eq32", "noise.thm5_4"])
" (did you mean 'prh.eq31'?)"
"""

from __future__ import annotations

import codecs
import errno
import os
import shutil
import sys
import threading
import time
import unicodedata
from typing import IO, Sequence

from theorem_check.model.verdicts import VERDICTS
from theorem_check.validation import MAX_ARG_CHARS, did_you_mean, shorten

__all__ = ["COLOUR_MODES", "REFRESH_SECONDS", "VERDICT_COLOURS", "colour_enabled", "style", "style_verdict", "Progress",
           "format_seconds", "did_you_mean", "shorten", "shorten_args", "MAX_ARG_CHARS", "to_ascii",
           "install_ascii_fallback", "can_encode", "environment_error", "terminal_width"]

COLOUR_MODES = ("auto", "always", "never")
"""Values of ``--color``."""

VERDICT_COLOURS = {v.value: info.terminal for v, info in VERDICTS.items()}
"""Foreground colour per verdict (click colour names), from :data:`~theorem_check.model.verdicts.VERDICTS`."""


# --- colour -------------------------------------------------------------------------------------

def colour_enabled(mode: str | None = "auto", stream: IO | None = None) -> bool:
    """Whether to colour output written to ``stream`` (default ``sys.stdout``).

    ``mode="always"`` and ``"never"`` decide alone (an explicit flag beats the environment);
    ``"auto"`` (or None) colours only a TTY, and not when ``NO_COLOR`` is set to a non-empty value
    or ``TERM=dumb``.  Raises ValueError for another mode.
    """
    mode = "auto" if mode is None else mode
    if mode not in COLOUR_MODES:
        raise ValueError(f"color={mode!r} must be one of {', '.join(COLOUR_MODES)}")
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed or odd stream
        return False


def style(text: str, enabled: bool, **kwargs) -> str:
    """``click.style(text, **kwargs)`` when ``enabled``, else ``text`` unchanged."""
    if not enabled:
        return text
    import click

    return click.style(text, **kwargs)


def style_verdict(verdict: str, enabled: bool, *, width: int = 0) -> str:
    """The verdict name padded to ``width`` (padding outside the colour codes, so columns align)."""
    text = str(getattr(verdict, "value", verdict))
    pad = " " * max(0, width - len(text))
    colour = VERDICT_COLOURS.get(text)
    if not enabled or colour is None:
        return text + pad
    return style(text, True, fg=colour, bold=text in ("REFUTED", "ILL-POSED")) + pad


def terminal_width(default: int = 100) -> int:
    """Columns of the terminal (``COLUMNS`` wins), ``default`` when unknown."""
    return shutil.get_terminal_size((default, 24)).columns


# --- progress -----------------------------------------------------------------------------------

def format_seconds(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a duration; ``--:--`` when unknown (NaN, negative)."""
    if not seconds >= 0 or seconds == float("inf"):
        return "--:--"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


REFRESH_SECONDS = 1.0
"""How often the commands' progress line redraws itself, so that the elapsed clock moves during a long claim."""


class Progress:
    """The progress display: one self-overwriting line on a terminal (count, percent, elapsed, ETA,
    label); on anything else (a log file, CI), a plain ``theorem-check: ...`` line at every tenth of
    the work, every 30 s, and at the end.

    Use it as the ``progress(k, n, item)`` callback of :func:`theorem_check.engine.runner.run_claims`
    (``k`` items done, ``item`` about to run), or call :meth:`update` directly; call :meth:`clear`
    before printing the final output.  The ETA is the mean time per finished item times the items
    left (``--:--`` before the first finishes).  ``refresh`` > 0 starts a daemon thread that
    redraws the line every ``refresh`` seconds so that the elapsed time moves during a long item.

    Parameters
    ----------
    total : int, optional
        Number of items (may also come with each call).
    stream : text stream, default ``sys.stderr``
    enabled : bool, default True
        A disabled Progress does nothing (pass ``not quiet and stream.isatty()``).
    refresh : float, default 0 (no thread; terminal mode only)
    tty : bool, optional
        Terminal mode; default ``stream.isatty()``.

    >>> import io; buf = io.StringIO()
    >>> p = Progress(3, stream=buf, width=60, tty=True); p.update(0, "prh.eq31"); p.clear()
    >>> buf.getvalue().startswith("\\r[1/3]")
    True
    """

    def __init__(self, total: int | None = None, *, stream: IO | None = None, enabled: bool = True,
                 refresh: float = 0.0, width: int | None = None, clock=time.monotonic,
                 tty: bool | None = None) -> None:
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.enabled = bool(enabled)
        if tty is None:
            try:
                tty = bool(self.stream.isatty())
            except (AttributeError, ValueError):
                tty = False
        self.tty = tty
        self._last_step, self._last_line, self._ended = -1, float("-inf"), False
        self.width = width
        self.refresh = float(refresh)
        self._clock = clock
        self.t0 = clock()
        self._done = 0
        self._label = ""
        self._shown = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if self.enabled and refresh > 0 and self.tty:
            self._thread = threading.Thread(target=self._tick, args=(refresh,), daemon=True)
            self._thread.start()

    def __call__(self, k: int, n: int, item=None) -> None:
        """``run_claims`` callback: ``k`` items done out of ``n``, ``item`` (a claim or a str) next."""
        self.total = n
        label = getattr(item, "id", item)
        self.update(k, "" if label is None else str(label))

    def line(self, now: float | None = None) -> str:
        """The text of the line (without the carriage return), cut to the width."""
        now = self._clock() if now is None else now
        elapsed = now - self.t0
        n, k = self.total, self._done
        eta = elapsed / k * (n - k) if (n and k) else float("nan")
        if n:
            head = f"[{min(k + 1, n)}/{n}] {100 * k / n:3.0f}% {format_seconds(elapsed)} elapsed, ETA {format_seconds(eta)}"
        else:
            head = f"[{k + 1}] {format_seconds(elapsed)} elapsed"
        text = f"{head}  {self._label}" if self._label else head
        width = (self.width or terminal_width(80)) - 1
        return text if len(text) <= width else text[: max(0, width - 3)] + "..."

    def update(self, done: int, label: str = "") -> None:
        """Redraw with ``done`` items finished and ``label`` (the current item) shown."""
        self._done, self._label = int(done), label
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        if not self.tty:
            self._log_line()
            return
        with self._lock:
            text = self.line()
            pad = " " * max(0, self._shown - len(text))
            try:
                self.stream.write("\r" + text + pad)
                self.stream.flush()
            except (OSError, ValueError):
                self.enabled = False
                return
            self._shown = len(text)

    def _log_line(self) -> None:
        """Non-terminal mode: a plain line when a tenth of the work is done, every 30 s, and once at the end."""
        n, k = self.total, self._done
        final = bool(n) and k >= n
        step = 10 * k // n if n else k
        now = self._clock()
        if self._ended or (not final and step == self._last_step and now - self._last_line < 30):
            return
        self._last_step, self._last_line, self._ended = step, now, final
        try:
            self.stream.write(f"theorem-check: {self.line(now)}\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    def _tick(self, every: float) -> None:
        while not self._stop.wait(every):
            self._draw()

    def clear(self) -> None:
        """Erase the line (and stop the refresh thread); safe to call twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        if not self.enabled or not self._shown:
            return
        with self._lock:
            try:
                self.stream.write("\r" + " " * self._shown + "\r")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self._shown = 0

    close = clear

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()


# --- messages -----------------------------------------------------------------------------------

def shorten_args(message: str, args: Sequence[str] | None, limit: int = MAX_ARG_CHARS) -> str:
    """``message`` with every occurrence of an argument longer than ``limit`` cut (see :func:`shorten`).

    Also cuts the ``repr`` of such an argument (messages quote values with ``!r``), and as a last
    guard any message longer than ``20 * limit`` characters in its middle.
    """
    for arg in sorted({a for a in (args or ()) if isinstance(a, str) and len(a) > limit}, key=len, reverse=True):
        message = message.replace(repr(arg), repr(arg[:limit]) + f"... [{len(arg)} characters]")
        message = message.replace(arg, shorten(arg, limit))
    cap = 20 * limit
    if len(message) > cap:
        message = f"{message[: cap // 2]} ... [{len(message) - cap} characters cut] ... {message[-cap // 2:]}"
    return message


# --- encodings ----------------------------------------------------------------------------------

_ASCII = {
    "└": "`-", "├": "|-", "│": "|", "─": "-", "┌": "+-", "┐": "-+", "┘": "-+", "┴": "-", "┬": "-",
    "—": "--", "–": "-", "−": "-", "→": "->", "←": "<-", "⇒": "=>", "↔": "<->", "≤": "<=", "≥": ">=",
    "≠": "!=", "≈": "~", "∼": "~", "±": "+-", "×": "x", "·": ".", "…": "...", "‘": "'", "’": "'",
    "“": '"', "”": '"', "•": "*", "√": "sqrt", "∞": "inf", "∈": " in ", "≪": "<<", "≫": ">>",
    "⊤": "T", "∇": "grad ", "∂": "d", "∑": "sum", "∏": "prod", "§": "S", "°": "deg", "µ": "u", "μ": "mu",
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "eps", "η": "eta", "θ": "theta",
    "κ": "kappa", "λ": "lambda", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "ω": "omega",
    "Σ": "Sigma", "Δ": "Delta", "Λ": "Lambda", "Ω": "Omega", "\u00a0": " ",
}


def to_ascii(text: str) -> str:
    """An ASCII rendering of ``text``: box-drawing and common mathematical characters transliterated
    (``└`` -> ``\\`-``, ``≤`` -> ``<=``, ``β`` -> ``beta``), accents stripped, anything else ``?``."""
    out = []
    for ch in text:
        if ord(ch) < 128:
            out.append(ch)
        elif ch in _ASCII:
            out.append(_ASCII[ch])
        else:
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
            out.append(base or "?")
    return "".join(out)


def _translit_errors(exc: UnicodeError):
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return to_ascii(exc.object[exc.start:exc.end]), exc.end


_ERRORS = "theorem_check_ascii"
codecs.register_error(_ERRORS, _translit_errors)

_ASCII_CODEC = "theorem_check_ascii"


def _search(name: str):
    if name != _ASCII_CODEC:
        return None
    a = codecs.lookup("ascii")
    return codecs.CodecInfo(a.encode, a.decode, streamreader=a.streamreader, streamwriter=a.streamwriter,
                            incrementalencoder=a.incrementalencoder, incrementaldecoder=a.incrementaldecoder,
                            name=_ASCII_CODEC)


codecs.register(_search)


def can_encode(text: str, encoding: str | None) -> bool:
    """True when ``text`` can be written in ``encoding`` (None counts as UTF-8)."""
    try:
        text.encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def install_ascii_fallback(*streams) -> None:
    """Make text streams (default stdout and stderr) transliterate what their encoding cannot print.

    A UTF encoding is left alone.  Another encoding (``latin-1``, ``cp1252``) keeps its name and gets
    the error handler ``theorem_check_ascii`` (:func:`to_ascii` for each unencodable character).
    Plain ASCII is switched to an equivalent codec of another name, because Click treats an ASCII
    stream as misconfigured and would write UTF-8 bytes to it instead.  Streams that cannot be
    reconfigured (not a :class:`io.TextIOWrapper`) are skipped.
    """
    for s in streams or (sys.stdout, sys.stderr):
        enc = getattr(s, "encoding", None)
        reconf = getattr(s, "reconfigure", None)
        if not enc or reconf is None:
            continue
        try:
            name = codecs.lookup(enc).name
        except LookupError:
            continue
        if name.startswith("utf") or name == _ASCII_CODEC:
            continue
        try:
            if name == "ascii":
                reconf(encoding=_ASCII_CODEC, errors=_ERRORS)
            else:
                reconf(errors=_ERRORS)
        except (ValueError, OSError, LookupError):  # already written to, or closed
            continue


def environment_error(exc: OSError, what: str = "output") -> str:
    """One line for an ``OSError`` from the environment (full disk, closed pipe, read-only, bad path).

    With a file name: ``"<file>: <reason> (errno X)"``; without: ``"cannot write <what>: ..."``.

    >>> environment_error(OSError(errno.ENOSPC, "No space left on device"))
    'cannot write output: No space left on device (errno ENOSPC)'
    """
    code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
    reason = (exc.strerror or str(exc) or type(exc).__name__) + (f" (errno {code})" if code else "")
    if getattr(exc, "filename", None):
        return f"{shorten(str(exc.filename))}: {reason}"
    return f"cannot write {what}: {reason}"
