"""Compiling ``report.tex`` to PDF with latexmk (TeX Live), and the errors it can raise."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from theorem_check.errors import TheoremCheckError

__all__ = ["NoLatexEngine", "LatexError", "check_pdf_engine", "compile_pdf", "overfull_boxes", "INSTALL_HINT",
           "AUX_EXTENSIONS", "clean_aux"]

INSTALL_HINT = ("install TeX Live and latexmk (Debian: apt-get install texlive-latex-base "
                "texlive-latex-recommended texlive-latex-extra latexmk), or drop --pdf to write report.tex only")


class NoLatexEngine(TheoremCheckError, RuntimeError):
    """``--pdf`` was asked for but latexmk is not on the PATH (the CLI exits 2)."""


class LatexError(TheoremCheckError, RuntimeError):
    """LaTeX stopped on an error; the message names the line of ``report.tex`` and the log."""


def check_pdf_engine() -> str:
    """Path of latexmk; raises NoLatexEngine with a one-line message when it is missing."""
    exe = shutil.which("latexmk")
    if exe is None or shutil.which("pdflatex") is None:
        raise NoLatexEngine(f"--pdf needs latexmk and pdflatex, which are not installed: {INSTALL_HINT}")
    return exe


def _first_error(log: str) -> str:
    m = re.search(r"^(?:\./)?([^\s:]+\.tex):(\d+): (.*)$", log, re.M)
    if m:
        return f"{m.group(1)} line {m.group(2)}: {m.group(3).strip()}"
    m = re.search(r"^! (.*)$", log, re.M)
    return m.group(1).strip() if m else "unknown error"


def compile_pdf(tex: Path, *, timeout: float = 600.0) -> Path:
    """Run ``latexmk -pdf`` on ``tex`` in its directory; returns the PDF's path.

    Raises NoLatexEngine when latexmk is missing, LatexError (first error and log path) when
    LaTeX fails or times out.  Auxiliary files are removed however the compile ends (success,
    error, time-out, Ctrl-C): see :func:`clean_aux`.
    """
    exe = check_pdf_engine()
    tex = Path(tex)
    cmd = [exe, "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error", "-silent", tex.name]
    try:
        proc = subprocess.run(cmd, cwd=tex.parent, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        clean_aux(tex)
        raise LatexError(f"latexmk did not finish in {timeout:.0f} s on {tex}") from None
    except BaseException:   # Ctrl-C (subprocess.run has killed latexmk): leave no auxiliary files behind
        clean_aux(tex)
        raise
    pdf = tex.with_suffix(".pdf")
    log_path = tex.with_suffix(".log")
    if proc.returncode != 0 or not pdf.is_file():
        log = log_path.read_text(errors="replace") if log_path.is_file() else proc.stdout + proc.stderr
        clean_aux(tex)
        raise LatexError(f"LaTeX failed on {_first_error(log)} (full log: {log_path})")
    clean_aux(tex)   # after a successful compile: keep the PDF and the log, nothing else
    return pdf


def clean_aux(tex: str | Path) -> list[Path]:
    """Remove the auxiliary files (:data:`AUX_EXTENSIONS`) latexmk/pdfLaTeX left beside ``tex``.

    Called after every compile: on success, on a LaTeX error or time-out (the ``.log`` stays,
    the error message names it) and on an interrupt (Ctrl-C).  Returns the paths removed.
    """
    tex = Path(tex)
    gone = []
    for ext in AUX_EXTENSIONS:
        aux = tex.with_suffix(ext)
        try:
            aux.unlink()
        except FileNotFoundError:
            continue
        except OSError:   # a file we cannot remove is left, never an error on top of the first
            continue
        gone.append(aux)
    return gone


AUX_EXTENSIONS = (".aux", ".out", ".fls", ".fdb_latexmk", ".toc", ".synctex.gz")
"""latexmk/pdfLaTeX auxiliary files removed after a successful compile (``.log`` stays: overfull boxes, warnings)."""


def overfull_boxes(log: str | Path) -> list[float]:
    """Widths (pt) by which each ``Overfull \\hbox`` of a LaTeX log sticks out, in log order."""
    text = Path(log).read_text(errors="replace") if isinstance(log, Path) else str(log)
    return [float(x) for x in re.findall(r"^Overfull \\hbox \(([0-9.]+)pt too wide\)", text, re.M)]
