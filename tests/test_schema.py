"""JSON records against the shipped JSON Schema: every kind, the versioning header, non-finite numbers."""

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import theorem_check as tc
from theorem_check.output import json_record as records

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def validator():
    schema = records.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def run_result():
    """A small run: a VERIFIED claim and an ERRATUM, with their negative controls."""
    tc.load_builtin()
    claims = [tc.REGISTRY.get("noise.eq3"), tc.REGISTRY.get("noise.eq31")]
    return tc.run_claims(claims, seed=1, trials=4, controls=True)


def _nan_claim():
    """An unregistered claim whose left side is NaN on every instance (its residuals are undefined)."""
    dims = tc.DimSpace({"n": (2, 3)})
    sample = lambda rng, d, batch: {"A": tc.sampling.gaussian(rng, d["n"], d["n"], batch=batch)}  # noqa: E731
    s = tc.Statement("A = A", dims=dims, sample=sample, lhs=lambda i, c: i.A * float("nan"), rhs=lambda i, c: i.A)
    return tc.Claim(id="nan.claim", title="undefined", source=tc.Source("nan", "1", "1", "A=A"), statement=s,
                    controls=(tc.double(s),))


def _errors(validator, rec):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(rec)]


def test_run_record_validates(validator, run_result):
    rec = json.loads(records.dumps(records.run_record(run_result)))
    assert rec["schema_version"] == records.SCHEMA_VERSION and rec["kind"] == "run"
    assert list(rec)[:2] == ["schema_version", "kind"]
    assert _errors(validator, rec) == []
    assert {c["verdict"] for c in rec["claims"]} == {"VERIFIED", "ERRATUM"}


def test_report_record_validates(validator, run_result):
    rec = json.loads(records.dumps(records.run_record(run_result, kind="report")))
    assert rec["kind"] == "report" and _errors(validator, rec) == []


def test_check_record_validates(validator, run_result):
    """A check record is a run record plus the identity as typed (and its shapes, structures, sizes)."""
    rec = json.loads(records.dumps({**records.run_record(run_result, kind="check"), "statement": "X + X = 2*X",
                                    "shapes": {"X": ["n", "n"]}, "assume": {"X": "spd"}, "sizes": {"n": [2, 4]}}))
    assert rec["kind"] == "check" and _errors(validator, rec) == []
    del rec["statement"]
    assert any("statement" in e for e in _errors(validator, rec))


def test_sweep_record_validates(validator):
    dis = [{"seed": 2, "verdict": "INCONCLUSIVE", "evidence": "grey"}]
    rec = {**records.header("sweep"), "seeds": [0, 1, 2], "seed_range": "0:3", "trials": 16, "controls": False,
           "scheduler": "local", "jobs": 2, "timeout": None, "stable": False, "exit_code": 1, "skipped_slow": [],
           "summary": {"claims": 1, "stable": 0, "unstable": 1, "runs": 3},
           "claims": [{"id": "prh.eq31", "title": "t", "counts": {"ERRATUM": 2, "INCONCLUSIVE": 1}, "stable": False,
                       "majority": "ERRATUM", "disagreements": dis, "failures": [], "seconds": 1.5,
                       "statements": [{"name": "as printed", "kind": "printed", "counts": {"ILL-POSED": 3},
                                       "majority": "ILL-POSED", "stable": True, "disagreements": [],
                                       "mutant_survivors": [{"name": "rhs * 2", "seeds": [1]}]}]}]}
    assert _errors(validator, json.loads(records.dumps(rec))) == []
    rec["claims"][0]["disagreements"] = [2]          # a seed must come with its verdict
    assert _errors(validator, rec)


def test_list_and_show_records_validate(validator):
    tc.load_builtin()
    for rec in (records.list_record(tc.REGISTRY), records.show_record(tc.resolve(["eq31"]))):
        rec = json.loads(records.dumps(rec))
        assert _errors(validator, rec) == []
    assert rec["kind"] == "show" and len(rec["claims"]) == 2


def test_cli_records_validate(validator, capsys):
    from theorem_check.cli import main

    for args in (["run", "noise.eq3", "--json", "--trials", "2"], ["list", "--json", "--paper", "prh"],
                 ["show", "prh.eq31", "--json"]):
        with pytest.raises(SystemExit):
            main(args)
        rec = json.loads(capsys.readouterr().out)
        assert _errors(validator, rec) == [], args


