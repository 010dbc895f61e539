"""What a short form derives from its arguments (authoring/spec.py): the input scales its constants suggest."""

import pytest

from theorem_check.authoring.spec import MAX_CONSTANT_SCALES, build_spec, constant_scales


def _scales(*sides, shapes=None):
    return constant_scales(sides, build_spec(sides, shapes or {}, {}, {}, where="test"))


@pytest.mark.parametrize("sides, shapes, expected", [
    (("abs(t - 300)", "300 - t"), {}, (0.0033, 35.0, 600.0)),
    (("abs(t) + abs(t - 1e-9)", "abs(2*t - 1e-9)"), {}, (1e-09, 1.6e-05)),
    (("t + 1/2", "t + 0.5"), {}, ()),                                # the engine's own ladder covers these
    (("x**300", "x**300"), {}, ()),                                  # an exponent is no threshold
    (("ones(256, 1).T*x", "trace(ones(1, 256)*x)*eye(1)"), {"x": (256, 1)}, ()),   # nor a size
    (("abs(t + pi**8)", "t + pi**8"), {}, (0.00011, 190.0, 19000.0)),  # a constant written as an expression (helper-52)
])
def test_constants_suggest_scales(sides, shapes, expected):
    assert _scales(*sides, shapes=shapes) == expected


def test_at_most_the_farthest_scales_are_kept():
    out = _scales("t + 1e3*u + 1e6*v + 1e9*w + 1e-9*z", "t")
    assert len(out) == MAX_CONSTANT_SCALES and max(out) == 2e9 and min(out) == 1e-9
