"""JSON records (``--json``): the same data as the table plus versions, seed, timings.

Every top-level record is an object that starts with ``schema_version`` and ``kind`` (:data:`KINDS`;
``"error"`` is what a failed command writes under ``--json``); the JSON Schema (draft 2020-12)
ships as ``theorem_check/schema/record.schema.json`` (:func:`schema`) and is published in
``docs/json.md``, which also states the versioning policy (:data:`SCHEMA_VERSION`).

Non-finite numbers: JSON has no ``inf`` or ``nan``.  A number field holds a JSON number when the
value is finite and ``null`` otherwise, so a field's type never changes; the record's top-level
``nonfinite`` object maps the RFC 6901 JSON Pointer of each such ``null`` to ``"inf"``,
``"-inf"`` or ``"nan"`` (absent when every number is finite), so nothing is lost.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable

from theorem_check.engine.runner import ClaimResult, RunResult, StatementResult
from theorem_check.model.claims import Claim

__all__ = ["SCHEMA_VERSION", "KINDS", "claim_record", "run_record", "list_record", "show_record", "dumps",
           "statement_record", "result_record", "header", "schema", "SCHEMA_PATH"]

SCHEMA_PATH = Path(__file__).parent / "schema" / "record.schema.json"
"""The JSON Schema of every record, shipped with the package (the one source of the record format)."""

SCHEMA_VERSION: str = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["x-schema-version"]
"""``MAJOR.MINOR`` of the record format, read from the schema file's ``x-schema-version`` (docs/json.md):
MINOR grows when optional fields, record kinds or enum values are added (readers ignore what they do not
know), MAJOR when a field is removed, renamed or changes type or meaning."""

KINDS = ("run", "report", "check", "sweep", "list", "show", "scan", "derive", "error")
"""The record kinds (the ``kind`` field)."""



def schema() -> dict:
    """The JSON Schema (draft 2020-12) of the records, as a dict."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def header(kind: str) -> dict:
    """``{"schema_version": ..., "kind": kind}``: put it first in every top-level record.

    Raises ValueError for a kind not in :data:`KINDS`.
    """
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} must be one of {', '.join(KINDS)}")
    return {"schema_version": SCHEMA_VERSION, "kind": kind}


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _num(x: Any, path: str = "", nonfinite: dict | None = None) -> Any:
    """``x`` with JSON-native values; non-finite floats become None, their pointers noted in ``nonfinite``
    (``nonfinite=False`` keeps them as floats: Python-native, for :func:`dumps` to finish)."""
    if isinstance(x, bool) or x is None or isinstance(x, (str, int)):
        return x
    if isinstance(x, float):
        if math.isfinite(x) or nonfinite is False:
            return x
        if isinstance(nonfinite, dict):
            nonfinite[path] = "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
        return None
    if isinstance(x, dict):
        return {str(k): _num(v, f"{path}/{_pointer_token(str(k))}", nonfinite) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_num(v, f"{path}/{k}", nonfinite) for k, v in enumerate(x)]
    if hasattr(x, "item") and callable(x.item):
        try:
            return _num(x.item(), path, nonfinite)
        except (ValueError, TypeError):
            return str(x)
    return str(x)


def claim_record(claim: Claim) -> dict:
    """Static description of a claim (for ``list --json`` and ``show --json``)."""
    s = claim.source
    return {
        "id": claim.id, "title": claim.title, "aliases": list(claim.aliases), "paper": s.paper,
        "section": s.section, "equation": s.equation, "printed": s.printed,
        "assumptions": list(claim.assumptions), "slow": claim.slow,
        "variants": [{"name": v.name, "kind": v.kind, "latex": v.latex} for v in claim.variants],
        "controls": [c.name for c in claim.controls],
    }


