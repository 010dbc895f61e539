"""LaTeX derivation reports (``theorem-check report ... -o DIR [--pdf]``), figures, figure specs.

>>> from theorem_check import run_claims          # doctest: +SKIP
>>> from theorem_check.output.report import write_report  # doctest: +SKIP
>>> write_report(run_claims(claims, seed=0), "out", pdf=True)   # -> Path("out/report.pdf")  # doctest: +SKIP
>>> write_report(run, "out", fmt="md", compact=True)           # -> Path("out/report.md")   # doctest: +SKIP

``write_report`` needs the ``[report]`` extra (Jinja2, matplotlib); ``pdf=True`` needs latexmk
(TeX Live).  The figure convention for custom checks lives in :mod:`.figspec`, which imports
neither, so claim code and its tests can validate plot data without the extra.  Attributes are
loaded lazily for that reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["write_report", "render_report", "render_markdown", "clean_out_dir", "check_pdf_engine", "overfull_boxes",
           "LatexError", "NoLatexEngine", "validate_figure"]

if TYPE_CHECKING:  # pragma: no cover
    from theorem_check.output.report.compile import LatexError, NoLatexEngine, check_pdf_engine, overfull_boxes
    from theorem_check.output.report.figspec import validate_figure
    from theorem_check.output.report.formats import write_report
    from theorem_check.output.report.markdown import render_markdown
    from theorem_check.output.report.writer import clean_out_dir, render_report

_WHERE = {"write_report": "formats", "render_report": "writer", "render_markdown": "markdown", "clean_out_dir": "writer",
          "overfull_boxes": "compile", "check_pdf_engine": "compile",
          "LatexError": "compile", "NoLatexEngine": "compile", "validate_figure": "figspec"}


def __getattr__(name: str):
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
