"""Old import paths (before the engine was laid out by layer) kept working as aliases.

``import theorem_check.workers`` or ``from theorem_check.latex import SYMBOL_NAMES`` still work: the
old module name is an alias of the new module (the same module object, so attributes, monkeypatching
and pickling agree).  The table is the only record of where each old module went.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

__all__ = ["OLD_PATHS", "install"]

OLD_PATHS = {
    "theorem_check.precision": "theorem_check.numerics.precision",
    "theorem_check.sampling": "theorem_check.numerics.sampling",
    "theorem_check.derivatives": "theorem_check.numerics.derivatives",
    "theorem_check.derivative_floors": "theorem_check.numerics.derivative_floors",
    "theorem_check.verdicts": "theorem_check.model.verdicts",
    "theorem_check.dims": "theorem_check.model.dims",
    "theorem_check.claims": "theorem_check.model.claims",
    "theorem_check.checks": "theorem_check.model.checks",
    "theorem_check.symbolic": "theorem_check.engine.symbolic",
    "theorem_check.mutants": "theorem_check.engine.mutants",
    "theorem_check.numeric": "theorem_check.engine.numeric",
    "theorem_check.fuzz": "theorem_check.engine.fuzz",
    "theorem_check.runner": "theorem_check.engine.runner",
    "theorem_check.dln": "theorem_check.library.dln",
    "theorem_check.registry": "theorem_check.authoring.registry",
    "theorem_check.shortforms": "theorem_check.authoring.shortforms",
    "theorem_check.catalogue": "theorem_check.output.catalogue",
    "theorem_check.errata": "theorem_check.output.errata",
    "theorem_check.latex": "theorem_check.output.latex",
    "theorem_check.terminal": "theorem_check.output.terminal",
    "theorem_check.records": "theorem_check.output.json_record",
    "theorem_check.report": "theorem_check.output.report",
    "theorem_check.report.writer": "theorem_check.output.report.writer",
    "theorem_check.report.markdown": "theorem_check.output.report.markdown",
    "theorem_check.report.compile": "theorem_check.output.report.compile",
    "theorem_check.report.figspec": "theorem_check.output.report.figspec",
    "theorem_check.report.figures": "theorem_check.output.report.figures",
    "theorem_check.report.output": "theorem_check.output.report.formats",
    "theorem_check.workers": "theorem_check.execution.workers",
    "theorem_check.durations": "theorem_check.execution.durations",
    "theorem_check.sweep": "theorem_check.execution.sweep",
    "theorem_check.check_cmd": "theorem_check.cli.check",
    "theorem_check.pytest_plugin": "theorem_check.plugins.pytest",
}
"""Old module name -> the module it now is."""


class _AliasLoader(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and makes ``sys.modules[old]`` the new module."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in OLD_PATHS:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return None  # a placeholder; exec_module replaces it with the real module

    def exec_module(self, module):
        sys.modules[module.__name__] = importlib.import_module(OLD_PATHS[module.__name__])


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` once (called by ``theorem_check/__init__``)."""
    if not any(isinstance(f, _AliasLoader) for f in sys.meta_path):
        sys.meta_path.append(_AliasLoader())
