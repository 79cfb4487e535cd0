"""No import cycles in agexplorer, lazy ones included: every import statement, at module level
or inside a function, and every "module:function" a command table names, counts (imports
under TYPE_CHECKING do not run). A cycle makes one module's meaning depend on which of the
two loaded first; a lazy import only hides it."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent / "agexplorer"
_NAMED = re.compile(r"^(agexplorer(?:\.\w+)+):\w+$")


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    hidden = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
              and "TYPE_CHECKING" in ast.unparse(block.test)
              for stmt in block.body for node in ast.walk(stmt)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found |= {full} if full in known else ({base} if base in known else set())
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = _NAMED.match(node.value)
            if named and named.group(1) in known:
                found.add(named.group(1))
    return found - {name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_the_checker_finds_a_cycle_lazy_or_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_back():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert sum(len(v) for v in graph.values()) > 500  # the scan does see the imports
    assert _cycles(graph) == []
