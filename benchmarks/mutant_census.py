"""Census of the automatic mutants over the catalogue (DESIGN.md, trust model 2).

    python benchmarks/mutant_census.py [--seeds 0:3] [--paper P] [--slow]

For every statement that holds, counts its automatic mutants by kind (refuted / grey / survived), how
many statements are decided by their own check (deprecated ``Measurement``: no mutant can test them),
and the histogram of sensitivities (smallest relative perturbation refuted, ladder 1e-2 ... 1e-14).
Also reports verdict changes across seeds.  Prints one table; exit 1 if any mutant survived.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

import theorem_check as tc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:1", help="A:B (half-open), default 0:1")
    ap.add_argument("--paper", default=None)
    ap.add_argument("--slow", action="store_true")
    args = ap.parse_args(argv)
    a, b = (int(x) for x in args.seeds.split(":"))
    tc.load_builtin()
    claims = [c for c in tc.REGISTRY if (args.paper is None or c.paper == args.paper) and (args.slow or not c.slow)]
    kinds = collections.Counter()
    hist = collections.Counter()
    by_check = set()
    verdicts = collections.defaultdict(set)
    survivors = []
    t0 = time.perf_counter()
    import warnings

    warnings.simplefilter("ignore", tc.TheoremCheckDeprecationWarning)
    for seed in range(a, b):
        for c in claims:
            r = tc.run_claim(c, seed=seed)
            verdicts[c.id].add(r.verdict.value)
            for st in (r.printed, *r.variants):
                verdicts[f"{c.id} ({st.name})"].add(st.verdict.value)
                if st.decided_by == "check":
                    by_check.add(f"{c.id} ({st.name})")
                for m in st.mutants:
                    kind = m.name.split(" 1e")[0] if m.name.startswith("relative") else m.name
                    kind = "relative" if m.name.startswith(("relative", "shift")) else kind
                    kinds[(kind, m.outcome.value)] += 1
                    if m.survived:
                        survivors.append(f"seed {seed}: {c.id} ({st.name}): {m.name}")
                if st.mutants:
                    hist[st.sensitivity] += 1
    secs = time.perf_counter() - t0
    print(f"{len(claims)} claims, seeds {a}:{b}, {secs:.1f} s")
    print("mutants by kind (outcome: count):")
    for kind in sorted({k for k, _ in kinds}):
        row = ", ".join(f"{o} {kinds[(kind, o)]}" for o in ("fails", "grey", "holds") if kinds[(kind, o)])
        print(f"  {kind:<12} {row}")
    print(f"statements decided by their own check (no mutants possible): {len(by_check)}")
    print("sensitivity histogram (smallest relative perturbation refuted: statements):")
    for s in sorted(hist, key=lambda x: (x is None, x or 0)):
        print(f"  {('none' if s is None else f'{s:.0e}'):>6}: {hist[s]}")
    changed = {k: v for k, v in verdicts.items() if len(v) > 1}
    print(f"verdict changes across seeds: {len(changed)}" + "".join(f"\n  {k}: {sorted(v)}" for k, v in changed.items()))
    print(f"survivors: {len(survivors)}" + "".join(f"\n  {s}" for s in survivors[:50]))
    return 1 if survivors or changed else 0


if __name__ == "__main__":
    sys.exit(main())
