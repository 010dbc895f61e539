"""Render a :class:`~theorem_check.engine.runner.RunResult` to ``DIR/report.tex`` (+ figures, JSON, PDF).

The renderer is a Jinja2 template (``templates/report.tex.j2``) with LaTeX-safe delimiters:

==================  ======================
``\\VAR{x}``         a value
``\\BLOCK{for ...}`` a statement
``\\#{...}``         a template comment
==================  ======================

Every value printed through ``\\VAR`` is escaped as plain text unless it is a
:class:`~theorem_check.output.latex.Tex` (already valid LaTeX): the view model below marks as ``Tex``
only what :mod:`theorem_check.output.latex` produced (escaped prose, sanitised math, formatted
numbers), so no claim text can reach the document unescaped.

Output layout::

    DIR/report.tex          the document (pdfLaTeX; amsmath, booktabs, longtable, hyperref)
    DIR/report.json         the run's JSON record (same as ``theorem-check run --json``)
    DIR/figures/*.pdf|png   residuals against precision per claim; claim-specific figures
    DIR/report.pdf          with pdf=True (latexmk)
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import jinja2

from theorem_check._version import __version__
from theorem_check.engine.runner import ClaimResult, RunResult, StatementResult
from theorem_check.model.claims import Statement
from theorem_check.model.verdicts import VERDICTS, Outcome, Verdict
from theorem_check.numerics.precision import CONTEXTS
from theorem_check.output.json_record import dumps, run_record
from theorem_check.output.latex import (
    Tex,
    break_math,
    claim_words,
    control_words,
    dims_text,
    escape,
    fmt_sci,
    math_width,
    matrix_entries,
    provide_macros,
    retex,
    statement_title,
    text,
    text_control_words,
)
from theorem_check.output.latex import math as sanitize_math
from theorem_check.output.prose import prose
from theorem_check.output.report.choice import FORMATS, resolve_format
from theorem_check.output.report.compile import check_pdf_engine, compile_pdf
from theorem_check.output.report.figspec import figure_errors

__all__ = ["write_report", "render_report", "rerun_command", "clean_out_dir", "MAX_ROWS", "FORMATS", "OUTPUTS", "prepare_output", "figures_for", "short_name"]

MAX_ROWS = 8
"""Instances listed per statement; the rest are summarised in one line."""
_MAX_MATH_CHARS = 4000

_METHODS = {
    "simplify": "closed by simplification",
    "schwartz-zippel": "closed: zero at random exact rational points (Schwartz--Zippel)",
    "explicit entries": "closed: every entry of the difference is the zero polynomial of the matrices' entries",
    "random points": "checked numerically: zero at random exact points, not a proof (not a rational function)",
    "counterexample": "fails: nonzero at an exact rational point",
    "undefined": "does not close: the difference is undefined at a random point",
    "undecided": "undecided: SymPy could neither simplify nor evaluate the difference",
    "shape-mismatch": "fails: the two sides have different shapes",
}


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("theorem_check.output.report", "templates"),
        block_start_string=r"\BLOCK{", block_end_string="}",
        variable_start_string=r"\VAR{", variable_end_string="}",
        comment_start_string=r"\#{", comment_end_string="}",
        line_statement_prefix=None, line_comment_prefix="%#",
        trim_blocks=True, lstrip_blocks=True, autoescape=False,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        finalize=lambda v: "" if v is None else (v if isinstance(v, Tex) else escape(v)),
    )
    env.filters["text"] = text
    env.filters["sci"] = fmt_sci
    env.filters["raw"] = Tex      # only for the template's own macro calls, never for view-model values
    return env


def _has_mp(inst) -> bool:
    """The instance reached a multiple-precision level (any mpmath context of ``CONTEXTS``)."""
    return any(CONTEXTS[k].is_mp for k in inst.residuals if k in CONTEXTS)


def _key(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") or "x"


def _verdict(v: Verdict | str) -> Tex:
    v = v.value if isinstance(v, Verdict) else str(v)
    return Tex(rf"\tcverdict{{{_key(v)}}}{{{v}}}")


def _outcome(o: Outcome | str) -> Tex:
    o = o.value if isinstance(o, Outcome) else str(o)
    return Tex(rf"\tcoutcome{{{_key(o)}}}{{{o}}}")


BUDGET = 72.0
"""Glyphs per display line (A4, 2.2 cm margins, 10 pt) before :func:`~theorem_check.output.latex.break_math` breaks it."""


def _math(src: str, budget: float = BUDGET) -> dict:
    """A statement's math for the template: ``{"ok", "tex", "reason"}``; long displays broken into lines."""
    if len(src) > _MAX_MATH_CHARS:
        return {"ok": False, "tex": Tex(rf"\textit{{(expression of {len(src)} characters, not printed; see "
                                        r"report.json)}"), "reason": ""}
    m = sanitize_math(src)
    return {"ok": m.ok, "tex": Tex(break_math(m.tex, budget)) if m.ok else m.tex, "reason": m.reason}


