"""The engine's one entry point: load, convert, trace, inventory and verdicts for one target."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agexplorer.core.convert import Conversion, convert
from agexplorer.core.errors import AgxError, user_code_error
from agexplorer.core.inventory import Inventory, build_inventory
from agexplorer.core.loaded import Loaded, load_target
from agexplorer.core.recorder import Recorder, recording
from agexplorer.core.statements import Statement, find_statements
from agexplorer.core.targets import (
    FunctionInfo,
    list_functions,
    parse_source,
    parse_spec,
    read_source,
)
from agexplorer.core.verdicts import Verdict, build_verdicts


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


def list_file(path: str) -> list[FunctionInfo]:
    """The explorable functions of a file, from a static parse (nothing is run)."""
    spec = parse_spec(path)
    return list_functions(parse_source(spec.path, read_source(spec.path)))


def build_report(target: str, call: str | None = None,
                 progress: Callable[[str], None] | None = None) -> Report:
    """Run the whole engine for ``PATH::QUALNAME``, capturing what it prints (see :func:`_build`)."""
    from agexplorer.core.capture import capture_output

    spec = parse_spec(target)
    parse_source(spec.path, read_source(spec.path))  # bad files fail before TensorFlow loads
    with capture_output() as captured:
        t0 = time.perf_counter()
        from agexplorer.core.tfenv import import_tf

        import_tf()
        import_s = time.perf_counter() - t0
        failure: AgxError | None = None
        try:
            report = _build(target, call, progress or (lambda phase: None))
        except AgxError as exc:
            failure = exc
    if failure is not None:
        failure.details.extend(captured_lines(captured))
        raise failure
    report.timings = {"import_s": import_s, **report.timings}
    report.output, report.log = captured.stdout, captured.log
    return report


def captured_lines(captured: Any) -> list[str]:
    """Lines the user's module printed before failing (kept, never lost)."""
    return [f"printed: {line}" for line in captured.stdout.splitlines()[:20]]


def _build(target: str, call: str | None, progress: Callable[[str], None]) -> Report:
    """Run the whole engine for ``PATH::QUALNAME``; errors land in ``report.error``.

    Bad input that stops everything (missing file, unknown function) raises
    :class:`AgxError`; failures after the function is found (conversion,
    tracing) are kept on the report so that what was learned still shows.
    """
    t0 = time.perf_counter()
    progress(f"loading {target.partition('::')[0]}")
    loaded = load_target(target, call, require_args=False, progress=progress)
    report = Report(file=loaded.path, function=loaded.qualname, call=loaded.call,
                    call_origin=loaded.call_origin, decorated=loaded.decorated)
    node = loaded.node
    if node is not None:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        report.first_line, report.end_line = first, node.end_lineno or node.lineno
        lines = loaded.text.splitlines()
        report.source = "\n".join(lines[first - 1:report.end_line]) + "\n"
    report.timings["load_s"] = time.perf_counter() - t0
    statements: list[Statement] = find_statements(node) if node is not None else []
    try:
        progress(f"tracing {loaded.qualname}")
        _run_engine(report, loaded, statements)
    except AgxError as exc:
        report.error = exc
    if loaded.args_error is not None and report.error is None:
        report.error = loaded.args_error  # converted, but not traced: no arguments
    return report


def _run_engine(report: Report, loaded: Loaded, statements: list[Statement]) -> None:
    from agexplorer.core.tfenv import import_tf

    tf = import_tf()
    def_line = loaded.node.lineno if loaded.node is not None else 0
    t0 = time.perf_counter()
    report.conversion = convert(loaded.pyfn, report.file, def_line)
    report.timings["convert_s"] = time.perf_counter() - t0
    if loaded.args_error is not None:
        return

    recorder = Recorder(report.file, {s.line: s.names for s in statements})
    traced = False
    t0 = time.perf_counter()
    try:
        with recording(recorder):
            concrete = tf.function(loaded.bound, input_signature=loaded.signature
                                   ).get_concrete_function(*loaded.args, **loaded.kwargs)
        traced = True
    except AgxError:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        report.error = user_code_error(exc, report.file, f"tracing {report.function}")
    finally:
        report.timings["trace_s"] = time.perf_counter() - t0
    if traced:
        t0 = time.perf_counter()
        span = (report.first_line, report.end_line)
        report.inventory = build_inventory(concrete, report.file, span)
        report.concrete_name = report.inventory.bodies[0].name
        report.timings["inventory_s"] = time.perf_counter() - t0
    report.statements = build_verdicts(statements, recorder.calls, report.inventory, traced)
