"""Random structured matrices: the property each family promises, over sizes and seeds."""

import copy
import itertools
import pickle

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_check import InvalidArgument, sampling
from theorem_check.numerics.precision import FLOAT32, FLOAT64, MP50, to_float

sizes = st.integers(1, 6)
conds = st.floats(1.0, 1e4)


@given(seed=sampling.seeds(), n=sizes, cond=conds)
def test_invertible_condition_number_below_cond(seed, n, cond):
    M = sampling.invertible(np.random.default_rng(seed), n, cond=cond, batch=2)
    assert (np.linalg.cond(M) <= cond * (1 + 1e-8)).all()


@given(seed=sampling.seeds(), n=sizes, cond=conds)
def test_spd(seed, n, cond):
    S = sampling.spd(np.random.default_rng(seed), n, cond=cond)
    assert np.allclose(S, S.T)
    ev = np.linalg.eigvalsh(S)
    assert ev.min() > 0 and ev.max() / ev.min() <= cond * (1 + 1e-6)


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
    (lambda r: sampling.with_singular_values(r, 3, 2, np.ones(3)), "k=3 must be <= n=2"),
    (lambda r: sampling.with_singular_values(r, 3, 2, np.ones(0)), "k=0 must be >= 1"),
    (lambda r: sampling.gaussian(r, 2.5), "m=2.5 must be an integer"),
])
def test_bad_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(")):
        call(np.random.default_rng(0))


# ---------------------------------------------------------------------------------------
# Exact structure at every precision (issue 9, item 4)
# ---------------------------------------------------------------------------------------

CTXS = pytest.mark.parametrize("ctx", [FLOAT32, FLOAT64, MP50], ids=lambda c: c.name)
small = st.integers(1, 4)


def _gram_defect(Q, ctx) -> float:
    """max over the batch of ||Q^T Q - I||_F, computed in ``ctx``."""
    with ctx.active():
        E = np.swapaxes(Q, -1, -2) @ Q - ctx.eye(Q.shape[-1])
        return float(np.max(to_float(ctx.norm(E.reshape((-1,) + E.shape[-2:])))))


def _singular_values(A, ctx) -> np.ndarray:
    """Singular values (descending) of each matrix of a batch, in ``ctx`` (mpmath.svd_r at mp)."""
    A = A.reshape((-1,) + A.shape[-2:])
    if not ctx.is_mp:
        return np.linalg.svd(A, compute_uv=False)
    with ctx.active():
        return np.array([sorted((float(v) for v in mpmath.svd_r(mpmath.matrix(a.tolist()), compute_uv=False)),
                                reverse=True) for a in A])


def _sv_mp(A):
    """Singular values of each matrix of a batch as mpf (50 digits), descending."""
    A = A.reshape((-1,) + A.shape[-2:])
    with MP50.active():
        return [sorted(mpmath.svd_r(mpmath.matrix(a.tolist()), compute_uv=False), reverse=True) for a in A]


@CTXS
@given(seed=sampling.seeds(), m=small, k=small)
def test_orthonormal_columns_at_every_precision(ctx, seed, m, k):
    k = min(m, k)
    Q = sampling.orthonormal_columns(np.random.default_rng(seed), m, k, batch=2)
    assert isinstance(Q, sampling.Exact) and Q.has_recipe
    Qc = Q.at(ctx)
    assert Qc.shape == Q.shape and (Qc.dtype == object) == ctx.is_mp
    defect = _gram_defect(Qc, ctx)
    assert defect < 4 * m * ctx.eps
    if ctx.is_mp:
        assert defect < 1e-45


@CTXS
@given(seed=sampling.seeds(), n=small)
def test_orthogonal_at_every_precision(ctx, seed, n):
    Q = sampling.orthogonal(np.random.default_rng(seed), n, batch=(2, 2))
    Qc = Q.at(ctx)
    assert _gram_defect(Qc, ctx) < 4 * n * ctx.eps
    with ctx.active():   # rows too: Q Q^T = I
        assert _gram_defect(np.swapaxes(Qc, -1, -2), ctx) < 4 * n * ctx.eps


@CTXS
@given(seed=sampling.seeds(), n=small, cond=st.floats(1.0, 1e3))
def test_spd_exactly_symmetric_at_every_precision(ctx, seed, n, cond):
    X = sampling.spd(np.random.default_rng(seed), n, cond=cond, batch=2)
    Xc = X.at(ctx)
    assert (Xc == np.swapaxes(Xc, -1, -2)).all()          # exactly, not to rounding
    lam = np.sort(X._recipe.lam, axis=-1)                  # the eigenvalues drawn
    with ctx.active():
        err = to_float(ctx.abs(ctx.eigvalsh(Xc) - ctx.asarray(lam))) / lam.max()
    assert err.max() < 8 * n * ctx.eps + (0 if ctx.is_mp else 1e-13)
    if ctx.is_mp:
        assert err.max() < 1e-45


@CTXS
@given(seed=sampling.seeds(), n=small)
def test_symmetric_and_antisymmetric_exact_at_every_precision(ctx, seed, n):
    T = ctx.asarray(sampling.symmetric(np.random.default_rng(seed), n, batch=3))
    A = ctx.asarray(sampling.antisymmetric(np.random.default_rng(seed), n, batch=3))
    assert (T == np.swapaxes(T, -1, -2)).all() and (A == -np.swapaxes(A, -1, -2)).all()


@CTXS
@given(seed=sampling.seeds(), m=small, n=small, data=st.data())
def test_with_singular_values_at_every_precision(ctx, seed, m, n, data):
    k = data.draw(st.integers(1, min(m, n)))
    s = np.array(data.draw(st.lists(st.floats(0.1, 10.0), min_size=k, max_size=k)))
    A = sampling.with_singular_values(np.random.default_rng(seed), m, n, s, batch=2)
    sv = _singular_values(A.at(ctx), ctx)
    want = np.concatenate([np.sort(s)[::-1], np.zeros(min(m, n) - k)])
    assert np.abs(sv - want).max() < 8 * max(m, n) * ctx.eps * s.max() + (0 if ctx.is_mp else 1e-14 * s.max())
    if ctx.is_mp:   # to 50 digits, not to float64's 16
        for row in _sv_mp(A.at(ctx)):
            assert max(abs(a - b) for a, b in zip(row, want)) < 1e-45 * s.max()


@CTXS
@given(seed=sampling.seeds(), m=small, n=small, r=st.integers(1, 4))
def test_rank_r_at_every_precision(ctx, seed, m, n, r):
    r = min(r, m, n)
    A = sampling.rank_r(np.random.default_rng(seed), m, n, r, cond=10.0, batch=2)
    sv = _singular_values(A.at(ctx), ctx)
    assert (sv[:, r - 1] >= sv[:, 0] / 10.0 * (1 - 1e-6)).all()           # r singular values as drawn
    assert (sv[:, r:] <= 8 * max(m, n) * ctx.eps * sv[:, :1]).all()       # the rest vanish to precision
    if ctx.is_mp and r < min(m, n):
        for row in _sv_mp(A.at(ctx)):
            assert row[r] < 1e-45 * row[0]


def test_rank_zero_is_exact_zeros():
    Z = sampling.rank_r(np.random.default_rng(0), 3, 2, 0, batch=2)
    assert (MP50.asarray(Z) == 0).all()


def test_float64_values_are_the_previous_samples():
    """The float64 values are what the samplers returned before (existing claims keep their instances)."""
    def old_q(rng, m, k, batch):
        q, r = np.linalg.qr(rng.standard_normal((batch, m, k)))
        sg = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
        return q * sg[..., None, :]

    r1, r2 = np.random.default_rng(7), np.random.default_rng(7)
    assert (sampling.orthonormal_columns(r1, 4, 3, batch=5) == old_q(r2, 4, 3, 5)).all()
    X = sampling.spd(r1, 4, cond=30.0, batch=5)
    q, lam = old_q(r2, 4, 4, 5), sampling._log_spectrum(r2, 4, 30.0, 5)
    assert np.abs(X - (q * lam[..., None, :]) @ np.swapaxes(q, -1, -2)).max() < 1e-14
    s = np.array([3.0, 1.0])
    A = sampling.with_singular_values(r1, 4, 3, s, batch=5)
    u, v = old_q(r2, 4, 2, 5), old_q(r2, 3, 2, 5)
    assert (A == (u * s) @ np.swapaxes(v, -1, -2)).all()


@pytest.mark.parametrize("make", [
    lambda r: sampling.orthogonal(r, 3, batch=4),
    lambda r: sampling.orthonormal_columns(r, 4, 2, batch=4),
    lambda r: sampling.spd(r, 3, batch=4),
    lambda r: sampling.with_singular_values(r, 3, 4, np.array([2.0, 1.0]), batch=4),
    lambda r: sampling.rank_r(r, 4, 4, 2, batch=4),
], ids=["orthogonal", "orthonormal_columns", "spd", "with_singular_values", "rank_r"])
@given(seed=sampling.seeds())
@settings(max_examples=10)
def test_take_matches_at(make, seed):
    X = make(np.random.default_rng(seed))
    full = X.at(MP50)
    for b in range(4):
        one = X.take(b)
        assert isinstance(one, sampling.Exact) and one.has_recipe and one.shape == (1,) + X.shape[1:]
        assert (np.asarray(one) == np.asarray(X)[b:b + 1]).all()
        assert (one.at(MP50) == full[b:b + 1]).all()
        assert (one.at(FLOAT32) == X.at(FLOAT32)[b:b + 1]).all()
    assert (X.take(-1).at(MP50) == full[3:]).all()
    with pytest.raises(IndexError, match="b=4"):
        X.take(4)
    unbatched = sampling.orthogonal(np.random.default_rng(3), 3)
    assert unbatched.has_recipe and not unbatched.take(0).has_recipe    # no batch axis to slice the recipe by


def test_derived_arrays_carry_no_recipe():
    Q = sampling.orthogonal(np.random.default_rng(1), 3, batch=2)
    D = np.diag([1.0, 2.0, 3.0])
    derived = [2 * Q, Q + 0, Q @ D, np.sqrt(np.abs(Q)), Q[0], Q[:1], Q.T, np.swapaxes(Q, -1, -2), Q.copy(),
               Q.reshape(6, 3), Q[..., :2]]
    for x in derived:
        assert not (isinstance(x, sampling.Exact) and x.has_recipe)
        # such arrays are converted like any float64 array: exactly their float64 values
        assert (np.asarray(MP50.asarray(x), dtype=float) == np.asarray(x)).all()
        if isinstance(x, sampling.Exact):
            assert (x.at(MP50) == MP50.asarray(np.asarray(x))).all()
    assert type(2 * Q) is np.ndarray and type(Q @ D) is np.ndarray
    # an Exact changed in place is no longer what its recipe describes
    X = sampling.spd(np.random.default_rng(1), 3, batch=2)
    X += 1.0
    assert isinstance(X, sampling.Exact) and not X.has_recipe
    assert (X.at(MP50) == MP50.asarray(np.asarray(X))).all()
    Y = sampling.spd(np.random.default_rng(1), 3, batch=2)
    Y[0, 0, 0] = 5.0
    assert not Y.has_recipe


def test_exact_behaves_as_its_float64_values():
    Q = sampling.orthogonal(np.random.default_rng(2), 3, batch=2)
    plain = np.asarray(Q)
    assert type(plain) is np.ndarray and plain.dtype == np.float64 and plain.shape == Q.shape
    assert (Q == plain).all() and np.allclose(np.linalg.inv(Q), np.swapaxes(plain, -1, -2))
    assert float(np.sum(Q)) == float(np.sum(plain)) and (Q.at(FLOAT64) == plain).all()
    assert Q.at(FLOAT32).dtype == np.float32 and (Q.at(FLOAT32) == plain.astype(np.float32)).all()


@pytest.mark.parametrize("deep", [False, True])
def test_pickle_and_copy_keep_the_recipe(deep):
    X = sampling.spd(np.random.default_rng(4), 3, batch=2)
    for Y in (pickle.loads(pickle.dumps(X)), copy.deepcopy(X) if deep else copy.copy(X)):
        assert isinstance(Y, sampling.Exact) and Y.has_recipe
        assert (np.asarray(Y) == np.asarray(X)).all() and (Y.at(MP50) == X.at(MP50)).all()
        assert (Y.take(1).at(MP50) == X.at(MP50)[1:]).all()
    derived = pickle.loads(pickle.dumps(2 * X))
    assert type(derived) is np.ndarray


def test_strategies_draw_exact_arrays():
    from hypothesis import find

    Q = find(sampling.strategy(sampling.orthogonal, st.integers(2, 4), batch=2), lambda q: True)
    assert isinstance(Q, sampling.Exact) and Q.has_recipe and _gram_defect(Q.at(MP50), MP50) < 1e-45


@pytest.mark.parametrize("ctx", [MP50], ids=["mp50"])
def test_negative_control_plain_qr_is_not_exact_at_mp50(ctx):
    """The structure tests can fail: a plain float64 QR factor (the old construction), or the recipe-free
    view of an Exact, is orthogonal only to float64 rounding, so at mp50 its defect is ~1e-16 >> 1e-45."""
    Q = sampling.orthogonal(np.random.default_rng(5), 4, batch=3)
    for plain in (np.linalg.qr(np.random.default_rng(5).standard_normal((3, 4, 4)))[0], np.asarray(Q), Q[:]):
        defect = _gram_defect(ctx.asarray(plain), ctx)
        assert 1e-18 < defect < 1e-13
    M = sampling.spd(np.random.default_rng(5), 4, batch=3)
    old = (Q * np.array([1.0, 2.0, 3.0, 4.0])) @ np.swapaxes(Q, -1, -2)     # unsymmetrised product
    assert not (old == np.swapaxes(old, -1, -2)).all() and (M == np.swapaxes(M, -1, -2)).all()


# ---------------------------------------------------------------------------------------
# Generic at every size (issue 18, item 2): no algebraic relation beyond the structure
# ---------------------------------------------------------------------------------------
DRAWS = 300


def charpoly(X) -> np.ndarray:
    """Coefficients ``c_1..c_n`` of ``det(t I - X)`` per matrix (``c_1 = -trace``, ``c_n = (-1)^n det``)."""
    return np.array([np.real(np.poly(x))[1:] for x in np.asarray(X)])


def relations(F, degree: int = 3) -> int:
    """How many independent polynomial relations of degree <= ``degree`` hold on every row of ``F``.

    ``F`` is (draws, features).  The monomials of the standardised features (constant included)
    are the columns of a matrix; each relation ``p(f) = 0`` is a null vector of it.  A feature that
    never changes is a relation of degree 1.
    """
    F = np.asarray(F, dtype=float).reshape(len(F), -1)
    mean, sd = F.mean(axis=0), F.std(axis=0)
    if (sd <= 1e-12 * (1.0 + np.abs(mean))).any():
        return int((sd <= 1e-12 * (1.0 + np.abs(mean))).sum())
    Z = (F - mean) / sd
    cols = [np.ones(len(F))]
    for d in range(1, degree + 1):
        cols += [np.prod(Z[:, list(c)], axis=1) for c in itertools.combinations_with_replacement(range(F.shape[1]), d)]
    M = np.column_stack(cols)
    sv = np.linalg.svd(M / np.linalg.norm(M, axis=0), compute_uv=False)
    return int((sv < 1e-8 * sv[0]).sum())


def _old_log_spectrum(rng, k, cond, batch):
    """The spectrum before issue 18: exactly 1 at k = 1, {c^-1/2, c^1/2} at k = 2 (det = 1)."""
    if k == 1:
        return np.ones((batch, 1))
    t = np.concatenate([np.zeros((batch, 1)), rng.uniform(0, 1, (batch, k - 2)), np.ones((batch, 1))], axis=-1)
    return np.exp((t - 0.5) * np.log(cond))


def _gram(X):
    return np.swapaxes(X, -1, -2) @ X


def _orthogonal_features(Q):
    """Trace on the det = +1 draws (the det = -1 component at n = 2 is reflections: trace 0)."""
    det = np.linalg.det(Q)
    assert np.allclose(det ** 2, 1.0) and (det > 0).any() and (det < 0).any()      # structural, both signs
    return np.trace(Q, axis1=-2, axis2=-1)[det > 0]


# sampler name -> (draw (rng, n) -> batch of DRAWS, invariants whose relations the structure does not force)
GENERIC = {
    "spd": (lambda r, n: sampling.spd(r, n, batch=DRAWS), charpoly),
    "spd cond 2": (lambda r, n: sampling.spd(r, n, cond=2.0, batch=DRAWS), charpoly),
    "spd cond 1e4": (lambda r, n: sampling.spd(r, n, cond=1e4, batch=DRAWS), lambda X: np.log(np.linalg.eigvalsh(X))),
    "invertible": (lambda r, n: sampling.invertible(r, n, batch=DRAWS),
                   lambda X: np.hstack([charpoly(X), charpoly(_gram(X))[:, :-1]])),   # det(X^T X) = det(X)^2
    "symmetric": (lambda r, n: sampling.symmetric(r, n, batch=DRAWS), charpoly),
    "antisymmetric": (lambda r, n: sampling.antisymmetric(r, n, batch=DRAWS),
                      lambda X: charpoly(X)[:, 1::2]),                                 # odd coefficients vanish
    "gaussian": (lambda r, n: sampling.gaussian(r, n, batch=DRAWS), charpoly),
    "orthogonal": (lambda r, n: sampling.orthogonal(r, n, batch=DRAWS), _orthogonal_features),
    "orthonormal_columns": (lambda r, n: sampling.orthonormal_columns(r, n + 1, n, batch=DRAWS),
                            lambda Q: charpoly(Q[..., :-1, :])),                       # a contraction
    "rank_r": (lambda r, n: sampling.rank_r(r, n + 1, n + 1, n, batch=DRAWS),
               lambda X: charpoly(_gram(X))[:, :-1]),                                  # det = 0
    "rank_r cond 3": (lambda r, n: sampling.rank_r(r, n, n + 1, n, cond=3.0, batch=DRAWS),
                      lambda X: charpoly(X @ np.swapaxes(X, -1, -2))),
    "with_singular_values": (lambda r, n: sampling.with_singular_values(r, n, n, np.arange(1.0, n + 1), batch=DRAWS),
                             lambda X: charpoly(X)[:, :-1]),                           # |det| = prod(s)
}
FORCED = {("antisymmetric", 1), ("orthogonal", 1), ("with_singular_values", 1)}
"""(sampler, n) whose structure leaves no random invariant: X = 0, Q = +-1, X = +-s."""


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("name", list(GENERIC))
def test_no_relation_beyond_the_structure(name, n):
    draw, invariants = GENERIC[name]
    X = draw(np.random.default_rng(100 + n), n)
    F = invariants(X)
    if (name, n) in FORCED:
        assert F.size == 0 or relations(F) >= 1
        return
    assert F.shape[-1] >= 1 and relations(F) == 0, (name, n)


@pytest.mark.parametrize("n", [1, 2])
def test_relations_finds_the_old_degenerate_spectrum(n):
    """Negative control: the spectrum before issue 18 had det = 1 (n <= 2) and X = I (n = 1)."""
    rng = np.random.default_rng(0)
    lam = _old_log_spectrum(rng, n, 10.0, DRAWS)
    q = sampling.orthogonal(rng, n, batch=DRAWS)
    assert relations(charpoly((q * lam[:, None, :]) @ np.swapaxes(q, -1, -2))) >= 1
    assert relations(charpoly(sampling.spd(rng, n, batch=DRAWS))) == 0


def test_relations_finds_a_planted_relation():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.3, 3.0, (2, DRAWS))
    assert relations(np.column_stack([a, b])) == 0
    assert relations(np.column_stack([a, b, a * b ** 2 - 1.0])) >= 1            # degree 3
    assert relations(np.column_stack([a, a ** 4])) == 0                          # degree 4: not looked for
    assert relations(np.column_stack([a, np.ones(DRAWS)])) >= 1                  # a constant


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("cond", [1.0, 2.0, 10.0, 1e3])
def test_spectrum_distinct_within_cond_and_spread_over_a_decade(k, cond):
    lam = sampling._log_spectrum(np.random.default_rng(k), k, cond, 2000)
    assert (lam > 0).all() and (cond == 1 or (np.diff(lam, axis=-1) > 0).all())   # distinct, ascending
    ratio = lam[:, -1] / lam[:, 0]
    assert (ratio <= cond * (1 + 1e-12)).all()                                   # cond(X) <= cond
    if k >= 2 and cond > 1:
        assert (ratio >= cond ** ((k - 2) / k) * (1 - 1e-12)).all() and ratio.max() > cond ** 0.95
    span = max(cond, sampling.SPREAD)                                             # a decade at least
    assert lam.min() >= span ** -0.5 * (1 - 1e-12) and lam.max() <= span ** 0.5 * (1 + 1e-12)
    assert lam.max() / lam.min() > span ** 0.9
    assert len(np.unique(np.prod(lam, axis=-1))) == 2000                          # det not fixed


