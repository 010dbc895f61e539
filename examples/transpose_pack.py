"""A user claim pack: the transpose of a product, right and wrong.

Run it with ``theorem-check run --pack examples/transpose_pack.py``.  ``demo.transpose_right``
comes back PROVED; ``demo.transpose_wrong`` comes back ERRATUM: as printed, ``(AB)^T = A^T B^T`` is
ILL-POSED (with the smallest dims at which the shapes do not conform), and its corrected form holds.
"""

import sympy as sp

import theorem_check as tc
from theorem_check import sampling

dims = tc.DimSpace({"m": (1, 4), "k": (1, 4), "n": (1, 4)})


def sample(rng, d, batch):
    """A (m x k) and B (k x n), Gaussian, stacked along a leading batch axis."""
    return {"A": sampling.gaussian(rng, d["m"], d["k"], batch=batch),
            "B": sampling.gaussian(rng, d["k"], d["n"], batch=batch)}


def lhs(inst, ctx):
    return ctx.T(inst.A @ inst.B)


def derivation_right():
    A, B = sp.MatrixSymbol("A", 3, 2), sp.MatrixSymbol("B", 2, 4)
    return tc.Derivation([tc.Step((A * B).T, B.T * A.T, "transpose reverses products")], general=True)


right = tc.Statement(r"(AB)^\top = B^\top A^\top", dims=dims, sample=sample, lhs=lhs,
                     rhs=lambda inst, ctx: ctx.T(inst.B) @ ctx.T(inst.A), derivation=derivation_right)

tc.register(tc.Claim(
    id="demo.transpose_right", title="Transpose of a product reverses the factors",
    source=tc.Source("demo", "1", "(1)", r"(AB)^\top = B^\top A^\top"),
    statement=right, controls=(tc.double(right), tc.negate(right)),
    aliases=("transpose",),
))

wrong = tc.Statement(r"(AB)^\top = A^\top B^\top", dims=dims, sample=sample, lhs=lhs,
                     rhs=lambda inst, ctx: ctx.T(inst.A) @ ctx.T(inst.B))
tc.register(tc.Claim(
    id="demo.transpose_wrong", title="Transpose of a product keeps the order (false)",
    source=tc.Source("demo", "1", "(2)", r"(AB)^\top = A^\top B^\top"),
    statement=wrong, controls=(tc.double(wrong),),
    variants=(tc.Statement(r"(AB)^\top = B^\top A^\top", name="corrected", kind="corrected", dims=dims,
                           sample=sample, lhs=lhs, rhs=lambda inst, ctx: ctx.T(inst.B) @ ctx.T(inst.A)),),
))
