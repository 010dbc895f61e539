"""Cost data: how long each claim took last time, to hand the longest claims out first.

With ``--jobs N > 1`` the run ends when the last worker finishes; claims handed out in catalogue
order leave the longest ones (a 3 s Hessian claim among 0.1 s identities) for the end, where one
worker runs them while the others idle.  Handing out the longest first (the LPT rule: longest
processing time first, within 4/3 of the optimal makespan) needs a duration per claim before it
runs; like CTest's ``CTestCostData.txt``, theorem-check keeps the wall time each claim took in
its last run and orders the next run by it (claims without data first, in catalogue order).
The order of *execution* only: results, reports and JSON stay in catalogue order, and a claim's
seeds never depend on the order (same seed, same output, whatever ``--jobs``).

Where: ``$THEOREM_CHECK_CACHE_DIR/durations.json``, else ``$XDG_CACHE_HOME/theorem-check/``,
else ``~/.cache/theorem-check/``.  ``THEOREM_CHECK_CACHE_DIR=off`` (or ``none``, ``0``, empty)
disables it.  The file is a hint: a missing, unreadable or corrupt file is ignored, writes are
atomic (``os.replace``) and merge with what another run wrote meanwhile; errors writing it are
silent (a read-only home must not fail a run).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from theorem_check.cachedir import cache_dir

__all__ = ["cache_path", "load", "record", "longest_first"]

_FILE = "durations.json"
_VERSION = 1
_MAX_ENTRIES = 20000


def cache_path() -> Path | None:
    """The cost-data file, or None when ``THEOREM_CHECK_CACHE_DIR`` disables it (:func:`theorem_check.cachedir.cache_dir`)."""
    base = cache_dir()
    return None if base is None else base / _FILE


def load(path: Path | None = None) -> dict[str, float]:
    """Claim id -> seconds of its last run (empty when there is no usable file)."""
    path = cache_path() if path is None else path
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != _VERSION:
            return {}
        return {str(k): float(v) for k, v in data.get("seconds", {}).items()
                if isinstance(v, (int, float)) and math.isfinite(v) and v >= 0}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def record(seconds: Mapping[str, float], path: Path | None = None) -> None:
    """Merge ``claim id -> seconds`` into the file (atomic; silent on any OS error)."""
    path = cache_path() if path is None else path
    if path is None or not seconds:
        return
    data = load(path)
    data.update({k: round(float(v), 4) for k, v in seconds.items() if math.isfinite(v) and v >= 0})
    if len(data) > _MAX_ENTRIES:  # packs come and go: keep the most recent entries (insertion order)
        data = dict(list(data.items())[-_MAX_ENTRIES:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".durations-", suffix=".json", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": _VERSION, "seconds": data}, fh, indent=0, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except (OSError, NameError):
            pass


def longest_first(ids: Sequence[str], known: Mapping[str, float] | None = None) -> list[int]:
    """Indices of ``ids`` in execution order: ids without cost data first (in the given order),
    then by last duration, longest first (ties keep the given order)."""
    known = load() if known is None else known
    unknown = [i for i, c in enumerate(ids) if c not in known]
    timed = sorted((i for i, c in enumerate(ids) if c in known), key=lambda i: -known[ids[i]])
    return unknown + timed
