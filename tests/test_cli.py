"""The command line: exit codes, JSON, packs, and a table of bad inputs with their one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACK = str(ROOT / "examples" / "transpose_pack.py")


def tc(*args, cwd=ROOT):
    p = subprocess.run([sys.executable, "-m", "theorem_check", *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def test_help():
    code, out, _ = tc("--help")
    assert code == 0 and "run" in out and "list" in out


def test_transpose_pack_verdicts():
    code, out, _ = tc("run", "--pack", PACK, "--json")
    assert code == 1
    rec = {c["id"]: c for c in json.loads(out)["claims"]}
    assert rec["demo.transpose_right"]["verdict"] in ("PROVED", "VERIFIED")
    wrong = rec["demo.transpose_wrong"]
    assert wrong["printed_result"]["verdict"] in ("REFUTED", "ILL-POSED")
    cex = wrong["printed_result"]["numeric"]["counterexample"]
    assert sum(cex["dims"].values()) == 4  # smallest dims where A^T B^T does not conform to (AB)^T
    assert wrong["verdict"] == "ERRATUM"


def test_same_seed_same_output():
    a = tc("run", "--pack", PACK, "--json", "--seed", "7")[1]
    b = tc("run", "--pack", PACK, "--json", "--seed", "7")[1]
    strip = lambda s: [{k: v for k, v in c.items() if k not in ("seconds",)} for c in json.loads(s)["claims"]]
    assert [c["printed_result"]["numeric"]["instances"] for c in strip(a)] == \
           [c["printed_result"]["numeric"]["instances"] for c in strip(b)]


def test_pack_right_alone_exits_zero():
    code, out, _ = tc("run", "--pack", PACK, "demo.transpose_right")
    assert code == 0 and "PROVED" in out


BAD = [
    (("run", "no_such_claim"), "claim id='no_such_claim' matches no claim"),
    (("run", "--paper", "nopaper"), "paper='nopaper' has no claims"),
    (("run", "--pack", "/no/such/file.py"), "pack='/no/such/file.py' must be an existing .py file"),
    (("run", "--trials", "-3", "x"), "Invalid value for '--trials'"),
    (("run", "--seed", "abc", "x"), "Invalid value for '--seed'"),
    (("run",), "name claim ids"),
    (("show", "no_such_claim"), "matches no claim"),
    (("list", "--paper", "nopaper"), "paper='nopaper' has no claims"),
    (("list", "--paper", ""), "paper='' has no claims"),
    (("run", "--paper", ""), "paper='' has no claims"),
    (("run", "x", "--trials", "0"), "Invalid value for '--trials': 0"),
    (("run", "x", "--trials", "100000000"), "Invalid value for '--trials': 100000000"),
    (("run", "x", "--seed", "1.5"), "Invalid value for '--seed': '1.5'"),
    (("run", "x", "--fuzz", "-1"), "Invalid value for '--fuzz': -1"),
    (("run", "x", "--bogus"), "No such option '--bogus'"),
    (("report", "eq31"), "Missing option '-o'"),
    (("show", "eq31", "--json", "--latex"), "give --json or --latex, not both"),
    (("report", "eq31", "-o", ""), "'' must name a directory"),
    (("report", "eq31", "-o", __file__), "is a file"),
    (("report", "eq31", "-o", __file__ + "/sub"), "cannot be created"),
    # issue 23: --dims outside a claim's declared range or its where constraint (D=0 raised IndexError)
    (("run", "noise.thm5_4", "--dims", "D=0"), "dims D=0 is outside D in 2..4 (claim noise.thm5_4)"),
    (("run", "noise.thm5_4", "--dims", "D=5"), "dims D=5 is outside D in 2..4"),
    (("run", "noise.thm5_4", "--dims", "r=3"), "dims r=3 is outside r in 1..2"),
    (("run", "noise.thm5_4", "--dims", "r=2,dx=1"), "dx=1, r=2 breaks the constraint of the dimensions"),
    (("run", "noise.thm5_4", "--dims", "D=0", "--jobs", "2"), "dims D=0 is outside D in 2..4"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_one_line_exit_2(args, message):
    code, out, err = tc(*args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err  # one line, no Click 'Usage:' block


def test_dims_inside_the_range_still_run():
    code, out, err = tc("run", "noise.thm5_4", "--dims", "D=3,r=1", "--json", "--jobs", "1")
    rec = json.loads(out)["claims"][0]
    assert code == 1 and rec["verdict"] == "ERRATUM", err   # the catalogue's verdict, at D=3
    assert {i["dims"]["D"] for i in rec["printed_result"]["numeric"]["instances"]} == {3}


def test_broken_pack_is_one_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import theorem_check as tc\nraise RuntimeError('boom')\n")
    code, _, err = tc("run", "--pack", str(bad))
    assert code == 2 and "failed to import (line 2): RuntimeError: boom" in err and "Traceback" not in err


@pytest.mark.parametrize("args,command,message", [
    (("run", "--pack", "{bad}", "--json"), "run", "failed to import (line 2): RuntimeError: boom"),
    (("run", "no.such.claim", "--json"), "run", "matches no claim id"),
    (("check", "--json"), "check", "Missing argument 'STATEMENT'"),
    (("--color", "never", "list", "--json", "--paper", "nosuch"), "list", "nosuch"),
])
def test_errors_under_json_are_a_json_record(tmp_path, args, command, message):
    """A script reading --json's stdout gets an ``error`` record, not nothing (helper-74); stderr keeps its line."""
    bad = tmp_path / "bad.py"
    bad.write_text("import theorem_check as tc\nraise RuntimeError('boom')\n")
    code, out, err = tc(*[a.format(bad=bad) for a in args])
    rec = json.loads(out)
    assert code == 2 and rec["kind"] == "error" and rec["exit_code"] == 2 and rec["command"] == command
    assert message in rec["error"] and f"theorem-check: error: {rec['error']}" == err.strip()