def _dims(d) -> str:
    return dims_text(d)


_prose = prose   # engine text (evidence, details, sizes): its maths typeset (output/prose.py)


_LABELS = {"corrected": "Corrected", "reading": "Reading", "control": "Control", "printed": "As printed"}


def short_name(name: str, kind: str) -> str:
    """The statement name without a leading ``corrected:``/``reading:`` (the label already says it)."""
    s = name.strip()
    for word in (kind, "corrected", "reading", "control"):
        if s.lower() == word:
            return ""
        if s.lower().startswith(word + ":"):
            return s[len(word) + 1:].strip()
    return s


def _title_text(name: str, kind: str) -> str:
    return statement_title(name, kind)


def _heading(s: str) -> Tex:
    """Plain text for a section heading: ``$...$`` spans wrapped in ``\\texorpdfstring`` for the PDF bookmarks."""
    parts = re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", str(s))
    out = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            out.append(text(part) if part else "")
        else:
            m = text("$" + part + "$")
            plain = re.sub(r"[{}]", "", re.sub(r"\\([A-Za-z]+)", r"\1", part))
            out.append(rf"\texorpdfstring{{{m}}}{{{escape(plain)}}}" if m.startswith("$") else m)
    return Tex("".join(out))


def _step_math(lhs: str, rhs: str, budget: float = BUDGET) -> dict:
    ml, mr = sanitize_math(retex(lhs)), sanitize_math(retex(rhs))
    if not (ml.ok and mr.ok):
        bad = ml if not ml.ok else mr
        return {"ok": False, "tex": Tex(r"\texttt{" + escape(lhs) + "} = " + r"\texttt{" + escape(rhs) + "}"),
                "reason": bad.reason}
    whole = f"{ml.tex} = {mr.tex}"
    if math_width(whole) > budget:
        el, er = matrix_entries(ml.tex), matrix_entries(mr.tex)
        if el and er and [len(r) for r in el] == [len(r) for r in er] and \
                max(math_width(ml.tex), math_width(mr.tex)) > budget:
            rows = []
            for i, (rl, rr) in enumerate(zip(el, er), 1):
                for j, (a, b) in enumerate(zip(rl, rr), 1):
                    rows.append(break_math(rf"[{i},{j}]\colon\ {a} = {b}", budget))
            return {"ok": True, "tex": Tex(r"\begin{gathered}" + r"\\".join(rows) + r"\end{gathered}"), "reason": ""}
    if r"\begin{aligned}" in ml.tex or r"\begin{aligned}" in mr.tex:
        return {"ok": True, "tex": Tex(rf"\begin{{aligned}}&{{}}{ml.tex}\\&\quad= {mr.tex}\end{{aligned}}"), "reason": ""}
    return {"ok": True, "tex": Tex(break_math(f"{ml.tex} = {mr.tex}", budget)), "reason": ""}


def _number(x: Any) -> Tex:
    if isinstance(x, float):
        return Tex(f"${fmt_sci(x, 3)}$")
    if isinstance(x, (list, tuple)) and len(x) <= 6 and all(isinstance(v, (int, float)) for v in x):
        # one math span per entry so that a narrow table column can break between entries
        return Tex("$(" + "$, \\allowbreak $".join(fmt_sci(float(v), 3) for v in x) + ")$")
    s = str(x)
    return prose(s if len(s) <= 60 else s[:57] + "...")


