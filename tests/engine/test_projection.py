"""Derivative checks along random directions through the whole engine (theorem_check/engine/projection.py):
true derivatives of large variables VERIFIED, wrong ones -- sign, transpose, factor 2, a dropped term, one
wrong entry -- REFUTED by the same code path, for expression and callable sides, gradients, symmetric
gradients, Jacobians and Hessians."""

from __future__ import annotations

import numpy as np
import pytest

import theorem_check as tc
from theorem_check.engine.projection import derivative_side, plan
from theorem_check.numerics.directions import Projection

N = 20          # 400 entries: checked along random directions, held in balls at mp50 (>= 256 entries)
SIZE = {"n": (N, N)}
SQ = {"X": ("n", "n"), "A": ("n", "n")}
QUAD = "grad(trace(X.T*A*X), X)"


def _verdict(lhs, rhs, shapes=SQ, sizes=SIZE, **kw):
    """The claim ``lhs = rhs`` run on 4 instances (seed 0), without the symbolic stage: numeric evidence only."""
    claim = tc.identity("test.projection", lhs, rhs, shapes=shapes, sizes=sizes, register=False, derive=False, **kw)
    return tc.run_claim(claim, seed=0, trials=4)


def test_plan_projects_only_one_large_derivative_side():
    claim = tc.identity("test.p", QUAD, "(A + A.T)*X", shapes=SQ, sizes=SIZE, register=False, derive=False)
    st = claim.statement
    inst = dict(st.sample(np.random.default_rng(0), {"n": N}, 2))
    assert derivative_side(st, inst) == ("lhs", "grad", "X")
    p = plan(st, inst, 1)
    assert isinstance(p, Projection) and p.U.shape[:2] == (2, 8)
    small = dict(st.sample(np.random.default_rng(0), {"n": 4}, 2))
    assert plan(st, small, 1) is None                              # 16 entries: the full oracle
    both = tc.identity("test.q", QUAD, QUAD, shapes=SQ, sizes=SIZE, register=False, derive=False).statement
    assert plan(both, inst, 1) is None                             # two derivative sides: full


@pytest.mark.parametrize("rhs, verdict", [
    ("(A + A.T)*X", "VERIFIED"),
    ("-(A + A.T)*X", "REFUTED"),           # sign
    ("(A + A.T).T*X", "VERIFIED"),         # transpose of a symmetric factor: still true
    ("(A*X).T", "REFUTED"),                # transpose
    ("2*(A + A.T)*X", "REFUTED"),          # factor 2
    ("A*X", "REFUTED"),                    # a dropped term
])
def test_quadratic_form_gradient_at_large_n(rhs, verdict):
    res = _verdict(QUAD, rhs)
    assert res.verdict.value.upper() == verdict, res


def test_one_wrong_entry_is_refuted():
    """A claimed gradient wrong in one entry by delta = 1: along a random unit direction V the two sides
    differ by V_ij (about 1/n in size) while each is about |G|_F / n, so the residual is about
    delta / |G|_F ~ 1 / (n sqrt(2n)) ~ 8e-3 at n = 20 -- far above every floor (mp50: 1e-49 * 400 * 100)."""

    def rhs(inst, ctx):
        G = (inst["A"] + ctx.T(inst["A"])) @ inst["X"]
        E = np.zeros(G.shape[1:])
        E[3, 5] = 1.0
        return G + ctx.asarray(E)[None]

    res = _verdict(QUAD, rhs)
    assert res.verdict.value.upper() == "REFUTED"
    cex = res.printed.numeric.counterexample
    assert cex.residuals["mp50"] > 1e-4 and cex.residuals["float64"] > 1e-4


def test_callable_function_gradient():
    def f(inst, ctx):
        return ctx.trace(ctx.T(inst["X"]) @ inst["A"] @ inst["X"])

    for claimed, verdict in (("(A + A.T)*X", "VERIFIED"), ("(A + A.T).T*X.T", "REFUTED")):
        claim = tc.gradient("test.cg", f, "X", claimed, shapes=SQ, sizes=SIZE, register=False, derive=False)
        assert tc.run_claim(claim, seed=0, trials=4).verdict.value.upper() == verdict


@pytest.mark.parametrize("rhs, verdict", [("(A + A.T)/2", "VERIFIED"), ("A", "REFUTED")])
def test_symmetric_gradient(rhs, verdict):
    """On symmetric X, grad tr(AX) is (A + A^T)/2; A itself has the right symmetric part and must still fail."""
    res = _verdict("grad(trace(A*X), X)", rhs, structure={"X": "symmetric"}, sizes={"n": (8, 8)})
    assert res.verdict.value.upper() == verdict


@pytest.mark.parametrize("rhs, verdict", [("A", "VERIFIED"), ("A.T", "REFUTED"), ("2*A", "REFUTED")])
def test_jacobian(rhs, verdict):
    res = _verdict("jacobian(A*x, x)", rhs, shapes={"A": ("n", "n"), "x": ("n", 1)})
    assert res.verdict.value.upper() == verdict


@pytest.mark.parametrize("rhs, verdict", [("A + A.T", "VERIFIED"), ("A", "REFUTED"), ("-(A + A.T)", "REFUTED")])
def test_hessian(rhs, verdict):
    res = _verdict("hessian(x.T*A*x, x)", rhs, shapes={"A": ("n", "n"), "x": ("n", 1)}, sizes={"n": (8, 8)})
    assert res.verdict.value.upper() == verdict


def test_shapes_that_do_not_conform_are_ill_posed():
    res = _verdict("grad(trace(X.T*X), X)", "2*X.T", shapes={"X": ("n", "m")}, sizes={"n": (20, 20), "m": (21, 21)})
    assert res.verdict.value.upper() == "ILL-POSED"


def test_zero_gradient_is_not_refuted():
    """f does not depend on X: the oracle's quotients are exactly 0 and so is the claim (vacuous, never a
    counterexample)."""
    res = _verdict("grad(trace(A), X)", "zeros(n, n)")
    assert res.verdict.value.upper() in ("VERIFIED", "INCONCLUSIVE")


def test_the_claimed_side_is_projected_in_balls_and_its_controls_fail(monkeypatch):
    """At mp50 the expression side other than the derivative reaches the projection as a BallArray (not
    converted to mpf and back, balls.keeping), and the same path refutes a factor 2 and a transpose."""
    pytest.importorskip("flint")
    from theorem_check.numerics import directions
    from theorem_check.numerics.balls import BallArray

    seen = []
    real = directions.dot_directions

    def spy(E, U):
        seen.append(type(E))
        return real(E, U)

    monkeypatch.setattr(directions, "dot_directions", spy)
    assert _verdict(QUAD, "(A + A.T)*X").verdict.value.upper() == "VERIFIED"
    assert seen and all(t is BallArray for t in seen)
    for wrong in ("2*(A + A.T)*X", "(A + A.T)*X.T"):
        assert _verdict(QUAD, wrong).verdict.value.upper() == "REFUTED"
