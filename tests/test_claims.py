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
    (dict(title="W_{i+1} -> W_{i+1} T"), "claim demo.c1 title: '_{' outside $...$", "title",
     r"$W_{i+1} \to W_{i+1}$ T"),
    (dict(assumptions=("ok", "e^{lam T} symmetric")), "claim demo.c1 assumptions[1]: '^{' outside", "assumptions",
     ("ok", "$e^{lam T}$ symmetric")),
    (dict(statement=tc.Statement("x = x", derivation=lambda: None, note=r"uses \Sigma_x")),
     "claim demo.c1 (as printed) note: '\\\\Sigma' outside", None, None),
    (dict(variants=(tc.Statement("y", name="corrected: grad_{W} l", kind="corrected", derivation=lambda: None),)),
     "variant 'corrected: grad_{W} l' name: '_{' outside", None, None),
]


@pytest.mark.parametrize("kw,message,field,fixed", MARKUP, ids=[m[1][:30] for m in MARKUP])
def test_markup_outside_dollars_is_typeset_with_a_deprecation_warning(kw, message, field, fixed):
    """Issue 23: packs of the previous release keep loading; the markup is typeset as maths, with a warning
    naming the claim, the field and the fixed text (a later release refuses it)."""
    import re

    c = claim(**kw)
    with pytest.warns(tc.TheoremCheckDeprecationWarning, match=re.escape(message)):
        c.validate()
    if field is not None:
        assert getattr(c, field) == fixed
    note = c.statement.note if "note" in message else ""
    assert "\\Sigma" not in note.replace("$\\Sigma_x$", "")
    name = c.variants[0].name if "variant" in message else ""
    assert name in ("", "corrected: $grad_{W}$ l")


def test_every_definition_problem_is_listed_in_one_error():
    """Issue 23: one error listing each problem with its fix, not one problem per attempt."""
    bad = claim(title="", source=tc.Source("other", "1", "1", "x"),
                statement=tc.Statement("x", lhs=lambda i, c: 0), controls=())
    with pytest.raises(ClaimDefinitionError) as exc:
        bad.validate()
    msg = str(exc.value)
    assert msg.startswith("4 definition problems: (1) ")
    for part in ("title must be non-empty", "must match the id prefix", "lhs and rhs must be given together",
                 "a numeric stage needs dims"):
        assert part in msg, part
    assert "\n" not in msg   # one line


def test_a_pack_lists_every_malformed_claim_at_once(tmp_path):
    from theorem_check import REGISTRY, load_pack

    pack = tmp_path / "two_bad.py"
    pack.write_text("import theorem_check as tc\n"
                    "src = tc.Source('twobad', '1', '(1)', 'x')\n"
                    "good = tc.Statement('x', derivation=lambda: None)\n"
                    "ctl = tc.Statement('y', name='c', kind='control', derivation=lambda: None)\n"
                    "tc.register(tc.Claim(id='twobad.ok', title='fine', source=src, statement=good, controls=(ctl,)))\n"
                    "tc.register(tc.Claim(id='twobad.a', title='', source=src, statement=good, controls=(ctl,)))\n"
                    "tc.register(tc.Claim(id='twobad.b', title='b', source=src, statement=good))\n")
    with pytest.raises(ClaimDefinitionError) as exc:
        load_pack(pack)
    msg = str(exc.value)
    assert "2 definition problems" in msg and "twobad.a: title must be non-empty" in msg
    assert "twobad.b: needs at least one negative control" in msg
    assert "twobad.ok" not in REGISTRY   # the pack loads as a whole or not at all


@pytest.mark.parametrize("text", ["$W_{i+1} \\to W_{i+1} T$ leaves the loss unchanged", "x_i ^ 2 & 100% # {x} ~",
                                  "Specials _ ^ & % # { } \\ ~ in a title", "cost 5\\$ and $e^{\\lambda T}$"])
def test_plain_text_with_math_in_dollars_is_accepted(text):
    claim(title=text, assumptions=(text,)).validate()


def test_expected_must_be_a_verdict_when_the_claim_is_defined():
    """helper-56: ``expected="maybe"`` ran with ``run --pack`` (PROVED, exit 0) and stopped the pytest plugin at
    collection; it is a definition error everywhere now."""
    with pytest.raises(tc.ClaimDefinitionError, match=r"expected='maybe' must be a verdict"):
        tc.identity("t.expected", "A", "A", shapes={"A": ("n", "n")}, expected="maybe", register=False)
    tc.identity("t.expected_ok", "A", "A.T", shapes={"A": ("n", "n")}, expected="refuted", register=False)


def test_a_deprecation_warning_points_at_the_line_that_defined_the_claim(tmp_path):
    """helper-56: the warnings pointed at the registry's line that validated the claim (registry.py:120)."""
    import warnings

    pack = tmp_path / "wp_pack.py"
    pack.write_text('import theorem_check as tc\n\n'
                    'tc.identity("wpk.one", "A", "A", shapes={"A": ("n", "n")}, title="with A^{-1}", register=False)\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(pack.read_text(), str(pack), "exec"), {"__name__": "wp_pack"})
    dep = [w for w in caught if issubclass(w.category, tc.TheoremCheckDeprecationWarning)]
    assert dep and dep[0].filename == str(pack) and dep[0].lineno == 3, [(w.filename, w.lineno) for w in dep]