def _steps(sym) -> list[dict]:
    out = []
    for k, s in enumerate(sym.steps, 1):
        if len(s.lhs_latex) + len(s.rhs_latex) > _MAX_MATH_CHARS:
            m = {"ok": False, "tex": Tex(rf"\textit{{(step of {len(s.lhs_latex) + len(s.rhs_latex)} characters, "
                                         r"not printed; see report.json)}"), "reason": ""}
        else:
            m = _step_math(s.lhs_latex, s.rhs_latex)
        out.append({"n": k, "why": text(s.why) if s.why else Tex(""), "closed": s.closed,
                    "method": escape(_METHODS.get(s.method, s.method)), "math": m,
                    "point": _prose(s.point) if s.point else Tex(""),
                    "difference": _math(s.difference_latex) if s.difference_latex else None})
    return out


def _levels(instances) -> list[str]:
    levels: list[str] = []
    for i in instances:
        for k in i.residuals:
            if k not in levels:
                levels.append(k)
    return levels


def _numeric(r: StatementResult, st: Statement | None) -> dict | None:
    num = r.numeric
    if num is None:
        return None
    insts = list(num.instances)
    levels = _levels(insts + ([num.counterexample] if num.counterexample else []))
    custom = st is not None and not st.is_identity
    has_pm = any(i.predicted is not None or i.measured is not None for i in insts)
    has_detail = any(i.detail for i in insts)
    rows = []
    pm_cols = has_pm and len(levels) <= 3 and sum(min(len(lv), 11) for lv in levels) <= 30
    for k, i in enumerate(insts[:MAX_ROWS], 1):
        pred = _number(i.predicted) if i.predicted is not None else Tex("")
        meas = _number(i.measured) if i.measured is not None else Tex("")
        below = []
        if has_pm and not pm_cols and (pred or meas):
            below.append(Tex(f"predicted {pred}, measured {meas}"))
        if i.detail:
            below.append(_prose(i.detail))
        rows.append({"n": str(k), "dims": escape(_dims(i.dims)), "seed": str(i.seed),
                     "res": [Tex(f"${fmt_sci(i.residuals[lv])}$") if lv in i.residuals else Tex("--") for lv in levels],
                     "predicted": pred, "measured": meas, "below": Tex("; ".join(below)),
                     "detail": _prose(i.detail), "outcome": _outcome(i.outcome)})
    more = len(insts) - len(rows)
    more_text = ""
    if more > 0:
        rest = insts[MAX_ROWS:]
        counts: dict[str, int] = {}
        for i in rest:
            counts[i.outcome.value] = counts.get(i.outcome.value, 0) + 1
        worst = {lv: max((i.residuals.get(lv, 0.0) for i in rest), default=0.0) for lv in levels}
        more_text = Tex(escape(f"{more} more instances (" + ", ".join(f"{n} {o}" for o, n in counts.items()) + ")")
                        + ("; largest residuals " + ", ".join(f"{escape(lv)} ${fmt_sci(v)}$" for lv, v in worst.items())
                           if levels else ""))
    floors: dict[str, tuple[float, float]] = {}
    for i in insts:
        for lv, f in i.floors.items():
            lo, hi = floors.get(lv, (math.inf, 0.0))
            floors[lv] = (min(lo, f), max(hi, f))
    floor_text = Tex("; ".join(
        f"{escape(lv)} ${fmt_sci(lo)}$" + (f"--${fmt_sci(hi)}$" if hi > lo * 1.0001 else "")
        for lv, (lo, hi) in floors.items()))
    cex = None
    if num.counterexample is not None:
        c = num.counterexample
        cex = {"dims": escape(_dims(c.dims)), "seed": str(c.seed), "detail": _prose(c.detail),
               "res": Tex(", ".join(f"{escape(lv)} ${fmt_sci(v)}$" for lv, v in c.residuals.items()))}
    configs = len({tuple(sorted(dict(i.dims).items())) for i in insts})
    return {"custom": custom, "levels": [_header(lv) for lv in levels], "rows": rows, "more": more_text,
            "has_pm": has_pm, "has_detail": has_detail, "pm_cols": pm_cols,
            "ncols": str(4 + len(levels) + (2 if pm_cols else 0)), "floors": floor_text, "n": len(insts), "configs": configs,
            "ill_posed": _prose(num.ill_posed) if num.ill_posed else Tex(""), "cex": cex, "note": prose(num.note),
            "errors": [_prose(e) for e in num.errors], "outcome": _outcome(num.outcome),
            "mp_partial": (not custom) and any(_has_mp(i) for i in insts) and not all(_has_mp(i) for i in insts)}


