"""compile_pdf leaves no auxiliary files behind, however latexmk ends (issue 23: Ctrl-C during the LaTeX step)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from theorem_check.output.report.compile import AUX_EXTENSIONS, LatexError, clean_aux, compile_pdf

_AUX = (".aux", ".fls", ".fdb_latexmk", ".out")


def _fake_tex(tmp_path: Path, body: str) -> dict:
    """A PATH whose latexmk writes the auxiliary files and then runs ``body`` (pdflatex only has to exist)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    latexmk = bin_dir / "latexmk"
    touch = " ".join(f"report{e}" for e in _AUX)
    latexmk.write_text(f"#!/bin/sh\ntouch {touch}\n{body}\n")
    (bin_dir / "pdflatex").write_text("#!/bin/sh\nexit 0\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_sigint_during_latex_removes_aux_files(tmp_path):
    env = _fake_tex(tmp_path, "exec sleep 30")
    work = tmp_path / "out"
    work.mkdir()
    (work / "report.tex").write_text("\\documentclass{article}\\begin{document}x\\end{document}\n")
    code = ("import sys; from theorem_check.output.report.compile import compile_pdf; "
            f"compile_pdf({str(work / 'report.tex')!r})")
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parents[2],
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # as in a terminal,
    try:                            # also where pytest runs as a background job (SIGINT ignored, and inherited)
        deadline = time.monotonic() + 20
        while not all((work / f"report{e}").exists() for e in _AUX):
            assert time.monotonic() < deadline, "the fake latexmk never ran"
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)   # what Ctrl-C does: the whole foreground group
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode != 0
    assert b"KeyboardInterrupt" in err
    left = sorted(p.name for p in work.iterdir())
    assert left == ["report.tex"], left


def test_latex_failure_removes_aux_files_and_keeps_the_log(tmp_path, monkeypatch):
    env = _fake_tex(tmp_path, "echo './report.tex:9: Undefined control sequence.' > report.log; exit 12")
    monkeypatch.setenv("PATH", env["PATH"])
    tex = tmp_path / "report.tex"
    tex.write_text("x")
    with pytest.raises(LatexError, match="report.tex line 9"):
        compile_pdf(tex)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["report.log", "report.tex"]


def test_clean_aux_removes_only_aux_files(tmp_path):
    tex = tmp_path / "report.tex"
    for e in (".tex", ".pdf", ".log", *AUX_EXTENSIONS):
        tex.with_suffix(e).write_text("")
    gone = clean_aux(tex)
    assert sorted(p.suffix for p in gone) == sorted(Path("x" + e).suffix for e in AUX_EXTENSIONS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.log", "report.pdf", "report.tex"]
