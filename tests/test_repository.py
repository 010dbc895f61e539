"""The shipped sources and docs carry no leftover merge-conflict markers (one slipped into
docs/dependencies.md once), and ruff (pyflakes and import order, configured in pyproject.toml) finds nothing."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_ruff_finds_nothing():
    """``ruff check`` over the repository (rules in pyproject.toml: F pyflakes, I import order): 0 findings."""
    cmd = [sys.executable, "-m", "ruff"] if shutil.which("ruff") is None else ["ruff"]
    try:
        out = subprocess.run([*cmd, "check", "--no-cache", "--output-format", "concise", "."], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        pytest.fail("ruff is not installed: it is in the [test] extra (pip install '.[test]')")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]


def test_no_source_file_has_an_invalid_escape():
    """helper-46: ``\\o`` in a docstring of expr/printing.py warned (DeprecationWarning) in every pytest run of a
    user's pack, and ``-W error`` turned it into a SyntaxError."""
    import warnings
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    bad = []
    for path in [*root.glob("theorem_check/**/*.py"), *root.glob("derivations/**/*.py"), *root.glob("tests/**/*.py"),
                 *root.glob("examples/*.py")]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                compile(path.read_text(encoding="utf-8"), str(path), "exec")
            except SyntaxError as exc:
                bad.append(f"{path.relative_to(root)}: {exc}")
    assert not bad, bad