def _header(label: str, width: int = 11) -> Tex:
    """A table header that wraps into lines of about ``width`` characters (a stacked, right-aligned cell)."""
    import textwrap

    lines = textwrap.wrap(str(label), width, break_long_words=False) or [""]
    if len(lines) == 1:
        return escape(lines[0])
    return Tex(r"\begin{tabular}[b]{@{}r@{}}" + r"\\".join(escape(x) for x in lines) + r"\end{tabular}")


def _statement(r: StatementResult, st: Statement | None) -> dict:
    sym = r.symbolic
    deriv = None
    if sym is not None:
        closed = sum(s.closed for s in sym.steps)
        deriv = {"steps": _steps(sym), "closed": sym.closed, "general": sym.general, "n": len(sym.steps),
                 "n_closed": closed, "sizes": _prose(sym.sizes), "seconds": f"{sym.seconds:.2f}"}
    return {"name": text(r.name), "kind": r.kind, "math": _math(r.latex), "verdict": _verdict(r.verdict),
            "label": _LABELS.get(r.kind, r.kind), "short_name": text(short_name(r.name, r.kind)),
            "title_text": text(_title_text(r.name, r.kind)),
            "box_math": _math(r.latex, BUDGET - 4),
            "verdict_value": r.verdict.value, "ok": r.verdict.ok, "kind_raw": r.kind, "evidence": _prose(r.evidence),
            "note": text(st.note) if st is not None and st.note else Tex(""), "derivation": deriv,
            "numeric": _numeric(r, st), "seconds": f"{r.seconds:.2f}", "seed": str(r.seed), "figures": []}


def _legend_labels(results: list[StatementResult]) -> list[str]:
    """Short legend labels (``as printed``, ``corrected``, ``reading 2``, ``control 1``); the caption gives the names."""
    kinds = [r.kind for r in results]
    seen: dict[str, int] = {}
    out = []
    for k in kinds:
        seen[k] = seen.get(k, 0) + 1
        base = "as printed" if k == "printed" else k
        out.append(base if kinds.count(k) == 1 else f"{base} {seen[k]}")
    return out


def figures_for(cr: ClaimResult, out_dir: Path, stmts: list[tuple[dict, StatementResult]]) -> list[dict]:
    """Draw the claim's residual figure and each statement's custom figure; returns view dicts."""
    from theorem_check.output.report.figures import residual_figure, residual_series, spec_figure

    figs = []
    key = _key(cr.id)
    short = _legend_labels([r for _, r in stmts])
    series = [residual_series(r, lab) for (_, r), lab in zip(stmts, short)]
    try:
        f = residual_figure([s for s in series if s is not None], out_dir / "figures" / f"{key}-residuals")
    except Exception as exc:  # noqa: BLE001 - a figure must never sink the report
        figs.append({"file": None, "caption": escape(f"residual figure not drawn: {type(exc).__name__}: {exc}")})
        f = None
    plotted = list(dict.fromkeys(k for s in series if s is not None for inst in s.instances for k in inst))
    if f is None and len(plotted) >= 2 and not any(float(v) for s in series if s for i in s.instances for v in i.values()):
        figs.append({"file": None, "caption": escape(f"No residual figure: every residual is 0 at {', '.join(plotted)}.")})
    if f is not None:
        identity = any(v.get("numeric") and not v["numeric"]["custom"] for v, _ in stmts)
        cap = ("Relative residual of each instance against the working precision (" + ", ".join(plotted)
               + ", on the same instance); the dotted line is the floor a true identity may leave. "
               if identity else "Residual of each run against the refinement level of the check ("
               + ", ".join(plotted) + "). ")
        lines = "; ".join(escape(lab) + (": " + text(short_name(r.name, r.kind)) if short_name(r.name, r.kind)
                                         and short_name(r.name, r.kind) != lab else "")
                          + escape(f" ({r.verdict.value})") for (_, r), s, lab in zip(stmts, series, short)
                          if s is not None)
        tail = ""
        if any(v == 0 for s in series if s is not None for inst in s.instances for v in inst.values()):
            tail = "; exact zeros are drawn as triangles on the bottom edge"
        figs.append({"file": f.name, "caption": Tex(escape(cap + "Lines: ") + lines + escape(tail) + "."),
                     "wide": False, "residuals": True})
    for k, (view, r) in enumerate(stmts):
        num = r.numeric
        if num is None:
            continue
        cands = [i for i in num.instances if i.figure]
        shown = cands[:1] + ([num.counterexample] if num.counterexample is not None and num.counterexample.figure
                             else [])
        for j, inst in enumerate(shown):
            spec = inst.figure
            errs = figure_errors(spec)
            where = f"{r.name}, dims {_dims(inst.dims)}, seed {inst.seed}"
            where_tex = text(where)
            if errs:
                view["figures"].append({"file": None, "caption": escape(f"figure data of {where} is malformed: "
                                                                         + "; ".join(errs[:3]))})
                continue
            try:
                f = spec_figure(spec, out_dir / "figures" / f"{key}-s{k}-{j}")
            except Exception as exc:  # noqa: BLE001
                view["figures"].append({"file": None, "caption": escape(f"figure of {where} not drawn: "
                                                                         f"{type(exc).__name__}: {exc}")})
                continue
            cap = text(spec.get("caption", "")) if spec.get("caption") else Tex("")
            view["figures"].append({"file": f.name, "caption": Tex(cap + (" " if cap else "") + "(" + where_tex + ".)"),
                                    "wide": spec.get("kind") == "panels", "residuals": False})
    return figs


