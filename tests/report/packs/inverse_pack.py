"""A test pack for reports: an inverse that holds, one that is printed wrong, and a custom check
with figure data (paper key ``invdemo``).

``invdemo.inverse_product``  (AB)^{-1} = B^{-1} A^{-1}: PROVED-style identity with float residuals.
``invdemo.inverse_wrong``    (AB)^{-1} = A^{-1} B^{-1} as printed: REFUTED; corrected form VERIFIED.
``invdemo.orbit_minimum``    the minimum of S(lam) = lam^2 + 1/lam^2 over lam > 0 is at lam = 1
                             (custom check refining the optimiser tolerance; emits a curve and a
                             spectrum in the figure convention).
"""

import numpy as np
import sympy as sp
from scipy.optimize import minimize_scalar

import theorem_check as tc
from theorem_check import sampling

dims = tc.DimSpace({"n": (2, 4)})


def sample(rng, d, batch):
    """A, B invertible n x n with condition number <= 10, stacked along a batch axis."""
    return {"A": sampling.invertible(rng, d["n"], cond=10.0, batch=batch),
            "B": sampling.invertible(rng, d["n"], cond=10.0, batch=batch)}


def lhs(inst, ctx):
    return ctx.inv(inst.A @ inst.B)


def derivation_right():
    a = sp.Matrix(2, 2, sp.symbols("a1:5"))
    b = sp.Matrix(2, 2, sp.symbols("b1:5"))
    return tc.Derivation([tc.Step((a * b).inv(), b.inv() * a.inv(), "inverse of a product reverses the factors")],
                         general=False, sizes="n=2")


def derivation_wrong():
    a = sp.Matrix(2, 2, sp.symbols("a1:5"))
    b = sp.Matrix(2, 2, sp.symbols("b1:5"))
    return tc.Derivation([tc.Step((a * b).inv(), b.inv() * a.inv(), "inverse of a product"),
                          tc.Step(b.inv() * a.inv(), a.inv() * b.inv(), "derived = printed")],
                         general=False, sizes="n=2")


right = tc.Statement(r"(AB)^{-1} = B^{-1}A^{-1}", dims=dims, sample=sample, lhs=lhs,
                     rhs=lambda inst, ctx: ctx.inv(inst.B) @ ctx.inv(inst.A), derivation=derivation_right,
                     cond=1000.0)
tc.register(tc.Claim(
    id="invdemo.inverse_product", title="Inverse of a product of invertible matrices",
    source=tc.Source("invdemo", "2.1", "(3)", r"(AB)^{-1} = B^{-1}A^{-1}"), statement=right,
    controls=(tc.transpose(right), tc.double(right)),
    assumptions=("$A, B \\in \\mathbb{R}^{n\\times n}$ invertible", "condition numbers at most 10"),
))

wrong = tc.Statement(r"(AB)^{-1} = A^{-1}B^{-1}", dims=dims, sample=sample, lhs=lhs,
                     rhs=lambda inst, ctx: ctx.inv(inst.A) @ ctx.inv(inst.B), derivation=derivation_wrong,
                     cond=1000.0)
tc.register(tc.Claim(
    id="invdemo.inverse_wrong", title="Inverse of a product keeps the order (printed wrong)",
    source=tc.Source("invdemo", "2.1", "(4)", r"(AB)^{-1} = A^{-1}B^{-1}"), statement=wrong,
    variants=(tc.Statement(r"(AB)^{-1} = B^{-1}A^{-1}", name="corrected", kind="corrected", dims=dims,
                           sample=sample, lhs=lhs, rhs=lambda inst, ctx: ctx.inv(inst.B) @ ctx.inv(inst.A),
                           derivation=derivation_right, cond=1000.0, note="The factors swap, as for transposes."),),
    controls=(tc.negate(wrong),),
))


def S(lam):
    """The objective along the orbit: S(lambda) = lambda^2 + lambda^-2."""
    return lam ** 2 + lam ** -2


def make_check(lam_claimed):
    def check(rng, d):
        tols = (1e-3, 1e-6, 1e-9)
        res = []
        for tol in tols:
            opt = minimize_scalar(S, bounds=(0.2, 5.0), method="bounded", options={"xatol": tol})
            res.append(abs(opt.x - lam_claimed))
        outcome = tc.decide_refinement(res, [1e-3, 1e-6, 1e-9])
        lam = np.linspace(0.4, 2.5, 200)
        H = np.diag([8.0, 2.0, 0.5])
        figure = {"kind": "panels", "caption": "Left: $S(\\lambda)$ along the orbit and its unique minimum. "
                  "Right: a spectrum by sector (demo data).",
                  "panels": [{"kind": "curve", "x": lam, "y": S(lam), "label": "$S(\\lambda)$",
                              "marks": [{"x": 1.0, "y": 2.0, "label": "minimum"}],
                              "vlines": [{"x": lam_claimed, "label": "claimed"}],
                              "xlabel": "$\\lambda$", "ylabel": "$S$", "title": "orbit"},
                             {"kind": "spectrum", "groups": {"sym": np.linalg.eigvalsh(H), "anti": [-0.5, 0.0]},
                              "predicted": {"sym": [8.0, 2.0, 0.5]}, "ylabel": "eigenvalue",
                              "yscale": "symlog", "title": "Hessian"}]}
        return tc.Measurement(outcome, residuals={f"xatol={t:g}": r for t, r in zip(tols, res)},
                              predicted=lam_claimed, measured=float(opt.x), detail=f"S_min = {S(opt.x):.6f}",
                              figure=figure)
    return check


orbit = tc.Statement(r"\operatorname*{arg\,min}_{\lambda>0} S(\lambda) = 1", dims=tc.DimSpace({"k": (1, 1)}),
                     check=make_check(1.0))
tc.register(tc.Claim(
    id="invdemo.orbit_minimum", title="The minimum of $S$ along the orbit is at $\\lambda = 1$",
    source=tc.Source("invdemo", "3", "Lemma 1", r"\operatorname*{arg\,min}_{\lambda>0} S(\lambda) = 1"),
    statement=orbit,
    controls=(tc.perturb(orbit, "minimum at 2", check=make_check(2.0)),),
))
