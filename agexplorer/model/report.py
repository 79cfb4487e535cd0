"""The engine's report for one function: the converted code, one verdict per statement, the ops."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from agexplorer.model.errors import AgxError
from agexplorer.model.inventory import Inventory
from agexplorer.model.loopvars import LoopVar
from agexplorer.model.text import plural
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
    # Where tf.function converts a decorator's wrapper that calls the function (this is
    # the function's own conversion, made when that call runs): the wrapper and its line.
    wrapped_by: CallSite | None = None

    def wrapper_note(self, function: str) -> str | None:
        """Where ``wrapped_by`` is set, the sentence that says whose code this is."""
        site = self.wrapped_by
        if site is None:
            return None
        name = function.rpartition(".")[2]
        return (f"tf.function converts {site.text()}, a decorator's wrapper that calls "
                f"{name}: AutoGraph converts {name} as that call runs while tracing, and this "
                f"is its code (tf.autograph.to_code({name}) shows the wrapper's instead).")

    def source_lines_for(self, converted_line: int) -> list[int]:
        """The user's lines a converted line came from."""
        return [s for c, s in self.source_map if c == converted_line]

    def converted_lines_for(self, source_line: int) -> list[int]:
        """The converted lines a user's line produced."""
        return [c for c, s in self.source_map if s == source_line]


@dataclass(frozen=True)
class CallSite:
    """One step of a call path: a function of the user's code and a line of its file (the
    line of the call it made, or, last in a path, the line the function starts at)."""

    function: str  # qualified name: "normalize", "Model.call"
    file: str
    line: int

    def text(self) -> str:
        """``normalize (ops.py:5)``."""
        return f"{self.function} ({os.path.basename(self.file)}:{self.line})"

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"function": self.function, "file": self.file, "line": self.line}


def path_text(path: tuple[CallSite, ...] | list[CallSite]) -> str:
    """``step (train.py:28) -> normalize (ops.py:5)``."""
    return " -> ".join(site.text() for site in path)


# Why a loop unrolls on purpose: "variables", one step per variable (an optimizer's update,
# ``zip(grads, model.trainable_variables)``); "constants", its body added no op and no
# argument of its function that a caller could vary drives it (it computes Python values,
# which the graph holds as constants). Counted, never listed as a problem, no fix.
Intended = Literal["variables", "constants"]


def intended_words(intended: str, count: int) -> str:
    """``2 loops over variables unrolled as intended``: what ``count`` loops unrolled on
    purpose for the reason ``intended`` are, in one line of a run's summary."""
    if intended == "constants":
        return (f"{plural(count, 'loop')} ran in Python adding no ops (only Python values, "
                "constants in the graph: nothing to stage)")
    return f"{plural(count, 'loop')} over {intended} unrolled as intended"
# Who runs the function without AutoGraph where the explorer's tf.function converted it:
# "keras3", Keras 3 calls a layer's methods as plain Python.
Unconverted = Literal["keras3"]


def keras3_words(function: str) -> str:
    """What a method Keras 3 runs without AutoGraph is, once, in plain words."""
    return (f"Keras 3 runs {function} without AutoGraph: its Python loops unroll and an `if` "
            "on a tensor raises")


# What AutoGraph did with a statement (see Verdict.verdict), and the statements it judges.
VerdictKind = Literal["staged", "python", "mixed", "unreached"]
# "ifexp": a conditional expression (``a if c else b``), which AutoGraph converts as an if.
StatementKind = Literal["if", "for", "while", "ifexp"]

# The verdicts of a statement that Python ran while tracing: all its copies ("python"), or
# some of them ("mixed": staged on other calls or traces).
IN_PYTHON: frozenset[VerdictKind] = frozenset({"python", "mixed"})
# The statements that loop, and those that choose a branch.
LOOPS: frozenset[StatementKind] = frozenset({"for", "while"})
CONDITIONALS: frozenset[StatementKind] = frozenset({"if", "ifexp"})


def kind_words(kind: str) -> str:
    """A statement's kind as a sentence names it: ``for``, ``if``, ``conditional
    expression``."""
    return "conditional expression" if kind == "ifexp" else kind


def is_unrolled(kind: str, verdict: str, iterations: int | None) -> bool:
    """The one test of "this loop unrolled": a for or while that Python ran at least once
    while tracing, on every trace ("python") or on some ("mixed"), each time copying its
    body's ops into the graph."""
    return kind in LOOPS and verdict in IN_PYTHON and (iterations or 0) > 0


