"""Markdown reports (``theorem-check report ... --format md``) for OpenReview and GitHub.

The same results as the LaTeX report, as Markdown whose mathematics is ``$...$`` (inline) and
``$$...$$`` (display, on lines of their own), which OpenReview's MathJax and GitHub's renderer
typeset.  Claim math is sanitised by :func:`theorem_check.output.latex.math` and the paper macros that
MathJax does not know (``\\tr``, ``\\norm{x}``, ...) are expanded; text outside math has its
Markdown specials escaped.  ``|`` inside math is written ``\\vert`` so that tables survive.

Layout: title, run line, summary table, the rerun command, errata (as printed, counterexample,
corrected form, evidence), then, unless ``compact``, one section per claim (statement,
assumptions, derivation steps, instances, verdict, figures as ``figures/*.png``).
"""

from __future__ import annotations

import re
from pathlib import Path

from theorem_check._version import __version__
from theorem_check.engine.runner import ClaimResult, RunResult, StatementResult
from theorem_check.model.verdicts import Verdict
from theorem_check.output.latex import dims_text, md_math, md_text, prose_dicts, retex, statement_title
from theorem_check.output.report.writer import figures_for, prepare_output, rerun_command, short_name

__all__ = ["render_markdown", "write_markdown", "MAX_STEP_CHARS"]

MAX_STEP_CHARS = 1500
"""A derivation step longer than this (LaTeX characters) is summarised, not printed (see report.json)."""
_MAX_ROWS = 8


def _inline(tex: str) -> str:
    """Inline math safe inside Markdown tables: ``|`` as ``\\vert``."""
    tex = tex.replace(r"\|", r"\Vert ").replace("|", r"\vert ")
    return f"${tex}$"


def _display(src: str, *, step: tuple[str, str] | None = None) -> list[str]:
    """A ``$$...$$`` block (or a code block with the reason when the math cannot be typeset)."""
    if step is not None:
        lhs, rhs = (md_math(retex(x)) for x in step)
        tex = f"{lhs} = {rhs}" if lhs is not None and rhs is not None else None
        raw = f"{step[0]} = {step[1]}"
    else:
        tex, raw = md_math(src), src
    if tex is None:
        return ["```text", " ".join(raw.split()), "```"]
    return ["$$", tex, "$$"]


def _fmt(x) -> str:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return md_text(str(x))
    if x == 0:
        return "$0$"
    if x != x:
        return "NaN"
    if abs(x) == float("inf"):
        return r"$\infty$"
    if 1e-3 <= abs(x) < 1e4:
        return f"${x:.3g}$"
    mant, exp = f"{x:.1e}".split("e")
    return f"${mant}\\times 10^{{{int(exp)}}}$"


def _prose(s: str) -> str:
    return md_text(prose_dicts(s))


def _where(c) -> str:
    s = c.source
    return md_text(("§" if s.section[:1].isdigit() else "") + s.section + ", " + s.equation)


def _label(r: StatementResult) -> str:
    return f"**{md_text(statement_title(r.name, r.kind))}**"


def _cex(r: StatementResult) -> str:
    num = r.numeric
    if num is not None and num.ill_posed:
        return "Shapes do not conform: " + _prose(num.ill_posed) + "."
    if num is not None and num.counterexample is not None:
        c = num.counterexample
        out = f"Counterexample: {md_text(dims_text(c.dims))}, seed {c.seed}"
        if c.residuals:
            out += "; residual " + ", ".join(f"{md_text(k)} {_fmt(v)}" for k, v in c.residuals.items())
        out += "."
        if c.detail:
            out += " " + _prose(c.detail) + "."
        return out
    return _prose(r.evidence) + "."


