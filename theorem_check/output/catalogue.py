"""The claim catalogue (``docs/catalogue.md``), generated from the registry.

Regenerate with ``python -m theorem_check.output.catalogue > docs/catalogue.md``; a test fails when
the checked-in file is stale.
"""

from __future__ import annotations

from theorem_check.authoring.registry import REGISTRY, load_builtin

__all__ = ["render_catalogue"]


def _cell(text: str) -> str:
    return str(text).replace("|", r"\|").replace("\n", " ")


def render_catalogue() -> str:
    """Markdown: one table per paper (id, source, title, variants, controls)."""
    load_builtin()
    out = ["# Claim catalogue", "", "Generated from the registry by `python -m theorem_check.output.catalogue`; do not edit.", ""]
    for paper in REGISTRY.papers():
        claims = REGISTRY.by_paper(paper)
        out += [f"## `{paper}` ({len(claims)} claims)", "",
                "| id | source | title | variants | controls |", "| --- | --- | --- | --- | --- |"]
        for c in claims:
            src = f"§{c.source.section}, {c.source.equation}"
            variants = ", ".join(v.name if v.name.startswith(v.kind) else f"{v.kind}: {v.name}"
                                 for v in c.variants) or "—"
            controls = ", ".join(x.name.removeprefix("control: ") for x in c.controls)
            slow = " (slow)" if c.slow else ""
            out.append(f"| `{c.id}`{slow} | {_cell(src)} | {_cell(c.title)} | {_cell(variants)} | {_cell(controls)} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(render_catalogue(), end="")
