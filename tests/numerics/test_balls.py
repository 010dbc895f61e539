"""python-flint ball arrays for mp50 (theorem_check/numerics/balls.py): the same values as object arrays of
mpf, to the working precision, for every operation, in balls or through the midpoints."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from theorem_check.numerics import balls
from theorem_check.numerics.balls import BallArray, balls_of, dot_directions
from theorem_check.numerics.precision import FLOAT64, MP50, to_float

pytest.importorskip("flint")


def _pair(seed=0, n=16, batch=2):
    rng = np.random.default_rng(seed)
    A, B = rng.standard_normal((batch, n, n)), rng.standard_normal((batch, n, n))
    with MP50.active():
        return MP50.asarray(A), MP50.asarray(B)


def _close(x, ref, tol=1e-47):
    x, ref = np.asarray(x), np.asarray(ref)
    assert x.shape == ref.shape
    with MP50.active():
        err = max(abs(a - b) for a, b in zip(x.flat, ref.flat))
        scale = max(abs(b) for b in ref.flat)
    assert err <= tol * scale, float(err / scale)


def test_ball_operations_match_object_arrays():
    A, B = _pair()
    with MP50.active():
        a, b = balls_of(A), balls_of(B)
        assert isinstance(a, BallArray) and a.shape == A.shape and np.ndim(a) == 3
        s = MP50.scalar(3) / 7
        cases = [(a @ b, A @ B), (a + b, A + B), (a - b, A - B), (-a, -A), (a * s, A * s), (s * a, s * A),
                 (a / s, A / s), (MP50.T(a), MP50.T(A)), (A @ b, A @ B), (A + b, A + B), (A - b, A - B),
                 (np.array([s, 2 * s], dtype=object)[:, None, None] * a, np.array([s, 2 * s], dtype=object)[:, None, None] * A)]
        for got, want in cases:
            assert isinstance(got, BallArray)
            _close(got, want)
        _close(MP50.trace(a), MP50.trace(A))
        # through the midpoints: elementwise functions, Hadamard products, indexing
        _close(MP50.exp(a), MP50.exp(A))
        _close(a * b, A * B)
        assert a[0, 1, 2] == A[0, 1, 2]
        _close(a.reshape(2, -1), A.reshape(2, -1))


def test_a_constant_without_batch_axis_multiplies_in_balls():
    """``ones(1, n) @ x`` with the constant ``(1, n)`` (SymPy folds constants without a batch axis): balls, not a
    fall-back to object arrays (that fall-back made the layer-norm gradient at n = 256 take 12 s, not 4 s)."""
    A, B = _pair()
    with MP50.active():
        a = balls_of(A)
        C = MP50.asarray(np.random.default_rng(1).standard_normal((3, 16)))
        D = MP50.asarray(np.random.default_rng(2).standard_normal((16, 5)))
        for got, want in [(C @ a, C @ A), (a @ D, A @ D)]:
            assert isinstance(got, BallArray)
            _close(got, want)
        bad = np.array([[mpmath.mpc(1, 1)] * 16], dtype=object)   # not a real matrix: object arithmetic, no error
        assert not isinstance(bad @ a, BallArray)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "log1p", "expm1", "sin", "cos", "tan", "tanh", "abs",
                                  "sigmoid", "softplus"])
def test_elementwise_functions_in_balls_match_mpmath(name):
    A, _ = _pair()
    with MP50.active():
        A = MP50.abs(A) if name in ("log", "sqrt", "log1p") else A      # real results: balls
        a = balls_of(A)
        got, want = getattr(MP50, name)(a), getattr(MP50, name)(A)
        assert isinstance(got, BallArray)
        _close(got, want)


def test_an_entry_leaving_the_reals_goes_through_mpmath():
    """``log`` of a negative entry is complex: the balls give it up and mpmath answers (an ``mpc``)."""
    A, _ = _pair()
    with MP50.active():
        got = MP50.log(balls_of(A))
        assert not isinstance(got, BallArray)
        _close(got, MP50.log(A))
        assert any(isinstance(v, mpmath.mpc) for v in got.flat)


@pytest.mark.parametrize("axis", [-1, -2])
def test_softmax_and_hadamard_in_balls_match_object_arrays(axis):
    A, B = _pair()
    with MP50.active():
        a, b = balls_of(A * 30), balls_of(B)       # large entries: the shift matters
        got = MP50.softmax(a, axis=axis)
        assert isinstance(got, BallArray)
        _close(got, MP50.softmax(A * 30, axis=axis))
        sums = np.sum(np.asarray(got), axis=axis)
        assert max(abs(v - 1) for v in sums.flat) < mpmath.mpf(10) ** -45
        a = balls_of(A)
        for h, want in [(MP50.hadamard(a, b), A * B), (MP50.hadamard(A, b), A * B), (a * b[0:1], A * B[0:1])]:
            _close(h, want)
        assert isinstance(MP50.hadamard(a, b), BallArray)


def test_inverse_and_determinant_of_ball_arrays_stay_in_balls():
    A, _ = _pair()
    with MP50.active():
        a = balls_of(A)
        inv = MP50.inv(a)
        assert isinstance(inv, BallArray)
        _close(inv, MP50.inv(A))
        _close(MP50.det(a), MP50.det(A))
        rank1 = balls_of(MP50.asarray(np.ones((2, 16, 16))))
        assert rank1.inv() is None and rank1.det() is None       # singular balls: the object path decides
        assert MP50.det(rank1)[0] == 0



def test_an_inverse_kept_at_a_higher_precision_is_rounded_for_a_lower_one():
    """The derivative oracle inverts at dps + 40 first; the other side's inverse at mp50 is that inverse's
    midpoints rounded to 169 bits: no second inversion, and as close to the exact inverse as a fresh one."""
    A, _ = _pair(seed=3)
    with MP50.active():
        a = balls_of(A)
        with mpmath.workdps(MP50.dps + 40):
            fine = a.inv()
            exact = MP50.inv(A)                  # the object path at the higher precision: the reference
        calls = []
        real_inv = balls.flint.arb_mat.inv
        try:
            balls.flint.arb_mat.inv = lambda m: calls.append(1) or real_inv(m)
            coarse = a.inv()
        finally:
            balls.flint.arb_mat.inv = real_inv
        assert calls == [] and isinstance(coarse, BallArray) and coarse is not fine
        assert all(m.mid() == m for m in coarse.mats)                       # midpoints, no radius
        assert all(x.mid().man_exp()[0].bit_length() <= mpmath.mp.prec for m in coarse.mats for x in m.entries())
        _close(coarse, exact, tol=2.0 ** -mpmath.mp.prec * 4)                # correctly rounded: within an ulp or so
        assert a.inv().mats[0] == coarse.mats[0]                             # the kept inverse stays the finer one
        _close(coarse, MP50.inv(A))
def test_midpoints_are_fresh_arrays():
    A, _ = _pair()
    with MP50.active():
        a = balls_of(A)
        m = np.asarray(a)
        m[0, 0, 0] = mpmath.mpf(99)
        assert np.asarray(a)[0, 0, 0] == A[0, 0, 0]


def test_when_no_balls():
    A, _ = _pair(n=4)
    assert balls_of(A) is A                                     # below BALL_MIN entries
    assert isinstance(balls_of(A, force=True), BallArray)
    with MP50.active():
        bad = A.copy()
        bad[0, 0, 0] = mpmath.inf
        assert balls_of(bad, force=True) is bad                 # not finite
        cplx = A.astype(object)
        cplx[0, 0, 0] = mpmath.mpc(1, 1)
        assert balls_of(cplx, force=True) is cplx               # complex
    assert balls_of(np.zeros((2, 3))) is not None and not isinstance(balls_of(np.zeros((2, 3))), BallArray)


def test_switched_off(monkeypatch):
    A, _ = _pair()
    monkeypatch.setattr(balls, "USE_ARB", False)
    assert balls_of(A) is A
    assert dot_directions(A.reshape(2, -1), np.ones((2, 1, 256))) is None


def test_dot_directions_matches_object_sums():
    A, _ = _pair()
    U = np.random.default_rng(1).standard_normal((2, 3, 256))
    with MP50.active():
        got = dot_directions(A.reshape(2, -1), U)
        want = np.array([[np.sum(A[b].reshape(-1) * MP50.asarray(U[b, i])) for i in range(3)] for b in range(2)],
                        dtype=object)
        _close(got, want)


def test_balls_follow_the_working_precision():
    """Inside the oracle's extra digits a ball product is as accurate as mpmath's at that precision."""
    A, B = _pair(n=16, batch=1)
    with mpmath.workdps(90):
        Ah, Bh = A + mpmath.mpf(10) ** -70, B       # a perturbation only 90 digits see
        got = balls_of(Ah) @ balls_of(Bh)
        _close(got, Ah @ Bh, tol=1e-85)
    assert float(to_float(np.asarray(got) - A @ B).max()) != 0.0


@pytest.mark.parametrize("kind", ["orthogonal", "spd", "with_singular_values"])
def test_exact_samples_polished_in_balls_match_the_object_path(kind, monkeypatch):
    """The recipes of numerics/sampling.py rebuilt at mp50 in ``arb_mat`` (n * n >= BALL_MIN) give the
    object-array path's matrices to the working precision, and keep their promise."""
    from theorem_check import sampling

    rng = np.random.default_rng(5)
    n = 16
    if kind == "with_singular_values":
        X = sampling.with_singular_values(rng, n + 2, n, np.linspace(1.0, 3.0, n), batch=2)
    else:
        X = getattr(sampling, kind)(rng, n, batch=2)
    fast = X.at(MP50)
    monkeypatch.setattr(balls, "USE_ARB", False)
    slow = X.at(MP50)
    _close(fast, slow, tol=1e-45)
    if kind == "orthogonal":
        with MP50.active():
            d = max(abs(v) for v in (MP50.T(fast[0]) @ fast[0] - np.eye(n)).flat)
        assert d < 1e-47
    if kind == "spd":
        with MP50.active():
            assert all(fast[b, i, j] == fast[b, j, i] for b in range(2) for i in range(n) for j in range(n))