def _erratum(cr: ClaimResult) -> list[str]:
    c = cr.claim
    out = [f"### `{c.id}`: {md_text(c.title)}", "",
           f"{md_text(c.source.paper)}, {_where(c)}. Verdict **{cr.verdict.value}**.", "",
           f"**As printed** ({cr.printed.verdict.value}):", "", *_display(cr.printed.latex), "", _cex(cr.printed), ""]
    good = next((v for v in cr.variants if v.verdict.ok), None)
    if good is not None:
        out += [f"{_label(good)} ({good.verdict.value}):", "", *_display(good.latex), "", _prose(good.evidence) + ".", ""]
    elif cr.variants:
        out += ["No corrected form holds: " + "; ".join(f"{_label(v)}: {v.verdict.value}" for v in cr.variants)
                + ".", ""]
    else:
        out += ["The claim gives no corrected form.", ""]
    return out


def _numeric_table(r: StatementResult) -> list[str]:
    num = r.numeric
    if num is None or not num.instances:
        return []
    levels: list[str] = []
    for i in num.instances:
        for k in i.residuals:
            if k not in levels:
                levels.append(k)
    head = ["#", "dims", "seed", *[md_text(lv) for lv in levels], "outcome"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k, i in enumerate(num.instances[:_MAX_ROWS], 1):
        cells = [str(k), md_text(dims_text(i.dims)), str(i.seed),
                 *[_fmt(i.residuals[lv]) if lv in i.residuals else "–" for lv in levels],
                 i.outcome.value + (" (vacuous)" if i.vacuous else "")]   # its residual ~1 says nothing (helper-63)
        out.append("| " + " | ".join(cells) + " |")
    if len(num.instances) > _MAX_ROWS:
        out += ["", f"{len(num.instances) - _MAX_ROWS} more instances (see `report.json`)."]
    return out + [""]


def _statement(r: StatementResult, heading: str) -> list[str]:
    out = [heading, ""] if heading else []
    sym = r.symbolic
    if sym is not None and sym.steps:
        scope = ("valid for every size" if sym.general else
                 f"explicit matrices of fixed sizes ({_prose(sym.sizes)}): exact evidence at these sizes")
        out += [f"**Derivation** ({len(sym.steps)} steps, {scope}):", ""]
        for k, s in enumerate(sym.steps, 1):
            mark = "" if s.closed else " **(does not close)**"
            out.append(f"{k}. {md_text(s.why) if s.why else 'step'}{mark}")
            if len(s.lhs_latex) + len(s.rhs_latex) > MAX_STEP_CHARS:
                out += ["", f"   (step of {len(s.lhs_latex) + len(s.rhs_latex)} characters, see `report.json`)", ""]
            else:
                out += ["", *["   " + x for x in _display("", step=(s.lhs_latex, s.rhs_latex))], ""]
        out.append("")
    out += _numeric_table(r)
    out += [f"**Verdict:** {r.verdict.value}. {_prose(r.evidence)}.", ""]
    return out


def _figures(cr: ClaimResult, out_dir: Path | None) -> list[str]:
    if out_dir is None:
        return []

    stmts = [({"figures": [], "numeric": None}, r) for r in (cr.printed, *cr.variants, *cr.controls)]
    figs = figures_for(cr, out_dir, stmts)
    files = [f["file"] for f in figs if f.get("file")]
    files += [f["file"] for v, _ in stmts for f in v["figures"] if f.get("file")]
    return [f"![{cr.id}: figure {k}](figures/{name}.png)" for k, name in enumerate(files, 1)] + ([""] if files else [])


def _claim(cr: ClaimResult, out_dir: Path | None) -> list[str]:
    c = cr.claim
    out = [f"### `{c.id}`: {md_text(c.title)}", "",
           f"{md_text(c.source.paper)}, {_where(c)}" + (f" (aliases: `{', '.join(c.aliases)}`)" if c.aliases else "")
           + f". Verdict **{cr.verdict.value}**.", "", "**Statement as printed:**", "", *_display(c.source.printed), ""]
    if c.assumptions:
        out += ["**Assumptions and conventions:**", "", *[f"- {md_text(a)}" for a in c.assumptions], ""]
    if cr.printed.latex.strip() != c.source.printed.strip():
        out += ["As checked:", "", *_display(cr.printed.latex), ""]
    out += _statement(cr.printed, "#### Checking the statement as printed" if cr.variants else "")
    for v in cr.variants:
        out += [f"#### {_label(v).replace('**', '')}", "", *_display(v.latex), ""]
        out += _statement(v, "")
    if cr.controls:
        out += ["**Negative controls** (each must be refuted):", "", "| control | verdict | evidence |", "|---|---|---|"]
        for x in cr.controls:

            out.append(f"| {md_text(short_name(x.name, 'control') or x.name)} | {x.verdict.value} | {_prose(x.evidence)} |")
        out.append("")
    return out + _figures(cr, out_dir)


def render_markdown(run: RunResult, out_dir: str | Path | None = None, *, title: str | None = None,
                    compact: bool = False, rerun: str | None = None, progress=None) -> str:
    """Markdown for ``run`` (see the module docstring); with ``out_dir`` and not ``compact``, figures are drawn there.

    ``progress(k, n, claim_id)`` is called per claim while figures are drawn.
    """

    out_dir = Path(out_dir) if out_dir is not None else None
    papers: list[str] = []
    for cr in run.results:
        if cr.claim.paper not in papers:
            papers.append(cr.claim.paper)
    counts = run.counts()
    order = [v.value for v in Verdict]
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda kv: order.index(kv[0])))
    out = [f"# {md_text(title) if title else 'Machine-checked claims: ' + md_text(', '.join(papers) or 'no claims')}", "",
           f"theorem-check {__version__} · seed {run.seed} · {run.trials} trials per statement · "
           f"{run.started.replace('T', ' ')}", "", "## Summary", ""]
    if not run.results:
        out += ["This report contains no claims.", ""]
    else:
        out += [f"{len(run.results)} claim{'s' if len(run.results) != 1 else ''} checked in {run.seconds:.1f} s: "
                f"{summary}.", ""]
        if run.skipped_slow:
            out += ["Slow simulations not run (use `--slow`): " + ", ".join(f"`{s}`" for s in run.skipped_slow) + ".", ""]
        out += ["| claim | source | title | verdict |", "|---|---|---|---|"]
        for cr in run.results:
            out.append(f"| `{cr.id}` | {_where(cr.claim)} | {md_text(cr.claim.title)} | **{cr.verdict.value}** |")
        out.append("")
    out += ["Same seed, same evidence; rerun with", "", "```sh",
            rerun if rerun is not None else rerun_command(run, out_dir), "```", "",
            "The full record is in `report.json`.", "", "## Errata", ""]
    errata = [cr for cr in run.results if cr.printed.verdict.fails or cr.verdict.value in ("ERRATUM", "REFUTED",
                                                                                         "ILL-POSED")]
    if errata:
        out += ["Statements that fail as printed, each with its corrected form when the claim gives one that holds.", ""]
        for cr in errata:
            out += _erratum(cr)
    else:
        out += ["No statement in this report fails as printed.", ""]
    inconclusive = [cr.id for cr in run.results if cr.verdict.value == "INCONCLUSIVE"]
    if inconclusive:
        out += ["Inconclusive (neither confirmed nor refuted): " + ", ".join(f"`{x}`" for x in inconclusive) + ".", ""]
    if not compact:
        for paper in papers:
            out += [f"## Claims of `{paper}`", ""]
            for k, cr in enumerate(run.results):
                if cr.claim.paper != paper:
                    continue
                if progress is not None and out_dir is not None:
                    progress(k, len(run.results), cr.id)
                out += _claim(cr, out_dir)
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


def write_markdown(run_result: RunResult, out_dir: str | Path, *, title: str | None = None, compact: bool = False,
                   rerun: str | None = None, progress=None) -> Path:
    """Write ``out_dir/report.md`` (+ ``report.json``, ``figures/``): see :func:`render_markdown`."""
    out, fig_progress, _ = prepare_output(run_result, out_dir, fmt="md", progress=progress)
    md = out / "report.md"
    md.write_text(render_markdown(run_result, out, title=title, compact=compact, rerun=rerun, progress=fig_progress),
                  encoding="utf-8")
    return md
