"""Benchmark: the high-precision rung (mpmath, 50 digits) against python-flint's arb, in one run.

The engine's ``mp50`` context (theorem_check.numerics.precision.MP50) holds NumPy ``object`` arrays of
``mpmath.mpf`` with a leading batch axis; ``@`` is NumPy's object matmul, ``inv`` / ``solve`` /
``det`` loop over the batch through ``mpmath.matrix``.  The candidates, at the same 50 digits:

* ``arb objects``: the same object arrays holding ``flint.arb`` balls (elementwise arithmetic
  in C; NumPy's object matmul unchanged);
* ``arb_mat``: ``flint.arb_mat`` per batch element (matrix products, inverse, solve and
  determinant in C), *including* the conversion from and back to object arrays.

Operations at sizes n = 2..8 on batches of ``--batch`` instances (the engine evaluates mp50 on
the first instance of each batch and on the grey ones: small batches).  Each result is checked
against mpmath to 1e-40 (relative), so that a speed-up is not bought with a wrong value; and
the balls' radii are printed (a ball excluding zero is a rigorous bound, which mpmath's
floating point is not).  Prints a table of times and ratios (mpmath / candidate).

A second table times the engine's own ``MP50.inv`` / ``solve`` / ``det`` / ``expm`` with
``theorem_check.numerics.arb.USE_ARB`` on (arb_mat / acb_mat, conversion from and back to the object
arrays of mpf/mpc included) and off (mpmath), real and complex, at the sizes the catalogue uses
(n = 1..4 are nearly all mp50 calls of ``run --all``) and with the engine's mp50 batch of one;
at n = 1 ``inv`` / ``solve`` / ``det`` stay in mpmath (arb was only 2.4-3.1x there), so both columns
time mpmath.

Run: ``python benchmarks/bench_arb.py [--batch 4] [--repeats 5] [--engine-sizes 1,2,3,4,6,8]``.
Needs ``pip install python-flint`` (``pip install ".[arb]"``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import mpmath
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from theorem_check.numerics import arb, precision  # noqa: E402
from theorem_check.numerics.precision import MP50  # noqa: E402

try:
    import flint
except ImportError:  # pragma: no cover - the benchmark says what to install
    sys.exit("bench_arb needs python-flint: pip install python-flint")

DPS = 50


def best(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls (seconds)."""
    t = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def to_arb_objects(a: np.ndarray) -> np.ndarray:
    """float64 array -> object array of flint.arb (exact conversion of the doubles)."""
    return np.vectorize(flint.arb, otypes=[object])(a)


def arb_mats(a_obj: np.ndarray) -> list:
    """Object array (b, n, m) of arb -> list of b arb_mat."""
    return [flint.arb_mat(m.tolist()) for m in a_obj]


def from_arb_mats(ms: list) -> np.ndarray:
    """list of arb_mat -> object array (b, n, m) of arb."""
    return np.array([[[m[i, j] for j in range(m.ncols())] for i in range(m.nrows())] for m in ms], dtype=object)


def rel_gap(x_mp, x_arb) -> float:
    """Largest relative difference between an mpf array and an arb array (as floats)."""
    xm = np.asarray(x_mp, dtype=object).ravel()
    xa = np.asarray(x_arb, dtype=object).ravel()
    worst = 0.0
    with mpmath.workdps(DPS):
        for u, v in zip(xm, xa):
            v_mp = mpmath.mpf(flint.arb(v).mid().str(DPS + 5, radius=False))
            worst = max(worst, float(abs(u - v_mp) / max(abs(u), mpmath.mpf(1e-300))))
    return worst


def max_radius(x_arb) -> float:
    """Largest ball radius in an arb array (the rigorous error bound)."""
    return max(float(flint.arb(v).rad()) for v in np.asarray(x_arb, dtype=object).ravel())