def test_non_finite_numbers_are_null_with_a_pointer(validator):
    result = tc.run_claims([_nan_claim()], seed=0, trials=2)
    text = records.dumps(records.run_record(result))
    def no_constants(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    rec = json.loads(text, parse_constant=no_constants)                 # no NaN / Infinity literal
    assert rec["nonfinite"] and set(rec["nonfinite"].values()) == {"nan"}
    for pointer in rec["nonfinite"]:
        assert _resolve(rec, pointer) is None
    assert _errors(validator, rec) == []


def test_schema_rejects_what_it_must(validator, run_result):
    good = json.loads(records.dumps(records.run_record(run_result)))
    inst = good["claims"][0]["printed_result"]["numeric"]["instances"][0]
    level = next(iter(inst["residuals"]))

    def broken(edit):
        rec = json.loads(json.dumps(good))
        edit(rec)
        return _errors(validator, rec)

    assert broken(lambda r: r.pop("schema_version"))
    assert broken(lambda r: r.update(schema_version="2.0"))            # a major version this schema does not know
    assert broken(lambda r: r.update(kind="bogus"))
    assert broken(lambda r: r.pop("claims"))
    assert broken(lambda r: r["claims"][0].update(verdict="MAYBE"))
    assert broken(lambda r: r["claims"][0]["printed_result"].pop("verdict"))
    assert broken(lambda r: r["claims"][0]["printed_result"]["numeric"]["instances"][0]["residuals"].update(
        {level: "inf"}))                                               # the old string form of a number
    assert broken(lambda r: r.update(nonfinite={"/claims/0/seconds": "huge"}))
    # unknown members of a statement result are allowed (later minor versions add fields) ...
    assert not broken(lambda r: r["claims"][0]["printed_result"].update(future_field={"x": 1}))
    # ... and the fields the engine is adding are described
    assert not broken(lambda r: r["claims"][0]["printed_result"].update(
        decided_by="engine", mutants=[{"name": "rhs * -1", "outcome": "fails", "residual": 2.0}],
        sensitivity=None, configs=[{"n": 2}, {"n": 3}]))
    assert broken(lambda r: r["claims"][0]["printed_result"].update(decided_by="oracle"))


def test_error_record_validates(validator, tmp_path):
    """The record ``--json`` writes when the command fails (exit 2): see tests/test_cli.py."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "theorem_check", "run", "no.such", "--json"], capture_output=True,
                       text=True, cwd=tmp_path)
    rec = json.loads(p.stdout)
    assert p.returncode == 2 and rec["kind"] == "error" and _errors(validator, rec) == []
    assert _errors(validator, {**rec, "exit_code": 1}) != []


def test_header_refuses_unknown_kinds():
    with pytest.raises(ValueError, match="kind='bogus' must be one of run, report, check, sweep, list, show"):
        records.header("bogus")


def test_docs_point_at_the_schema():
    """docs/json.md names the shipped schema file and today's version (the schema itself is not copied)."""
    doc = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    assert "theorem_check/output/schema/record.schema.json" in doc
    assert f'"schema_version": "{records.SCHEMA_VERSION}"' in doc
    assert records.SCHEMA_VERSION == records.schema()["x-schema-version"]


def _resolve(doc, pointer):
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


keys = st.text(alphabet="ab/~.", min_size=1, max_size=3)
values = st.recursive(st.floats() | st.integers() | st.text(max_size=3) | st.none(),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
                      max_leaves=12)


@given(st.dictionaries(keys.filter(lambda k: k != "nonfinite"), values, max_size=4))
def test_dumps_is_lossless_and_keeps_types(obj):
    """Every non-finite float becomes null and is listed under its JSON Pointer; nothing else changes."""
    rec = json.loads(records.dumps(obj))
    nonfinite = rec.pop("nonfinite", {})
    for pointer, kind in nonfinite.items():
        original = _resolve(obj, pointer)
        assert _resolve(rec, pointer) is None
        assert kind == ("nan" if math.isnan(original) else ("inf" if original > 0 else "-inf"))

    def same(a, b, path=""):
        if isinstance(a, float) and not math.isfinite(a):
            assert b is None and path in nonfinite
        elif isinstance(a, dict):
            assert set(a) == set(b)
            for k in a:
                same(a[k], b[k], f"{path}/{k.replace('~', '~0').replace('/', '~1')}")
        elif isinstance(a, list):
            assert len(a) == len(b)
            for k, (x, y) in enumerate(zip(a, b)):
                same(x, y, f"{path}/{k}")
        else:
            assert a == b and type(a) is type(b)

    same(obj, rec)


def test_schema_verdict_enum_is_the_verdict_table():
    """The published schema's verdicts are the engine's verdict table, in order (one table per fact)."""
    from theorem_check.model.verdicts import VERDICTS

    assert records.schema()["$defs"]["verdict"]["enum"] == [v.value for v in VERDICTS]
