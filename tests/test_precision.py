"""Contexts: the same code at float32, float64 and mpmath; residuals follow eps."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorem_check import sampling
from theorem_check.numerics.precision import FLOAT32, FLOAT64, MP50, to_float


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


# ---------------------------------------------------------------------------------------
# Functions at every precision (issue 11, item 2)
# ---------------------------------------------------------------------------------------
import mpmath  # noqa: E402
import scipy.linalg  # noqa: E402
import scipy.special  # noqa: E402
from hypothesis import settings  # noqa: E402

from theorem_check.errors import ShapeMismatch  # noqa: E402

CTXS = [FLOAT32, FLOAT64, MP50]
ids = lambda c: c.name  # noqa: E731


def _tol(ctx, k=50.0):
    """Relative error allowed against a float64 reference: k eps of the context (float64's at mp50)."""
    return k * max(ctx.eps, FLOAT64.eps)


def _rel(a, b):
    a, b = np.asarray(a, dtype=complex), np.asarray(b, dtype=complex)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


ELEMENTWISE = [
    ("sin", np.sin, (-3, 3)), ("cos", np.cos, (-3, 3)), ("tan", np.tan, (-1.2, 1.2)),
    ("tanh", np.tanh, (-3, 3)), ("exp", np.exp, (-3, 3)), ("log", np.log, (0.1, 5)),
    ("log1p", np.log1p, (-0.5, 3)), ("expm1", np.expm1, (-3, 3)), ("sigmoid", scipy.special.expit, (-8, 8)),
    ("softplus", lambda x: np.logaddexp(0, x), (-8, 8)), ("abs", np.abs, (-3, 3)), ("sqrt", np.sqrt, (0.01, 5)),
]


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
@pytest.mark.parametrize("name,ref,dom", ELEMENTWISE, ids=[e[0] for e in ELEMENTWISE])
def test_elementwise_matches_numpy(ctx, name, ref, dom):
    x = np.random.default_rng(3).uniform(*dom, size=(2, 3, 3))
    with ctx.active():
        X = ctx.asarray(x)
        out = getattr(ctx, name)(X)
    assert np.shape(out) == x.shape
    if not ctx.is_mp:
        assert out.dtype == ctx.dtype
    assert _rel(to_float(out), ref(x)) < _tol(ctx)


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_elementwise_identities_follow_precision(ctx):
    """At mp50 the functions are accurate to ~50 digits (a float64 reference cannot show it)."""
    x = np.random.default_rng(4).uniform(-2, 2, size=(3, 4))
    with ctx.active():
        X = ctx.asarray(x)
        one = ctx.asarray(np.ones_like(x))
        res = [
            ctx.sin(X) * ctx.sin(X) + ctx.cos(X) * ctx.cos(X) - one,
            ctx.log(ctx.exp(X)) - X,
            ctx.expm1(ctx.log1p(X / 4)) - X / 4,
            ctx.sigmoid(X) + ctx.sigmoid(-X) - one,
            ctx.softplus(X) - ctx.softplus(-X) - X,
            ctx.tanh(X) - ctx.expm1(2 * X) / (ctx.exp(2 * X) + one),
            ctx.tan(X / 2) * ctx.cos(X / 2) - ctx.sin(X / 2),
            ctx.power(ctx.abs(X), 3) - ctx.abs(X) * X * X,
            ctx.hadamard_power(ctx.sqrt(ctx.abs(X)), 2) - ctx.abs(X),
            ctx.sin(ctx.pi + 0 * X) - 0 * X,
        ]
        worst = max(float(np.max(to_float(ctx.norm(r)))) for r in res)
    assert worst < 100 * ctx.eps


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_pi(ctx):
    with ctx.active():
        assert abs(float(ctx.pi) - np.pi) < 4 * max(ctx.eps, FLOAT64.eps)
        if ctx.is_mp:
            assert abs(ctx.pi - mpmath.pi) < 1e-49


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_softmax_logsumexp(ctx):
    x = np.random.default_rng(5).standard_normal((2, 3, 5)) * 3
    with ctx.active():
        X = ctx.asarray(x)
        for axis in (-1, 1):
            p = ctx.softmax(X, axis=axis)
            assert _rel(to_float(p), scipy.special.softmax(x, axis=axis)) < _tol(ctx)
            lse = ctx.logsumexp(X, axis=axis)
            assert np.shape(lse) == tuple(np.delete(x.shape, axis % 3))
            assert _rel(to_float(lse), scipy.special.logsumexp(x, axis=axis)) < _tol(ctx)
        # identities at the context's own precision: log softmax = x - logsumexp; sums are 1
        r1 = ctx.log(ctx.softmax(X)) - (X - ctx.logsumexp(X)[..., None])
        r2 = np.sum(ctx.softmax(X), axis=-1) - 1
        assert float(np.max(to_float(ctx.norm(r1)))) < 100 * ctx.eps
        assert float(np.max(np.abs(to_float(r2)))) < 100 * ctx.eps
        # stable: huge inputs do not overflow, in any context
        big = ctx.asarray(np.array([[1000.0, 999.0, -1000.0]]))
        assert np.all(np.isfinite(to_float(ctx.softmax(big))))
        assert abs(float(to_float(ctx.logsumexp(big))[0]) - (1000 + np.log1p(np.exp(-1)))) < 1e-3


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_structure_matches_numpy(ctx):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3, 2))
    s = rng.standard_normal((2, 4, 4))
    v = rng.standard_normal((2, 4))
    with ctx.active():
        A, B, S, V = (ctx.asarray(t) for t in (a, b, s, v))
        K = ctx.kron(A, B)
        assert K.shape == (2, 6, 6)
        assert _rel(to_float(K), np.stack([np.kron(a[i], b[i]) for i in range(2)])) < _tol(ctx, 1)
        assert ctx.vec(A).shape == (2, 6, 1)
        af = to_float(A)
        assert np.array_equal(to_float(ctx.vec(A))[..., 0], np.stack([af[i].ravel(order="F") for i in range(2)]))
        assert np.array_equal(to_float(ctx.unvec(ctx.vec(A), 2, 3)), to_float(A))
        D = ctx.diag(V)
        vf = to_float(V)
        assert D.shape == (2, 4, 4) and np.array_equal(to_float(D), np.stack([np.diag(vf[i]) for i in range(2)]))
        assert np.array_equal(to_float(ctx.diag_part(S)), np.diagonal(to_float(S), axis1=1, axis2=2))
        for k in (-1, 0, 2):
            assert np.array_equal(to_float(ctx.tril(S, k)), np.tril(to_float(S), k))
            assert np.array_equal(to_float(ctx.triu(S, k)), np.triu(to_float(S), k))
            assert np.array_equal(to_float(ctx.tril(A, k)), np.tril(to_float(A), k))
        assert np.array_equal(ctx.hadamard(A, A[..., ::-1]), A * A[..., ::-1])
        if ctx.is_mp:
            assert all(isinstance(z, mpmath.mpf) for z in ctx.tril(S).flat)
            assert all(isinstance(z, mpmath.mpf) for z in D.flat)


