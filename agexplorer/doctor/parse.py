"""The doctor's parse of the user's file (gast): aliases, literal globals, positions, parents.

The checks and the rewrites both read the file through :class:`ParsedFile`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import gast

from agexplorer.source.segments import Segments

LOOP_NODES = (gast.For, gast.While)
DEF_NODES = (gast.FunctionDef, gast.AsyncFunctionDef)


def dotted_name(node: Any) -> str | None:
    """``tf.random.normal`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


class ParsedFile:
    """What the doctor needs from the whole file: its aliases and literal globals."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._segments: Segments | None = None  # split into lines when first asked
        self.tree = gast.parse(text)
        # Line starts as the tokenizer counts lines (str.splitlines also splits on \f).
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        self.tf: list[str] = []
        self.np: list[str] = []
        self.random: list[str] = []
        self.numbers: dict[str, Any] = {}
        self.lists: set[str] = set()
        for node in self.tree.body:
            if isinstance(node, gast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    {"tensorflow": self.tf, "numpy": self.np, "random": self.random,
                     "numpy.random": self.random}.get(alias.name, []).append(bound)
            elif isinstance(node, gast.ImportFrom) and node.module == "numpy":
                self.random += [a.asname or a.name for a in node.names if a.name == "random"]
            elif isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                name, value = node.targets[0].id, node.value
                if isinstance(value, gast.Constant) and type(value.value) in (int, float, bool):
                    self.numbers[name] = value.value
                elif isinstance(value, gast.List):
                    self.lists.add(name)

    @property
    def tf_name(self) -> str | None:
        """How the file names TensorFlow (``tf``), or None when it does not import it."""
        return self.tf[0] if self.tf else None

    def is_tf(self, dotted: str | None, *attrs: str) -> bool:
        """Whether ``dotted`` is ``<tf alias>.<attr>`` for one of ``attrs``."""
        return dotted is not None and any(dotted == f"{t}.{a}" for t in self.tf or ["tf"]
                                          for a in attrs)

    def segment(self, node: Any) -> str:
        """The node's source text (gast keeps CPython's byte columns)."""
        if self._segments is None:
            self._segments = Segments(self.text)
        return self._segments(node) or ""

    def col(self, node: Any) -> int:
        """The node's 0-based character column."""
        return self.offset(node.lineno, node.col_offset) - self.starts[node.lineno - 1]

    def offset(self, line: int, byte_col: int) -> int:
        """The character offset in the text of a (1-based line, UTF-8 byte column) position."""
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        head = self.text[start:end].encode("utf-8")[:byte_col]
        return start + len(head.decode("utf-8", "replace"))

    def span(self, node: Any) -> tuple[int, int]:
        """The node's (start, end) character offsets in the text."""
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def find(self, qualname: str, first_line: int = 0) -> tuple[Any, bool]:
        """(the def node, whether it is a method) for a qualname, else by its first line."""
        body, node, parent = self.tree.body, None, None
        for part in qualname.split("."):
            parent = node
            node = next((n for n in body if isinstance(n, (*DEF_NODES, gast.ClassDef))
                         and n.name == part), None)
            if node is None:
                break
            body = node.body
        if isinstance(node, DEF_NODES):
            return node, isinstance(parent, gast.ClassDef)
        for n in gast.walk(self.tree):
            if isinstance(n, DEF_NODES) and min([n.lineno, *(d.lineno for d in n.decorator_list)]) \
                    == first_line:
                return n, False
        return None, False


def appended_lists(loop: Any) -> list[tuple[str, Any]]:
    """(name, call) of each ``name.append(...)`` statement directly in ``loop``'s body."""
    return [(s.value.func.value.id, s.value) for s in loop.body if isinstance(s, gast.Expr)
            and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute)
            and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name)]


def parent_map(root: Any) -> dict[int, Any]:
    """id(node) -> its parent node, for every node under ``root``."""
    found: dict[int, Any] = {}
    for node in gast.walk(root):
        for child in gast.iter_child_nodes(node):
            found[id(child)] = node
    return found


def ancestors(node: Any, parents: dict[int, Any], stop: Any) -> Iterator[Any]:
    """The nodes enclosing ``node``, innermost first, up to (not including) ``stop``."""
    node = parents.get(id(node))
    while node is not None and node is not stop:
        yield node
        node = parents.get(id(node))


def param_names(func: Any, method: bool) -> list[str]:
    """The positional parameters of a def node, without ``self``/``cls`` for a method."""
    args = func.args
    names = [a.id for a in args.posonlyargs + args.args]
    static = any(dotted_name(d) == "staticmethod" for d in func.decorator_list)
    return names[1:] if method and not static and names else names


def free_name(func: Any, wanted: str) -> str:
    """``wanted``, or it with underscores after it, whichever no name in the def ``func``
    uses (its parameters included)."""
    used = {n.id for n in gast.walk(func) if isinstance(n, gast.Name)} | {
        a.id for a in gast.walk(func.args) if isinstance(a, gast.Name)}
    name = wanted
    while name in used:
        name += "_"
    return name
