"""Benchmark: gradient checks at training sizes, theorem-check next to JAX ``check_grads`` (issue 21, item 4).

Five functions of deep-learning papers, each with its claimed gradient (true statements):

==============  ==============================================  ============================================
function        f                                               claimed gradient
==============  ==============================================  ============================================
quadratic       tr(X^T A X), X, A n x n                         (A + A^T) X
log det         log det X, X SPD n x n                          X^-1 (the symmetric gradient)
softmax x-ent   -y^T log softmax(W x), W n x n, x, y n x 1      ((1^T y) softmax(W x) - y) x^T
layer norm      c^T u / s, u = x - mean(x), s = sqrt(|u|^2/n + 1)  P c / s - (c^T u) u / (n s^3), P = I - 11^T/n
attention       tr(C^T softmax(Q K^T / sqrt n) V), row softmax  (P o (G - (P o G) 1 1^T)) K / sqrt n, G = C V^T
==============  ==============================================  ============================================

at n = 8, 64 and 256, in one run.  theorem-check runs ``python -m theorem_check check STATEMENT ... --json``
(a subprocess: wall time includes Python start-up and imports, CPU time is the child's user + system time;
the claim's own seconds come from the JSON record).  JAX runs ``jax.test_util.check_grads`` (float64,
reverse mode, order 1) and compares ``jax.grad(f)`` with the claimed gradient (``allclose``), timed from a
cold function (tracing and compilation included) in this process.  Also printed: the cost growth n = 8 ->
64 of each gradient check (target <= 10x) and the ``(A*B).T = B.T*A.T`` check at n = 200 (target <= 3 s).

Evidence compared: JAX, float64 only, one random direction per check, a fixed tolerance (``check_grads``:
``atol = rtol = 1e-5`` scaled by eps^(1/2)) -- a pass/fail with no statement about why.  theorem-check: three
precisions (float32, float64, mp50) on 4 instances, 8 random directions per instance (fewer at mp50 for
large n; engine/projection.py), the function differentiated along each by forward mode (expr/forward.py),
residuals against floors, a decision by the refinement rule, mutants refuted.

Run: ``python benchmarks/bench_peers.py [--sizes 8,64,256] [--only quadratic,softmax] [--timeout 300]``.
JAX is optional (the ``bench`` extra, ``pip install "theorem-check[bench]"``); without it the JAX columns
say so.  Set ``OPENBLAS_NUM_THREADS=1`` on a shared machine (BLAS threads spinning on busy cores made the
float32 products 100x slower in our runs).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

U = "(x - ones(n,1)*(ones(1,n)*x)/n)"
S = f"(trace({U}.T*{U})/n + 1)"
P = "softmax(Q*K.T/sqrt(n), 1)"
G = "(C*V.T)"

FUNCTIONS = {
    "quadratic": ("grad(trace(X.T*A*X), X) = (A + A.T)*X", ["--shape", "X=n,n", "--shape", "A=n,n"]),
    "logdet": ("grad(log(det(X)), X) = X**-1", ["--shape", "X=n,n", "--assume", "X=spd"]),
    "softmax": ("grad(-y.T*log(softmax(W*x)), W) = (trace(ones(1,n)*y)*softmax(W*x) - y)*x.T",
                ["--shape", "W=n,n", "--shape", "x=n,1", "--shape", "y=n,1"]),
    "layernorm": (f"grad(trace(c.T*{U})/sqrt({S}), x) = (c - ones(n,1)*(ones(1,n)*c)/n)/sqrt({S}) "
                  f"- trace(c.T*{U})*{U}/(n*sqrt({S})**3)", ["--shape", "x=n,1", "--shape", "c=n,1"]),
    "attention": (f"grad(trace(C.T*{P}*V), Q) = hadamard({P}, {G} - hadamard({P}, {G})*ones(n,1)*ones(1,n))*K/sqrt(n)",
                  ["--shape", "Q=n,n", "--shape", "K=n,n", "--shape", "V=n,n", "--shape", "C=n,n"]),
}


def run_check(statement: str, args: list[str], n: int, timeout: float) -> dict:
    """One ``check`` in a subprocess: verdict, claim seconds, wall and CPU seconds of the process."""
    cmd = [sys.executable, "-m", "theorem_check", "check", statement, *args, "--size", f"n={n}:{n}", "--json",
           "--timeout", str(timeout)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        rec = json.loads(proc.stdout)["claims"][0]
        verdict, secs, evidence = rec["verdict"], rec["seconds"], rec["evidence"]
    except (ValueError, KeyError, IndexError):
        verdict, secs, evidence = f"error (exit {proc.returncode})", float("nan"), proc.stderr.strip()[-200:]
    return {"verdict": verdict, "claim_s": secs, "wall": wall, "cpu": cpu, "evidence": evidence}


def jax_cases(n: int, rng):
    """The five functions and claimed gradients in jax.numpy, with their inputs (float64)."""
    import jax.numpy as jnp

    def sym_spd(m):
        q, _ = np.linalg.qr(rng.standard_normal((m, m)))
        return (q * rng.uniform(1, 10, m)) @ q.T

    A, X = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    W, x, y, c = rng.standard_normal((n, n)), rng.standard_normal((n, 1)), rng.standard_normal((n, 1)), \
        rng.standard_normal((n, 1))
    Q, K, V, C = (rng.standard_normal((n, n)) for _ in range(4))

    def softmax_rows(z):
        z = z - z.max(axis=1, keepdims=True)
        e = jnp.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def sm(z):
        z = z - z.max()
        return jnp.exp(z) / jnp.exp(z).sum()

    def ln_f(x_):
        u = x_ - x_.mean()
        s = jnp.sqrt(jnp.sum(u * u) / n + 1)
        return jnp.sum(c * u) / s

    def ln_g(x_):
        u = x_ - x_.mean()
        s = jnp.sqrt(jnp.sum(u * u) / n + 1)
        return (c - c.mean()) / s - jnp.sum(c * u) * u / (n * s ** 3)

    def att_f(q):
        return jnp.sum(C * (softmax_rows(q @ K.T / np.sqrt(n)) @ V))

    def att_g(q):
        p = softmax_rows(q @ K.T / np.sqrt(n))
        g = C @ V.T
        return (p * (g - (p * g).sum(axis=1, keepdims=True))) @ K / np.sqrt(n)

    return {
        "quadratic": (lambda X_: jnp.trace(X_.T @ A @ X_), lambda X_: (A + A.T) @ X_, X),
        "logdet": (lambda X_: jnp.linalg.slogdet((X_ + X_.T) / 2)[1], lambda X_: jnp.linalg.inv(X_), sym_spd(n)),
        "softmax": (lambda W_: -jnp.sum(y * jnp.log(sm(W_ @ x))), lambda W_: (y.sum() * sm(W_ @ x) - y) @ x.T, W),
        "layernorm": (ln_f, ln_g, x),
        "attention": (att_f, att_g, Q),
    }


def run_jax(name: str, n: int) -> dict:
    """``check_grads`` + ``grad`` vs the claimed gradient, float64, timed cold (tracing included)."""
    import jax
    from jax.test_util import check_grads

    f, g, x0 = jax_cases(n, np.random.default_rng(n))[name]
    t0 = time.perf_counter()
    c0 = time.process_time()
    check_grads(f, (x0,), order=1, modes=["rev"])
    ok = bool(np.allclose(np.asarray(jax.grad(f)(x0)), np.asarray(g(x0)), rtol=1e-7, atol=1e-9))
    return {"ok": ok, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}


def have_jax() -> str | None:
    """None when JAX imports (x64 on), else why not."""
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        return None
    except Exception as exc:  # noqa: BLE001 - optional
        return f"JAX not available ({type(exc).__name__}: {exc}); pip install 'theorem-check[bench]'"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,64,256")
    ap.add_argument("--only", default=",".join(FUNCTIONS))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per theorem-check check")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [s for s in args.only.split(",") if s]
    jax_missing = have_jax()
    if jax_missing:
        print(jax_missing)
    print(f"{'function':10s} {'n':>4s}  {'theorem-check':>36s}   {'JAX check_grads + grad':>26s}  ratio (wall)")
    rows = {}
    for name in names:
        statement, shape_args = FUNCTIONS[name]
        for n in sizes:
            tc_ = run_check(statement, shape_args, n, args.timeout)
            jx = None if jax_missing else run_jax(name, n)
            rows[name, n] = tc_
            jtxt = "-" if jx is None else f"{'ok' if jx['ok'] else 'WRONG'} {jx['wall']:6.2f} s wall {jx['cpu']:5.2f} cpu"
            ratio = "-" if jx is None else f"{tc_['wall'] / jx['wall']:.1f}x"
            print(f"{name:10s} {n:4d}  {tc_['verdict']:12s} {tc_['wall']:6.2f} s wall {tc_['cpu']:6.2f} cpu   {jtxt:>26s}  "
                  f"{ratio}", flush=True)
    if 8 in sizes and 64 in sizes:
        print("\ncost growth n = 8 -> 64 (process CPU seconds; target <= 10x):")
        for name in names:
            a, b = rows[name, 8], rows[name, 64]
            print(f"  {name:10s} {a['cpu']:6.2f} -> {b['cpu']:6.2f} s: {b['cpu'] / a['cpu']:.1f}x"
                  f" (claim seconds {a['claim_s']:.2f} -> {b['claim_s']:.2f}: {b['claim_s'] / a['claim_s']:.1f}x)")
    t = run_check("(A*B).T = B.T*A.T", ["--shape", "A=n,n", "--shape", "B=n,n"], 200, args.timeout)
    print(f"\n(A*B).T = B.T*A.T at n = 200 (target <= 3 s): {t['verdict']}, {t['wall']:.2f} s wall, {t['cpu']:.2f} s "
          f"CPU, claim {t['claim_s']:.2f} s")
    print("\nevidence: JAX -- float64 only, one random direction (check_grads), a fixed tolerance; theorem-check --"
          " float32, float64 and mp50 on 4 instances, 8 random directions each (fewer at mp50 for large n),"
          " forward mode along each, residuals against floors, decided by the refinement rule, automatic mutants"
          " refuted:")
    for (name, n), r in rows.items():
        print(f"  {name} n={n}: {r['evidence'][:150]}")


if __name__ == "__main__":
    main()