def _claim_view(cr: ClaimResult, out_dir: Path | None) -> dict:
    c = cr.claim
    by_name = {s.name: s for s in (*c.statements(), *c.controls)}
    printed = _statement(cr.printed, by_name.get(cr.printed.name))
    variants = [_statement(v, by_name.get(v.name)) for v in cr.variants]
    controls = [{"name": text(short_name(x.name, "control") or x.name), "verdict": _verdict(x.verdict),
                 "evidence": _prose(x.evidence),
                 "ok": x.verdict in (Verdict.REFUTED, Verdict.ILL_POSED)} for x in cr.controls]
    s = c.source
    view = {"id": escape(c.id), "key": _key(c.id), "title": text(c.title), "heading": _heading(c.title),
            "paper": escape(s.paper),
            "section": escape(s.section), "equation": escape(s.equation),
            "where": Tex((r"\S\," if s.section[:1].isdigit() else "") + escape(s.section) + ", " + escape(s.equation)), "printed_src": _math(s.printed),
            "assumptions": [text(a) for a in c.assumptions], "aliases": escape(", ".join(c.aliases)),
            "verdict": _verdict(cr.verdict), "verdict_value": cr.verdict.value, "evidence": _prose(cr.evidence),
            "seconds": f"{cr.seconds:.2f}", "printed": printed, "variants": variants, "controls": controls,
            "figures": [], "fails_as_printed": cr.printed.verdict.fails,
            "statement_differs": cr.printed.latex.strip() != s.printed.strip(),
            "good": next((v for v in variants if v["ok"]), None)}
    if out_dir is not None:
        stmts = [(printed, cr.printed)] + list(zip(variants, cr.variants)) + \
                [({"figures": []}, x) for x in cr.controls]
        view["figures"] = figures_for(cr, out_dir, stmts)
    return view


def _words(run: RunResult) -> set[str]:
    words: set[str] = set()
    for cr in run.results:
        words |= claim_words(cr.claim)
        for r in (cr.printed, *cr.variants, *cr.controls):
            words |= control_words(r.latex) | text_control_words(r.name)
            if r.symbolic is not None:
                for s in r.symbolic.steps:
                    words |= control_words(s.lhs_latex) | control_words(s.rhs_latex) | text_control_words(s.why)
            if r.numeric is not None:
                words |= text_control_words(r.numeric.note)
    return words


