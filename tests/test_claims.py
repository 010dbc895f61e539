"""The claim model rejects malformed claims at registration, naming the claim (table of cases)."""

import pytest

import theorem_check as tc
from theorem_check import ClaimDefinitionError

dims = tc.DimSpace({"n": (1, 2)})
ok = tc.Statement("x = x", dims=dims, sample=lambda r, d, b: {}, lhs=lambda i, c: 0, rhs=lambda i, c: 0)
src = tc.Source("demo", "1", "(1)", "x = x")


def claim(**kw):
    base = dict(id="demo.c1", title="t", source=src, statement=ok, controls=(tc.double(ok),))
    base.update(kw)
    return tc.Claim(**base)


BAD = [
    (dict(id="Demo.X"), "must look like 'paper.label'"),
    (dict(title=""), "title must be non-empty"),
    (dict(source=tc.Source("other", "1", "1", "x")), "must match the id prefix"),
    (dict(source=tc.Source("demo", "1", "1", " ")), "printed statement"),
    # numeric statements have automatic mutants; a derivation-only one still needs a hand-written control
    (dict(statement=tc.Statement("x", derivation=lambda: None), controls=()), "needs at least one negative control"),
    (dict(statement=tc.Statement("x")), "needs a verifier"),
    (dict(statement=tc.Statement("x", lhs=lambda i, c: 0)), "lhs and rhs must be given together"),
    (dict(statement=tc.Statement("x", lhs=lambda i, c: 0, rhs=lambda i, c: 0)), "needs dims"),
    (dict(statement=tc.Statement("x\frac{1}{2}", derivation=lambda: None)), "control characters"),
    (dict(title="a\bc"), "control characters"),
    (dict(variants=(tc.Statement("y", name="as printed", kind="corrected", derivation=lambda: None),)), "must be unique"),
    (dict(statement=tc.Statement("x", kind="control", derivation=lambda: None)), "statement.kind must be 'printed'"),
]


@pytest.mark.parametrize("kw,message", BAD, ids=[m for _, m in BAD])
def test_malformed_claims_fail_at_registration(kw, message):
    with pytest.raises(ClaimDefinitionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        claim(**kw).validate()


def test_duplicate_id_refused():
    from theorem_check.registry import Registry

    reg = Registry()
    reg.register(claim())
    with pytest.raises(ClaimDefinitionError, match="registered twice"):
        reg.register(claim())


def test_perturbing_a_missing_side_names_it():
    """negate() of a derivation-only statement used to fail later with 'lhs and rhs must be given together'."""
    only = tc.Statement("x = x", derivation=lambda: None)
    with pytest.raises(ClaimDefinitionError, match="has no rhs to perturb"):
        tc.negate(only)
