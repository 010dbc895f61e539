"""Cost data (theorem_check.execution.durations): the file round-trips, bad files are ignored, the order is
longest first with unknown claims first, and the worker pool hands tasks out in that order
without changing the results or their order."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorem_check.errors import InvalidArgument
from theorem_check.execution import durations


def test_record_and_load_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path))
    durations.record({"a.x": 1.5, "b.y": 0.25})
    durations.record({"a.x": 2.0, "c.z": float("nan")})   # merges; non-finite values are dropped
    assert durations.load() == {"a.x": 2.0, "b.y": 0.25}
    assert durations.cache_path() == tmp_path / "durations.json"


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"version": 99, "seconds": {"a": 1}}',
                                  '{"version": 1, "seconds": {"a": "slow", "b": -1}}'])
def test_bad_files_are_ignored(tmp_path, monkeypatch, text):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path))
    (tmp_path / "durations.json").write_text(text)
    assert durations.load() == {}
    durations.record({"a": 1.0})                             # and overwritten by a good one
    assert json.loads((tmp_path / "durations.json").read_text())["seconds"] == {"a": 1.0}


@pytest.mark.parametrize("value", ["off", "none", "0", ""])
def test_disabled(monkeypatch, value):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", value)
    assert durations.cache_path() is None and durations.load() == {}
    durations.record({"a": 1.0})                             # a no-op, no error


def test_unwritable_folder_is_silent(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(blocker / "sub"))
    durations.record({"a": 1.0})                             # mkdir fails: silent
    assert durations.load() == {}


@given(st.lists(st.sampled_from("abcdef"), max_size=12),
       st.dictionaries(st.sampled_from("abcdef"), st.floats(0, 100), max_size=6))
def test_longest_first_is_a_permutation_unknown_first_then_descending(ids, known):
    order = durations.longest_first(ids, known)
    assert sorted(order) == list(range(len(ids)))
    n_unknown = sum(c not in known for c in ids)
    head, tail = order[:n_unknown], order[n_unknown:]
    assert head == [i for i, c in enumerate(ids) if c not in known]
    assert [known[ids[i]] for i in tail] == sorted((known[ids[i]] for i in tail), reverse=True)


def test_pool_hands_tasks_out_in_the_given_order(tmp_path, monkeypatch):
    """One worker: tasks finish in the hand-out order; outcomes stay in task order."""
    from theorem_check.execution import workers

    ids = ["prh.eq16", "prh.eq23", "prh.eq17", "prh.eq18"]
    tasks = [workers.Task(i) for i in ids]
    finished = []
    with workers.WorkerPool(1) as pool:
        outs = pool.run(tasks, timeouts=[120] * 4, on_done=lambda i, o: finished.append(i), order=[3, 0, 2, 1])
        with pytest.raises(InvalidArgument, match="order="):
            pool.run(tasks[:2], timeouts=[120, 120], order=[0, 0])
    assert finished == [3, 0, 2, 1]
    assert [o.result.claim for o in outs] == ids and all(o.kind == "ok" for o in outs)


def test_run_tasks_orders_by_cost_data_and_records_it(tmp_path, monkeypatch):
    from theorem_check.execution import workers

    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path))
    ids = ["prh.eq16", "prh.eq23", "prh.eq17"]
    durations.record({"prh.eq16": 0.01, "prh.eq17": 9.0})
    seen = {}

    def fake_run(self, tasks, *, timeouts, on_done, keep, order):
        seen["order"] = list(order)
        outs = [workers.TaskOutcome("ok", result=None, seconds=0.5 + i) for i in range(len(tasks))]
        for i in order:
            on_done(i, outs[i])
        return outs

    monkeypatch.setattr(workers.WorkerPool, "run", fake_run)
    monkeypatch.setattr(workers.WorkerPool, "__init__", lambda self, *a, **k: None)
    monkeypatch.setattr(workers.WorkerPool, "close", lambda self, **k: None)
    workers.run_tasks([workers.Task(i) for i in ids], jobs=2, timeouts=[None] * 3)
    assert seen["order"] == [1, 2, 0]          # no data for eq23 first, then eq17 (9 s), eq16 (0.01 s)
    assert durations.load() == {"prh.eq16": 0.5, "prh.eq23": 1.5, "prh.eq17": 2.5}
