"""Run the engine at the same place in CPython's frame stack, whoever calls it.

CPython 3.11+ keeps the frames of a thread on a stack of 16 KiB chunks (``Python/pystate.c``). A chunk is
mapped when a call needs room past the last one and unmapped when that call returns, so a loop whose calls
cross a chunk boundary maps and unmaps memory, and faults its pages in, on every call: about 7.5 us a call
instead of 0.05 us (measured on 3.11.7, 3.12.1 and 3.13.0 alike).  Where the boundary falls depends on how
deep the caller already is.  Under pytest and Hypothesis (some 60 frames deep) it fell inside the engine's
inner loops: 14.6 of the 69 CPU seconds of a metamorphic self-test shard were the kernel handling 1.8
million page faults, against 0.5 of 18 in ``run --all`` from the command line.

:func:`on_a_fresh_chunk` calls a function through one frame too large for any partly used chunk
(:data:`SLOTS`): CPython gives that frame a new chunk, so the function called from it always starts at the
same offset of a chunk, with about 62 KiB (some 400 frames) of room before the next boundary, from the
command line, pytest or a notebook alike (design decision 119).  One extra chunk per call; nothing else
changes.  On other Python implementations the large frame is merely a function with unused locals.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

__all__ = ["on_a_fresh_chunk", "SLOTS"]

T = TypeVar("T")

SLOTS = 8200
"""Local variable slots of the launching frame (8 bytes each, 65.6 KiB).  CPython sizes a new chunk as the
smallest power of two holding the frame plus 1,000 slots: 128 KiB here, which leaves about 62 KiB (some 400
frames) above the launching frame.  The frame is larger than that room, so a second launch from inside the
first (a test that runs a claim) always starts a chunk of its own too.  With 2,100 slots (16.8 KiB, 15 KiB of
room) a boundary fell inside the gallery's inner loops instead: 3.65 million page faults against 1.3 million
without any launch; with 8,200, 0.41 million."""

_SOURCE = ("def on_a_fresh_chunk(fn, /, *args, **kwargs):\n"
           "    if fn is None:   # never true: the assignment only gives the frame its slots\n"
           "        " + " = ".join(f"_{i}" for i in range(SLOTS)) + " = None\n"
           "    return fn(*args, **kwargs)\n")
_namespace: dict[str, Any] = {}
exec(compile(_SOURCE, __name__, "exec"), _namespace)  # noqa: S102 - fixed source, built above
_launch = _namespace["on_a_fresh_chunk"]


def on_a_fresh_chunk(fn: Callable[..., T], /, *args, **kwargs) -> T:
    """``fn(*args, **kwargs)``, called from a frame that starts a new frame-stack chunk.

    Returns what ``fn`` returns and raises what it raises.  Source: CPython ``Python/pystate.c``
    (``push_chunk``, ``_PyThreadState_PopFrame``), 3.11-3.13.
    """
    return _launch(fn, *args, **kwargs)
