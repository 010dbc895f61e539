"""Eager argument checks, in the style of Hypothesis's ``internal/validation.py``.

Each ``check_*`` helper raises :class:`~theorem_check.errors.InvalidArgument` with a message
``"<name>=<value!r> must ..."`` and otherwise returns the (possibly converted) value.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidArgument

__all__ = ["check_int", "check_positive_int", "check_finite_matrix", "check_invertible", "check_square",
           "BUDGET_PRESETS", "check_budget"]


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