def test_structure_bad_shapes():
    with pytest.raises(ShapeMismatch, match="unvec"):
        FLOAT64.unvec(np.zeros((2, 5, 1)), 2, 3)
    with pytest.raises(ShapeMismatch, match="diag needs a square matrix or a vector, got a 2 x 3 matrix"):
        FLOAT64.diag_part(np.zeros((2, 2, 3)))
    with pytest.raises(ShapeMismatch, match="kron"):
        FLOAT64.kron(np.zeros(3), np.zeros((2, 2)))
    with pytest.raises(ShapeMismatch, match="cholesky"):
        MP50.cholesky(MP50.asarray(np.zeros((1, 2, 3))))


@settings(max_examples=25, deadline=None)
@given(seed=sampling.seeds(), m=st.integers(1, 4), n=st.integers(1, 4), batch=st.integers(1, 3))
def test_vec_unvec_round_trip(seed, m, n, batch):
    x = np.random.default_rng(seed).standard_normal((batch, m, n))
    for ctx in (FLOAT32, FLOAT64):
        X = ctx.asarray(x)
        assert np.array_equal(ctx.unvec(ctx.vec(X), m, n), X)
        assert np.array_equal(ctx.vec(ctx.unvec(ctx.vec(X)[..., 0], m, n)), ctx.vec(X))
        # column-major: vec(X)[j*m + i] = X[i, j]
        assert np.array_equal(ctx.vec(X)[:, :, 0], np.swapaxes(X, 1, 2).reshape(batch, -1))


