"""Eager argument checks, in the style of Hypothesis's ``internal/validation.py``.

Each ``check_*`` helper raises :class:`~theorem_check.errors.InvalidArgument` with a message
``"<name>=<value!r> must ..."`` and otherwise returns the (possibly converted) value.
"""

from __future__ import annotations

import difflib
from typing import Iterable

import numpy as np

from theorem_check.errors import InvalidArgument

__all__ = ["check_int", "check_positive_int", "check_finite_matrix", "check_invertible", "check_square",
           "BUDGET_PRESETS", "check_budget", "did_you_mean", "plural", "shorten", "MAX_ARG_CHARS"]


def check_int(name: str, value, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """Return ``value`` as an ``int``; raise InvalidArgument if it is not an integer in range."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    value = int(value)
    if min_value is not None and value < min_value:
        raise InvalidArgument(f"{name}={value!r} must be >= {min_value}")
    if max_value is not None and value > max_value:
        raise InvalidArgument(f"{name}={value!r} must be <= {max_value}")
    return value


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as an ``int`` >= 1; raise InvalidArgument otherwise (e.g. negative widths)."""
    return check_int(name, value, min_value=1)


def check_finite_matrix(name: str, value, *, ndim: int = 2) -> np.ndarray:
    """Return ``value`` as a float array with ``ndim`` axes and only finite entries.

    Raises InvalidArgument naming ``name`` for wrong rank or NaN/inf entries.
    """
    arr = np.asarray(value, dtype=float)
    if arr.ndim != ndim:
        raise InvalidArgument(f"{name} with shape {arr.shape} must have {ndim} axes")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgument(f"{name} must be finite (found NaN or inf)")
    return arr


def check_square(name: str, value) -> np.ndarray:
    """Return ``value`` as a finite square matrix; raise InvalidArgument otherwise."""
    arr = check_finite_matrix(name, value)
    if arr.shape[0] != arr.shape[1]:
        raise InvalidArgument(f"{name} with shape {arr.shape} must be square")
    return arr


def check_invertible(name: str, value, *, max_condition: float = 1e12) -> np.ndarray:
    """Return ``value`` as a finite square matrix with condition number below ``max_condition``.

    Raises InvalidArgument if it is singular (or numerically so).
    """
    arr = check_square(name, value)
    cond = np.linalg.cond(arr) if arr.size else 1.0
    if not np.isfinite(cond) or cond > max_condition:
        raise InvalidArgument(f"{name} must be invertible (condition number {cond:.3g})")
    return arr


BUDGET_PRESETS = {"ci": 1.0, "paper": 4.0, "full": 4.0}
"""Named values of ``THEOREM_CHECK_BUDGET`` (docs/design-decisions.md, item 11)."""


def check_budget(raw=None) -> float:
    """The simulation budget multiplier (>= 0.05) from ``raw``, or from ``THEOREM_CHECK_BUDGET`` when None.

    ``raw`` is a preset (``ci`` = 1, the default; ``paper`` = 4; ``full`` = 4; case and spaces ignored)
    or a positive finite number.  The command line calls this before any claim runs, so that a bad
    value is one line and exit 2 rather than an INCONCLUSIVE simulation (or nothing at all).

    Raises InvalidArgument ``"THEOREM_CHECK_BUDGET='bogus' must be 'ci', 'paper' or a positive number"``.
    """
    import math
    import os

    if raw is None:
        raw = os.environ.get("THEOREM_CHECK_BUDGET", "ci")
    bad = InvalidArgument(f"THEOREM_CHECK_BUDGET={_short(raw)!r} must be 'ci', 'paper' or a positive number")
    if isinstance(raw, str):
        key = raw.strip().lower()
        if key in BUDGET_PRESETS:
            return BUDGET_PRESETS[key]
        try:
            raw = float(key)
        except ValueError:
            raise bad from None
    if isinstance(raw, bool):
        raise bad
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise bad from None
    if not (value > 0 and math.isfinite(value)):
        raise bad
    return max(0.05, value)


def _short(raw):
    return raw[:200] + "..." if isinstance(raw, str) and len(raw) > 200 else raw


# -- messages about arguments: suggestions, long values cut ----------------------------------------

MAX_ARG_CHARS = 200
"""Arguments longer than this are cut when echoed in a message."""


def quoted(text: str) -> str:
    """``text`` in single quotes as the user typed it: a LaTeX statement's backslashes are not doubled, as
    ``repr`` doubles them (``'\\nabla_x'`` in a message about ``\nabla_x``); ``repr(text)`` when the text holds a
    quote or a control character, which only ``repr`` shows unambiguously."""
    text = str(text)
    return repr(text) if "'" in text or any(ord(ch) < 32 for ch in text) else f"'{text}'"


def plural(n: int, word: str) -> str:
    """``1 claim``, ``3 claims``: a count with its noun, for messages (the commands' summaries, the sweep's)."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def did_you_mean(name: str, candidates: Iterable[str], *, n: int = 3, cutoff: float = 0.6) -> str:
    """``" (did you mean 'a', 'b'?)"`` for the closest ``candidates`` to ``name``, or ``""``.

    Case-insensitive: a candidate equal to ``name`` up to case is the only suggestion (``PRH.EQ31`` ->
    ``prh.eq31``), then the candidates whose lower-cased :class:`difflib.SequenceMatcher` ratio is at least
    ``cutoff`` (best first; ties: extensions of ``name`` first, then natural order).  Names longer
    than :data:`MAX_ARG_CHARS` get no suggestion (nothing is close to a 100 kB argument).
    """
    if not isinstance(name, str) or not name or len(name) > MAX_ARG_CHARS:
        return ""
    lower2orig: dict[str, str] = {}
    for c in candidates:
        lower2orig.setdefault(str(c).lower(), str(c))
    key = name.lower()
    if key in lower2orig and lower2orig[key] != name:  # the same up to case: the one answer
        return f" (did you mean {lower2orig[key]!r}?)"
    hits: list[str] = []
    scored = []
    for low, orig in lower2orig.items():
        sm = difflib.SequenceMatcher(None, key, low)
        if sm.real_quick_ratio() >= cutoff and sm.quick_ratio() >= cutoff and sm.ratio() >= cutoff:
            scored.append((-sm.ratio(), not low.startswith(key), _natural(low), orig))
    for *_, orig in sorted(scored):  # best ratio first; ties: extensions of the name, then natural order
        if orig not in hits and orig != name:
            hits.append(orig)
    hits = hits[:n]
    if not hits:
        return ""
    return " (did you mean " + ", ".join(repr(h) for h in hits) + "?)"


def _natural(text: str) -> tuple:
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def shorten(text: str, limit: int = MAX_ARG_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was (for echoing arguments)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text)} characters]"
