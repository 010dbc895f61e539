"""Finding the installed claim catalogues through entry points (how pytest finds its plugins).

A distribution declares its catalogue in ``pyproject.toml``::

    [project.entry-points."theorem_check.catalogues"]
    papers = "derivations"

The entry point names a package whose ``PAPERS`` lists its paper subpackages in catalogue order; each
registers its claims with :func:`theorem_check.register` when imported.  The built-in catalogue (this
project's ``derivations`` package) is found the same way as any other, so the engine names no paper.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

__all__ = ["GROUP", "catalogue_packages", "catalogue_modules"]

GROUP = "theorem_check.catalogues"
"""The entry-point group of claim catalogues."""


def catalogue_packages() -> list[str]:
    """The catalogue packages declared in :data:`GROUP`, by entry-point name (duplicates once)."""
    out: list[str] = []
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if ep.value not in out:
            out.append(ep.value)
    return out


def catalogue_modules() -> list[tuple[str, list[str]]]:
    """``[(package, [paper, ...]), ...]``: each catalogue package and its ``PAPERS`` in order.

    Raises ImportError (with the package named) when a declared catalogue cannot be imported.
    """
    out = []
    for name in catalogue_packages():
        pkg = importlib.import_module(name)
        out.append((name, list(getattr(pkg, "PAPERS", ()))))
    return out
