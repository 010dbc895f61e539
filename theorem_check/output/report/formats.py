"""``write_report``: the one entry point for every report format (LaTeX, PDF, Markdown).

Dispatches to :func:`theorem_check.output.report.writer.write_report` (``tex``, ``pdf``) or
:func:`theorem_check.output.report.markdown.write_markdown` (``md``), so that neither renderer imports the other.
"""

from __future__ import annotations

from pathlib import Path

from theorem_check.output.report import markdown, writer
from theorem_check.output.report.choice import resolve_format

__all__ = ["write_report", "FORMATS"]

from theorem_check.output.report.choice import FORMATS  # noqa: E402 - the table, re-exported


def write_report(run_result, out_dir: str | Path, *, pdf: bool = False, title: str | None = None,
                 compact: bool = False, fmt: str | None = None, rerun: str | None = None, progress=None) -> Path:
    """Write the report of ``run_result`` into ``out_dir`` in format ``fmt`` (``tex`` default, ``pdf``, ``md``).

    Same parameters, return value and errors as :func:`theorem_check.output.report.writer.write_report`;
    ``fmt="md"`` writes ``report.md`` (Markdown with ``$...$`` mathematics).
    """
    fmt = resolve_format(fmt, pdf)
    if fmt == "md":
        return markdown.write_markdown(run_result, out_dir, title=title, compact=compact, rerun=rerun,
                                       progress=progress)
    return writer.write_report(run_result, out_dir, pdf=pdf, title=title, compact=compact, fmt=fmt, rerun=rerun,
                               progress=progress)
