"""The engine's report for one function: the converted code, one verdict per statement, the ops."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agexplorer.model.errors import AgxError
from agexplorer.model.inventory import Inventory
from agexplorer.model.values import NamedValue, ValueKind


@dataclass
class Conversion:
    """``tf.autograph.to_code`` output and its source map.

    ``source_map`` pairs are ``(converted_line, source_line)``: 1-based lines of
    ``code`` and of the user's file. The map is many-to-one: the scaffolding
    AutoGraph writes for a loop (get_state, set_state, loop_body) maps to the
    loop's own line.
    """

    code: str
    source_map: list[tuple[int, int]]

    def source_lines_for(self, converted_line: int) -> list[int]:
        """The user's lines a converted line came from."""
        return [s for c, s in self.source_map if c == converted_line]

    def converted_lines_for(self, source_line: int) -> list[int]:
        """The converted lines a user's line produced."""
        return [c for c, s in self.source_map if s == source_line]


@dataclass(frozen=True)
class Verdict:
    """The report's ``statements`` entry for one statement, built whole by the engine."""

    kind: str
    line: int
    header: str
    verdict: str  # "staged" | "python" | "unreached"
    graph_op: str | None
    iterations: int | None
    branch: str | None
    ops_created: int
    reason: str
    hint: str | None
    times: int = 0  # how often Python reached the statement while tracing
    value: str | None = None  # what the operator dispatched on, in words
    names: list[NamedValue] = field(default_factory=list)
    value_kind: ValueKind | None = None  # the kind behind ``value`` (not in the JSON)

    def to_dict(self) -> dict:
        """JSON form (``names`` as ``[name, words]`` pairs; the kinds stay out)."""
        data = asdict(self)
        del data["value_kind"]
        data["names"] = [[n.name, n.text] for n in self.names]
        return data


@dataclass
class Report:
    """Everything the headless report and the TUI show for one function. Picklable."""

    file: str
    function: str
    source: str = ""
    first_line: int = 0
    end_line: int = 0
    decorated: bool = False
    call: str | None = None
    call_origin: str | None = None
    conversion: Conversion | None = None
    statements: list[Verdict] = field(default_factory=list)
    inventory: Inventory | None = None
    concrete_name: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    output: str = ""  # what the module and the trace printed (Python print runs only here)
    log: str = ""  # warnings from TensorFlow and AutoGraph, start-up noise removed
    error: AgxError | None = None

    def to_dict(self) -> dict:
        """The ``--json`` object (key names are a contract: see the README)."""
        inv = self.inventory
        data: dict[str, Any] = {
            "target": {"file": self.file, "function": self.function,
                       "decorated": self.decorated},
            "source": {"code": self.source, "first_line": self.first_line,
                       "end_line": self.end_line},
            "call": {"args": self.call, "origin": self.call_origin},
            "converted": {"code": self.conversion.code if self.conversion else None,
                          "source_map": [list(p) for p in self.conversion.source_map]
                          if self.conversion else []},
            "statements": [v.to_dict() for v in self.statements],
            "graph": {
                "op_count": len(inv.ops) if inv else 0,
                "functions": [b.name for b in inv.bodies] if inv else [],
                "bodies": [{"name": b.name, "parent_op": b.parent_op, "role": b.role,
                            "op_count": b.op_count} for b in inv.bodies] if inv else [],
                "ops": [op.to_dict() for op in inv.ops] if inv else [],
                "ops_by_line": [[line, n] for line, n in sorted(
                    inv.by_line().items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]
                if inv else [],
                "ops_by_type": inv.by_type() if inv else {},
            },
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "trace_output": self.output,
            "log": self.log,
        }
        if self.error is not None:
            data["error"] = self.error.to_dict()
        return data
