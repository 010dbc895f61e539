"""Pack skeletons from a scan (theorem_check.authoring.skeleton): they load, and their claims are decided."""

import subprocess
import sys
from pathlib import Path

import pytest

import theorem_check as tc
from tests.authoring.scan_fakes import FIXTURES, fake_parse
from theorem_check.authoring.registry import REGISTRY, load_pack
from theorem_check.authoring.scan import scan_file
from theorem_check.authoring.skeleton import claim_id, pack_key, pack_skeleton
from theorem_check.errors import InvalidArgument

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def skeleton(tmp_path):
    path = tmp_path / "paper_claims.py"
    path.write_text(pack_skeleton(scan_file(FIXTURES / "paper.tex", parse=fake_parse), "scanfix"))
    yield path
    REGISTRY.unregister_paper("scanfix")


def test_skeleton_text(skeleton):
    text = skeleton.read_text()
    compile(text, str(skeleton), "exec")
    assert text.count("\ntc.identity(") == 5                      # the checkable equations are live
    assert "# TODO (3), line 12: not an identity: \\approx" in text
    assert "#     g(X) \\approx h(X)" in text                       # the rest keep their LaTeX
    # a needs-shapes identity is never live: an undeclared name would be read as a scalar
    assert "# tc.identity('scanfix.eqt1', 'C*D', 'D*C'," in text
    assert "shapes={'C': (...), 'D': (...)}" in text


def test_skeleton_loads_and_its_claims_are_decided(skeleton):
    """The factor-2 equation of the fixture is the negative control: the same path REFUTES it."""
    claims = {c.id: c for c in load_pack(skeleton)}
    assert sorted(claims) == ["scanfix.eq1", "scanfix.eq2", "scanfix.eq4", "scanfix.eq5", "scanfix.eq6"]
    assert claims["scanfix.eq1"].source.equation == "(1)"
    assert claims["scanfix.eq1"].statement.latex == r"(AB)^\top = B^\top A^\top"
    verdicts = {cid: tc.run_claim(c, seed=0, trials=4).verdict.value for cid, c in claims.items()}
    assert verdicts["scanfix.eq6"] == "REFUTED"
    assert {verdicts[k] for k in ("scanfix.eq1", "scanfix.eq2", "scanfix.eq4", "scanfix.eq5")} <= {"PROVED",
                                                                                                   "VERIFIED"}


@pytest.mark.slow
def test_skeleton_runs_with_run_pack(skeleton):
    p = subprocess.run([sys.executable, "-m", "theorem_check", "run", "--pack", str(skeleton), "--seed", "0"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 1, p.stderr                               # eq6 is REFUTED
    assert "scanfix.eq6  REFUTED" in p.stdout and "scanfix.eq1  PROVED" in p.stdout


def test_without_reader_the_skeleton_is_all_todos():
    text = pack_skeleton(scan_file(FIXTURES / "notes.md", parse=None), "notes")
    assert "tc.identity(" not in text.replace("# tc.identity(", "")
    assert "LaTeX reader (theorem_check.expr.latex) was not installed" in text
    assert "# TODO (9), line 20: unparsed: cited in the text; its display is not in it" in text


def test_restated_equation_is_live_once():
    from theorem_check.authoring.scan import scan_text
    s = scan_text(r"$X \in \mathbb{R}^{n\times n}$ $$X = X$$ (1) again $$X = X$$ (1)", "md",
                  parse=lambda t: ("X", "X"))
    text = pack_skeleton(s, "twice")
    assert text.count("\ntc.identity('twice.eq1'") == 1 and "restates (1)" in text


@pytest.mark.parametrize("stem, key", [("paper", "paper"), ("000_3f3c", "p000_3f3c"), ("My Notes!", "my_notes")])
def test_pack_key(stem, key):
    assert pack_key(stem) == key


def test_claim_ids_and_bad_key():
    assert claim_id("k", "31") == "k.eq31" and claim_id("k", "B.3", 2) == "k.eqb_3_2"
    assert claim_id("k", "*") == "k.eqstar" != claim_id("k", "**")       # \tag{*}, \tag{**}: one id (helper-46)
    with pytest.raises(InvalidArgument, match="key='Bad' must be a lower-case identifier"):
        pack_skeleton(scan_file(FIXTURES / "notes.md", parse=None), "Bad")