def test_error_without_json_writes_nothing_on_stdout():
    code, out, err = tc("run", "no.such.claim")
    assert code == 2 and out == "" and "matches no claim id" in err
    code, out, _ = tc("check", "--shape", "X=n,n", "--", "--json")   # a statement after `--`, not the option
    assert code == 2 and out == ""


def test_malformed_claim_in_pack_names_it(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import theorem_check as tc\n"
                   "s = tc.Statement('x', derivation=None)\n")
    code, _, err = tc("run", "--pack", str(bad))
    assert code == 2 and "Traceback" not in err


BROKEN_PACK = '''
import numpy as np
import theorem_check as tc
from theorem_check import sampling
dims = tc.DimSpace({"n": (1, 3)})
def sample(rng, d, batch):
    return {"A": sampling.gaussian(rng, d["n"], d["n"], batch=batch)}
def boom(inst, ctx):
    raise ZeroDivisionError("lhs exploded")
s = tc.Statement("A=A", dims=dims, sample=sample, lhs=%s, rhs=lambda i, c: i.A)
tc.register(tc.Claim(id="broken.c", title="t", source=tc.Source("broken", "1", "1", "A=A"),
                     statement=s, controls=(tc.double(s),)))
'''


@pytest.mark.parametrize("lhs,message", [
    ("boom", "lhs raised ZeroDivisionError: lhs exploded"),
    ("lambda i, c: i.A * np.nan", "a side is NaN, infinite or complex"),
])
def test_claim_that_cannot_be_evaluated_is_bad_input(tmp_path, lhs, message):
    """A pack whose lhs raises (or is NaN/complex) on every instance: table, then one error line, exit 2."""
    pack = tmp_path / "broken.py"
    pack.write_text(BROKEN_PACK % lhs)
    code, out, err = tc("run", "--pack", str(pack))
    assert code == 2, (out, err)
    flat = " ".join(out.split())  # the table wraps evidence to the terminal width
    assert "broken.c" in out and "INCONCLUSIVE" in out and message in flat
    assert err.strip().splitlines() == [err.strip()] and "claim broken.c (as printed) could not be evaluated" in err
    assert message in err and "Traceback" not in err and "Warning" not in err


def test_a_side_complex_where_float_is_nan_is_a_finding(tmp_path):
    """log of a negative number: NaN in real float arithmetic, a complex value at mp50. The claim was
    evaluated (at mp50), so it is INCONCLUSIVE, exit 1, saying where it is undefined; 'could not be evaluated'
    (exit 2) is kept for sides that raise or are NaN at every level (design decision 134)."""
    pack = tmp_path / "complexish.py"
    pack.write_text(BROKEN_PACK % "lambda i, c: c.log(-(i.A * i.A) - 1.0)")
    code, out, err = tc("run", "--pack", str(pack))
    assert code == 1, (out, err)
    flat = " ".join(out.split())
    assert "INCONCLUSIVE" in out and "undefined at float64 only" in flat and "could not be evaluated" not in err
    assert "declare the domain" in flat   # why mp50 could evaluate it, and what to write (helper-33)


def test_pack_without_claims_is_named(tmp_path):
    """A pack that registers nothing used to fall through to 'name claim ids (e.g. eq31), ...'."""
    empty = tmp_path / "empty.py"
    empty.write_text("import theorem_check as tc\nx = 1\n")
    code, _, err = tc("run", "--pack", str(empty))
    assert code == 2 and "registers no claims" in err and str(empty) in err


def test_same_pack_twice_is_loaded_once():
    """`--pack P --pack P` used to fail with 'registered twice'."""
    code, out, err = tc("run", "--pack", PACK, "--pack", PACK, "demo.transpose_right")
    assert code == 0 and "PROVED" in out, err


def test_list_columns_align():
    """Long equation labels ('footnote 14, (34)') used to run into the title with one space.

    Titles start in one column; labels over 22 characters and titles too long for 100 columns
    are cut with '...' (``list --json`` has them whole)."""
    from theorem_check.output.unicode_math import text_to_unicode

    code, out, _ = tc("list")
    recs = json.loads(tc("list", "--json")[1])["claims"]
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(recs)
    starts = set()
    for line, r in zip(lines, recs):
        eq = r["equation"] if len(r["equation"]) <= 22 else r["equation"][:19] + "..."
        full = text_to_unicode(r["title"])   # the terminal shows maths in Unicode (issue 23)
        title = full if full in line else full[:20]
        assert f"{eq}  " in line and line.index(title) > line.index(eq)
        starts.add(line.index(title))
    assert len(starts) == 1


def test_one_claim_is_singular():
    code, out, _ = tc("run", "--pack", PACK, "demo.transpose_right")
    assert code == 0 and "\n1 claim: 1 PROVED" in "\n" + out


def test_clicks_broken_pipe_wrapper_is_found_without_a_deprecation_warning():
    """Click 8.5 renamed ``PacifyFlushWrapper`` (the stdout wrapper after EPIPE) to ``_PacifyFlushWrapper`` and
    warns on the old name, which Click 9 removes: the exit-code path must find it either way, silently."""
    import warnings

    from theorem_check.cli.main import _pacify_wrapper

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = _pacify_wrapper()
    assert len(found) == 1 and isinstance(found[0], type) and "PacifyFlushWrapper" in found[0].__name__
