"""Contexts: the same code at float32, float64 and mpmath; residuals follow eps."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from theorem_check import sampling
from theorem_check.precision import FLOAT32, FLOAT64, MP50, to_float


@given(seed=sampling.seeds(), n=st.integers(1, 5))
def test_inverse_residual_follows_precision(seed, n):
    A = sampling.invertible(np.random.default_rng(seed), n, cond=10.0, batch=1)
    res = {}
    for ctx in (FLOAT32, FLOAT64, MP50):
        with ctx.active():
            X = ctx.asarray(A)
            res[ctx.name] = float(to_float(ctx.norm(X @ ctx.inv(X) - ctx.eye(n)))[0])
    assert res["float32"] < 1e3 * FLOAT32.eps
    assert res["float64"] < 1e3 * FLOAT64.eps
    assert res["mp50"] < 1e3 * MP50.eps


@pytest.mark.parametrize("ctx", [FLOAT32, FLOAT64, MP50], ids=lambda c: c.name)
def test_linear_algebra_matches_numpy(ctx):
    rng = np.random.default_rng(1)
    A = sampling.spd(rng, 3, cond=5.0, batch=2)
    B = sampling.gaussian(rng, 3, 2, batch=2)
    tol = 1e3 * max(ctx.eps, FLOAT64.eps)
    with ctx.active():
        X, Y = ctx.asarray(A), ctx.asarray(B)
        assert np.allclose(to_float(ctx.solve(X, Y)), np.linalg.solve(A, B), atol=tol * 10)
        assert np.allclose(to_float(ctx.det(X)), np.linalg.det(A), rtol=tol * 10)
        assert np.allclose(to_float(ctx.eigvalsh(X)), np.linalg.eigvalsh(A), atol=tol * 10)
        assert np.allclose(to_float(ctx.trace(X)), np.trace(A, axis1=-2, axis2=-1), rtol=tol)
