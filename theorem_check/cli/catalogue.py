"""``theorem-check list`` and ``theorem-check show``: the catalogue, a line per claim, and one claim in full."""

from __future__ import annotations

import textwrap

import click

from theorem_check.authoring.registry import REGISTRY, resolve
from theorem_check.cli.options import color_option, load_claims, plural
from theorem_check.output import terminal
from theorem_check.output.unicode_math import cut_words, text_to_unicode, to_unicode

__all__ = ["list_cmd", "show", "describe", "list_lines", "LIST_COLUMNS"]


@click.command("list")
@click.option("--paper", help="Only this paper's claims (prh, noise, cascade, or a pack's key).")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Also load claims from this .py file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@color_option
def list_cmd(paper, packs, as_json):
    """List every claim, one line each (at most 100 columns; --json has every field)."""
    from theorem_check.output.json_record import dumps, list_record

    load_claims(packs)
    claims = REGISTRY.by_paper(paper) if paper is not None else list(REGISTRY)
    if as_json:
        click.echo(dumps(list_record(claims)))
        return
    for line in list_lines(claims, min(LIST_COLUMNS, terminal.terminal_width(LIST_COLUMNS))):
        click.echo(line)
    click.echo(plural(len(claims), "claim"), err=True)


LIST_COLUMNS = 100
"""``list`` lines never exceed this many columns (fewer on a narrower terminal)."""


def list_lines(claims, columns: int) -> list[str]:
    """One line per claim: id, equation label (cut at 22 characters), title (maths in Unicode, cut at a word) and
    aliases cut to fit."""
    columns = max(columns, 60)
    width = max([len(c.id) for c in claims] + [2])
    eq_width = min(max([len(c.source.equation) for c in claims] + [2]), 22)
    out = []
    for c in claims:
        eq = c.source.equation if len(c.source.equation) <= eq_width else c.source.equation[: eq_width - 3] + "..."
        extra = f"  [{', '.join(c.aliases)}]" if c.aliases else ""
        extra += "  (slow)" if c.slow else ""
        head = f"{c.id:<{width}}  {eq:<{eq_width}}  "
        room = columns - len(head)
        full = text_to_unicode(c.title)   # maths as Unicode, then cut at a word boundary (never inside a macro)
        title_room = max(room - len(extra), min(len(full), 40))  # the title first, then aliases
        title = cut_words(full, title_room)
        left = room - len(title)
        if len(extra) > left:  # keep whole aliases that fit, count the others
            slow_tag = "  (slow)" if c.slow else ""
            for k in range(len(c.aliases), -1, -1):
                shown = list(c.aliases[:k]) + ([f"+{len(c.aliases) - k}"] if k < len(c.aliases) else [])
                extra = f"  [{', '.join(shown)}]{slow_tag}"
                if len(extra) <= left:
                    break
            else:
                extra = ""
            if len(extra) > left:
                extra = ""
        out.append(head + title + extra)
    return out


@click.command()
@click.argument("claim_id")
@click.option("--pack", "packs", multiple=True, type=click.Path(), help="Also load claims from this .py file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the claim's LaTeX block alone (raw, not wrapped).")
@color_option
def show(claim_id, packs, as_json, as_latex):
    """Statement as printed, assumptions, derivation steps, corrected forms, controls.

    Lines are wrapped to the terminal width; derivation steps are shown in SymPy's plain notation
    (--latex gives the LaTeX block, unwrapped, for pasting).
    """
    from theorem_check.output.json_record import dumps, show_record

    if as_json and as_latex:
        raise click.UsageError("give --json or --latex, not both")
    load_claims(packs)
    claims = resolve([claim_id])
    if as_json:
        click.echo(dumps(show_record(claims)))
        return
    if as_latex:
        from theorem_check.output.latex import claim_latex

        for c in claims:
            click.echo(claim_latex(c))
        return
    columns = max(60, terminal.terminal_width(100))
    for c in claims:
        click.echo(describe(c, columns=columns))


def describe(c, *, columns: int = 100) -> str:
    """The ``show`` text of a claim, every line at most ``columns`` wide, its maths in Unicode (``show --latex``
    prints the LaTeX)."""
    import sympy as sp

    def para(text: str, indent: int, hang: int = 2) -> list[str]:
        return textwrap.wrap(" ".join(str(text).split()), width=columns, initial_indent=" " * indent,
                             subsequent_indent=" " * (indent + hang), break_on_hyphens=False) or [""]

    s = c.source
    lines = para(f"{c.id}: {text_to_unicode(c.title)}", 0, 4)
    lines += para(f"source: {s.paper}, section {s.section}, {s.equation}", 2)
    lines += para(f"as printed: {to_unicode(s.printed)}", 2, 4)
    if c.aliases:
        lines += para(f"aliases: {', '.join(c.aliases)}", 2)
    for a in c.assumptions:
        lines += para(f"assume: {text_to_unicode(a)}", 2, 4)
    for st in c.statements():
        lines += para(f"[{st.kind}] {text_to_unicode(st.name)}: {to_unicode(st.latex)}", 2, 4)
        if st.note:
            lines += para(text_to_unicode(st.note), 6, 0)
        d = st.derivation() if st.derivation is not None else None
        if d is not None:
            scope = "all sizes" if d.general else text_to_unicode(f"fixed sizes {d.sizes}")
            lines += para(f"derivation ({len(d.steps)} steps, {scope}):", 6)
            for k, step in enumerate(d.steps, 1):
                why = f"   [{text_to_unicode(step.why)}]" if step.why else ""
                lines += para(f"{k}. {sp.sstr(step.lhs)} = {sp.sstr(step.rhs)}{why}", 7, 3)
    for ctl in c.controls:
        lines += para(f"[control] {text_to_unicode(ctl.name)}", 2, 4)
    return "\n".join(lines)


