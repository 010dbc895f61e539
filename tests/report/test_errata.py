"""docs/errata.md is generated from verdicts; the checked-in page must be fresh."""

from theorem_check.output.errata import errata_candidates, main, render_errata

from .conftest import ROOT, builtin_claims, cached_results


def test_errata_page_is_fresh():
    claims = builtin_claims()
    cands = errata_candidates(claims)
    run = [c for c in cands if not c.slow]
    page = render_errata(cached_results(run), not_run=[c.id for c in cands if c.slow])
    assert (ROOT / "docs" / "errata.md").read_text() == page, \
        "docs/errata.md is stale: python -m theorem_check.output.errata > docs/errata.md"


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
