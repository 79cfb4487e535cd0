"""The engine's one entry point: load, convert, trace, inventory and verdicts for one target."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agexplorer.engine.convert import convert
from agexplorer.engine.inventory import build_inventory
from agexplorer.engine.load import Loaded, load_target
from agexplorer.engine.recorder import Recorder, recording
from agexplorer.engine.statements import Statement, find_statements
from agexplorer.engine.verdicts import build_verdicts
from agexplorer.model.errors import AgxError, ErrorCause, raised_line, user_code_error
from agexplorer.model.report import Report
from agexplorer.source.targets import (
    FunctionInfo,
    list_functions,
    parse_source,
    parse_spec,
    read_source,
)


def list_file(path: str) -> list[FunctionInfo]:
    """The explorable functions of a file, from a static parse (nothing is run)."""
    spec = parse_spec(path)
    return list_functions(parse_source(spec.path, read_source(spec.path)))


def build_report(target: str, call: str | None = None,
                 progress: Callable[[str], None] | None = None) -> Report:
    """Run the whole engine for ``PATH::QUALNAME``, capturing what it prints (see :func:`_build`)."""
    from agexplorer.engine.capture import capture_output

    spec = parse_spec(target)
    parse_source(spec.path, read_source(spec.path))  # bad files fail before TensorFlow loads
    with capture_output() as captured:
        t0 = time.perf_counter()
        from agexplorer.engine.tfenv import import_tf

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
    from agexplorer.engine.tfenv import import_tf

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
        report.error = user_code_error(exc, report.file, f"tracing {report.function}",
                                       cause=trace_cause(exc))
    finally:
        report.timings["trace_s"] = time.perf_counter() - t0
    if traced:
        t0 = time.perf_counter()
        span = (report.first_line, report.end_line)
        report.inventory = build_inventory(concrete, report.file, span)
        report.concrete_name = report.inventory.bodies[0].name
        report.timings["inventory_s"] = time.perf_counter() - t0
    report.statements = build_verdicts(statements, recorder.calls, report.inventory, traced)


def trace_cause(exc: BaseException) -> ErrorCause | None:
    """Why tracing failed, where the doctor tells causes apart.

    TensorFlow says it only in words, so its error line is read here, once; everything
    after this reads the kind.
    """
    raised = raised_line(exc)
    if "Variable" in raised:  # "tf.function only supports singleton tf.Variables ..."
        return "variable-created"
    if "numpy" in raised:  # "'SymbolicTensor' object has no attribute 'numpy'"
        return "numpy-in-graph"
    return None
