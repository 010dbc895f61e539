"""Whether a statement's instances fit in memory, before anything runs (``check`` and ``derive``).

The float64 batches and the mp50 object arrays of the inputs at the top of each size range, and of the largest
matrix a subexpression of the sides builds (helper-69: ``A*B`` of 50000 x 1 by 1 x 50000), must fit in
1/:data:`WORKING_FACTOR` of the machine's memory; otherwise one line, exit 2.
"""

from __future__ import annotations

from theorem_check.errors import InvalidArgument

__all__ = ["MP50_ENTRY_BYTES", "WORKING_FACTOR", "check_fits", "instance_bytes"]


MP50_ENTRY_BYTES = 120
"""Bytes of one entry of an mp50 object array (the pointer, the ``mpf`` and its 166-bit mantissa; measured)."""
WORKING_FACTOR = 4
"""The sides hold intermediates of an instance's size: an instance must fit in 1/4 of the memory."""


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} PB"  # pragma: no cover


def instance_bytes(shapes: dict, ranges: dict, trials: int, complex_names=(), sides=()) -> tuple[int, int, dict]:
    """Bytes of the largest configuration's instance: ``(float64 batch, one mp50 instance, largest sizes)``.

    Every size letter at the top of its range; the float64 arrays hold a batch of
    ``ceil(trials / min(trials, 4))`` instances (the most the numeric stage draws at one configuration), the mp50 object
    arrays one instance at a time (:data:`MP50_ENTRY_BYTES` per entry).  An entry of a name in
    ``complex_names`` counts twice (complex128: 16 bytes; ``mpc``: two ``mpf``).  ``sides`` (the statement's two
    sides in the string syntax): the largest matrix a subexpression of them builds counts as well (``A*B`` of an
    ``n x 1`` and a ``1 x n`` at n = 50,000 is 2.5e9 entries: the run was killed for memory with no message,
    helper-69).
    """
    top = {k: hi for k, (lo, hi) in ranges.items()}
    entries = 0
    for name, (r, c) in shapes.items():
        n = (top[r] if isinstance(r, str) else r) * (top[c] if isinstance(c, str) else c)
        entries += 2 * n if name in complex_names else n
    entries += _largest_intermediate(sides, shapes, top, complex_names)
    batch = -(-trials // max(1, min(trials, 4)))
    return entries * 8 * batch, entries * MP50_ENTRY_BYTES, top


def _largest_intermediate(sides, shapes: dict, top: dict, complex_names=()) -> int:
    """Entries of the largest matrix a subexpression of ``sides`` is at the sizes ``top`` (0 for a side that does not
    parse there: the run reports that itself)."""
    import sympy as sp

    from theorem_check import expr as ex

    most = 0
    for text in sides:
        try:
            e = ex.parse(text, shapes, dict(top), complex_names=tuple(complex_names), sizes=tuple(top))
        except Exception:  # noqa: BLE001 - the statement's own parse reports it
            continue
        for node in sp.preorder_traversal(e):
            shape = getattr(node, "shape", None) if isinstance(node, sp.MatrixExpr) else None
            if shape and all(getattr(v, "is_Integer", False) for v in shape):
                most = max(most, int(shape[0]) * int(shape[1]))
    return most


def _memory_bytes() -> int:
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 * 10**9


def check_fits(shapes: dict, ranges: dict, trials: int, memory: int | None = None, complex_names=(), sides=()) -> None:
    """InvalidArgument (one line, exit 2) when the largest configuration's instance cannot fit: more than
    1/:data:`WORKING_FACTOR` of ``memory`` (this machine's physical memory by default); ``complex_names``
    and ``sides`` as for :func:`instance_bytes`."""
    f64, mp, top = instance_bytes(shapes, ranges, trials, complex_names, sides)
    memory = _memory_bytes() if memory is None else memory
    if (f64 + mp) * WORKING_FACTOR <= memory:
        return
    what = f"--size: the largest sizes ({', '.join(f'{k}={v}' for k, v in top.items())})" if top else \
        f"--shape: the sizes {', '.join(f'{k}={r},{c}' for k, (r, c) in shapes.items())}"
    raise InvalidArgument(f"{what} need about {_human(f64 + mp)} for their instances and the matrices the sides "
                          f"build (float64 {_human(f64)}, mp50 object arrays {_human(mp)}), more than 1/{WORKING_FACTOR} of this "
                          f"machine's {_human(memory)} memory: give smaller sizes")
