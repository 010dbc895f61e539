"""Run the outside corpus on several seeds and write one JSON line per (statement, seed).

    cd /work/h-outside && python -m tests.outside.run_corpus --seeds 0:10 -o /tmp/outside.jsonl

In process (click's CliRunner on ``theorem_check.cli:cli``), so the clone's code is used.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("THEOREM_CHECK_JOBS", "1")
os.environ.setdefault("THEOREM_CHECK_CACHE_DIR", "off")


def run_one(entry: dict, seed: int) -> dict:
    from click.testing import CliRunner

    from theorem_check.cli import cli

    t0 = time.perf_counter()
    res = CliRunner().invoke(cli, ["check", *entry["argv"], "--seed", str(seed), "--json"], catch_exceptions=True)
    secs = time.perf_counter() - t0
    out = {"id": entry["id"], "truth": entry["truth"], "seed": seed, "exit": res.exit_code, "seconds": round(secs, 2)}
    try:
        text = res.stdout if hasattr(res, "stdout") else res.output
        rec = json.loads(text[text.index("{"):])
        claim = rec["claims"][0]
        pr = claim["printed_result"]
        out.update(verdict=claim["verdict"], evidence=claim["evidence"], configs=pr.get("configs"),
                   counterexample=(pr.get("numeric") or {}).get("counterexample"),
                   errors=(pr.get("numeric") or {}).get("errors"), mutants=pr.get("mutants"),
                   sensitivity=pr.get("sensitivity"))
    except Exception as exc:  # noqa: BLE001
        out.update(verdict="NO-JSON", evidence=f"{type(exc).__name__}: {exc}; output={res.output[-500:]!r}; "
                   f"exception={res.exception!r}")
    return out


def main(argv=None):
    from tests.outside.corpus import CORPUS

    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:10")
    ap.add_argument("--only", default=None, help="comma-separated ids")
    ap.add_argument("-o", "--out", default="-")
    a = ap.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    entries = [e for e in CORPUS if a.only is None or e["id"] in a.only.split(",")]
    t0 = time.perf_counter()
    with (open(a.out, "w") if a.out != "-" else open(sys.stdout.fileno(), "w", closefd=False)) as fh:
        for e in entries:
            for s in range(lo, hi):
                r = run_one(e, s)
                fh.write(json.dumps(r) + "\n")
                fh.flush()
                print(f"{e['id']:45s} seed {s} {r['verdict']:12s} {r['seconds']:6.2f}s", file=sys.stderr, flush=True)
    print(f"total {time.perf_counter() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
