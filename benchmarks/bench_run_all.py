"""Benchmark: ``run --all`` wall and CPU time (issue 21 item 3: at most 8 s on 2 cores), in one run.

Four runs of ``python -m theorem_check run --all --seed 0 --json`` in fresh interpreters, each timed
end to end (imports included) in wall time and CPU time (``resource.getrusage(RUSAGE_CHILDREN)``).  The
CPU time is the number to trust on a loaded machine, and it is complete only with ``--jobs 1`` (the
workers are children of the forkserver, whose CPU the parent never collects), so the CPU rows run in
process and the last row measures the wall time with ``--jobs N``:

1. ``cold``: ``--jobs 1``, an empty cache folder (no cost data, no cached SymPy results: a first run);
2. ``warm``: ``--jobs 1``, the same folder again (the SymPy results of run 1 read back);
3. ``nocache``: ``--jobs 1``, ``THEOREM_CHECK_CACHE=0`` in the warm folder (SymPy recomputed);
4. ``warm-jN``: ``--jobs N``, the warm folder (wall time; CPU of the parent process only).

It prints each run's wall and CPU seconds, the ratios to the ``cold`` run and to the numbers measured
before the cache (``BEFORE``, same machine, same command), and checks that the three JSON records carry
the same verdicts and evidence.  ``--suite`` also times the default test suite, ``python -m pytest`` (the tests marked slow
deselected; minutes), and ``--suite --slow`` the whole suite, ``python -m pytest --slow`` (README's command).

Run: ``python benchmarks/bench_run_all.py [--jobs 2] [--suite [--slow]]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BEFORE = {"run --all (CPU s, in process)": 39.4, "run --all (wall s, 2 workers, idle, README)": 17.0,
          "suite not slow (wall s, 2 cores, idle, README)": 300.0}
"""Numbers before issue 21 item 3 (de9e1b9): the CPU time of every claim of run --all in one process,
measured with time.process_time on the loaded machine (per-claim CPU is load-independent); the wall times
are README's, measured on the idle machine."""


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the command and its waited-for children, stdout)."""
    c0, t0 = _children_cpu(), time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, _children_cpu() - c0, out.stdout


def env_for(cache: str, **extra: str) -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e["THEOREM_CHECK_CACHE_DIR"] = cache
    e.pop("THEOREM_CHECK_CACHE", None)
    e.update(extra)
    return e


def verdicts(text: str) -> dict:
    return {c["id"]: (c["verdict"], c["evidence"]) for c in json.loads(text)["claims"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--suite", action="store_true", help="also time the default test suite (python -m pytest)")
    ap.add_argument("--slow", action="store_true", help="with --suite: time the whole suite (python -m pytest --slow)")
    a = ap.parse_args()
    cmd = [sys.executable, "-m", "theorem_check", "run", "--all", "--seed", "0", "--json", "-q", "--jobs"]
    rows, records = {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-run-all-") as cache:
        for name, jobs, extra in [("cold", 1, {}), ("warm", 1, {}), ("nocache", 1, {"THEOREM_CHECK_CACHE": "0"}),
                                  (f"warm-j{a.jobs}", a.jobs, {})]:
            wall, cpu, out = timed(cmd + [str(jobs)], env_for(cache, **extra))
            rows[name] = (wall, cpu)
            records[name] = verdicts(out)
    print(f"run --all (seed 0), {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"{'run':8s} {'wall s':>8s} {'CPU s':>8s} {'wall/cold':>10s} {'CPU/cold':>9s} {'CPU/before':>11s}")
    for name, (wall, cpu) in rows.items():
        print(f"{name:8s} {wall:8.2f} {cpu:8.2f} {wall / rows['cold'][0]:10.2f} {cpu / rows['cold'][1]:9.2f} "
              f"{cpu / BEFORE['run --all (CPU s, in process)']:11.2f}")
    same = all(r == records["cold"] for r in records.values())
    print("verdicts and evidence identical across the runs:", same)
    print("before:", ", ".join(f"{k} {v:g}" for k, v in BEFORE.items()))
    if a.suite:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + (["--slow"] if a.slow else [])
        wall, cpu, _ = timed(cmd, {**os.environ})
        print(f"suite ({'whole, --slow' if a.slow else 'default, slow tests deselected'}): wall {wall:.0f} s, CPU {cpu:.0f} s (CPU / 2 cores = {cpu / 2:.0f} s), "
              f"wall/before {wall / BEFORE['suite not slow (wall s, 2 cores, idle, README)']:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
