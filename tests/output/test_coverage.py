"""The coverage map of docs/coverage.md and the scan table (theorem_check.output.coverage)."""

import io
from contextlib import redirect_stderr, redirect_stdout

from tests.authoring.scan_fakes import FIXTURES, fake_parse
from theorem_check.authoring.scan import scan_file
from theorem_check.output.coverage import coverage_markdown, covered_scan, main, scan_record, scan_table, summary


def test_markdown_map():
    s = covered_scan(scan_file(FIXTURES / "notes.md", parse=fake_parse), "noise")
    md = coverage_markdown({"noise": s})
    assert "## noise" in md and "| (2) | `:=` | not an identity | `noise.eq2` |" in md
    assert "| (9) | cited | unparsed |" in md
    assert "6 equation numbers" in md


def test_table_summary_record():
    s = scan_file(FIXTURES / "paper.tex", parse=fake_parse)
    table = scan_table(s, width=80)
    assert all(len(ln) <= 80 for ln in table.splitlines())
    assert "8 numbered equations: 5 checkable, 1 needs shapes, 2 not an identity, 0 unparsed" == summary(s)
    rec = scan_record(s)
    assert rec["counts"]["checkable"] == 5 and rec["reader"] is True


def test_main_arguments():
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["prh"]) == 2
    assert "argument='prh' must read PAPER=PATH" in err.getvalue()
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([f"prh={FIXTURES / 'export.txt'}"]) == 0
    assert "## prh" in out.getvalue() and "| (12) | cited | unparsed | - |" in out.getvalue()


def test_docs_coverage_map_names_the_current_claims():
    """docs/coverage.md (generated from the papers' texts, which are not in the repository) still names,
    for each equation row, exactly the built-in claims that cover it: a claim added, renamed or
    re-sourced shows here until the map is regenerated."""
    import re
    from pathlib import Path

    from theorem_check.authoring.coverage import claim_map
    from theorem_check.authoring.registry import REGISTRY, load_builtin

    load_builtin()
    doc = (Path(__file__).resolve().parents[2] / "docs" / "coverage.md").read_text(encoding="utf-8")
    paper, rows = None, 0
    for line in doc.splitlines():
        if line.startswith("## "):
            paper = line[3:].strip()
            cmap = claim_map(REGISTRY.by_paper(paper))
        m = re.match(r"\| \(([^)]+)\) \| [^|]* \| [^|]* \| ([^|]*) \|", line)
        if m and paper:
            rows += 1
            named = tuple(re.findall(r"`([^`]+)`", m.group(2)))
            assert named == cmap.get(m.group(1), ()), f"{paper} ({m.group(1)}): regenerate docs/coverage.md"
    assert rows >= 23 + 132 + 12
