"""One function under the doctor's examination: its parse, its trace's results, the findings so far."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

import gast

from agexplorer.doctor.parse import LOOP_NODES, ParsedFile, ancestors, param_names, parent_map
from agexplorer.model.doctor import CODES, Finding
from agexplorer.model.errors import ARGUMENT_ERRORS
from agexplorer.model.values import ValueKind
from agexplorer.source.targets import FILE_CALL


def _live_kind(value: Any) -> tuple[str, Any]:
    """A live argument as the checks tell them apart: a Python number (its type and repr), a
    tensor, or another object."""
    if type(value) in (int, float, bool):
        return "python", (type(value).__name__, repr(value))
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return "tensor", type(value).__name__
    return "other", type(value).__name__


# The recorded kinds a parameter's Python number comes in, and the type name the checks use.
_NUMBERS: dict[ValueKind, str] = {"python-int": "int", "python-float": "float", "python-bool": "bool"}


class ExaminedFunction:
    """What every check reads (the def node, its file, the trace's report) and where it writes.

    ``report`` is the engine's Report for the function, or None when it did not load.
    """

    def __init__(self, mod: ParsedFile, func: Any, method: bool, report: Any,
                 values: dict[str, Any] | None = None, origin: str | None = None,
                 traced_alone: bool = True) -> None:
        self.mod, self.func, self.report = mod, func, report
        self.values = values  # a live call's arguments by parameter (a notebook's), if any
        # Where the call came from, when not the report's own (doctor LOG: the recorded trace)
        self.origin = origin or (report.call_origin if report is not None else None)
        # False: the function runs only inside another one's trace (doctor LOG's reached
        # helpers and layers): nothing retraces it on its own
        self.traced_alone = traced_alone
        self.params = param_names(func, method)
        # A method's instance as it names it (``self``), None for a function or static method
        # (param_names leaves out the first parameter only where it is the instance).
        every = [a.id for a in func.args.posonlyargs + func.args.args]
        self.instance = every[0] if len(every) == len(self.params) + 1 else None
        self.parents = parent_map(func)
        self.traced = report is not None and report.inventory is not None
        self.verdicts = {(v.kind, v.line): v for v in (report.statements if report else [])}
        # The program runs the function as plain Python (Keras 3 runs a layer's call and what
        # it calls so; a recorded run reached it only from code AutoGraph does not convert):
        # no AutoGraph rewrite helps there.
        self.keras3 = any(v.unconverted is not None for v in self.verdicts.values())
        self.findings: list[Finding] = []
        self.args = self._call_args()

    def add(self, code: str, node: Any, message: str, fix: str | None, basis: str = "static",
            subject: str | None = None, cause: bool = False) -> None:
        """Record a finding of ``code`` at ``node`` (``cause``: the trace failed on it)."""
        self.findings.append(Finding(code=code, line=node.lineno, message=message,
                                     why=CODES[code][1], fix=fix, col=self.mod.col(node),
                                     basis=basis, subject=subject, cause=cause))

    def nodes(self) -> Iterator[Any]:
        """Every node of the body (not the decorators: a ``@tf.function(...)`` is no pitfall)."""
        for stmt in self.func.body:
            yield from gast.walk(stmt)

    def loop_of(self, node: Any) -> Any:
        """The innermost for/while around ``node`` inside the function, or None."""
        return next((a for a in ancestors(node, self.parents, self.func)
                     if isinstance(a, LOOP_NODES)), None)

    def verdict(self, loop: Any) -> Any:
        """The trace's verdict for a for/while node, or None."""
        return self.verdicts.get(("for" if isinstance(loop, gast.For) else "while", loop.lineno))

    def staged_as(self, loop: Any) -> str:
        """What the trace staged the loop node as, in words: a loop over a dataset is one
        dataset op (its reduce), not a tf.while_loop."""
        v = self.verdict(loop)
        dataset = v is not None and (v.value_kind == "dataset"
                                     or (v.graph_op or "").endswith("Dataset"))
        return "a dataset loop" if dataset else "a tf.while_loop"

    def failed_at(self, *words: str) -> int | None:
        """The line (of the report's file) where the trace failed, when what it raised holds
        every one of ``words`` (TensorFlow's own, the evidence a check names a cause by);
        None when it traced, or failed otherwise."""
        error = self.report.error if self.report is not None else None
        if error is None or error.kind != "trace-failed" or error.line is None:
            return None
        raised = error.raised or error.what
        return error.line if all(word in raised for word in words) else None

    def failure_text(self) -> str:
        """What the failed trace raised (``Type: message``), or ""."""
        error = self.report.error if self.report is not None else None
        return (error.raised or error.what) if error is not None else ""

    def out_of_scope_after(self, loop: Any) -> bool:
        """Whether the trace failed on a tensor used out of its graph's scope (an
        InaccessibleTensorError, "... is out of scope"), at a line of this function after
        ``loop``: the evidence that a value the loop's body made was used after it."""
        line = self.failed_at("out of scope")
        return line is not None and \
            (loop.end_lineno or loop.lineno) < line <= (self.func.end_lineno or self.func.lineno)

    def not_traced(self) -> str:
        """Why a finding could not be confirmed by the trace, in words."""
        error = self.report.error if self.report is not None else None
        if error is not None and error.kind in ARGUMENT_ERRORS:
            return "the function was not traced (it has no call arguments; pass --call)"
        return "the function did not trace, so this is from the source alone"

    def _call_args(self) -> dict[str, tuple[str, Any]]:
        """Parameter -> ("python", value) or ("tensor", text) from the call string."""
        found: dict[str, tuple[str, Any]] = {}
        report = self.report
        if self.values is not None:
            return {param: _live_kind(value) for param, value in self.values.items()}
        if report is not None and report.call and report.call_origin is not None and (
                report.call_origin in ("--call", "AGX_CALLS")
                or report.call_origin.startswith(FILE_CALL)):
            try:
                call = ast.parse(f"f({report.call})", mode="eval").body
            except SyntaxError:
                call = None
            if isinstance(call, ast.Call):
                pairs = list(zip(self.params, call.args, strict=False)) + \
                    [(k.arg, k.value) for k in call.keywords if k.arg]
                for param, arg in pairs:
                    if isinstance(arg, ast.Starred):
                        break
                    found[param] = self._kind(arg)
            for v in report.statements:
                for named in v.names:
                    if named.name in self.params and named.kind in _NUMBERS \
                            and found.get(named.name, ("", None))[0] != "python":
                        found[named.name] = ("python", (_NUMBERS[named.kind], named.value.literal))
        return found

    def _kind(self, arg: ast.expr) -> tuple[str, Any]:
        negative = isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub)
        node = arg.operand if isinstance(arg, ast.UnaryOp) and \
            isinstance(arg.op, (ast.USub, ast.UAdd)) else arg
        value: Any = None
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            value = node.value
            value = -value if negative else value
        elif isinstance(node, ast.Name) and node.id in self.mod.numbers:
            value = self.mod.numbers[node.id]
        if value is not None:
            return "python", (type(value).__name__, repr(value))
        func = arg.func if isinstance(arg, ast.Call) else None
        head = ast.unparse(func).split(".")[0] if func is not None else ""
        return ("tensor" if head in ("tf", *self.mod.tf) else "other"), ast.unparse(arg)
