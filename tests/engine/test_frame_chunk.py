"""The engine's launch from a fresh frame-stack chunk (theorem_check.engine.frame_chunk)."""

import sys

import pytest

from theorem_check.engine.frame_chunk import SLOTS, _launch, on_a_fresh_chunk


def test_passes_arguments_and_results_through():
    assert on_a_fresh_chunk(divmod, 7, 2) == (3, 1)
    assert on_a_fresh_chunk(dict, a=1) == {"a": 1}
    assert on_a_fresh_chunk(on_a_fresh_chunk, sorted, [3, 1, 2]) == [1, 2, 3]   # nested launches
    assert on_a_fresh_chunk(lambda fn: fn, fn=5) == 5   # a keyword named like the launcher's own parameter


def test_raises_what_the_function_raises():
    def boom():
        raise ValueError("from inside")

    with pytest.raises(ValueError, match="from inside"):
        on_a_fresh_chunk(boom)


def test_the_launching_frame_is_larger_than_the_room_its_chunk_leaves():
    """CPython (3.11+) gives a frame needing `size` slots a chunk of the smallest power of two of at least
    8 (size + 1000) bytes; the launching frame must not fit in the room left above another launching frame,
    so that a launch inside a launch starts its own chunk too."""
    code = _launch.__code__
    assert code.co_nlocals == SLOTS + 3      # fn, args, kwargs and the slots
    frame = 8 * code.co_nlocals
    chunk = 1 << (8 * (code.co_nlocals + 1000) - 1).bit_length()
    assert frame > chunk - frame > 32 * 1024, (frame, chunk)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's frame stack")
def test_a_deep_caller_does_not_change_the_result():
    def deep(k):
        return on_a_fresh_chunk(sum, range(10)) if k == 0 else deep(k - 1)

    assert {deep(k) for k in (0, 50, 200)} == {45}
