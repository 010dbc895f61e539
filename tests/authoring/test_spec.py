"""What a short form derives from its arguments (authoring/spec.py): the input scales its constants suggest."""

import pytest

import theorem_check as tc
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


def test_a_size_range_below_one_is_refused():
    """helper-56: ``sizes={"n": (0, 2)}`` drew empty matrices and came back PROVED ("6 of 18 instances vacuous");
    ``--size n=0:2`` was already refused."""
    with pytest.raises(tc.ClaimDefinitionError, match=r"sizes\['n'\]=\(0, 2\) must be a range of sizes >= 1"):
        tc.identity("t.zero", "A*B", "B*A", shapes={"A": ("n", "n"), "B": ("n", "n")}, sizes={"n": (0, 2)},
                    register=False)
