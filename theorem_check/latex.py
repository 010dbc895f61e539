"""LaTeX blocks for single claims (``theorem-check show ID --latex``, notebooks).

Every user-supplied plain-text string goes through :func:`escape`; statement fields that are
LaTeX already (``printed``, ``latex``) are placed in math mode as given.
"""

from __future__ import annotations

from .claims import Claim

__all__ = ["escape", "claim_latex"]

_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
             "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def escape(text: str) -> str:
    """Escape LaTeX specials in plain text (``_ ^ & % # { } \\ ~ $``)."""
    return "".join(_SPECIALS.get(ch, ch) for ch in str(text))


def claim_latex(claim: Claim) -> str:
    """A self-contained LaTeX block describing ``claim`` (statement as printed and its variants)."""
    s = claim.source
    lines = [rf"\paragraph{{\texttt{{{escape(claim.id)}}}: {escape(claim.title)}}}",
             rf"Source: {escape(s.paper)}, Section {escape(s.section)}, {escape(s.equation)}.",
             r"\begin{equation*}", s.printed, r"\end{equation*}"]
    if claim.assumptions:
        lines.append(r"\begin{itemize}")
        lines += [rf"\item {escape(a)}" for a in claim.assumptions]
        lines.append(r"\end{itemize}")
    for v in claim.variants:
        lines += [rf"\noindent {escape(v.kind.capitalize())} ({escape(v.name)}):", r"\begin{equation*}", v.latex,
                  r"\end{equation*}"]
    return "\n".join(lines)