def rerun_command(run: RunResult, out_dir: str | Path | None = None) -> str:
    """A shell command that reproduces the run's report (claim ids, ``--paper`` or ``--all``; seed; trials)."""
    import shlex

    ids = [cr.id for cr in run.results]
    papers = sorted({cr.claim.paper for cr in run.results})
    if len(ids) <= 6:
        sel = ids
    elif len(papers) == 1:
        sel = ["--paper", papers[0]]
    else:
        sel = ["--all"]
    args = ["theorem-check", "report", *sel, "-o", str(out_dir) if out_dir is not None else "DIR",
            "--seed", str(run.seed), "--trials", str(run.trials)]
    if any(cr.controls for cr in run.results):
        args.append("--controls")
    return shlex.join(args)


def _tt(cmd: str) -> Tex:
    """A shell command for ``\\texttt``: escaped, ``--`` kept as two hyphens (no en dash), breakable at spaces."""
    return Tex(escape(cmd).replace("-", "-{}"))


def _context(run: RunResult, out_dir: Path | None, *, title: str | None, compact: bool = False,
             rerun: str | None = None, figures: bool = True, progress=None) -> dict:
    import jinja2 as _j

    claims = []
    for k, cr in enumerate(run.results):
        if progress is not None and figures and out_dir is not None:
            progress(k, len(run.results), cr.id)
        claims.append(_claim_view(cr, out_dir if figures else None))
    papers: list[dict] = []
    for cv, cr in zip(claims, run.results):
        if not papers or papers[-1]["key_raw"] != cr.claim.paper:
            papers.append({"key_raw": cr.claim.paper, "key": escape(cr.claim.paper), "claims": []})
        papers[-1]["claims"].append(cv)
    counts = run.counts()
    order = [v.value for v in Verdict]
    summary = Tex(", ".join(f"{n}~{_verdict(v)}" for v, n in sorted(counts.items(), key=lambda kv: order.index(kv[0]))))
    versions = dict(run.versions)
    try:
        import matplotlib

        versions.setdefault("matplotlib", matplotlib.__version__)
    except ImportError:  # pragma: no cover
        pass
    versions.setdefault("jinja2", _j.__version__)
    paper_names = ", ".join(p["key_raw"] for p in papers) or "no claims"
    return {
        "title": escape(title) if title else escape("Machine-checked claims: " + paper_names),
        "papers": papers, "claims": claims, "n_claims": len(claims), "summary": summary,
        "errata": [c for c in claims if c["fails_as_printed"] or c["verdict_value"] in ("ERRATUM", "REFUTED",
                                                                                        "ILL-POSED")],
        "inconclusive": [c for c in claims if c["verdict_value"] == "INCONCLUSIVE"],
        "seed": str(run.seed), "trials": str(run.trials), "started": escape(run.started.replace("T", " ")),
        "seconds": f"{run.seconds:.1f}", "versions": [(escape(k), escape(v)) for k, v in versions.items()],
        "skipped_slow": [escape(s) for s in run.skipped_slow], "version": escape(__version__),
        "macros": Tex(provide_macros(_words(run))), "controls_run": any(c["controls"] for c in claims),
        "max_rows": str(MAX_ROWS), "compact": compact,
        "verdict_styles": [{"key": _key(v.value), "name": v.value, "hex": info.hex, "meaning": escape(info.meaning)}
                           for v, info in VERDICTS.items()],
        "rerun": _tt(rerun if rerun is not None else rerun_command(run, out_dir)),
    }




OUTPUTS = ("report.tex", "report.pdf", "report.md", "report.json", "report.log", "report.aux", "report.out",
           "report.fls", "report.fdb_latexmk", "report.toc", "report.synctex.gz")
"""Files a report writes (or LaTeX leaves) in its folder; :func:`clean_out_dir` removes them."""


def clean_out_dir(out_dir: str | Path) -> list[Path]:
    """Remove the files of an older report from ``out_dir`` (only :data:`OUTPUTS` and ``figures/*.pdf|png``).

    Returns the removed paths.  Anything else in the folder is left alone.
    """
    out = Path(out_dir)
    removed = []
    for name in OUTPUTS:
        p = out / name
        if p.is_file():
            p.unlink()
            removed.append(p)
    figs = out / "figures"
    if figs.is_dir():
        for p in sorted(figs.iterdir()):
            if p.is_file() and p.suffix in (".pdf", ".png"):
                p.unlink()
                removed.append(p)
    return removed