@dataclass(frozen=True)
class Verdict:
    """The report's ``statements`` entry for one statement, built whole by the engine."""

    kind: StatementKind
    line: int
    header: str
    verdict: VerdictKind  # "mixed": both, see ``mixed``
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
    # Where the statement is: its file, the function it is in (qualified), and how the trace
    # reached that function from the explored one (the explored function: itself alone).
    file: str = ""
    function: str = ""
    call_path: tuple[CallSite, ...] = ()
    mixed: tuple[int, int] | None = None  # "mixed": (times staged, times run in Python)
    loop_vars: tuple[LoopVar, ...] = ()  # a loop's variables (ifs: none), see model.loopvars
    intended: Intended | None = None  # a Python loop that unrolls on purpose (no hint)
    unconverted: Unconverted | None = None  # in use, the function runs without AutoGraph

    @property
    def unrolled(self) -> bool:
        """A loop unrolled while tracing (see :func:`is_unrolled`)."""
        return is_unrolled(self.kind, self.verdict, self.iterations)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``names`` as ``[name, words]`` pairs; the kinds stay out)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        del data["value_kind"]
        data["names"] = [[n.name, n.text] for n in self.names]
        data["call_path"] = [site.to_dict() for site in self.call_path]
        data["mixed"] = None if self.mixed is None else \
            {"staged": self.mixed[0], "python": self.mixed[1]}
        data["loop_vars"] = [v.to_dict() for v in self.loop_vars]
        return data


def driver_words(function: str, drives: tuple[str, ...]) -> str:
    """Why a plain function that calls the file's tf.functions is traced anyway, once."""
    name = function.split(".")[-1]
    called = " and ".join(drives)
    return (f"{name} is no tf.function: your program runs it in Python, and the "
            f"tf.function{'s' if len(drives) > 1 else ''} {called} it calls run"
            f"{'' if len(drives) > 1 else 's'} a graph; these verdicts are tf.function({name})'s "
            f"(explore {drives[0]} for your program's graph)")


def uncounted(v: Any) -> bool:
    """Ran in Python, in a function AutoGraph did not convert, with no count recorded (a
    recorded run's Keras 3 layer): neither its iterations nor its branch are known. ``v``:
    a Verdict, or a summary's statement row with the same fields."""
    return (v.verdict == "python" and not v.times and v.iterations is None
            and not v.branch)


# Each verdict kind in words, for counts ("2 run in Python while tracing"): the explorer's
# Control flow summary and the report's heading.
VERDICT_WORDS = {"staged": "staged in the graph", "python": "run in Python while tracing",
                 "mixed": "staged on some runs and Python on others",
                 "unreached": "never reached"}


def verdict_badge(v: Any) -> str:
    """A verdict in the words every view uses (the explorer's gutter and function list, the
    report, compare, check): ``staged``, ``unrolled x4``, ``took true``, ``mixed 2+3``,
    ``in Python`` (not counted), ``unreached``."""
    if uncounted(v):
        return "in Python"
    if v.verdict == "staged":
        return "staged" + (f" x{v.times}" if v.times > 1 else "")
    if v.verdict == "mixed":
        return f"mixed {v.mixed[0]}+{v.mixed[1]}" if v.mixed else "mixed"
    if v.verdict == "python":
        if v.kind in CONDITIONALS:  # reached once without a branch: its condition raised
            return f"took {v.branch}" if v.branch else "both, in turn" if v.times > 1 \
                else "in Python"
        return f"unrolled x{v.iterations}" if v.iterations is not None else "unrolled"
    return "unreached"


@dataclass(frozen=True)
class ReachedFunction:
    """A function of the user's code that the trace ran (the explored one is the first of
    a report's call tree): where it is, how it was reached, its verdicts, its code."""

    file: str
    function: str  # qualified name
    first_line: int
    end_line: int
    call_path: tuple[CallSite, ...]  # from the explored function to this one
    statements: tuple[Verdict, ...] = ()
    op_count: int = 0  # ops made in its lines (callees' ops not counted)
    source: str = ""  # its lines, from its file
    conversion: Conversion | None = None  # AutoGraph's code for it (None: see note)
    converted: bool = True  # False: AutoGraph did not convert it (it ran as plain Python)
    note: str | None = None  # why there is no converted code, or what to know

    @property
    def depth(self) -> int:
        """How many calls away from the explored function (0: the explored function)."""
        return max(len(self.call_path) - 1, 0)

    def runs_unconverted(self, line: int) -> bool:
        """Whether the program runs its statement at ``line`` without AutoGraph: the trace
        did not convert the function, or the verdict says who runs it so (Keras 3)."""
        return not self.converted or any(v.unconverted is not None for v in self.statements
                                         if v.line == line)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the report's ``call_tree`` entries; statements are in ``statements``)."""
        return {"file": self.file, "function": self.function, "first_line": self.first_line,
                "end_line": self.end_line, "depth": self.depth,
                "call_path": [site.to_dict() for site in self.call_path],
                "statements": len(self.statements), "op_count": self.op_count,
                "converted": self.converted, "note": self.note}