@settings(max_examples=15, deadline=None)
@given(seed=sampling.seeds(), d=st.lists(st.integers(1, 3), min_size=6, max_size=6))
def test_kron_mixed_product_and_vec_identity(seed, d):
    """(A (x) B)(C (x) D) = AC (x) BD, and vec(A X B) = (B^T (x) A) vec(X), at every precision."""
    m, k, p, q, n, r = d
    rng = np.random.default_rng(seed)
    a, c = rng.standard_normal((1, m, k)), rng.standard_normal((1, k, n))
    b, dd = rng.standard_normal((1, p, q)), rng.standard_normal((1, q, r))
    x = rng.standard_normal((1, k, n))
    e = rng.standard_normal((1, n, r))
    for ctx in CTXS:
        with ctx.active():
            A, B, C, D, X, E = (ctx.asarray(t) for t in (a, b, c, dd, x, e))
            lhs = ctx.kron(A, B) @ ctx.kron(C, D)
            rhs = ctx.kron(A @ C, B @ D)
            # errors are measured against the product of the factors' norms (the
            # rounding bound), not against |rhs|, which cancellation can make tiny
            r1 = to_float(ctx.norm(lhs - rhs) / (ctx.norm(A) * ctx.norm(B) * ctx.norm(C) * ctx.norm(D)))[0]
            lhs2 = ctx.vec(A @ X @ E)
            rhs2 = ctx.kron(ctx.T(E), A) @ ctx.vec(X)
            r2 = to_float(ctx.norm(lhs2 - rhs2) / (ctx.norm(A) * ctx.norm(X) * ctx.norm(E)))[0]
        assert r1 < 100 * ctx.eps and r2 < 100 * ctx.eps


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_matrix_functions(ctx):
    rng = np.random.default_rng(7)
    s = sampling.spd(rng, 3, cond=5.0, batch=2)
    s = (s + np.swapaxes(s, 1, 2)) / 2                                   # exactly symmetric
    g = sampling.gaussian(rng, 3, 2, batch=2) / 2
    sq = sampling.gaussian(rng, 3, batch=2) / 2
    lim = 1e3 * ctx.eps
    with ctx.active():
        S, G, Q = ctx.asarray(s), ctx.asarray(g), ctx.asarray(sq)
        nrm = lambda x: float(np.max(to_float(ctx.norm(x))))  # noqa: E731
        L = ctx.cholesky(S)
        assert nrm(L @ ctx.T(L) - S) < lim and nrm(ctx.triu(L, 1)) == 0
        assert _rel(to_float(L), np.linalg.cholesky(s)) < _tol(ctx, 100)
        E = ctx.expm(Q)
        assert _rel(to_float(E), scipy.linalg.expm(sq)) < _tol(ctx, 100)
        Ls = ctx.logm(S)
        assert nrm(ctx.expm(Ls) - S) < lim
        assert _rel(to_float(Ls), np.stack([scipy.linalg.logm(m).real for m in s])) < _tol(ctx, 100)
        R = ctx.sqrtm(S)
        assert nrm(R @ R - S) < lim and nrm(R - ctx.T(R)) < lim
        w, V = ctx.eigh(S)
        assert w.shape == (2, 3) and V.shape == (2, 3, 3)
        assert np.all(np.diff(to_float(w), axis=-1) > 0)
        assert _rel(to_float(w), np.linalg.eigvalsh(s)) < _tol(ctx, 100)
        assert nrm(V @ ctx.diag(w) @ ctx.T(V) - S) < lim and nrm(ctx.T(V) @ V - ctx.eye(3)) < lim
        U, sv, Vt = ctx.svd(G)
        assert U.shape == (2, 3, 2) and sv.shape == (2, 2) and Vt.shape == (2, 2, 2)
        assert np.all(np.diff(to_float(sv), axis=-1) < 0)
        assert _rel(to_float(sv), np.linalg.svd(g, compute_uv=False)) < _tol(ctx, 100)
        assert nrm(U @ ctx.diag(sv) @ Vt - G) < lim