def test_trace_of_a_product_without_the_product():
    A, B = _pair()
    with MP50.active():
        a, b = balls_of(A), balls_of(B)
        want = MP50.trace(A @ B)
        for got in (MP50.trace_product(a, b), MP50.trace_product(A, b), MP50.trace_product(a, B),
                    MP50.trace_product(A, B)):
            _close(got, want)
        assert a.trace_product(balls_of(MP50.asarray(np.ones((2, 16, 8))), force=True)) is None   # wrong shape
        bad = np.asarray(B).copy()
        bad[0, 0, 0] = mpmath.mpf("inf")          # not finite: no balls, the object path (no AttributeError)
        assert a.trace_product(bad) is None and a.hadamard(bad) is None
        assert not isinstance(a * bad, BallArray) and mpmath.isinf((a * bad)[0, 0, 0])
    X, Y = np.random.default_rng(3).standard_normal((2, 2, 5, 3))
    assert np.allclose(FLOAT64.trace_product(X, np.swapaxes(Y, -1, -2)), np.trace(X @ np.swapaxes(Y, -1, -2),
                                                                                  axis1=-2, axis2=-1))


def test_det_positive_is_a_certain_sign_at_low_precision():
    """``log det`` is defined where the determinant is positive: a 64-bit ball determinant decides it for a
    256-entry SPD matrix, says not certain for a negative one, and leaves the working precision as it was."""
    import flint

    from theorem_check.numerics.balls import from_float

    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((16, 16)))
    spd = (q * rng.uniform(0.5, 2.0, 16)) @ q.T
    neg = spd.copy()
    neg[0] *= -1                                   # one row negated: the determinant changes sign
    pos, mixed = from_float(spd[None]), from_float(np.stack([spd, neg]))
    before = flint.ctx.prec                         # (from_float set it to mpmath's working precision)
    assert pos.det_positive()
    assert not mixed.det_positive()
    assert flint.ctx.prec == before


