"""Shared fixtures for the report tests: pack loading without polluting the registry, a cached
run of the built-in claims, and the LaTeX skip marker."""

import shutil
from pathlib import Path

import pytest

from tests.conftest import builtin_papers, claim_result
from theorem_check import REGISTRY, load_builtin, load_pack, run_claim

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PACKS = {"transpose": ROOT / "examples" / "transpose_pack.py", "inverse": HERE / "packs" / "inverse_pack.py",
         "specials": HERE / "packs" / "specials_pack.py"}

HAVE_LATEX = shutil.which("latexmk") is not None and shutil.which("pdflatex") is not None
needs_latex = pytest.mark.skipif(not HAVE_LATEX, reason="latexmk/pdflatex not installed (Debian: texlive-latex-base "
                                 "texlive-latex-recommended latexmk; .ci/run installs them)")
HAVE_PDFTOTEXT = shutil.which("pdftotext") is not None


@pytest.fixture
def pack_claims():
    """Load packs by name, return their claims; unregister them afterwards (the registry is global)."""
    loaded = []

    def load(*names):
        claims = []
        for n in names:
            new = load_pack(PACKS[n])
            loaded.extend({c.paper for c in new})
            claims.extend(new)
        return claims

    yield load
    for paper in set(loaded):
        REGISTRY.unregister_paper(paper)


_CACHE: dict = {}


def cached_results(claims, *, seed=0, trials=16):
    """ClaimResults at (seed, trials), each claim run once per test session."""
    out = []
    for c in claims:
        key = (c.id, seed, trials)
        if key not in _CACHE:   # built-in claims: one run per test run, shared with the other tests (tests/conftest.py)
            _CACHE[key] = claim_result(c, seed=seed, trials=trials) if c.paper in builtin_papers() \
                else run_claim(c, seed=seed, trials=trials)
        out.append(_CACHE[key])
    return out


def builtin_claims():
    """Every built-in claim (loads the papers)."""
    load_builtin()
    return [c for c in REGISTRY if c.paper in builtin_papers()]
