"""Measure the derivative oracle's floors: what true derivative identities leave at each precision.

``python -m theorem_check.numerics.derivative_floors`` prints the table quoted in :mod:`theorem_check.numerics.derivatives`
(kept apart from the oracle so that the oracle imports no context: no import cycle).
"""

from __future__ import annotations

import numpy as np

from theorem_check.numerics import sampling
from theorem_check.numerics.precision import FLOAT32, FLOAT64, MP50, to_float

__all__ = ["measure"]


def measure(seeds: int = 12) -> list[tuple[str, dict[str, float]]]:
    """The floors table of the module docstring: worst relative residual of true identities."""

    def cases(rng, n):
        A, B = sampling.gaussian(rng, n, batch=1), sampling.gaussian(rng, n, batch=1)
        X = sampling.gaussian(rng, n, batch=1)
        S = sampling.spd(rng, n, cond=10.0, batch=1)
        x = rng.standard_normal((1, n))
        sym = sampling.symmetric(rng, n, batch=1)
        H, z = sampling.hermitian(rng, n, batch=1), sampling.complex_gaussian(rng, n, 1, batch=1)
        C, Z = sampling.complex_gaussian(rng, n, batch=1), sampling.complex_gaussian(rng, n, batch=1)
        return {
            "grad tr(AX) = A^T": (dict(A=A, X=X), lambda c, v: c.grad(lambda Y: c.trace(v["A"] @ Y), v["X"]),
                                  lambda c, v: c.T(v["A"])),
            "grad tr(X X B) = (XB + BX)^T": (dict(B=B, X=X),
                                             lambda c, v: c.grad(lambda Y: c.trace(Y @ Y @ v["B"]), v["X"]),
                                             lambda c, v: c.T(v["X"] @ v["B"] + v["B"] @ v["X"])),
            "grad tr(X^T A X) = (A + A^T) X": (dict(A=A, X=X),
                                               lambda c, v: c.grad(lambda Y: c.trace(c.T(Y) @ v["A"] @ Y), v["X"]),
                                               lambda c, v: (v["A"] + c.T(v["A"])) @ v["X"]),
            "grad log det X = X^-T  (X SPD, cond 10)": (dict(X=S),
                                                        lambda c, v: c.grad(lambda Y: c.log(c.det(Y)), v["X"]),
                                                        lambda c, v: c.T(c.inv(v["X"]))),
            "grad x^T A x = (A + A^T) x": (dict(A=A, x=x),
                                           lambda c, v: c.grad(lambda y: np.einsum("bi,bij,bj->b", y, v["A"], y),
                                                               v["x"]),
                                           lambda c, v: np.einsum("bij,bj->bi", v["A"] + c.T(v["A"]), v["x"])),
            "jacobian softmax = diag(p) - p p^T": (dict(x=x), lambda c, v: c.jacobian(c.softmax, v["x"]),
                                                   lambda c, v: c.diag(c.softmax(v["x"]))
                                                   - c.softmax(v["x"])[:, :, None] * c.softmax(v["x"])[:, None, :]),
            "hessian x^T A x = A + A^T": (dict(A=A, x=x),
                                          lambda c, v: c.hessian(lambda y: np.einsum("bi,bij,bj->b", y, v["A"], y),
                                                                 v["x"]),
                                          lambda c, v: v["A"] + c.T(v["A"])),
            "sym_grad tr(AX) = (A + A^T)/2": (dict(A=A, X=sym),
                                              lambda c, v: c.sym_grad(lambda Y: c.trace(v["A"] @ Y), v["X"]),
                                              lambda c, v: (v["A"] + c.T(v["A"])) / 2),
            "wirtinger z^H A z = A z  (A Hermitian)": (dict(A=H, z=z),
                                                      lambda c, v: c.wirtinger_grad(
                                                          lambda y: c.real(c.trace(c.H(y) @ v["A"] @ y)), v["z"]),
                                                      lambda c, v: v["A"] @ v["z"]),
            "wirtinger Re tr(X^H A X) = (A + A^H) X / 2": (dict(A=C, X=Z),
                                                           lambda c, v: c.wirtinger_grad(
                                                               lambda Y: c.real(c.trace(c.H(Y) @ v["A"] @ Y)), v["X"]),
                                                           lambda c, v: (v["A"] + c.H(v["A"])) @ v["X"] / 2),
        }

    worst: dict[str, dict[str, float]] = {}
    for s in range(seeds):
        rng = np.random.default_rng(s)
        n = 2 + s % 3
        for name, (data, lhs, rhs) in cases(rng, n).items():
            for ctx in (FLOAT32, FLOAT64, MP50):
                with ctx.active():
                    v = {k: ctx.asarray(a) for k, a in data.items()}
                    left, right = lhs(ctx, v), rhs(ctx, v)
                    r = float(to_float(ctx.norm(left - right) / ctx.norm(right))[0])
                w = worst.setdefault(name, {})
                w[ctx.name] = max(w.get(ctx.name, 0.0), r)
    return list(worst.items())


if __name__ == "__main__":  # pragma: no cover - regenerates the docstring's table
    for name, r in measure():
        print(f"{name:44s}" + "  ".join(f"{r[c]:10.1e}" for c in ("float32", "float64", "mp50")))
