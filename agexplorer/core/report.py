"""The engine's one entry point: load, convert, trace, inventory and verdicts for one target."""

from __future__ import annotations

import inspect
import re
import time
import types
from dataclasses import dataclass, field
from typing import Any

from agexplorer.core import callargs
from agexplorer.core.convert import Conversion, convert
from agexplorer.core.errors import AgxError
from agexplorer.core.inventory import Inventory, build_inventory
from agexplorer.core.recorder import Recorder, recording
from agexplorer.core.statements import Statement, find_statements
from agexplorer.core.targets import (
    FunctionInfo,
    find_function_node,
    list_functions,
    load_module,
    parse_source,
    parse_spec,
    read_source,
    resolve,
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


def _unwrap(obj: Any) -> tuple[Any, Any]:
    """(python function, input_signature) for a plain or ``tf.function``-decorated callable."""
    python_function = getattr(obj, "python_function", None)
    if python_function is not None:
        return python_function, getattr(obj, "input_signature", None)
    return obj, None


def _instance_for(module: Any, cls: type, qualname: str) -> Any:
    for value in vars(module).values():
        if isinstance(value, cls):
            return value
    try:
        return cls()
    except Exception as exc:  # noqa: BLE001 - the class's constructor is user code
        raise AgxError("no-instance", f"{qualname} is a method and needs an instance of "
                       f"{cls.__name__}: {cls.__name__}() raised {type(exc).__name__}: {exc}; "
                       f"create one at module level (e.g. obj = {cls.__name__}(...)).") from None


def _trace_error(exc: BaseException, path: str, name: str) -> AgxError:
    """A tracing failure as the user's frames only, at the user's line."""
    text = str(exc)
    # AutoGraph's message lists the user's frames ("in user code:") before the
    # original error line; frames after it belong to "was defined here" notes.
    head = re.split(r"\n\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning): ", text, maxsplit=1)[0]
    frames = [(f, int(n), fn) for f, n, fn in
              re.findall(r'File "([^"]+)", line (\d+), in (\S+)', head) if f == path]
    line = frames[-1][1] if frames else None
    if line is None:
        from agexplorer.core.targets import user_frames_message

        _, line = user_frames_message(exc, path)
    message = None
    for candidate in text.splitlines():
        m = re.match(r"\s*([A-Za-z_][\w.]*(?:Error|Exception|Warning)): (.*)", candidate)
        if m:
            message = f"{m.group(1)}: {m.group(2).strip()}"
            break
    if message is None:
        first = text.strip().splitlines()[0] if text.strip() else ""
        message = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    where = f"{path}:{line}" if line else path
    details = [f'File "{f}", line {n}, in {fn}' for f, n, fn in frames]
    return AgxError("trace-failed", f"{where}: tracing {name} raised {message}",
                    line=line, exit_code=1, details=details)


def build_report(target: str, call: str | None = None) -> Report:
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
            report = _build(target, call)
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


def _build(target: str, call: str | None = None) -> Report:
    """Run the whole engine for ``PATH::QUALNAME``; errors land in ``report.error``.

    Bad input that stops everything (missing file, unknown function) raises
    :class:`AgxError`; failures after the function is found (conversion,
    tracing) are kept on the report so that what was learned still shows.
    """
    spec = parse_spec(target)
    t0 = time.perf_counter()
    text = read_source(spec.path)
    tree = parse_source(spec.path, text)
    functions = list_functions(tree)
    if spec.qualname is None:
        names = ", ".join(f.qualname for f in functions) or "none"
        raise AgxError("no-function", f"name a function: {spec.path}::FUNCTION "
                       f"(available: {names}).")
    node = find_function_node(tree, spec.qualname)
    module = load_module(spec.path, text)
    obj = resolve(module, spec.qualname, functions)
    pyfn, signature = _unwrap(obj)
    if not callable(pyfn) or not hasattr(pyfn, "__code__"):
        raise AgxError("not-a-function", f"{spec.qualname} in {spec.path} is a "
                       f"{type(obj).__name__}, not a function; pick one from "
                       f"`agexplorer list {spec.path}`.")
    if node is None:  # e.g. `f2 = tf.function(f)`: use the definition it wraps
        node = find_function_node(tree, pyfn.__qualname__)
    report = Report(file=spec.path, function=spec.qualname)
    lines = text.splitlines()
    if node is not None:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        report.first_line, report.end_line = first, node.end_lineno or node.lineno
        report.source = "\n".join(lines[first - 1:report.end_line]) + "\n"
        report.decorated = signature is not None or any(
            f.decorated for f in functions if f.qualname == spec.qualname)
    report.timings["load_s"] = time.perf_counter() - t0

    statements: list[Statement] = find_statements(node) if node is not None else []
    bound = _bind(module, spec.qualname, pyfn)
    args, kwargs = _arguments(report, module, spec.qualname, signature, call, bound)
    try:
        _run_engine(report, pyfn, bound, signature, statements, args, kwargs,
                    node.lineno if node is not None else 0)
    except AgxError as exc:
        report.error = exc
    return report


def _bind(module: Any, qualname: str, pyfn: Any) -> Any:
    """A method becomes bound to an instance (a module-level one, else ``Class()``)."""
    parent_name, _, attr = qualname.rpartition(".")
    if parent_name:
        parent = resolve(module, parent_name, [])
        if isinstance(parent, type) and not isinstance(
                inspect.getattr_static(parent, attr, None), (staticmethod, classmethod)):
            return types.MethodType(pyfn, _instance_for(module, parent, qualname))
    return pyfn


def _arguments(report: Report, module: Any, qualname: str, signature: Any,
               call: str | None, bound: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if call is not None:
        report.call, report.call_origin = call, "--call"
        return callargs.parse_call(call, callargs.call_namespace(module))
    samples = getattr(module, callargs.SAMPLE_CALLS, None)
    if isinstance(samples, dict) and qualname in samples:
        report.call, report.call_origin = samples[qualname], callargs.SAMPLE_CALLS
        return callargs.parse_call(samples[qualname], callargs.call_namespace(module),
                                   origin=f"{callargs.SAMPLE_CALLS}[{qualname!r}]")
    if signature is not None:
        report.call_origin = "input_signature"
        args, kwargs = callargs.signature_call(signature)
        report.call = ", ".join(f"<{a.dtype.name}{list(a.shape)}>" for a in args)
        return args, kwargs
    params = [p for p in inspect.signature(bound).parameters.values()
              if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if params:
        names = ", ".join(p.name for p in params)
        raise AgxError("needs-arguments", f"{qualname} takes arguments ({names}); pass them "
                       f'with --call, e.g. --call "tf.constant([1.0, 2.0])".')
    report.call, report.call_origin = "", "no arguments"
    return (), {}


def _run_engine(report: Report, pyfn: Any, bound: Any, signature: Any,
                statements: list[Statement], args: tuple[Any, ...], kwargs: dict[str, Any],
                def_line: int) -> None:
    from agexplorer.core.tfenv import import_tf

    tf = import_tf()
    qualname = report.function

    t0 = time.perf_counter()
    report.conversion = convert(pyfn, report.file, def_line)
    report.timings["convert_s"] = time.perf_counter() - t0

    recorder = Recorder(report.file, {s.line: s.names for s in statements})
    traced = False
    t0 = time.perf_counter()
    try:
        with recording(recorder):
            concrete = tf.function(bound, input_signature=signature).get_concrete_function(
                *args, **kwargs)
        traced = True
    except AgxError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's code can raise anything
        report.error = _trace_error(exc, report.file, qualname)
    finally:
        report.timings["trace_s"] = time.perf_counter() - t0
    if traced:
        t0 = time.perf_counter()
        span = (report.first_line, report.end_line)
        report.inventory = build_inventory(concrete, report.file, span)
        report.concrete_name = report.inventory.bodies[0].name
        report.timings["inventory_s"] = time.perf_counter() - t0
    report.statements = build_verdicts(statements, recorder.calls, report.inventory, traced)