def engine_table(sizes: list[int], batch: int, repeats: int, rng) -> list[tuple]:
    """Time MP50.inv / solve / det / expm with USE_ARB on and off; rows (op, kind, n, t_mpmath, t_arb, gap)."""
    rows = []
    print(f"\nengine MP50 ops, USE_ARB off (mpmath) / on (arb, conversions included), batch {batch}, "
          f"best of {repeats}")
    print(f"{'op':<7}{'kind':<6}{'n':>3}  {'mpmath':>10}  {'arb':>10}  {'ratio':>6}  {'rel gap':>8}")
    saved = arb.USE_ARB
    try:
        for kind in ("real", "cplx"):
            for n in sizes:
                a = rng.standard_normal((batch, n, n)) + n * np.eye(n)
                b = rng.standard_normal((batch, n, n))
                if kind == "cplx":
                    a = a + 1j * rng.standard_normal((batch, n, n))
                    b = b + 1j * rng.standard_normal((batch, n, n))
                with MP50.active():
                    A, B = MP50.asarray(a), MP50.asarray(b)
                    ops = {"inv": lambda: MP50.inv(A), "solve": lambda: MP50.solve(A, B),
                           "det": lambda: MP50.det(A), "expm": lambda: MP50.expm(A / n)}
                    for name, fn in ops.items():
                        arb.USE_ARB = False
                        t_mp, ref = best(fn, repeats), fn()
                        arb.USE_ARB = True
                        t_arb, got = best(fn, repeats), fn()
                        gap = max(float(abs(u - v) / max(abs(u), mpmath.mpf(1e-300)))
                                  for u, v in zip(np.ravel(ref), np.ravel(got)))
                        rows.append((name, kind, n, t_mp, t_arb, gap))
                        print(f"{name:<7}{kind:<6}{n:>3}  {t_mp * 1e3:>8.3f}ms  {t_arb * 1e3:>8.3f}ms  "
                              f"{t_mp / t_arb:>6.1f}  {gap:>8.1e}")
    finally:
        arb.USE_ARB = saved
    for name in ("inv", "solve", "det", "expm"):
        n0 = 1 if name == "expm" else precision._ARB_MIN_N     # smaller sizes stay in mpmath (ratio ~1)
        r = [t_mp / t_arb for op, _, n, t_mp, t_arb, _ in rows if op == name and n >= n0]
        if r:
            print(f"{name} (n >= {n0}): arb / mpmath speed-up min {min(r):.1f}x, median {float(np.median(r)):.1f}x, "
                  f"max {max(r):.1f}x")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="2,4,6,8")
    ap.add_argument("--engine-sizes", default="1,2,3,4,6,8")
    ap.add_argument("--engine-batch", type=int, default=1)
    args = ap.parse_args()
    flint.ctx.dps = DPS
    rng = np.random.default_rng(0)
    rows = []
    print(f"mp50 stage: mpmath {mpmath.__version__} vs python-flint {flint.__version__} arb at {DPS} digits, "
          f"batch {args.batch}, best of {args.repeats}")
    print(f"{'op':<8}{'n':>3}  {'mpmath':>10}  {'arb obj':>10}  {'arb_mat':>10}  {'x obj':>6}  {'x mat':>6}  "
          f"{'rel gap':>8}  {'radius':>8}")
    for n in [int(s) for s in args.sizes.split(",")]:
        a = rng.standard_normal((args.batch, n, n)) + n * np.eye(n)
        b = rng.standard_normal((args.batch, n, n))
        with mpmath.workdps(DPS):
            A_mp, B_mp = MP50.asarray(a), MP50.asarray(b)
        A_ob, B_ob = to_arb_objects(a), to_arb_objects(b)
        ops = {
            "matmul": (lambda: A_mp @ B_mp, lambda: A_ob @ B_ob,
                       lambda: from_arb_mats([x * y for x, y in zip(arb_mats(A_ob), arb_mats(B_ob))])),
            "inv": (lambda: MP50.inv(A_mp), None, lambda: from_arb_mats([x.inv() for x in arb_mats(A_ob)])),
            "solve": (lambda: MP50.solve(A_mp, B_mp), None,
                      lambda: from_arb_mats([x.solve(y) for x, y in zip(arb_mats(A_ob), arb_mats(B_ob))])),
            "det": (lambda: MP50.det(A_mp), None, lambda: np.array([x.det() for x in arb_mats(A_ob)], dtype=object)),
            "resid": (lambda: MP50.norm(A_mp @ MP50.inv(A_mp) - MP50.eye(n)), None,
                      lambda: np.array([(x * x.inv() - flint.arb_mat(n, n, [1 if i == j else 0 for i in range(n)
                                                                               for j in range(n)])).entries()
                                        for x in arb_mats(A_ob)], dtype=object)),
        }
        for name, (f_mp, f_ob, f_mat) in ops.items():
            with mpmath.workdps(DPS):
                t_mp = best(f_mp, args.repeats)
                ref = f_mp()
            t_ob = best(f_ob, args.repeats) if f_ob else float("nan")
            t_mat = best(f_mat, args.repeats)
            got = f_mat()
            gap = rel_gap(ref, got) if name != "resid" else float("nan")
            rad = max_radius(got)
            rows.append((name, n, t_mp, t_ob, t_mat, gap))
            print(f"{name:<8}{n:>3}  {t_mp * 1e3:>8.2f}ms  {t_ob * 1e3:>8.2f}ms  {t_mat * 1e3:>8.2f}ms  "
                  f"{t_mp / t_ob if f_ob else float('nan'):>6.1f}  {t_mp / t_mat:>6.1f}  {gap:>8.1e}  {rad:>8.1e}")
    ok = all(not (g > 1e-40) for *_, g in rows)
    speedups = [r[2] / r[4] for r in rows]
    print(f"arb_mat / mpmath speed-up: min {min(speedups):.1f}x, median {float(np.median(speedups)):.1f}x, "
          f"max {max(speedups):.1f}x; values agree to 1e-40: {ok}")
    if arb.USE_ARB:
        eng = engine_table([int(s) for s in args.engine_sizes.split(",")], args.engine_batch, args.repeats, rng)
        eng_ok = all(not (g > 1e-40) for *_, g in eng)
        print(f"engine values agree to 1e-40: {eng_ok}")
        ok = ok and eng_ok
    else:
        print(f"\nengine table skipped: {precision.ARB_ENV}=0 turns the arb path off")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