@dataclass
class Report:
    """Everything the headless report and the TUI show for one function. Picklable."""

    file: str
    function: str
    source: str = ""
    first_line: int = 0
    end_line: int = 0
    decorated: bool = False
    # A plain function's calls of the file's tf.functions (``main`` calling ``train_step``):
    # the program runs it in Python; the report traces it as tf.function(main) would.
    drives: tuple[str, ...] = ()
    call: str | None = None
    call_origin: str | None = None
    instance: str | None = None  # a method's instance, in words ("Smoother(steps=6) (--init)")
    conversion: Conversion | None = None
    # Set only where AutoGraph refused it (``conversion`` None): why, and what tf.function
    # did then.
    conversion_note: str | None = None
    statements: list[Verdict] = field(default_factory=list)  # the explored function's own
    # The other functions of the user's code the trace reached, nearest first (see --depth).
    reached: list[ReachedFunction] = field(default_factory=list)
    inventory: Inventory | None = None
    concrete_name: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    output: str = ""  # what the module and the trace printed (Python print runs only here)
    log: str = ""  # warnings from TensorFlow and AutoGraph, start-up noise removed
    # The file's module-level code raised while it loaded, and agexplorer went on (the
    # statements after it did not run; the definitions did): one sentence.
    load_note: str | None = None
    error: AgxError | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object (key names are a contract: see the README)."""
        inv = self.inventory
        data: dict[str, Any] = {
            "target": {"file": self.file, "function": self.function,
                       "decorated": self.decorated, "drives": list(self.drives)},
            "source": {"code": self.source, "first_line": self.first_line,
                       "end_line": self.end_line},
            "call": {"args": self.call, "origin": self.call_origin,
                     "instance": self.instance},
            "converted": {"code": self.conversion.code if self.conversion else None,
                          "source_map": [list(p) for p in self.conversion.source_map]
                          if self.conversion else [], "note": self.conversion_note,
                          "wrapped_by": self.conversion.wrapped_by.to_dict()
                          if self.conversion and self.conversion.wrapped_by else None},
            # The explored function's statements first, then those of the functions reached.
            "statements": [v.to_dict() for v in self.statements]
            + [v.to_dict() for f in self.reached for v in f.statements],
            "call_tree": [self._root_entry()] + [f.to_dict() for f in self.reached],
            "graph": {
                "op_count": len(inv.ops) if inv else 0,
                "functions": [b.name for b in inv.bodies] if inv else [],
                "bodies": [{"name": b.name, "parent_op": b.parent_op, "role": b.role,
                            "op_count": b.op_count} for b in inv.bodies] if inv else [],
                "ops": [op.to_dict() for op in inv.ops] if inv else [],
                "ops_by_line": [[line, n] for line, n in sorted(
                    inv.by_line(self.file).items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]
                if inv else [],
                "ops_by_type": inv.by_type() if inv else {},
                "ops_by_file": {file: [[line, n] for line, n in sorted(lines.items())]
                                for file, lines in inv.by_file().items()} if inv else {},
            },
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "trace_output": self.output,
            "log": self.log,
            "load_note": self.load_note,
        }
        if self.error is not None:
            data["error"] = self.error.to_dict()
        return data

    @property
    def root_site(self) -> CallSite:
        """The explored function as the first step of every call path."""
        return CallSite(self.function, self.file, self.first_line)

    def _root_entry(self) -> dict[str, Any]:
        own = self.inventory.by_line(self.file) if self.inventory else {}
        return {"file": self.file, "function": self.function, "first_line": self.first_line,
                "end_line": self.end_line, "depth": 0, "call_path": [self.root_site.to_dict()],
                "statements": len(self.statements),
                "op_count": sum(n for line, n in own.items()
                                if line is not None and self.first_line <= line <= self.end_line),
                "converted": self.conversion is not None, "note": None}

    def rename_file(self, old: str, new: str) -> None:
        """Name ``new`` wherever the report says ``old`` (an unsaved buffer's shadow file)."""
        def site(s: CallSite) -> CallSite:
            return CallSite(s.function, new, s.line) if s.file == old else s

        def verdict(v: Verdict) -> Verdict:
            return replace(v, file=new if v.file == old else v.file,
                           call_path=tuple(site(s) for s in v.call_path))

        self.statements = [verdict(v) for v in self.statements]
        if self.conversion is not None and self.conversion.wrapped_by is not None:
            self.conversion.wrapped_by = site(self.conversion.wrapped_by)
        self.reached = [replace(f, file=new if f.file == old else f.file,
                                call_path=tuple(site(s) for s in f.call_path),
                                statements=tuple(verdict(v) for v in f.statements))
                        for f in self.reached]
        if self.inventory is not None:
            for op in self.inventory.ops:
                if op.file == old:
                    op.file = new
        if self.file == old:
            self.file = new