def render_report(run: RunResult, out_dir: str | Path | None = None, *, title: str | None = None,
                  compact: bool = False, rerun: str | None = None, progress=None) -> str:
    """The LaTeX source of the report of ``run``; with ``out_dir``, figures are drawn there too.

    ``compact=True`` keeps the summary table and one box per erratum (no per-claim sections, no
    figures); ``rerun`` is the shell command printed for reproducing the report (default:
    :func:`rerun_command`); ``progress(k, n, claim_id)`` is called while figures are drawn.
    """
    env = _env()
    ctx = _context(run, Path(out_dir) if out_dir is not None else None, title=title, compact=compact, rerun=rerun,
                   figures=not compact, progress=progress)
    return env.get_template("report.tex.j2").render(**ctx)


def prepare_output(run_result: RunResult, out_dir: str | Path, *, pdf: bool = False, fmt: str | None = None,
                   progress=None):
    """Resolve the format (:func:`~theorem_check.output.report.choice.resolve_format`), create and clean
    ``out_dir``, write ``report.json``.

    Returns ``(out_dir as Path, figure-progress callback, fmt)``.  Raises InvalidArgument for a bad
    ``fmt``, NoLatexEngine when a PDF is asked for and latexmk is missing (before anything is written).
    """
    fmt = resolve_format(fmt, pdf)
    if fmt == "pdf":
        check_pdf_engine()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    clean_out_dir(out)

    def fig_progress(k, n, cid):
        if progress is not None:
            progress("figures", k, n)

    (out / "report.json").write_text(dumps(run_record(run_result, kind="report")) + "\n", encoding="utf-8")
    return out, fig_progress, fmt


def write_report(run_result: RunResult, out_dir: str | Path, *, pdf: bool = False, title: str | None = None,
                 compact: bool = False, fmt: str | None = None, rerun: str | None = None,
                 progress=None) -> Path:
    """Write ``out_dir/report.tex`` (+ ``report.json``, ``figures/``); compile it or write Markdown.

    Parameters
    ----------
    run_result : RunResult
        From :func:`theorem_check.run_claims` (controls included if they were run).
    out_dir : path
        Created if missing.  Files of an older report there (:data:`OUTPUTS`, ``figures/*``) are
        removed first (:func:`clean_out_dir`), so that no stale PDF or figure sits beside the new one.
    pdf : bool
        Compile ``report.pdf`` with latexmk (same as ``fmt="pdf"``); auxiliary files are removed
        after a successful compile (``report.log`` is kept).
    title : str, optional
        Plain-text title of the front page (default: the papers in the run).
    compact : bool
        Summary table and errata boxes only.
    fmt : {"tex", "pdf", "md"}, optional
        ``"md"`` writes ``report.md``: Markdown with ``$...$``/``$$...$$`` mathematics.
    rerun : str, optional
        The shell command printed as the way to reproduce the report.
    progress : callable(stage: str, k: int, n: int), optional
        Called as the report is drawn (``"figures"``) and compiled (``"latex"``).

    Returns
    -------
    Path
        ``report.pdf`` (pdf), ``report.md`` (md), else ``report.tex``.

    Raises
    ------
    InvalidArgument
        ``fmt`` is not one of :data:`FORMATS`, or ``fmt="md"`` with ``pdf=True``.
    NoLatexEngine
        PDF asked for and latexmk is not installed (checked before anything is written).
    LatexError
        LaTeX failed (the message names the line of ``report.tex`` and the log file).
    """
    from theorem_check.errors import InvalidArgument

    out, fig_progress, fmt = prepare_output(run_result, out_dir, pdf=pdf, fmt=fmt, progress=progress)
    if fmt == "md":
        raise InvalidArgument("fmt='md': use theorem_check.output.report.write_report, which writes Markdown "
                              "(theorem_check.output.report.markdown)")
    tex = out / "report.tex"
    tex.write_text(render_report(run_result, out, title=title, compact=compact, rerun=rerun, progress=fig_progress),
                   encoding="utf-8")
    if fmt == "pdf":
        if progress is not None:
            progress("latex", 0, 1)
        return compile_pdf(tex)
    return tex
