"""Random structured matrices: the property each family promises, over sizes and seeds."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from theorem_check import InvalidArgument, sampling

sizes = st.integers(1, 6)
conds = st.floats(1.0, 1e4)


@given(seed=sampling.seeds(), n=sizes, cond=conds)
def test_invertible_has_exact_condition_number(seed, n, cond):
    M = sampling.invertible(np.random.default_rng(seed), n, cond=cond, batch=2)
    expected = cond if n > 1 else 1.0
    assert np.allclose(np.linalg.cond(M), expected, rtol=1e-8)


@given(seed=sampling.seeds(), n=sizes, cond=conds)
def test_spd(seed, n, cond):
    S = sampling.spd(np.random.default_rng(seed), n, cond=cond)
    assert np.allclose(S, S.T)
    ev = np.linalg.eigvalsh(S)
    assert ev.min() > 0 and np.isclose(ev.max() / ev.min(), cond if n > 1 else 1.0, rtol=1e-6)


@given(seed=sampling.seeds(), m=sizes, k=sizes)
def test_orthonormal_columns(seed, m, k):
    k = min(m, k)
    Q = sampling.orthonormal_columns(np.random.default_rng(seed), m, k)
    assert np.allclose(Q.T @ Q, np.eye(k), atol=1e-12)


@given(seed=sampling.seeds(), m=sizes, n=sizes, r=st.integers(0, 6))
def test_rank_r(seed, m, n, r):
    r = min(r, m, n)
    A = sampling.rank_r(np.random.default_rng(seed), m, n, r)
    assert A.shape == (m, n) and np.linalg.matrix_rank(A) == r


@given(sampling.strategy(sampling.symmetric, sizes))
def test_symmetric_strategy(T):
    assert np.allclose(T, T.T)


@given(sampling.strategy(sampling.antisymmetric, sizes))
def test_antisymmetric_strategy(T):
    assert np.allclose(T, -T.T)


@pytest.mark.parametrize("call,message", [
    (lambda r: sampling.invertible(r, -2), "n=-2 must be >= 1"),
    (lambda r: sampling.invertible(r, 3, cond=0.5), "cond=0.5 must be"),
    (lambda r: sampling.invertible(r, 3, cond=float("nan")), "cond=nan must be"),
    (lambda r: sampling.orthonormal_columns(r, 2, 3), "k=3 must be <= m=2"),
    (lambda r: sampling.rank_r(r, 2, 2, 3), "r=3 must be <= 2"),
    (lambda r: sampling.gaussian(r, 2.5), "m=2.5 must be an integer"),
])
def test_bad_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(")):
        call(np.random.default_rng(0))
