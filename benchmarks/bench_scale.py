"""Benchmark: checks at real sizes, in one run (issue 13, item 4).

1. **Theorem 5.4's closed form at depth 10, width 2048** (noise paper, eqs. 17-19): the
   equilibrium weights of the corrected eq. 18 built with the catalogue's own code
   (``derivations.noise.sec5_3_deep_linear._t54_weights``: 13 Cayley transforms, the SVD frame
   of V', the layer matrices) at D = 10, d_x = d_y = r = 2048, and the layer-norm balance of eq. 19
   (corrected: Tr Sigma_i^2 = d c^2 in the middle, Tr Sx c^2 and Tr Se c^2 at the ends) checked
   on it at float64; the printed eq. 19 on the same weights is the negative control (it must
   fail).  Prints time, the peak resident memory above the start, and residuals.
2. **Hessian of a deep linear network with P >= 100,000 parameters** through Hessian-vector
   products (``theorem_check.library.dln.population_hvp``) and Lanczos (``dln.hessian_eigsh``:
   ``scipy.sparse.linalg.eigsh`` on a ``LinearOperator``), the extreme eigenvalues at both ends;
   first checked against the dense Hessian (``dln.population_hessian`` + ``numpy.linalg.eigvalsh``)
   at a size where both fit (P = 3,200).
3. **Achieved fraction of this machine's matmul peak**: the best float64 GEMM rate at n = 2048
   (NumPy/OpenBLAS, all cores) is the practical peak; the Theorem 5.4 check's rate is its dense
   n^3 operation count (:func:`thm54_flops`, about 260 n^3 flops) over its time.

Run: ``python benchmarks/bench_scale.py [--width 2048] [--depth 10] [--hessian-width 256]``.
Exit 1 if a check gives the wrong answer (a true statement that fails or a control that holds).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from theorem_check import FLOAT64, dln, sampling  # noqa: E402


def gemm_peak(n: int = 2048, repeats: int = 3) -> float:
    """Best float64 matmul rate (flop/s) at size n."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    a @ b
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2 * n ** 3 / best


def _rss() -> int:
    """Current resident set size of this process (bytes, Linux /proc; 0 elsewhere)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * 4096
    except OSError:
        return 0


def thm54(depth: int, width: int):
    """Theorem 5.4's equilibrium at (depth, width): (seconds, extra peak RSS bytes, residual, control residual)."""
    import resource

    from derivations.noise import sec5_3_deep_linear as N
    from derivations.noise.model import sample_gmin

    d = {"D": depth, "dx": width, "dy": width, "r": width, **{f"e{i}": 0 for i in range(1, depth)}}
    inst = N.tc.Instance(sample_gmin(np.random.default_rng(0), d, 1))
    base = _rss()
    t0 = time.perf_counter()
    lhs = N._eq19_lhs(inst, FLOAT64)                       # Tr Sigma_i^2 read off the closed-form weights
    rhs = N._eq19_rhs(inst, FLOAT64, "corrected")
    printed = N._eq19_rhs(inst, FLOAT64, "printed")
    secs = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    scale = np.abs(rhs).max()
    return secs, peak, float(np.abs(lhs - rhs).max() / scale), float(np.abs(lhs - printed).max() / scale)


def thm54_flops(depth: int, n: int) -> float:
    """Dense n^3 operations of the check.  Each of the 3 constructions of the weights (one per
    side evaluated) does 4 + depth - 1 Cayley transforms (inverse 2n^3 + product 2n^3), 4
    symmetric roots (2n^3) and depth + 2 layer products (2n^3); the left side adds 2 products."""
    per_build = (4 + depth - 1) * 4 + 4 * 2 + (depth + 2) * 2
    return (3 * per_build + 4) * float(n) ** 3


def dln_point(widths, rng):
    """Weights, Sigma_xx (SPD) and Sigma_yx of one network (no batch axis)."""
    Ws = [rng.standard_normal((widths[i + 1], widths[i])) / np.sqrt(widths[i]) for i in range(len(widths) - 1)]
    Sxx = sampling.spd(rng, widths[0], batch=1)[0]
    Syx = rng.standard_normal((widths[-1], widths[0]))
    return Ws, Sxx, Syx


