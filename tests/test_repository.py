"""The shipped sources and docs carry no leftover merge-conflict markers (one slipped into
docs/dependencies.md once)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^(<{7}|>{7})( |$)", re.M)


def test_no_merge_conflict_markers():
    files = [p for pattern in ("*.md", "*.py", "*.toml", "*.json", "*.tex", "*.j2")
             for d in ("docs", "theorem_check", "derivations", "tests", "benchmarks", "examples", ".")
             for p in ((ROOT / d).rglob(pattern) if d != "." else ROOT.glob(pattern))]
    bad = [f"{p.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
           for p in files for text in [p.read_text(encoding="utf-8", errors="replace")]
           for m in MARKER.finditer(text)]
    assert not bad, "merge-conflict markers at " + ", ".join(bad)