# ---------------------------------------------------------------------------------------
# Complex numbers
# ---------------------------------------------------------------------------------------
def _cgauss(rng, *shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_complex_arrays_and_norm(ctx):
    rng = np.random.default_rng(8)
    z = _cgauss(rng, 2, 3, 3)
    with ctx.active():
        Z = ctx.asarray(z)
        if ctx.is_mp:
            assert all(isinstance(v, mpmath.mpc) for v in Z.flat)
            assert all(isinstance(v, mpmath.mpf) for v in ctx.asarray(z.real).flat)
            assert isinstance(ctx.scalar(1j), mpmath.mpc)
        else:
            assert Z.dtype == ctx.complex_dtype
        n = ctx.norm(Z)
        # |z|^2, not z*z: the norm is real and equals numpy's
        assert _rel(to_float(n), np.linalg.norm(z.reshape(2, -1), axis=1)) < _tol(ctx)
        assert not np.any(np.isnan(to_float(n)))
        assert np.array_equal(to_float(ctx.real(Z)), to_float(ctx.asarray(z.real)))
        assert np.array_equal(to_float(ctx.imag(Z)), to_float(ctx.asarray(z.imag)))
        assert _rel(np.asarray(ctx.H(Z).tolist(), dtype=complex), np.conj(np.swapaxes(z, 1, 2))) < _tol(ctx)
        assert np.array_equal(to_float(ctx.imag(ctx.asarray(z.real))), np.zeros(z.shape))
        # (AB)^H = B^H A^H and |exp(i t)| = 1 at the context's precision
        W = ctx.asarray(_cgauss(rng, 2, 3, 3))
        assert float(np.max(to_float(ctx.norm(ctx.H(Z @ W) - ctx.H(W) @ ctx.H(Z)) / ctx.norm(Z @ W)))) < 100 * ctx.eps
        t = ctx.asarray(rng.standard_normal((2, 4)))
        u = ctx.exp(t * ctx.scalar(1j))
        assert float(np.max(np.abs(to_float(ctx.abs(u)) - 1))) < 10 * ctx.eps


@pytest.mark.parametrize("ctx", CTXS, ids=ids)
def test_complex_matrix_functions(ctx):
    rng = np.random.default_rng(9)
    g = _cgauss(rng, 2, 3, 3)
    h = g @ np.conj(np.swapaxes(g, 1, 2)) + 3 * np.eye(3)       # Hermitian positive definite
    h = (h + np.conj(np.swapaxes(h, 1, 2))) / 2                 # exactly Hermitian
    lim = 1e3 * ctx.eps
    with ctx.active():
        Hm = ctx.asarray(h)
        nrm = lambda x: float(np.max(to_float(ctx.norm(x) / ctx.norm(Hm))))  # noqa: E731
        L = ctx.cholesky(Hm)
        assert nrm(L @ ctx.H(L) - Hm) < lim
        w, V = ctx.eigh(Hm)
        assert _rel(to_float(w), np.linalg.eigvalsh(h)) < _tol(ctx, 100)
        assert nrm(V @ ctx.diag(w) @ ctx.H(V) - Hm) < lim
        U, s, Vt = ctx.svd(ctx.asarray(g))
        assert nrm(U @ ctx.diag(s) @ Vt - ctx.asarray(g)) < lim


def test_to_float_of_complex_residual_is_real():
    z = np.array([[1 + 1j, 2 - 1j]])
    for ctx in CTXS:
        with ctx.active():
            r = ctx.norm(ctx.asarray(z))
        assert np.allclose(to_float(r), [np.sqrt(7)])


def test_engine_decides_identities_over_C():
    """Through the engine: (AB)^H = B^H A^H VERIFIED; the conjugate forgotten, B^T A^T, REFUTED."""
    import theorem_check as tc

    dims = tc.DimSpace({"n": (2, 3)})

    def sample(rng, d, batch):
        n = d["n"]
        return {k: sampling.gaussian(rng, n, batch=batch) + 1j * sampling.gaussian(rng, n, batch=batch)
                for k in ("A", "B")}

    s = tc.Statement(r"(AB)^H = B^H A^H", dims=dims, sample=sample, lhs=lambda i, c: c.H(i.A @ i.B),
                     rhs=lambda i, c: c.H(i.B) @ c.H(i.A))
    wrong = tc.perturb(s, "no conjugate", rhs=lambda v, i, c: c.T(i.B) @ c.T(i.A))
    claim = tc.Claim(id="cplx.adjoint", title="adjoint of a product", source=tc.Source("cplx", "t", "1", "(AB)^H"),
                     statement=s, controls=(wrong, tc.perturb(s, "1 + 1e-6", rhs=lambda v, i, c: v * (1 + 1e-6))))
    for seed in (0, 1):
        res = tc.run_claim(claim, seed=seed, trials=8, controls=True)
        assert res.verdict is tc.Verdict.VERIFIED, res.evidence
        assert all(c.verdict is tc.Verdict.REFUTED for c in res.controls), [c.evidence for c in res.controls]


# ---------------------------------------------------------------------------------------
# mp50 linear algebra through python-flint's arb (issue 13, item 3; design decision 42)
# ---------------------------------------------------------------------------------------
from theorem_check.numerics import arb, precision  # noqa: E402

_ARB_OPS = {"inv": lambda A, B: MP50.inv(A), "solve": lambda A, B: MP50.solve(A, B),
            "det": lambda A, B: MP50.det(A), "expm": lambda A, B: MP50.expm(A)}


def _mp_gap(x, y) -> float:
    """max |x - y| / max |y| over the entries of two mpf/mpc arrays (normwise relative gap)."""
    xs, ys = np.ravel(x), np.ravel(y)
    return float(max(abs(u - v) for u, v in zip(xs, ys)) / max(max(abs(v) for v in ys), mpmath.mpf(1e-300)))


def _both_paths(monkeypatch, fn, *args):
    monkeypatch.setattr(arb, "USE_ARB", True)
    on = fn(*args)
    monkeypatch.setattr(arb, "USE_ARB", False)
    off = fn(*args)
    monkeypatch.setattr(arb, "USE_ARB", True)
    return on, off


@settings(max_examples=40, deadline=None)
@given(seed=sampling.seeds(), n=st.integers(2, 6), batch=st.integers(1, 2), cplx=st.booleans(),
       cond=st.sampled_from([1.0, 10.0, 1e3]))
def test_arb_agrees_with_mpmath(seed, n, batch, cplx, cond):
    """inv, solve, det, expm through arb_mat / acb_mat agree with mpmath to 1e-40 (relative, normwise)
    on random well-conditioned matrices, real and complex."""
    pytest.importorskip("flint")
    rng = np.random.default_rng(seed)
    a = sampling.invertible(rng, n, cond=cond, batch=batch)
    b = sampling.gaussian(rng, n, 2, batch=batch)
    if cplx:
        a = a + 0.3j * sampling.gaussian(rng, n, batch=batch)
        b = b + 1j * sampling.gaussian(rng, n, 2, batch=batch)
    with pytest.MonkeyPatch.context() as mp, MP50.active():
        A, B = MP50.asarray(a), MP50.asarray(b)
        for name, fn in _ARB_OPS.items():
            on, off = _both_paths(mp, fn, A, B)
            assert np.shape(on) == np.shape(off), name
            assert all(isinstance(v, mpmath.mpc if cplx else mpmath.mpf) for v in np.ravel(on)), name
            assert _mp_gap(on, off) < 1e-40, name


@settings(max_examples=30, deadline=None)
@given(seed=sampling.seeds(), n=st.integers(1, 9), clusters=st.integers(1, 4))
def test_arb_eigvalsh_agrees_with_mpmath_eigsy(seed, n, clusters):
    """mp50 eigvalsh through arb's approximate QR agrees with mpmath's eigsy to 1e-40 (relative to the largest
    eigenvalue) on random symmetric matrices, repeated eigenvalues (clusters) and zero ones included."""
    pytest.importorskip("flint")
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = rng.integers(-2, 3, size=clusters).astype(float)[rng.integers(0, clusters, size=n)]
    with pytest.MonkeyPatch.context() as mp, MP50.active():
        Q = MP50.asarray(q[None])
        A = (Q * MP50.asarray(lam)[None, None, :]) @ np.swapaxes(Q, -1, -2)   # symmetric to working precision
        A = (A + np.swapaxes(A, -1, -2)) / 2
        on, off = _both_paths(mp, MP50.eigvalsh, A)
        assert np.shape(on) == np.shape(off) == (1, n)
        assert all(isinstance(v, mpmath.mpf) for v in np.ravel(on))
        assert float(max(abs(u - v) for u, v in zip(np.ravel(on), np.ravel(off)))) <= 1e-40 * max(1.0, np.abs(lam).max())


def test_arb_eigvalsh_declines_what_it_cannot_take():
    """A complex (Hermitian) matrix or one below the size bar takes mpmath's path (None from arb)."""
    pytest.importorskip("flint")
    with MP50.active():
        h = MP50.asarray(np.array([[2.0, 1j, 0, 0], [-1j, 3.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]))
        assert arb.arb_eigvalsh(h) is None
        assert arb.arb_eigvalsh(MP50.asarray(np.eye(2))) is None
        assert arb.arb_eigvalsh(MP50.asarray(np.eye(5))) is not None


def test_arb_path_is_taken_and_restores_flint_precision():
    flint = pytest.importorskip("flint")
    import os

    if os.environ.get(precision.ARB_ENV, "1").strip().lower() in ("0", "off", "false", "no"):
        pytest.skip(f"{precision.ARB_ENV} turns the arb path off")
    assert arb.USE_ARB, "python-flint is installed and THEOREM_CHECK_ARB unset: the arb path should be on"
    prec = flint.ctx.prec
    with MP50.active():
        m = MP50.asarray(np.array([[2.0, 1.0], [1.0, 3.0]]))
        assert arb.arb_inv(m) is not None and arb.arb_det(m) is not None
        assert arb.arb_solve(m, m) is not None and arb.arb_expm(m) is not None
        one = MP50.asarray(np.array([[2.0]]))        # 1x1: below the 3x bar, mpmath's exact value
        assert arb.arb_inv(one) is None and MP50.inv(one[None])[0, 0, 0] == mpmath.mpf(0.5)
    assert flint.ctx.prec == prec


def test_arb_follows_mpmath_working_precision(monkeypatch):
    """At dps + 40 (the derivative oracle's working precision) arb works at mpmath.mp.prec bits too."""
    pytest.importorskip("flint")
    a = sampling.invertible(np.random.default_rng(3), 4, cond=10.0, batch=1)
    with mpmath.workdps(90):
        A = MP50.asarray(a)
        on, off = _both_paths(monkeypatch, MP50.inv, A)
        assert _mp_gap(on, off) < 1e-85


@pytest.mark.parametrize("use_arb", [True, False], ids=["arb", "mpmath"])
def test_singular_input_keeps_mpmath_behaviour(monkeypatch, use_arb):
    """A ball that holds a singular matrix (or a det ball holding 0) takes the mpmath path: same errors
    and values with the switch on and off."""
    monkeypatch.setattr(arb, "USE_ARB", use_arb and arb._flint is not None)
    with MP50.active():
        S = MP50.asarray(np.array([[[1.0, 2.0], [2.0, 4.0]]]))
        with pytest.raises(ZeroDivisionError):
            MP50.inv(S)
        with pytest.raises(ZeroDivisionError):
            MP50.solve(S, MP50.eye(2)[None])
        assert MP50.det(S)[0] == mpmath.det(mpmath.matrix([[1, 2], [2, 4]]))
        N = np.array([[[mpmath.nan, mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(2)]]], dtype=object)  # mpmath's answer
        assert str(MP50.det(N)[0]) == str(mpmath.det(mpmath.matrix(N[0].tolist())))


def test_arb_switch_env_and_missing_flint():
    """THEOREM_CHECK_ARB=0 turns the arb path off at import; without python-flint it is off and mp50 works."""
    import os
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "{block}"
            "from theorem_check.numerics import precision as p\n"
            "from theorem_check.numerics.precision import MP50\n"
            "with MP50.active():\n"
            "    x = MP50.inv(MP50.asarray(np.array([[[2.0, 1.0], [1.0, 3.0]]])))\n"
            "print(p.USE_ARB, float(x[0, 0, 0]))\n")
    env = {k: v for k, v in os.environ.items() if k != precision.ARB_ENV}
    for block, extra, want in (("", {precision.ARB_ENV: "0"}, "False 0.6"),
                               ("sys.modules['flint'] = None\n", {}, "False 0.6")):
        out = subprocess.run([sys.executable, "-c", code.format(block=block)], env={**env, **extra},
                             capture_output=True, text=True, check=True).stdout.strip()
        assert out == want


# --------------------------------------------------------------------------- issue 18: sqrtm/logm at mp50, literals
def test_sqrtm_of_singular_psd_converges_at_mp50():
    """mpmath's Denman-Beavers raised NoConvergence on x x^T; the eigendecomposition route converges."""
    from theorem_check.numerics.precision import MP50
    x = np.random.default_rng(0).standard_normal((1, 3, 1))
    with MP50.active() as ctx:
        X = ctx.asarray(x)
        P = X @ ctx.T(X)
        S = ctx.sqrtm(P)
        want = P / ctx.sqrt(ctx.trace(P))[:, None, None]
        assert float(ctx.norm(S - want)[0]) < 1e-40
        # negative control: a root off by 1e-30 is not within that accuracy
        assert float(ctx.norm(S * (1 + mpmath.mpf("1e-30")) - want)[0]) > 1e-32
        with pytest.raises(ZeroDivisionError):
            ctx.logm(P)                       # undefined (was an endless loop of square roots)


def test_sqrtm_nonsymmetric_falls_back_to_eigendecomposition():
    from theorem_check.numerics.precision import MP50
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((1, 3, 1)), rng.standard_normal((1, 3, 1))
    y = y * np.sign((np.swapaxes(y, -1, -2) @ x)[0, 0, 0])        # y^T x > 0
    with MP50.active() as ctx:
        M = ctx.asarray(x) @ ctx.T(ctx.asarray(y))                  # rank 1, not symmetric
        S = ctx.sqrtm(M)
        assert float(ctx.norm(S @ S - M)[0]) < 1e-20 * float(ctx.norm(M)[0])


def test_logm_sqrtm_symmetric_route_matches_mpmath_on_spd():
    from theorem_check.numerics.precision import MP50
    A = sampling.spd(np.random.default_rng(2), 3, cond=10.0, batch=1)
    A = 0.5 * (A + np.swapaxes(A, -1, -2))
    with MP50.active() as ctx:
        X = ctx.asarray(A)
        M = mpmath.matrix(X[0].tolist())
        for ours, theirs in ((ctx.sqrtm(X)[0], mpmath.sqrtm(M)), (ctx.logm(X)[0], mpmath.logm(M))):
            assert max(abs(ours[i, j] - theirs[i, j]) for i in range(3) for j in range(3)) < 1e-45


@pytest.mark.parametrize("ctx", [FLOAT32, FLOAT64], ids=lambda c: c.name)
def test_logm_of_an_overflowed_matrix_is_nan_not_a_hang(ctx):
    """helper-38: expm of a 1 x 1 input at scale 16 overflowed to inf, and scipy's logm([[inf]]) never returns."""
    out = ctx.logm(ctx.asarray(np.array([[[np.inf]], [[2.0]]])))
    assert np.isnan(out[0, 0, 0]) and abs(float(out[1, 0, 0]) - np.log(2.0)) < 1e-6


def test_watch_floats_records_rounded_literals_only():
    from theorem_check.numerics.precision import MP50, watch_floats
    A = MP50.asarray(np.random.default_rng(0).standard_normal((1, 2, 2)))   # engine conversion: not recorded
    with MP50.active(), watch_floats() as seen:
        _ = 0.5 * A + 2.0 * A                                                # exact decimals: not recorded
        assert seen == []
        _ = 0.1 * A + np.float64(1 / 3) * A
    assert seen == [0.1, 1 / 3]


@pytest.mark.parametrize("ctx", [FLOAT32, FLOAT64, MP50], ids=lambda c: c.name)
def test_logdet_is_log_of_det_and_finite_where_det_overflows(ctx):
    """``ctx.logdet`` is ``log(det(a))``: equal to it where both are finite, NaN where the determinant is negative
    (as ``log`` of it), and finite where the float determinant overflows (an SPD ``256 x 256`` at scale 16, whose
    ``log det`` is about 700: the far instances of ``grad(log(det(X)), X)`` were undecided at float precision)."""
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    spd = (q * rng.uniform(0.5, 2, 5)) @ q.T
    a = ctx.asarray(np.stack([spd, -spd]))          # det(-spd) < 0 for an odd size
    with np.errstate(invalid="ignore"):
        got, want = ctx.logdet(a), ctx.log(ctx.det(a))
    assert abs(float(got[0]) - float(want[0])) <= 1e-5 * abs(float(want[0])) + 1e-6
    assert not np.isfinite(complex(got[1])) or complex(got[1]).imag != 0      # NaN (float) or complex (mp50)
    if not ctx.is_mp:
        q, _ = np.linalg.qr(rng.standard_normal((256, 256)))
        lam = rng.uniform(0.5, 2, 256)
        big = ctx.asarray(16 * (q * lam) @ q.T)[None]
        with np.errstate(over="ignore"):
            assert not np.isfinite(ctx.det(big)[0])
        want = 256 * np.log(16) + np.sum(np.log(lam))
        assert abs(float(ctx.logdet(big)[0]) - want) <= 1e-3 * want


def test_mp50_scalar_times_array_does_not_print_the_array_and_mpmath_is_restored():
    """Issue 21: ``mpf * ndarray`` makes mpmath refuse the array before NumPy multiplies entrywise; inside
    ``MP50.active()`` the refusal names the shape instead of formatting every entry (same values), nested blocks
    keep it, and mpmath outside the engine is left as it was."""
    import mpmath
    import numpy as np

    from theorem_check.numerics.precision import MP50

    a = MP50.asarray(np.arange(6.0).reshape(2, 3) + 0.5)
    want = [[mpmath.mpf(2) * v for v in row] for row in a]
    with MP50.active():
        with MP50.active():
            pass
        assert "npconvert" in vars(mpmath.mp)               # still installed after the inner block
        got = mpmath.mpf(2) * a
        assert got.tolist() == want and got.dtype == object
        with pytest.raises(TypeError, match=r"array of shape \(2, 3\)"):
            mpmath.mp.convert(a)
        assert mpmath.mp.convert(np.float64(1.5)) == mpmath.mpf(1.5)   # NumPy scalars convert as before
    assert "npconvert" not in vars(mpmath.mp)
    with pytest.raises(TypeError, match=r"cannot create mpf from array\("):
        mpmath.mp.convert(a)                               # mpmath's own message outside the engine


def test_mp50_refuses_to_invert_or_solve_with_a_matrix_singular_to_working_precision():
    """A projector's complement ``I - u u^T / u^T u`` is singular exactly and invertible after rounding (condition ~1e50
    at mp50); an inverse or a solve there is a division by zero (decision 188), a sampled invertible matrix is not."""
    u = np.array([[1.0], [2.0], [3.0]])
    with MP50.active():
        U = MP50.asarray(u)
        P = MP50.eye(3) - (U @ U.T) / (U.T @ U)[0, 0]
        with pytest.raises(ZeroDivisionError, match="singular to working precision"):
            MP50.inv(P)
        with pytest.raises(ZeroDivisionError, match="singular to working precision"):
            MP50.solve(P, MP50.asarray(np.array([[1.0], [0.0], [0.0]])))
        A = MP50.asarray(sampling.invertible(np.random.default_rng(0), 3, cond=1e6))
        assert np.all(np.isfinite(to_float(MP50.inv(A))))