def hessian_dense_check(widths, beta, k=4):
    """Lanczos eigenvalues against the dense Hessian's: returns (P, max relative gap)."""
    rng = np.random.default_rng(1)
    Ws, Sxx, Syx = dln_point(widths, rng)
    H = dln.population_hessian([W[None] for W in Ws], Sxx[None], Syx[None], beta=beta)[0]
    ev = np.linalg.eigvalsh(H)
    lo = dln.hessian_eigsh(Ws, Sxx, Syx, beta=beta, k=k, which="SA", tol=1e-10)
    hi = dln.hessian_eigsh(Ws, Sxx, Syx, beta=beta, k=k, which="LA", tol=1e-10)
    ref = np.concatenate([ev[:k], ev[-k:]])
    got = np.concatenate([lo, hi])
    return H.shape[0], float(np.max(np.abs(got - ref)) / np.max(np.abs(ev)))


def hessian_large(widths, beta, k=6):
    """Extreme eigenvalues of a large network's Hessian by Lanczos: (P, seconds, matvecs, values)."""
    from scipy.sparse.linalg import LinearOperator, eigsh

    rng = np.random.default_rng(2)
    Ws, Sxx, Syx = dln_point(widths, rng)
    dims = list(widths)
    P = sum(W.size for W in Ws)
    count = [0]

    def mv(v):
        count[0] += 1
        Vs = dln.unflatten_weights(np.asarray(v, dtype=float).ravel(), dims)
        return dln.flatten_weights(dln.population_hvp(Ws, Vs, Sxx, Syx, beta=beta))

    op = LinearOperator((P, P), matvec=mv, dtype=float)
    t0 = time.perf_counter()
    hi = eigsh(op, k=k, which="LA", return_eigenvectors=False, tol=1e-8)
    lo = eigsh(op, k=k, which="SA", return_eigenvectors=False, tol=1e-8)
    return P, time.perf_counter() - t0, count[0], np.sort(lo), np.sort(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--hessian-width", type=int, default=256)
    args = ap.parse_args()
    ok = True

    peak = gemm_peak()
    print(f"matmul peak (float64 GEMM, n = 2048, best of 3): {peak / 1e9:.1f} GFLOP/s")

    secs, mem, res, ctl = thm54(args.depth, args.width)
    eps_floor = np.finfo(float).eps * args.width * args.depth * 100   # eps * size * depth * cond bound
    flops = thm54_flops(args.depth, args.width)
    verdict = res <= eps_floor and ctl > 1e-3
    ok &= verdict
    print(f"Theorem 5.4 closed form + eq. 19 balance, D = {args.depth}, width {args.width}: {secs:.2f} s, "
          f"peak memory {mem / 2**20:.0f} MiB above the start; residual {res:.1e} (floor {eps_floor:.1e}), printed eq. 19 "
          f"(control) {ctl:.1e}: {'OK' if verdict else 'WRONG'}")
    print(f"  about {flops / 1e9:.0f} GFLOP of dense n^3 work: {flops / secs / 1e9:.1f} GFLOP/s, "
          f"{flops / secs / peak:.0%} of the matmul peak")

    w = 20
    P, gap = hessian_dense_check([w, 2 * w, 2 * w, w], beta=0.01)
    good = gap < 1e-8
    ok &= good
    print(f"Hessian, Lanczos vs dense at P = {P}: extreme eigenvalues agree to {gap:.1e} (relative): "
          f"{'OK' if good else 'WRONG'}")

    h = args.hessian_width
    widths = [h // 2, h, h, h // 2]
    P, secs, mvs, lo, hi = hessian_large(widths, beta=0.01)
    print(f"Hessian by HVP + Lanczos at P = {P:,} (widths {widths}): {secs:.1f} s, {mvs} Hessian-vector products "
          f"({secs / mvs * 1e3:.1f} ms each); smallest {np.array2string(lo[:3], precision=4)}, "
          f"largest {np.array2string(hi[-3:], precision=4)}; dense would need {P * P * 8 / 2**30:.0f} GiB")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
