"""Benchmark: the batched numeric stage against a per-trial Python loop, measured in one run.

Target (DESIGN.md): trials evaluated as stacked arrays are >= 10x faster than a per-trial loop
on the same claim.  The claim here is a deep-linear-network gradient identity
(``dL/dW_1 = 2 (W_D...W_2)^T (P Sigma_xx - Sigma_yx)``, computed two ways) at float64.

Run: ``python benchmarks/bench_batched.py [--trials 512]``; prints the two times and the ratio.
Also reports the scale of the shared DLN helpers at widths in the thousands.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from theorem_check import FLOAT64, Statement, dln, sampling  # noqa: E402
from theorem_check.engine.numeric import evaluate_identity  # noqa: E402
from theorem_check.library.dln import dln_dims  # noqa: E402


def sample(rng, d, batch):
    D = d["D"]
    Ws = [sampling.gaussian(rng, d[f"d{i}"], d[f"d{i - 1}"], batch=batch) for i in range(1, D + 1)]
    return {"W": Ws, "Sxx": sampling.spd(rng, d["d0"], batch=batch),
            "Syx": sampling.gaussian(rng, d[f"d{D}"], d["d0"], batch=batch)}


def lhs(inst, ctx):
    return dln.population_gradients(inst.W, inst.Sxx, inst.Syx)[0]


def rhs(inst, ctx):
    P = dln.product(inst.W)
    A = dln.product(inst.W, 1)
    return 2 * ctx.T(A) @ (P @ inst.Sxx - inst.Syx)


STATEMENT = Statement("grad identity", dims=dln_dims(), sample=sample, lhs=lhs, rhs=rhs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=512)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    d = {"D": 3, "d0": 4, "d1": 5, "d2": 3, "d3": 6, "d4": 1}
    inst = sample(np.random.default_rng(0), d, args.trials)
    singles = [sample(np.random.default_rng(k), d, 1) for k in range(args.trials)]
    best_b, best_l = np.inf, np.inf
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        evaluate_identity(STATEMENT, inst, FLOAT64)
        best_b = min(best_b, time.perf_counter() - t0)
        t0 = time.perf_counter()
        for one in singles:
            evaluate_identity(STATEMENT, one, FLOAT64)
        best_l = min(best_l, time.perf_counter() - t0)
    print(f"trials={args.trials}  batched {best_b * 1e3:.2f} ms  loop {best_l * 1e3:.2f} ms  "
          f"ratio {best_l / best_b:.1f}x (target >= 10x)")

    # scale: gradients of a width-2000 deep linear network (D = 3)
    rng = np.random.default_rng(1)
    w = 2000
    Ws = [sampling.gaussian(rng, w, w, batch=1) / np.sqrt(w) for _ in range(3)]
    Sxx = sampling.spd(rng, w, batch=1)
    Syx = sampling.gaussian(rng, w, w, batch=1)
    t0 = time.perf_counter()
    dln.population_gradients(Ws, Sxx, Syx)
    print(f"population_gradients at width {w}, depth 3: {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
