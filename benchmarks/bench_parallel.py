"""Benchmark: ``run --all --jobs 2`` against ``--jobs 1``, and the workers' start-up cost, in one run.

Target (issue 13): ``run --all`` with two workers at least 1.7x faster than in one process on
a 2-core machine.  Each command runs once in a fresh interpreter (``python -m theorem_check
run --all --json``), timed end to end (imports included); the two JSON records must carry the
same verdicts and evidence (same seed, same output, whatever --jobs).

The start-up part times, for each multiprocessing start method, a fresh interpreter that
loads the catalogue and gets two workers ready (``theorem_check.execution.workers.WorkerPool``), then
the replacement of one worker (what a timeout or a crash costs); it is the measurement behind
the choice of ``forkserver`` (see the module docstring of theorem_check.execution.workers).

The run part times three runs: ``--jobs N`` without cost data (catalogue order, what a first run
does), ``--jobs 1`` (which records each claim's duration) and ``--jobs N`` again, handing the
longest claims out first (theorem_check.execution.durations); each in a scratch cost-data folder.

Run: ``python benchmarks/bench_parallel.py [--jobs 2] [--skip-run] [--skip-startup]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STARTUP = r"""
import sys, time
t0 = time.perf_counter()
from theorem_check.execution import workers
workers.START_METHOD = sys.argv[1]
if __name__ == "__main__":
    from theorem_check.authoring.registry import load_builtin
    workers.start_method_ready() if sys.argv[1] != "fork" else None
    load_builtin()
    t1 = time.perf_counter()
    with workers.WorkerPool(2) as pool:
        pool.run([workers.Task("prh.eq31"), workers.Task("noise.eq31")], timeouts=[120, 120])
        t2 = time.perf_counter()
        pool._retire(pool._workers[0]); pool._spawn()
        pool.run([workers.Task("prh.eq31"), workers.Task("noise.eq31")], timeouts=[120, 120])
        t3 = time.perf_counter()
    print(f"{t1 - t0:.2f} {t2 - t1:.2f} {t3 - t2:.2f}")
"""


def env(cache: str | None = None) -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    if cache is not None:
        e["THEOREM_CHECK_CACHE_DIR"] = cache
    return e


def timed_run(jobs: int, cache: str | None = None) -> tuple[float, dict]:
    """Wall time of ``run --all --jobs N --json`` in a fresh interpreter, and its record
    (``cache``: the cost-data folder, theorem_check.execution.durations)."""
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "theorem_check", "run", "--all", "--json", "-q", "--jobs", str(jobs)],
                       capture_output=True, text=True, cwd=ROOT, env=env(cache))
    secs = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"run --all --jobs {jobs} failed (exit {p.returncode}): {p.stderr.strip()[-500:]}")
    return secs, json.loads(p.stdout)


def verdicts(rec: dict) -> list:
    """(id, verdict, evidence) per claim, and per statement."""
    out = []
    for c in rec["claims"]:
        out.append((c["id"], c["verdict"], c["evidence"]))
        for s in [c["printed_result"], *c["variant_results"], *c["control_results"]]:
            out.append((c["id"], s["name"], s["verdict"], s["evidence"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--skip-run", action="store_true", help="only the start-up costs")
    ap.add_argument("--skip-startup", action="store_true", help="only run --all")
    args = ap.parse_args()
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"cores: {os.cpu_count()}, load average at start: {load:.1f}")
    if not args.skip_startup:
        print("start-up (fresh interpreter): parent imports catalogue | 2 workers ready + 2 claims | replace a "
              "worker + 2 claims")
        for method in ("forkserver", "spawn", "fork"):
            p = subprocess.run([sys.executable, "-c", STARTUP, method], capture_output=True, text=True, cwd=ROOT,
                               env=env())
            if p.returncode != 0:
                print(f"  {method:<10} failed: {p.stderr.strip().splitlines()[-1:]}")
                continue
            a, b, c = p.stdout.split()
            print(f"  {method:<10} {a:>6} s | {b:>6} s | {c:>6} s")
    if not args.skip_run:
        import tempfile

        with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as warm:
            # cold: no cost data (catalogue order, a first run); the --jobs 1 run writes the cost data
            # that the warm run hands out longest first with (docs/design-decisions.md, item 43)
            tc, rc = timed_run(args.jobs, cold)
            t1, r1 = timed_run(1, warm)
            tn, rn = timed_run(args.jobs, warm)
        same = verdicts(r1) == verdicts(rn) == verdicts(rc)
        print(f"run --all --jobs 1: {t1:.1f} s; --jobs {args.jobs}: {tn:.1f} s with cost data (longest first), "
              f"{tc:.1f} s without (catalogue order); ratio {t1 / tn:.2f}x (target >= 1.7x on 2 cores), "
              f"{t1 / tc:.2f}x without cost data; {len(r1['claims'])} claims, identical verdicts and evidence: {same}")
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
