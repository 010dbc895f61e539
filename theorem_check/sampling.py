"""Random structured matrices from a seeded :class:`numpy.random.Generator`, batched.

Every sampler takes the generator first and keyword-only options after, and returns a
float64 array whose leading axes are ``batch`` (an int or a shape tuple, default ``()``)
followed by the matrix axes.  The same families are exposed as Hypothesis strategies
(:func:`strategy`), built from a seed so that Hypothesis shrinks the seed and the sizes.

>>> rng = np.random.default_rng(0)
>>> M = invertible(rng, 3, cond=100.0, batch=5)      # (5, 3, 3), each with condition number 100
>>> M.shape, bool(np.allclose(np.linalg.cond(M), 100.0))
((5, 3, 3), True)
>>> T = symmetric(rng, 4)                             # (4, 4), T == T.T
>>> bool(np.allclose(T, T.T))
True
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .validation import check_int, check_positive_int
from .errors import InvalidArgument

__all__ = [
    "gaussian",
    "orthogonal",
    "orthonormal_columns",
    "invertible",
    "symmetric",
    "antisymmetric",
    "spd",
    "rank_r",
    "with_singular_values",
    "strategy",
    "seeds",
]

Batch = int | tuple[int, ...]


def _bshape(batch: Batch) -> tuple[int, ...]:
    if isinstance(batch, (int, np.integer)):
        return (check_int("batch", batch, min_value=0),)
    return tuple(int(b) for b in batch)


def _check_cond(cond: float) -> float:
    if not (np.isfinite(cond) and cond >= 1.0):
        raise InvalidArgument(f"cond={cond!r} must be a finite number >= 1")
    return float(cond)


def gaussian(rng: np.random.Generator, m: int, n: int | None = None, *, batch: Batch = ()) -> np.ndarray:
    """I.i.d. standard normal matrix of shape ``batch + (m, n)`` (``n = m`` by default)."""
    m = check_positive_int("m", m)
    n = m if n is None else check_positive_int("n", n)
    return rng.standard_normal(_bshape(batch) + (m, n))


def orthogonal(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> np.ndarray:
    """Haar-distributed orthogonal matrices, shape ``batch + (n, n)``."""
    return orthonormal_columns(rng, n, n, batch=batch)


def orthonormal_columns(rng: np.random.Generator, m: int, k: int, *, batch: Batch = ()) -> np.ndarray:
    """``m x k`` matrices with orthonormal columns (``Q^T Q = I_k``), Haar-distributed; ``k <= m``.

    Raises InvalidArgument if ``k > m``.
    """
    m, k = check_positive_int("m", m), check_positive_int("k", k)
    if k > m:
        raise InvalidArgument(f"k={k!r} must be <= m={m}")
    g = rng.standard_normal(_bshape(batch) + (m, k))
    q, r = np.linalg.qr(g)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    signs[signs == 0] = 1.0
    return q * signs[..., None, :]


def with_singular_values(rng: np.random.Generator, m: int, n: int, s: np.ndarray, *, batch: Batch = ()) -> np.ndarray:
    """``U diag(s) V^T`` with Haar ``U`` (m x k), ``V`` (n x k), ``k = len(s) <= min(m, n)``."""
    s = np.asarray(s, dtype=float)
    k = s.shape[-1]
    u = orthonormal_columns(rng, m, k, batch=batch)
    v = orthonormal_columns(rng, n, k, batch=batch)
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


def _log_spectrum(rng: np.random.Generator, k: int, cond: float, batch: Batch) -> np.ndarray:
    """Singular values in [1/sqrt(cond), sqrt(cond)] whose extremes have ratio exactly ``cond``."""
    shape = _bshape(batch)
    if k == 1:
        return np.ones(shape + (1,))
    inner = rng.uniform(0.0, 1.0, size=shape + (k - 2,))
    t = np.concatenate([np.zeros(shape + (1,)), inner, np.ones(shape + (1,))], axis=-1)
    return np.exp((t - 0.5) * np.log(cond))


def invertible(rng: np.random.Generator, n: int, *, cond: float = 10.0, batch: Batch = ()) -> np.ndarray:
    """Random invertible ``n x n`` matrices with 2-norm condition number exactly ``cond`` (n >= 2).

    Singular values are log-uniform between ``cond**-0.5`` and ``cond**0.5``; singular vectors
    Haar.  Raises InvalidArgument for ``n < 1`` or ``cond < 1``.
    """
    n = check_positive_int("n", n)
    cond = _check_cond(cond)
    return with_singular_values(rng, n, n, _log_spectrum(rng, n, cond, batch), batch=batch)


def symmetric(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> np.ndarray:
    """Random symmetric ``n x n`` matrices ``(G + G^T)/2`` with Gaussian ``G`` (GOE, scale 1/sqrt 2)."""
    g = gaussian(rng, n, n, batch=batch)
    return 0.5 * (g + np.swapaxes(g, -1, -2))


def antisymmetric(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> np.ndarray:
    """Random antisymmetric ``n x n`` matrices ``(G - G^T)/2``."""
    g = gaussian(rng, n, n, batch=batch)
    return 0.5 * (g - np.swapaxes(g, -1, -2))


def spd(rng: np.random.Generator, n: int, *, cond: float = 10.0, batch: Batch = ()) -> np.ndarray:
    """Random symmetric positive-definite ``n x n`` matrices with condition number ``cond``.

    Eigenvalues log-uniform in ``[cond**-0.5, cond**0.5]``, eigenvectors Haar.
    """
    n = check_positive_int("n", n)
    cond = _check_cond(cond)
    q = orthogonal(rng, n, batch=batch)
    lam = _log_spectrum(rng, n, cond, batch)
    return (q * lam[..., None, :]) @ np.swapaxes(q, -1, -2)


def rank_r(rng: np.random.Generator, m: int, n: int, r: int, *, cond: float = 10.0, batch: Batch = ()) -> np.ndarray:
    """Random ``m x n`` matrices of rank exactly ``r`` (nonzero singular values with ratio ``cond``).

    Raises InvalidArgument unless ``0 <= r <= min(m, n)``.
    """
    m, n = check_positive_int("m", m), check_positive_int("n", n)
    r = check_int("r", r, min_value=0, max_value=min(m, n))
    if r == 0:
        return np.zeros(_bshape(batch) + (m, n))
    return with_singular_values(rng, m, n, _log_spectrum(rng, r, _check_cond(cond), batch), batch=batch)


# ---------------------------------------------------------------------------------------
# Hypothesis strategies
# ---------------------------------------------------------------------------------------
def seeds():
    """Hypothesis strategy of 32-bit seeds (shrinks towards 0)."""
    from hypothesis import strategies as st

    return st.integers(min_value=0, max_value=2**32 - 1)


def strategy(sampler: Callable[..., np.ndarray], *args_strategies, **kwargs):
    """A Hypothesis strategy drawing ``sampler(default_rng(seed), *args, **kwargs)``.

    ``args_strategies`` are strategies (or plain values) for the positional size arguments.

    >>> from hypothesis import given, strategies as st
    >>> @given(strategy(spd, st.integers(1, 4), cond=50.0))
    ... def test_spd(S):
    ...     assert np.all(np.linalg.eigvalsh(S) > 0)
    >>> test_spd()
    """
    from hypothesis import strategies as st

    parts = [s if hasattr(s, "example") else st.just(s) for s in args_strategies]
    return st.tuples(seeds(), *parts).map(lambda t: sampler(np.random.default_rng(t[0]), *t[1:], **kwargs))
