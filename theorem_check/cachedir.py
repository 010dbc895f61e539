"""Where theorem-check keeps what it may forget: cost data and cached SymPy results.

One decision, read by :mod:`theorem_check.execution.durations` (the cost data) and
:mod:`theorem_check.engine.symcache` (symbolic-stage results):

- ``THEOREM_CHECK_CACHE_DIR`` names the folder; ``off``, ``none``, ``0``, ``false``, ``no`` or empty
  turn every cache off;
- else ``$XDG_CACHE_HOME/theorem-check``, else ``~/.cache/theorem-check`` (the XDG base directory
  convention, as pip and pytest follow it on Linux).

Everything kept there is a hint or a memo: a missing, unreadable, corrupt or unwritable folder is
ignored by its readers and writers, never an error.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "OFF_VALUES"]

OFF_VALUES = ("", "off", "none", "0", "false", "no")
"""Values of a cache switch (``THEOREM_CHECK_CACHE_DIR``, ``THEOREM_CHECK_CACHE``) that mean off."""


def cache_dir() -> Path | None:
    """The cache folder (not created here), or None when ``THEOREM_CHECK_CACHE_DIR`` turns caching off.

    >>> import os; os.environ["THEOREM_CHECK_CACHE_DIR"] = "/tmp/tc-cache"
    >>> str(cache_dir())
    '/tmp/tc-cache'
    """
    env = os.environ.get("THEOREM_CHECK_CACHE_DIR")
    if env is not None:
        if env.strip().lower() in OFF_VALUES:
            return None
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "theorem-check"
