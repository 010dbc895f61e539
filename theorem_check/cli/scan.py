"""``theorem-check scan FILE``: a paper's numbered equations, classified; a pack skeleton; a coverage map.

``FILE`` is ``.tex``, ``.md`` or a plain-text export (any other suffix is read as plain text).  The table
lists each numbered equation (by its number, in reading order; numbers the prose cites whose display
is not in the text last) with its class (checkable, needs shapes, not an identity, unparsed) and a
short reason; a summary line goes to stderr.  ``--json`` prints the ``scan`` record (docs/json.md).
``--pack-out PACK.py`` writes an editable pack skeleton (:mod:`theorem_check.authoring.skeleton`).
``--paper prh|noise|cascade`` maps each equation to the built-in claims that cover it.  ``--run``
runs the checkable identities (the skeleton's live claims, in this process) and prints their table
after the scan's; the exit code is then ``run``'s (0 when all hold, 1 otherwise).

Identities are read by the LaTeX reader (``theorem_check.expr.latex``) when it is installed;
without it every identity is *unparsed* and says so.  Exit 0 after a scan; 2 for bad input (a
missing, unreadable or binary file, an unknown ``--paper``, an unwritable ``--pack-out``): one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from theorem_check.authoring.scan import scan_file
from theorem_check.authoring.skeleton import pack_key, pack_skeleton, skeleton_claims
from theorem_check.cli.options import color_option, plural, report_broken, result_table, use_colour
from theorem_check.errors import InvalidArgument
from theorem_check.output import terminal
from theorem_check.output.coverage import covered_scan, scan_record, scan_table, summary
from theorem_check.output.json_record import dumps

__all__ = ["scan"]

_BUILTIN = ("prh", "noise", "cascade")


@click.command()
@click.argument("file", type=click.Path(dir_okay=True))
@click.option("--json", "as_json", is_flag=True, help="Print the scan record (docs/json.md) instead of the table.")
@click.option("--pack-out", type=click.Path(), default=None,
              help="Write an editable pack skeleton: one tc.identity per checkable equation, the rest as TODOs.")
@click.option("--paper", default=None,
              help="Map each equation to the built-in claims of this paper that cover it (prh, noise, cascade).")
@click.option("--run", "run_", is_flag=True,
              help="Also run the checkable identities (the skeleton's live claims); exit 1 unless all hold.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --run.")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True, help="Instances per claim (--run).")
@color_option
def scan(file, as_json, pack_out, paper, run_, seed, trials):
    """The numbered equations of FILE (.tex, .md, plain text), classified.

    \b
    Classes:
      checkable        an identity (=) whose names all have declared shapes
      needs shapes     an identity with names no declaration gives a shape
      not an identity  :=, \\equiv, \\approx, \\propto, \\sim, inequalities, limits, \\to, cases
      unparsed         why: no LaTeX reader, a parse error, cited but not displayed
    \b
    Examples:
      theorem-check scan paper.tex
      theorem-check scan paper.tex --pack-out paper_claims.py
      theorem-check scan noise.txt --paper noise --json
    """
    if paper is not None and paper not in _BUILTIN:
        raise InvalidArgument(f"--paper={paper!r} must be one of {', '.join(_BUILTIN)}")
    result = scan_file(file)
    if paper is not None:
        result = covered_scan(result, paper)
    key = pack_key(Path(file).stem)
    if key in _BUILTIN:
        key += "_scan"
    run = None
    if run_:
        from theorem_check.engine.runner import run_claims

        run = run_claims(skeleton_claims(result, key), seed=seed, trials=trials)
    if pack_out is not None:
        text = pack_skeleton(result, key)
        try:
            Path(pack_out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InvalidArgument(f"--pack-out={pack_out!r} must be a writable file ({exc.strerror})") from None
    if as_json:
        rec = scan_record(result)
        if run is not None:
            rec["run"] = {r.claim.id: r.verdict.value for r in run.results}
        click.echo(dumps(rec))
    else:
        click.echo(scan_table(result, min(120, terminal.terminal_width(100))))
        if run is not None and run.results:
            colour = use_colour()
            click.echo("", color=colour)
            click.echo(result_table(run, colour=colour), color=colour)
    click.echo(summary(result) + (f"; skeleton written to {pack_out}" if pack_out else ""), err=True)
    if run is not None:
        click.echo(f"--run: {plural(len(run.results), 'claim')} (checkable identities) run"
                   + ("".join(f", {n} {v}" for v, n in run.counts().items())), err=True)
        report_broken(run)
        sys.exit(run.exit_code if run.results else 0)
