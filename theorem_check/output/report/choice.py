"""The report formats, in one table, and the one place a requested format is validated.

``report --format`` offers the keys of :data:`FORMATS`; :func:`resolve_format` turns ``--format`` and
``--pdf`` into one format name (or one error) for every writer.
"""

from __future__ import annotations

from theorem_check.errors import InvalidArgument

__all__ = ["FORMATS", "resolve_format"]

FORMATS = {
    "tex": "DIR/report.tex (LaTeX) and figures",
    "pdf": "also compile DIR/report.pdf with latexmk (needs TeX Live)",
    "md": "DIR/report.md (Markdown with $...$ mathematics, for OpenReview and GitHub)",
}
"""Report format name -> what it writes (the ``--format`` help lists these)."""


def resolve_format(fmt: str | None, pdf: bool = False) -> str:
    """The format to write: ``fmt``, else ``"pdf"`` when ``pdf`` else ``"tex"``.

    Raises InvalidArgument when ``fmt`` is not a key of :data:`FORMATS` or contradicts ``pdf=True``.
    """
    if fmt is None:
        return "pdf" if pdf else "tex"
    if fmt not in FORMATS:
        raise InvalidArgument(f"fmt={fmt!r} must be one of {', '.join(FORMATS)}")
    if pdf and fmt != "pdf":
        raise InvalidArgument(f"fmt={fmt!r} and pdf=True contradict each other")
    return fmt
