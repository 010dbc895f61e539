"""Random-direction derivative checks (theorem_check/numerics/directions.py): the claimed side's projection
and the oracle's agree where the derivative is known exactly, the rounding bound holds, bad input is named."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_check.errors import InvalidArgument, ShapeMismatch
from theorem_check.numerics.directions import HOEFFDING_T, Projection, projects
from theorem_check.numerics.precision import FLOAT32, FLOAT64, MP50, to_float


def _rel(a, b):
    a, b = to_float(a), to_float(b)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def test_directions_are_unit_norm_and_seeded():
    p = Projection.draw(np.random.default_rng(3), "grad", (2, 5, 4), k=6)
    assert p.U.shape == (2, 6, 5, 4) and p.W is None and p.size == 20 and p.k == 6
    np.testing.assert_allclose(np.sqrt(np.sum(p.U ** 2, axis=(2, 3))), 1.0)
    q = Projection.draw(np.random.default_rng(3), "grad", (2, 5, 4), k=6)
    np.testing.assert_array_equal(p.U, q.U)
    h = Projection.draw(np.random.default_rng(3), "hessian", (1, 3, 1))
    assert h.W.shape == h.U.shape and h.size == 9
    assert p.take(1).U.shape == (1, 6, 5, 4) and p.first(2).k == 2


@pytest.mark.parametrize("kind, k", [("curl", 4), ("grad", 0)])
def test_bad_arguments_are_named(kind, k):
    with pytest.raises(InvalidArgument, match="kind=|k="):
        Projection.draw(np.random.default_rng(0), kind, (1, 3, 3), k=k)


def test_projects_only_large_derivatives():
    assert not projects("grad", 16) and projects("grad", 17)
    assert not projects("hessian", 5) and projects("hessian", 6)      # 15 vs 21 quotients


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 5), n=st.integers(1, 5))
def test_oracle_and_projection_agree_on_linear_functions(seed, m, n):
    """f(X) = <E, X> has gradient E: the oracle along V and <E, V> agree at every precision (the same
    directions, converted), and the mp50 agreement is far below float64's."""
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((2, m, n))
    p = Projection.draw(rng, "grad", E.shape, k=3)
    errs = {}
    for ctx in (FLOAT32, FLOAT64, MP50):
        with ctx.active():
            Ec = ctx.asarray(E)
            d, mm = p.oracle(ctx, lambda Y, Ec=Ec: np.sum((Y * Ec).reshape(2, -1), axis=1), ctx.asarray(np.zeros(E.shape)))
            assert mm == 1
            errs[ctx.name] = _rel(d, p.apply(ctx, Ec))
    assert errs["float32"] < 1e-4 and errs["float64"] < 1e-12 and errs["mp50"] < 1e-45


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 4), n=st.integers(2, 5))
def test_jacobian_and_hessian_conventions(seed, m, n):
    """F(x) = J vec_C(x) has Jacobian J (row-major), f(x) = x^T H x / 2 (H symmetric) has Hessian H."""
    rng = np.random.default_rng(seed)
    J = rng.standard_normal((1, m, n))
    x = rng.standard_normal((1, n, 1))
    pj = Projection.draw(rng, "jacobian", x.shape, k=2)
    with FLOAT64.active():
        d, mm = pj.oracle(FLOAT64, lambda y: J @ y, x)
        assert mm == m and d.shape == (1, 2 * m)
        # errors against the operator's own scale, not the projection's: a projection can nearly cancel
        # (seed 7873: u^T H w = 0.018 of an H with entries up to 4.05, relative error 4e-8 of that small value)
        assert np.max(np.abs(d - pj.apply(FLOAT64, J, mm))) < 1e-11 * np.max(np.abs(J)) * (1 + np.max(np.abs(x)))
    B = rng.standard_normal((1, n, n))
    H = B + np.swapaxes(B, 1, 2)
    ph = Projection.draw(rng, "hessian", x.shape, k=2)
    with FLOAT64.active():
        d, _ = ph.oracle(FLOAT64, lambda y: np.einsum("bi,bij,bj->b", y[..., 0], H, y[..., 0]) / 2, x)
        assert np.max(np.abs(d - ph.apply(FLOAT64, H))) < 1e-8 * np.max(np.abs(H)) * (1 + np.max(np.abs(x)) ** 2)
        wrong = H + np.eye(n)[None] * 0 + np.triu(np.ones((n, n)), 1)[None]     # not symmetric: another form
        assert _rel(d, ph.apply(FLOAT64, wrong)) > 1e-3


def test_symmetric_gradient_pairs_the_claim_with_general_directions():
    """sym_grad: the oracle sees sym(V), the claimed side V itself, so a non-symmetric claim whose symmetric
    part is right (A for grad tr(AX) = (A + A^T)/2 on symmetric X) still differs."""
    rng = np.random.default_rng(1)
    A = rng.standard_normal((1, 5, 5))
    p = Projection.draw(rng, "sym_grad", A.shape, k=4)
    with FLOAT64.active():
        d, _ = p.oracle(FLOAT64, lambda Y: np.trace(A @ Y, axis1=1, axis2=2), np.zeros(A.shape))
        assert _rel(d, p.apply(FLOAT64, (A + np.swapaxes(A, 1, 2)) / 2)) < 1e-11
        assert _rel(d, p.apply(FLOAT64, A)) > 1e-2


def test_shape_mismatch_is_named():
    p = Projection.draw(np.random.default_rng(0), "grad", (1, 3, 4))
    with pytest.raises(ShapeMismatch, match=r"lhs has shape \(3, 4\), rhs has shape \(4, 3\)"):
        p.apply(FLOAT64, np.zeros((1, 4, 3)))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(2, 30))
def test_rounding_bound_holds_for_errors_independent_of_the_directions(seed, n):
    """|<dE, V>| <= t sqrt(sum M^2 V^2) (Hoeffding over the directions' signs) for any dE with |dE| <= M
    drawn independently of V, including the worst-aligned one for |V| (all errors at the bound)."""
    rng = np.random.default_rng(seed)
    M = rng.exponential(size=(1, n, n))
    p = Projection.draw(rng, "grad", M.shape, k=8)
    bound = p.apply_abs(M, t=HOEFFDING_T)
    for dE in (M * rng.choice([-1.0, 1.0], size=M.shape), M, M * rng.uniform(-1, 1, size=M.shape)):
        assert np.all(np.abs(p.apply(FLOAT64, dE)) <= bound)


def test_oracle_gain_follows_the_largest_direction_entry():
    p = Projection.draw(np.random.default_rng(2), "grad", (1, 6, 6), k=3)
    g = p.oracle_gain(FLOAT64, np.array([1.0]))
    vmax = np.abs(p.U).reshape(1, 3, -1).max(axis=2)
    np.testing.assert_allclose(g / vmax, g[0, 0] / vmax[0, 0])
    assert np.all(p.oracle_gain(MP50, np.array([1.0])) < g)
