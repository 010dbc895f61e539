"""Instance conversion at a working precision (theorem_check/engine/vacuity.convert): at mp50, statements
whose sides are all expressions get large real matrices as ball arrays directly, with the same values and
the same residuals as through the object array of ``mpf``; claim code (callable sides) never sees one."""

from __future__ import annotations

import numpy as np
import pytest

import theorem_check as tc
from theorem_check.engine import sides
from theorem_check.engine.vacuity import convert
from theorem_check.numerics.balls import BallArray
from theorem_check.numerics.precision import FLOAT64, MP50


def test_large_real_matrices_go_to_balls_with_the_same_values():
    a = np.random.default_rng(0).standard_normal((2, 16, 16))
    with MP50.active():
        b = convert(a, MP50, balls=True)
        assert isinstance(b, BallArray)
        assert (np.asarray(b) == convert(a, MP50)).all()
        assert convert(a, MP50).dtype == object                           # without balls: mpf objects
        assert not isinstance(convert(a[:, :4, :4], MP50, balls=True), BallArray)   # small: mpf objects
        bad = a.copy()
        bad[0, 0, 0] = np.nan
        with np.errstate(invalid="ignore"):
            assert not isinstance(convert(bad, MP50, balls=True), BallArray)  # non-finite: the object path
    assert convert(a, FLOAT64, balls=True).dtype == np.float64


def _claim(lhs, rhs, **kw):
    return tc.identity("test.vacuity", lhs, rhs, shapes={"A": ("n", "n"), "B": ("n", "n")}, sizes={"n": (20, 20)},
                       register=False, derive=False, **kw)


@pytest.mark.parametrize("rhs", ["B.T*A.T", "B*A.T"])
def test_residuals_are_the_same_through_balls_or_mpf(rhs, monkeypatch):
    st = _claim("(A*B).T", rhs).statement
    inst = dict(st.sample(np.random.default_rng(1), {"n": 20}, 2))
    assert sides.expressions_only(st)
    with_balls = sides.evaluate_identity(st, inst, MP50)[0]
    monkeypatch.setattr(sides, "expressions_only", lambda s: False)
    assert (sides.evaluate_identity(st, inst, MP50)[0] == with_balls).all()


def test_claim_code_never_sees_a_ball_array():
    seen = []

    def lhs(inst, ctx):
        seen.append(type(inst["A"]))
        return ctx.T(inst["A"] @ inst["B"])

    st = _claim(lhs, "B.T*A.T").statement
    assert not sides.expressions_only(st)
    inst = dict(st.sample(np.random.default_rng(1), {"n": 20}, 2))
    sides.evaluate_identity(st, inst, MP50)
    assert seen == [np.ndarray]


def test_a_batch_whose_magnitude_raises_gives_each_instance_its_own():
    """helper-41: one far instance whose bound overflowed made the whole batch fall back to no reference, while the
    same instance alone (mp100) had its own magnitude: the residuals of one instance disagreed between levels."""
    import numpy as np

    import theorem_check as tc
    from theorem_check.engine.far import _at_scale
    from theorem_check.engine.vacuity import magnitudes
    from theorem_check.numerics.precision import FLOAT64

    st = tc.identity("t.mag", "logm(expm(A))", "A", shapes={"A": (2, 2)}, register=False, derive=False).statement
    scales = np.array([4.0, 8.0, 16.0] * 4)
    st = _at_scale(st, scales)
    inst = dict(st.sample(np.random.default_rng(12345), {}, len(scales)))
    batch = magnitudes(st, inst, len(scales), [FLOAT64])["mag"]
    for b in range(len(scales)):
        one = {k: (v[b:b + 1] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == len(scales) else v)
               for k, v in inst.items()}
        assert magnitudes(st, one, 1, [FLOAT64])["mag"][0] == batch[b]