def test_dot_directions_of_a_ball_array_is_the_object_arrays_bit_for_bit():
    """A side kept in balls (``keeping``) is projected as the object array of its midpoints would be: same bits."""
    A, B = _pair()
    U = np.random.default_rng(2).standard_normal((2, 5, 256))
    with MP50.active():
        prod = balls_of(A) @ balls_of(B)
        got = dot_directions(prod, U)
        want = dot_directions(np.asarray(prod).reshape(2, -1), U)
    assert got.shape == (2, 5) and all(g == w for g, w in zip(got.ravel(), want.ravel()))
    assert dot_directions(prod, U[:1]) is None                 # batch mismatch: the caller's object path


def test_a_side_is_kept_in_balls_only_inside_keeping():
    from theorem_check.expr.compile import compile_expr, evaluate
    from theorem_check.expr.parse import parse
    from theorem_check.numerics.balls import keeping

    A, B = _pair()
    rec = compile_expr(parse("A*B", {"A": ("n", "n"), "B": ("n", "n")}))
    with MP50.active():
        plain = evaluate(rec, MP50, {"A": A, "B": B})
        with keeping():
            kept = evaluate(rec, MP50, {"A": A, "B": B})
    assert isinstance(plain, np.ndarray) and isinstance(kept, BallArray)
    _close(np.asarray(kept), plain, tol=0)
