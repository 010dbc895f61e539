"""docs/errata.md is generated from verdicts; the checked-in page must be fresh."""

import re

import pytest

from theorem_check.output.errata import errata_candidates, main, render_errata

from .conftest import ROOT, builtin_claims, cached_results

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?e[+-]\d+")


def _roundoff_masked(text: str) -> str:
    """The page with every number below 1e-12 in magnitude written ``~0``: rounding-level values (a residual of
    3.2e-16 or 0.0, an eigenvalue of -1.2e-15 or -1.1e-14) follow the BLAS kernels of the machine (the page
    written on one, read on an AMD EPYC, differed in two such numbers and nowhere else)."""
    return _NUMBER.sub(lambda m: "~0" if abs(float(m.group())) < 1e-12 else m.group(), text)


@pytest.mark.slow   # runs every claim (23 s on one core): in README's full run (CI), not the default suite
def test_errata_page_is_fresh():
    claims = builtin_claims()
    cands = errata_candidates(claims)
    run = [c for c in cands if not c.slow]
    page = render_errata(cached_results(run), not_run=[c.id for c in cands if c.slow])
    assert _roundoff_masked((ROOT / "docs" / "errata.md").read_text()) == _roundoff_masked(page), \
        "docs/errata.md is stale: python -m theorem_check.output.errata > docs/errata.md"


def test_the_freshness_test_masks_rounding_only():
    assert _roundoff_masked("0.0e+00 -> 3.2e-16; -1.22e-15; 1.4e-03") == "~0 -> ~0; ~0; 1.4e-03"


def test_errata_lists_printed_failures_with_corrections(pack_claims):
    claims = pack_claims("transpose", "inverse")
    page = render_errata(cached_results(errata_candidates(claims), trials=8))
    assert "### `demo.transpose_wrong`" in page and "### `invdemo.inverse_wrong`" in page
    assert "demo.transpose_right" not in page and "invdemo.orbit_minimum" not in page
    assert "As printed (ILL-POSED)" in page and "As printed (REFUTED)" in page
    assert "Counterexample: dims n = 2" in page and "(AB)^{-1} = B^{-1}A^{-1}" in page


def test_errata_main_rejects_unknown_argument(capsys):
    assert main(["--bogus"]) == 2
    assert "usage" in capsys.readouterr().err