def test_cond_one_is_a_random_multiple_of_the_identity():
    X = sampling.spd(np.random.default_rng(0), 3, cond=1.0, batch=50)
    s = X[:, 0, 0]
    assert np.abs(X - s[:, None, None] * np.eye(3)).max() < 1e-14 and s.max() / s.min() > 5


@pytest.mark.parametrize("n", [1, 2, 3])
@CTXS
def test_generic_samples_keep_their_structure_at_every_precision(ctx, n):
    rng = np.random.default_rng(n)
    S, M = sampling.spd(rng, n, batch=3), sampling.rank_r(rng, n + 1, n + 1, n, batch=3)
    with ctx.active():
        Sc = S.at(ctx)
        assert (Sc == np.swapaxes(Sc, -1, -2)).all()
        err = to_float(ctx.abs(ctx.eigvalsh(Sc) - ctx.asarray(S._recipe.lam))) / S._recipe.lam.max()
    assert err.max() < 8 * n * ctx.eps + (0 if ctx.is_mp else 1e-13)
    sv = _singular_values(M.at(ctx), ctx)
    assert (sv[:, n] <= 8 * (n + 1) * ctx.eps * sv[:, 0]).all() and (sv[:, n - 1] > sv[:, 0] / 10).all()


@pytest.mark.parametrize("make", [
    lambda rng: sampling.spd(rng, 16, batch=2),
    lambda rng: sampling.orthogonal(rng, 16, batch=2),
    lambda rng: sampling.with_singular_values(rng, 16, 17, np.linspace(1, 3, 16), batch=2),
])
def test_balls_hold_the_midpoints_at_returns(make):
    """``Exact.balls`` is the ball array of exactly the ``mpf`` values ``at`` returns (no object array)."""
    from theorem_check.numerics.balls import BallArray

    x = make(np.random.default_rng(3))
    with MP50.active():
        b = x.balls(MP50)
        assert isinstance(b, BallArray) and b.shape == x.shape
        assert (np.asarray(b) == x.at(MP50)).all()
    assert x.balls(FLOAT64) is None                                 # float contexts: the plain path
    assert sampling.spd(np.random.default_rng(0), 4, batch=2).balls(MP50) is None   # 16 entries: below BALL_MIN


@pytest.mark.parametrize("fn", [sampling.spd, sampling.invertible])
def test_one_condition_bound_per_batch_element(fn):
    """``cond`` of shape ``batch`` (the far instances', decision 187): each matrix within its own bound, and the same
    draws as a number when the bounds are all equal."""
    cond = np.array([2.0, 1e3, 1e6])
    m = np.asarray(fn(np.random.default_rng(1), 3, cond=cond, batch=3))
    sv = np.linalg.svd(m, compute_uv=False)
    assert np.all(sv[:, 0] / sv[:, -1] <= cond * (1 + 1e-9)) and sv[2, 0] / sv[2, -1] > 1e4
    same = np.asarray(fn(np.random.default_rng(1), 3, cond=np.full(3, 50.0), batch=3))
    assert np.array_equal(same, np.asarray(fn(np.random.default_rng(1), 3, cond=50.0, batch=3)))
    with pytest.raises(InvalidArgument, match="cond"):
        fn(np.random.default_rng(1), 3, cond=np.array([2.0, 0.5, 3.0]), batch=3)
