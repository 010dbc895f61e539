"""The engine's modules import each other without cycles (issue 10: a layout a newcomer can follow).

Every relative import counts, at module level or inside a function: a lazy import that closes a cycle
is still a cycle for a reader.  ``TYPE_CHECKING`` blocks are skipped (annotations only).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _graph(package: str) -> dict[str, set[str]]:
    base = ROOT / package
    graph: dict[str, set[str]] = {}
    for path in base.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        name = ".".join(parts)
        tree = ast.parse(path.read_text())
        skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        here = parts if is_pkg else parts[:-1]
        edges = set()
        for node in ast.walk(tree):
            if id(node) in skip or not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            anchor = here[: len(here) - (node.level - 1)] if node.level > 1 else here
            target = ".".join(anchor + (node.module.split(".") if node.module else []))
            if node.module is None:  # from . import a, b: submodules
                edges |= {f"{target}.{a.name}" for a in node.names}
            else:
                edges.add(target)
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


@pytest.mark.parametrize("package", ["theorem_check", "derivations"])
def test_no_import_cycle(package):
    graph = _graph(package)
    # the package's __init__ re-exports submodules; submodules must not import the package back
    for mod, deps in graph.items():
        assert package not in deps or mod == package, f"{mod} imports the package {package} itself"
    cycle = _cycle({k: v - {package} for k, v in graph.items()})
    assert cycle is None, " -> ".join(cycle)


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_lazy_imports():
    g = _graph("theorem_check")
    assert "theorem_check.latex" in g["theorem_check.claims"]  # Claim._repr_latex_ imports it lazily