def statement_record(r: StatementResult) -> dict:
    """One statement's verdict and evidence, with its instances."""
    rec: dict[str, Any] = {"name": r.name, "kind": r.kind, "latex": r.latex, "verdict": r.verdict.value,
                           "evidence": r.evidence, "seed": r.seed, "seconds": round(r.seconds, 4),
                           "decided_by": r.decided_by,
                           "mutants": [{"name": m.name, "outcome": m.outcome.value, "survived": m.survived}
                                       for m in r.mutants],
                           "sensitivity": r.sensitivity, "configs": [dict(c) for c in r.configs]}
    if r.symbolic is not None:
        rec["symbolic"] = {"closed": r.symbolic.closed, "general": r.symbolic.general, "sizes": r.symbolic.sizes,
                           "steps": [{"lhs": s.lhs_latex, "rhs": s.rhs_latex, "why": s.why, "closed": s.closed,
                                      "method": s.method, "point": s.point, "certified": s.certified, "note": s.note}
                                     for s in r.symbolic.steps]}
    if r.numeric is not None:
        n = r.numeric
        inst = lambda i: {"dims": dict(i.dims), "seed": i.seed, "index": i.index, "residuals": dict(i.residuals),
                          "floors": dict(i.floors), "outcome": i.outcome.value, "detail": i.detail,
                          "predicted": i.predicted, "measured": i.measured,
                          **({"scale": i.scale} if i.scale != 1.0 else {})}
        rec["numeric"] = {"outcome": n.outcome.value, "ill_posed": n.ill_posed, "note": n.note, "bad": n.bad,
                          "seconds": round(n.seconds, 4), "errors": list(n.errors),
                          "counterexample": inst(n.counterexample) if n.counterexample else None,
                          "instances": [inst(i) for i in n.instances]}
        if n.far:
            rec["numeric"]["far_instances"] = [inst(i) for i in n.far]
    if getattr(r, "exact", None) is not None:
        rec["exact_counterexample"] = {"dims": dict(r.exact.dims), "values": dict(r.exact.values),
                                       "difference": r.exact.difference}
    return _num(rec, nonfinite=False)


def result_record(r: ClaimResult) -> dict:
    """One claim's verdict, evidence and statement results."""
    return {**claim_record(r.claim), "verdict": r.verdict.value, "evidence": r.evidence, "seed": r.seed,
            "seconds": round(r.seconds, 4), "printed_result": statement_record(r.printed),
            "variant_results": [statement_record(v) for v in r.variants],
            "control_results": [statement_record(c) for c in r.controls]}


def run_record(run: RunResult, *, kind: str = "run") -> dict:
    """The whole run as a JSON-able dict (``kind="report"`` for a report's ``report.json``)."""
    return {**header(kind), "seed": run.seed, "trials": run.trials, "started": run.started, "seconds": round(run.seconds, 3),
            "versions": run.versions, "summary": run.counts(), "exit_code": run.exit_code,
            "skipped_slow": list(run.skipped_slow), "controls_run": run.controls_run,
            "unrefuted_controls": run.unrefuted_controls, "claims": [result_record(r) for r in run.results]}


def list_record(claims: Iterable[Claim]) -> dict:
    """``list --json``: the static description of each claim."""
    return {**header("list"), "claims": [claim_record(c) for c in claims]}


def show_record(claims: Iterable[Claim]) -> dict:
    """``show --json``: the claims an id resolves to (several for a shared bare label)."""
    return {**header("show"), "claims": [claim_record(c) for c in claims]}


def dumps(obj: Any) -> str:
    """JSON text with stable formatting; non-finite numbers as ``null`` plus ``nonfinite`` (module docstring).

    A top-level object gets a ``nonfinite`` member only when it has a non-finite number.
    """
    nonfinite: dict[str, str] = {}
    clean = _num(obj, "", nonfinite)
    if nonfinite and isinstance(clean, dict):
        clean["nonfinite"] = nonfinite
    return json.dumps(clean, indent=2, allow_nan=False)


if __name__ == "__main__":  # pragma: no cover - ``python -m theorem_check.output.json_record`` prints the schema
    print(json.dumps(schema(), indent=2))
