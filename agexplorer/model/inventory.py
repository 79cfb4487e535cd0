"""The op inventory of a traced function as plain data: every op at its source line, every body."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class OpInfo:
    """One graph op: where it lives and which line of the user's file made it."""

    name: str
    type: str
    line: int | None
    function: str
    device: str
    outputs: list[str]
    parent: str | None = None  # the op whose body holds this op (None at top level)
    file: str | None = None  # the user's file of ``line`` (the innermost frame of user code)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the report's ``graph.ops`` entries)."""
        return {"name": self.name, "type": self.type, "file": self.file, "line": self.line,
                "function": self.function, "device": self.device, "outputs": self.outputs,
                "parent": self.parent}


@dataclass
class BodyInfo:
    """A function body inside the trace: the outer function, a loop body, a cond branch."""

    name: str
    parent_op: str | None
    role: str  # "outer", "body", "cond", "then", "else", "branch 0", "function", ...
    op_count: int = 0


@dataclass
class Inventory:
    """Every op and body of one concrete function."""

    ops: list[OpInfo] = field(default_factory=list)
    bodies: list[BodyInfo] = field(default_factory=list)
    graph_names: dict[int, str] = field(default_factory=dict)  # id(FuncGraph) -> body name

    def op_attributes(self, function: str, name: str) -> list[tuple[str, str]]:
        """The attributes of op ``name`` in body ``function``, as (name, short text) pairs.

        Only where the trace was made (the worker, whose engine returns a live inventory
        that holds the graphs); raises LookupError elsewhere or for an op it does not hold.
        """
        raise LookupError(f"the graph of {function} is not here")

    def by_line(self, file: str | None = None) -> dict[int | None, int]:
        """How many ops each source line created (None: made by tf.function itself); with
        ``file``, the lines of that file only (and None)."""
        if file is None:
            return dict(Counter(op.line for op in self.ops))
        return dict(Counter(op.line for op in self.ops if op.file in (file, None)))

    def by_file(self) -> dict[str, dict[int, int]]:
        """How many ops each line of each user file created."""
        counts: dict[str, Counter[int]] = {}
        for op in self.ops:
            if op.file is not None and op.line is not None:
                counts.setdefault(op.file, Counter())[op.line] += 1
        return {file: dict(lines) for file, lines in counts.items()}

    def by_type(self) -> dict[str, int]:
        """How many ops of each type, most common first."""
        return dict(Counter(op.type for op in self.ops).most_common())
