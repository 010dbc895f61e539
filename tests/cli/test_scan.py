"""``theorem-check scan``: the table, --json, --pack-out, --paper, and bad input (one line, exit 2)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "scan"


def tc(*args):
    p = subprocess.run([sys.executable, "-m", "theorem_check", "scan", *args], capture_output=True, text=True,
                       cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def test_table_and_summary():
    code, out, err = tc(str(FIXTURES / "paper.tex"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["eq.", "line", "class"]
    assert [ln.split()[0] for ln in lines[1:]] == ["(1)", "(2)", "(3)", "(T1)", "(4)", "(5)", "(6)", "(7)"]
    assert "8 numbered equations" in err and "not an identity" in err


def test_json_record_validates_and_pack_out(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from theorem_check.output.json_record import schema

    pack = tmp_path / "skel.py"
    code, out, err = tc(str(FIXTURES / "notes.md"), "--json", "--pack-out", str(pack), "--paper", "noise")
    assert code == 0, err
    rec = json.loads(out)
    jsonschema.validate(rec, schema())
    assert rec["kind"] == "scan" and rec["format"] == "md" and rec["paper"] == "noise"
    eqs = {e["number"]: e for e in rec["equations"]}
    assert eqs["2"]["class"] == "not an identity" and eqs["2"]["relation"] == ":="
    assert "noise.eq2" in eqs["2"]["claims"]                      # the coverage map
    assert rec["declarations"][0] == {"name": "W", "shape": ["m", "n"], "line": 3}
    compile(pack.read_text(), str(pack), "exec")
    assert "skeleton written to" in err


def test_paper_column():
    code, out, err = tc(str(FIXTURES / "export.txt"), "--paper", "prh")
    assert code == 0 and out.splitlines()[0].split()[:4] == ["eq.", "line", "class", "claims"]
    assert "(12)" in out and "covered by prh claims" in err


@pytest.mark.parametrize("args, message", [
    (("/no/such/paper.tex",), "file='/no/such/paper.tex' must be a readable text file"),
    ((str(FIXTURES),), "must be a text file, not a directory"),
    ((sys.executable,), "it looks binary"),
    ((str(FIXTURES / "paper.tex"), "--paper", "nope"), "--paper='nope' must be one of prh, noise, cascade"),
    ((str(FIXTURES / "paper.tex"), "--pack-out", "/no/such/dir/x.py"), "--pack-out='/no/such/dir/x.py' must be"),
])
def test_bad_input_is_one_line_exit_2(args, message):
    code, out, err = tc(*args)
    assert code == 2 and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_run_with_a_reader_decides_the_checkable_identities(monkeypatch, tmp_path):
    """With a reader installed (a fake one here), --run runs the skeleton's live claims: the fixture's
    factor-2 equation is REFUTED (exit 1), the true ones hold."""
    import types

    from click.testing import CliRunner

    from tests.authoring.scan_fakes import fake_parse
    from theorem_check.cli.main import cli

    fake = types.ModuleType("theorem_check.expr.latex")
    fake.parse_latex_statement = fake_parse
    monkeypatch.setitem(sys.modules, "theorem_check.expr.latex", fake)
    res = CliRunner().invoke(cli, ["scan", str(FIXTURES / "paper.tex"), "--run", "--json", "--trials", "4"])
    assert res.exit_code == 1, res.output
    rec = json.loads(res.stdout)
    assert rec["reader"] is True and rec["counts"]["checkable"] == 5
    assert rec["run"]["paper.eq6"] == "REFUTED"
    assert {rec["run"][k] for k in ("paper.eq1", "paper.eq2", "paper.eq4", "paper.eq5")} <= {"PROVED", "VERIFIED"}


def test_run_tries_the_layout_readings_check_tries(tmp_path):
    """helper-50: ``scan --run`` built its claims without the readings ``check`` adds, so the numerator layout's
    ``d tr(AB)/dB = A`` was a bare ILL-POSED there and an ERRATUM (holding in that reading) in ``check``."""
    from click.testing import CliRunner

    from theorem_check.cli.main import cli

    tex = tmp_path / "d.tex"
    tex.write_text("Let $B \\in \\mathbb{R}^{m\\times n}$, $A \\in \\mathbb{R}^{n\\times m}$.\n"
                   "\\begin{equation}\\frac{\\partial \\operatorname{tr}(A B)}{\\partial B} = A\\end{equation}\n"
                   "\\begin{equation}\\frac{\\partial \\operatorname{tr}(A B)}{\\partial B} = 2 A\\end{equation}\n",
                   encoding="utf-8")
    res = CliRunner().invoke(cli, ["scan", str(tex), "--run", "--json", "--trials", "4"])
    rec = json.loads(res.stdout)
    assert rec["run"] == {"d.eq1": "ERRATUM", "d.eq2": "ILL-POSED"}, rec["run"]
