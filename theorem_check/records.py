"""JSON records of runs (``--json``): the same data as the table plus versions, seed, timings.

Every value is JSON-native (floats, strings, lists, dicts); ``inf`` and ``nan`` residuals are
written as the strings ``"inf"`` and ``"nan"`` so that any JSON parser reads the record.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .claims import Claim
from .runner import ClaimResult, RunResult, StatementResult

__all__ = ["claim_record", "run_record", "dumps", "statement_record"]


def _num(x: Any) -> Any:
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return str(x)
    if isinstance(x, dict):
        return {str(k): _num(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_num(v) for v in x]
    if hasattr(x, "item") and callable(x.item):
        try:
            return _num(x.item())
        except (ValueError, TypeError):
            return str(x)
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
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
                                      "method": s.method, "point": s.point} for s in r.symbolic.steps]}
    if r.numeric is not None:
        n = r.numeric
        inst = lambda i: {"dims": dict(i.dims), "seed": i.seed, "index": i.index, "residuals": dict(i.residuals),
                          "floors": dict(i.floors), "outcome": i.outcome.value, "detail": i.detail,
                          "predicted": i.predicted, "measured": i.measured}
        rec["numeric"] = {"outcome": n.outcome.value, "ill_posed": n.ill_posed, "note": n.note, "bad": n.bad,
                          "seconds": round(n.seconds, 4), "errors": list(n.errors),
                          "counterexample": inst(n.counterexample) if n.counterexample else None,
                          "instances": [inst(i) for i in n.instances]}
    return _num(rec)


def result_record(r: ClaimResult) -> dict:
    """One claim's verdict, evidence and statement results."""
    return {**claim_record(r.claim), "verdict": r.verdict.value, "evidence": r.evidence, "seed": r.seed,
            "seconds": round(r.seconds, 4), "printed_result": statement_record(r.printed),
            "variant_results": [statement_record(v) for v in r.variants],
            "control_results": [statement_record(c) for c in r.controls]}


def run_record(run: RunResult) -> dict:
    """The whole run as a JSON-able dict."""
    return {"seed": run.seed, "trials": run.trials, "started": run.started, "seconds": round(run.seconds, 3),
            "versions": run.versions, "summary": run.counts(), "exit_code": run.exit_code,
            "skipped_slow": list(run.skipped_slow), "controls_run": run.controls_run,
            "unrefuted_controls": run.unrefuted_controls, "claims": [result_record(r) for r in run.results]}


def dumps(obj: Any) -> str:
    """JSON text with sorted, stable formatting."""
    return json.dumps(_num(obj), indent=2, allow_nan=False)
