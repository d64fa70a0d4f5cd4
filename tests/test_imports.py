"""The package's structure reads top-down: no module imports another that imports it back.

The import graph is read from the source (``ast``), with every intra-package import —
module level and inside functions — as an edge, so a cycle cannot hide in a function body:
a function-local import is there for a lazy start (the CLI), never to break a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "qdsim"


def _imports(path: Path) -> set[str]:
    """Returns the package modules ``path`` imports, at module level or in a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                names = [node.module.split(".")[0]] if node.module else [alias.name for alias in node.names]
            elif node.level == 0 and node.module and node.module.split(".")[0] == "qdsim":
                parts = node.module.split(".")
                names = [parts[1]] if len(parts) > 1 else [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name.split(".")[1] for alias in node.names if alias.name.startswith("qdsim.")]
        for name in names:
            if (PACKAGE / f"{name}.py").exists() or name == "_core":
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    return {path.stem: _imports(path) - {path.stem} for path in PACKAGE.glob("*.py")}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Returns one import cycle of ``graph`` as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_package_import_graph_has_no_cycle():
    graph = _graph()
    assert len(graph) > 10, sorted(graph)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("module", ["topologies", "workloads", "tcp_options", "algorithms", "spec", "units", "errors"])
def test_the_parts_of_resolution_do_not_import_resolve(module):
    graph = _graph()
    reached, todo = set(), [module]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in reached:
                reached.add(dep)
                todo.append(dep)
    assert "resolve" not in reached, sorted(reached)
