"""No module of ``src/linksync`` imports one that imports it back, through any chain:
imports at module level, inside functions and for type hints only all count (a circle
hidden in a function is still a circle a reader has to untangle). Read from the
source with ``ast``, so a new circle fails here with the imports that make it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((SRC / "linksync").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The modules of linksync that ``name`` imports (``from package import module``
    imports that module; ``from module import name`` the module), with the line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up) + (f".{node.module}" if node.module else "")
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target, node.lineno


def _graph() -> dict[str, dict[str, int]]:
    modules = _modules()
    return {name: dict(_imported(name, path, modules)) for name, path in modules.items()}


def _circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = _graph()
    found = [
        f"{a}:{graph[a][b]} -> {b}"
        for group in _circles(graph)
        for a in group
        for b in sorted(graph[a])
        if b in group
    ]
    assert found == []


def test_a_circle_is_found_through_any_chain() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert _circles(graph) == [["a", "b", "c"]]
    real = _graph()
    assert "linksync.cli.all_targets" in real["linksync.cli.sync"]  # inside a function
    assert "linksync.sync.plan" in real["linksync.cli.events"]  # for type hints only
