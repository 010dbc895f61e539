"""Which built-in claims cover which equation (theorem_check.authoring.coverage)."""

from types import SimpleNamespace as NS

import pytest

from theorem_check.authoring.coverage import claim_map, equation_refs, near_map
from theorem_check.authoring.registry import REGISTRY, load_builtin


@pytest.mark.parametrize("label, covered, near", [
    ("(14)", ("14",), ()),
    ("(19)-(20)", ("19", "20"), ()),
    ("(21)-(23)", ("21", "22", "23"), ()),
    ("footnote 14, (34)", ("34",), ()),
    ("Theorem 5.4, (17)-(18)", ("17", "18"), ()),
    ("Lemma B.5, (63), (72)", ("63", "72"), ()),
    ("eqs. 25-26 / hysteresis", ("25", "26"), ()),
    ("eq. 11 / Figure 2", ("11",), ()),
    ("before (19)", (), ("19",)),
    ("display after (7)", (), ("7",)),
    ("proof of (4)", (), ("4",)),
    ("Theorem 1 (3)", (), ()),           # a part of a theorem, no equation
    ("Section 3", (), ()),
    ("Tables II, III, VII", (), ()),
    ("(B.3)", ("B.3",), ()),
])
def test_equation_refs(label, covered, near):
    assert equation_refs(label) == (covered, near)


def test_claim_and_near_maps():
    claims = [NS(id="p.a", source=NS(equation="(1)-(2)")), NS(id="p.b", source=NS(equation="(2)")),
              NS(id="p.c", source=NS(equation="after (2)"))]
    assert claim_map(claims) == {"1": ("p.a",), "2": ("p.a", "p.b")}
    assert near_map(claims) == {"2": ("p.c",)}


def test_builtin_claims_named_by_their_equation():
    load_builtin()
    prh = claim_map(REGISTRY.by_paper("prh"))
    assert "prh.eq31" in prh["31"] and "prh.eq24" in prh["24"] and "15" not in prh
    cascade = claim_map(REGISTRY.by_paper("cascade"))
    assert "cascade.eq17" in cascade["17"]
