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
    from theorem_check.authoring.registry import Registry

    reg = Registry()
    reg.register(claim())
    with pytest.raises(ClaimDefinitionError, match="registered twice"):
        reg.register(claim())


def test_perturbing_a_missing_side_names_it():
    """negate() of a derivation-only statement used to fail later with 'lhs and rhs must be given together'."""
    only = tc.Statement("x = x", derivation=lambda: None)
    with pytest.raises(ClaimDefinitionError, match="has no rhs to perturb"):
        tc.negate(only)


MARKUP = [
    (dict(title="W_{i+1} -> W_{i+1} T"), "claim demo.c1 title: '_{' outside $...$"),
    (dict(assumptions=("ok", "e^{lam T} symmetric")), "claim demo.c1 assumptions[1]: '^{' outside"),
    (dict(statement=tc.Statement("x = x", derivation=lambda: None, note=r"uses \Sigma_x")),
     "claim demo.c1 (as printed) note: '\\\\Sigma' outside"),
    (dict(variants=(tc.Statement("y", name="corrected: grad_{W} l", kind="corrected", derivation=lambda: None),)),
     "variant 'corrected: grad_{W} l' name: '_{' outside"),
]


@pytest.mark.parametrize("kw,message", MARKUP, ids=[m[:30] for _, m in MARKUP])
def test_markup_outside_dollars_is_refused_naming_claim_and_field(kw, message):
    import re

    with pytest.raises(ClaimDefinitionError, match=re.escape(message)):
        claim(**kw).validate()


@pytest.mark.parametrize("text", ["$W_{i+1} \\to W_{i+1} T$ leaves the loss unchanged", "x_i ^ 2 & 100% # {x} ~",
                                  "Specials _ ^ & % # { } \\ ~ in a title", "cost 5\\$ and $e^{\\lambda T}$"])
def test_plain_text_with_math_in_dollars_is_accepted(text):
    claim(title=text, assumptions=(text,)).validate()
