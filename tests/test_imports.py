"""The engine's layout holds: layers import downward only, no cycles, small modules, no private names
shared across modules (issue 22: layers a newcomer can see; issue 10: no cycles).

Every import counts, at module level or inside a function: a lazy import that goes up a layer or closes
a cycle is still one for a reader.  ``TYPE_CHECKING`` blocks are skipped (annotations only).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS = {
    # rank: the layer may import its own rank and lower ranks only (ARCHITECTURE.md draws this)
    "theorem_check.errors": 0, "theorem_check._version": 0, "theorem_check.validation": 0,
    "theorem_check.cachedir": 0,
    "theorem_check.numerics": 1,
    "theorem_check.expr": 2,
    "theorem_check.model": 3,
    "theorem_check.engine": 4,
    "theorem_check.library": 5,
    "theorem_check.authoring": 6,
    "theorem_check.output": 7,
    "theorem_check.execution": 8,
    "theorem_check.cli": 9, "theorem_check.launch": 9,
    "theorem_check.plugins": 10,
}
"""Rank of each subpackage (or root module).  ``theorem_check/__init__``, ``__main__`` and ``_compat``
are the package's face and may import anything."""

UPWARD_ALLOWED = {
    # (importer, imported): why.  Keep this short; each entry is a seam a reader should know about.
    ("theorem_check.model.claims", "theorem_check.output.latex"):
        "Claim._repr_latex_, the notebook display hook, renders with the output layer (lazily)",
}

MAX_LINES = 600
"""No module of the engine or the catalogue is longer (docs/design-decisions.md)."""


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _skip_ids(tree) -> set:
    return {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
            and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}


def _graph(package: str) -> dict[str, set[str]]:
    mods = _modules(package)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        skip = _skip_ids(tree)
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                    base = ".".join(anchor + (node.module.split(".") if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t.split(".")[0] != package:
                    continue
                while t and t not in mods:  # a name imported from a module: the module
                    t = t.rpartition(".")[0]
                if t:
                    edges.add(t)
                    break
        graph[name] = {e for e in edges if e != name}
    return graph


def _cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if m not in graph:
                continue
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        state[n] = 2
        stack.pop()
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def _rank(module: str) -> int | None:
    best = None
    for prefix, r in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, r)
    return None if best is None else best[1]


@pytest.mark.parametrize("package", ["theorem_check", "derivations"])
def test_no_import_cycle(package):
    graph = _graph(package)
    # the package's __init__ re-exports submodules; submodules must not import the package back
    for mod, deps in graph.items():
        if mod.startswith(f"{package}.") and mod.count(".") == 1 and mod.endswith(("__main__", "_compat")):
            continue
        assert package not in deps or mod == package, f"{mod} imports the package {package} itself"
    cycle = _cycle({k: v - {package} for k, v in graph.items()})
    assert cycle is None, " -> ".join(cycle)


def test_every_engine_module_has_a_layer():
    face = {"theorem_check", "theorem_check.__main__", "theorem_check._compat"}
    missing = [m for m in _modules("theorem_check") if m not in face and _rank(m) is None]
    assert not missing, f"modules outside every layer (add them to LAYERS and ARCHITECTURE.md): {missing}"


def test_layers_import_downward_only():
    bad = []
    for mod, deps in _graph("theorem_check").items():
        r = _rank(mod)
        if r is None:
            continue
        for d in deps:
            rd = _rank(d)
            if rd is not None and rd > r and (mod, d) not in UPWARD_ALLOWED:
                bad.append(f"{mod} (layer {r}) imports {d} (layer {rd})")
    assert not bad, "\n".join(sorted(bad))


def test_the_engine_knows_no_paper():
    bad = [f"{m} imports {d}" for m, deps in _graph_all().items() for d in deps if d.split(".")[0] == "derivations"]
    assert not bad, bad


def _graph_all() -> dict[str, set[str]]:
    out = {}
    for name, path in _modules("theorem_check").items():
        tree = ast.parse(path.read_text())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                deps.add(node.module)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                deps.add(node.args[0].value)
        out[name] = deps
    return out


@pytest.mark.parametrize("package", ["theorem_check", "derivations"])
def test_modules_are_small(package):
    long = {m: n for m, p in _modules(package).items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_private_name_crosses_modules():
    """``from x import _name`` and ``module._name`` between modules of the engine: a shared helper gets a
    public name in the module that owns it."""
    mods = _modules("theorem_check")
    bad = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        aliases = {}  # local name -> engine module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("theorem_check")):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__") and a.name != "_compat":
                        bad.append(f"{name}: from {node.module} import {a.name}")
                    full = f"{node.module}.{a.name}"
                    if full in mods:
                        aliases[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in mods and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and aliases[node.value.id] != name:
                bad.append(f"{name}: {node.value.id}.{node.attr} ({aliases[node.value.id]})")
    assert not bad, "\n".join(sorted(set(bad)))


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_lazy_and_absolute_imports():
    g = _graph("theorem_check")
    assert "theorem_check.output.latex" in g["theorem_check.model.claims"]  # Claim._repr_latex_ imports it lazily
    assert "theorem_check.model.verdicts" in g["theorem_check.engine.runner"]


def test_layer_test_sees_an_upward_import():
    assert _rank("theorem_check.engine.runner") == 4 and _rank("theorem_check.cli.main") == 9
    assert _rank("theorem_check.validation") == 0 and _rank("elsewhere") is None


def test_the_catalogue_loads_without_scipy():
    """``theorem-check list``/``show`` and every exit-2 error load the catalogue and the command line (with the
    engine), never SciPy (0.4-0.7 s of start-up per process): the papers' checks and the engine's branch-switch
    stage import ``scipy.optimize``/``stats``/``integrate`` when they run."""
    import subprocess
    import sys

    code = ("import sys; import theorem_check.cli.main; from theorem_check import load_builtin; load_builtin(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]", out.stdout
