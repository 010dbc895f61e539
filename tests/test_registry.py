"""One test parametrised over the whole registry, and the registry's self-tests.

Every built-in claim is run at seed 0: its verdict must be PROVED, VERIFIED or ERRATUM (or the
``expected`` verdict the claim declares), and every negative control must be REFUTED or
ILL-POSED through the same code path.
"""

from pathlib import Path

import pytest

from tests.conftest import claim_result
from theorem_check import REGISTRY, Verdict, load_builtin
from theorem_check.output.catalogue import render_catalogue

load_builtin()
CLAIMS = list(REGISTRY)


def _marks(c):
    return [pytest.mark.slow] if c.slow else []


PARAMS = [pytest.param(c, id=c.id, marks=_marks(c)) for c in CLAIMS]
CONTROL_PARAMS = [pytest.param(c, ctl, id=f"{c.id}:{ctl.name}") for c in CLAIMS if not c.slow for ctl in c.controls]
"""One test per control of the fast claims.  A slow claim's controls are asserted by its verdict test, from the
same run: as tests of their own, two xdist workers started the same simulation of a minute at once (the
result is shared through a pickle only once one of them has finished)."""


@pytest.mark.parametrize("claim", PARAMS)
def test_claim_verdict(claim):
    result = claim_result(claim, seed=0, controls=True)   # the controls' test below reads the same run
    allowed = {Verdict(claim.expected)} if claim.expected else {Verdict.PROVED, Verdict.VERIFIED, Verdict.ERRATUM}
    assert result.verdict in allowed, f"{claim.id}: {result.verdict.value}: {result.evidence}"
    for st in (result.printed, *result.variants):
        survivors = [m.name for m in st.mutants if m.survived]
        assert not survivors, f"{claim.id} ({st.name}): automatic mutants {survivors} also hold (INSENSITIVE)"
    if claim.slow:                                           # the fast claims' controls: test_negative_control_refuted
        for control, r in zip(claim.controls, result.controls):
            _assert_refuted(claim, control, r)


def _assert_refuted(claim, control, r):
    assert r.verdict in (Verdict.REFUTED, Verdict.ILL_POSED), f"{claim.id} {control.name}: {r.verdict.value}: {r.evidence}"


@pytest.mark.parametrize("claim,control", CONTROL_PARAMS)
def test_negative_control_refuted(claim, control):
    # run_claim runs each control as run_statement(control, seed=derive_seed(0, claim.id, control.name))
    _assert_refuted(claim, control, claim_result(claim, seed=0, controls=True).controls[list(claim.controls).index(control)])


def test_every_claim_has_a_control():
    assert all(c.controls for c in CLAIMS)


def test_catalogue_is_fresh():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "catalogue.md"
    assert path.read_text() == render_catalogue(), "docs/catalogue.md is stale: python -m theorem_check.output.catalogue > docs/catalogue.md"


def test_catalogue_order_does_not_depend_on_what_was_imported_first():
    """A test or pack importing one paper's package before load_builtin (cascade first, say) must not
    reorder the catalogue: docs/catalogue.md and `list` follow derivations.PAPERS."""
    import subprocess
    import sys

    code = ("import {first}\nimport theorem_check as tc\n"
            "print(' '.join(c.id for c in tc.load_builtin()))")
    runs = [subprocess.run([sys.executable, "-c", code.format(first=m)], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parents[1]).stdout
            for m in ("theorem_check", "derivations.cascade.nonaligned", "derivations.noise.appendix_d")]
    assert runs[0] == runs[1] == runs[2] and runs[0].startswith("prh.")
