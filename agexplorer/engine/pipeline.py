"""The engine's one entry point: load, convert, trace, inventory and verdicts for one target."""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agexplorer.engine import tf_internals
from agexplorer.engine.calltree import (
    FileIndex,
    Reach,
    Root,
    build_call_tree,
    root_verdicts,
    with_line_counts,
)
from agexplorer.engine.convert import attempt_conversion, autograph_off, convert
from agexplorer.engine.fallback import (
    LineCounter,
    fallback_verdicts,
    untold_expressions,
    with_expressions,
)
from agexplorer.engine.inventory import build_inventory, trace_graphs
from agexplorer.engine.load import Loaded, load_target
from agexplorer.engine.opchains import caller_frames
from agexplorer.engine.recorder import Recorder, recording
from agexplorer.engine.recursion import recursion_advice
from agexplorer.engine.statements import Statement, find_statements
from agexplorer.engine.unconverted_raise import tensorflow_words, unconverted_advice
from agexplorer.engine.usercode import UserCode
from agexplorer.engine.verdicts import build_verdicts
from agexplorer.model.errors import AgxError, ErrorCause, raised_line, user_code_error
from agexplorer.model.report import CallSite, Conversion, ReachedFunction, Report
from agexplorer.source.targets import (
    FunctionInfo,
    list_functions,
    made_by,
    parse_source,
    parse_spec,
    read_source,
)


def list_file(path: str) -> list[FunctionInfo]:
    """The explorable functions of a file, from a static parse (nothing is run)."""
    spec = parse_spec(path)
    return list_functions(parse_source(spec.path, read_source(spec.path)), drives=True)


def build_report(target: str, call: str | None = None,
                 progress: Callable[[str], None] | None = None,
                 user_code: Sequence[str] = (), depth: int | None = None,
                 init: str | None = None,
                 on_conversion: Callable[[Conversion], None] | None = None) -> Report:
    """Run the whole engine for ``PATH::QUALNAME``, capturing what it prints (see :func:`_build`).

    ``user_code``: more folders whose files count as the user's code (beyond every file
    outside the Python installation); ``depth``: keep the functions reached at most that
    many calls away from the explored one (None: all); ``init``: a method's instance is
    built with these constructor arguments (``--init``); ``on_conversion``: told AutoGraph's
    code as soon as it is converted, before the trace (the explorer draws it meanwhile).
    """
    from agexplorer.engine.capture import capture_output

    spec = parse_spec(target)
    if "tensorflow" not in sys.modules:  # bad files fail before TensorFlow loads
        parse_source(spec.path, read_source(spec.path))
    with capture_output() as captured:
        t0 = time.perf_counter()
        from agexplorer.engine.tfenv import import_tf

        import_tf()
        import_s = time.perf_counter() - t0
        failure: AgxError | None = None
        try:
            report = _build(target, call, progress or (lambda phase: None),
                            Scope(tuple(user_code), depth), init, on_conversion)
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


@dataclass(frozen=True)
class Scope:
    """How far the report looks beyond the explored function."""

    user_code: tuple[str, ...] = ()
    depth: int | None = None


def _build(target: str, call: str | None, progress: Callable[[str], None],
           scope: Scope = Scope(), init: str | None = None,
           on_conversion: Callable[[Conversion], None] | None = None) -> Report:
    """Run the whole engine for ``PATH::QUALNAME``; errors land in ``report.error``.

    Bad input that stops everything (missing file, unknown function) raises
    :class:`AgxError`; failures after the function is found (conversion,
    tracing) are kept on the report so that what was learned still shows.
    """
    t0 = time.perf_counter()
    progress(f"loading {target.partition('::')[0]}")
    loaded = load_target(target, call, require_args=False, progress=progress, init=init)
    return report_from_loaded(loaded, progress, scope, t0, on_conversion)


def report_from_loaded(loaded: Loaded, progress: Callable[[str], None] = lambda phase: None,
                       scope: Scope = Scope(), t0: float | None = None,
                       on_conversion: Callable[[Conversion], None] | None = None) -> Report:
    """The report for a function already loaded (from a target, or a live function object:
    engine/live.py); ``t0``: when loading began, for ``load_s``; ``on_conversion``: see
    :func:`build_report`."""
    t0 = time.perf_counter() if t0 is None else t0
    report = Report(file=loaded.path, function=loaded.qualname, call=loaded.call,
                    call_origin=loaded.call_origin, decorated=loaded.decorated,
                    instance=loaded.instance, load_note=loaded.load_note, drives=loaded.drives)
    node = loaded.node
    if node is not None:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        report.first_line, report.end_line = first, node.end_lineno or node.lineno
        lines = loaded.text.splitlines()
        report.source = "\n".join(lines[first - 1:report.end_line]) + "\n"
    report.timings["load_s"] = time.perf_counter() - t0
    statements: list[Statement] = find_statements(node, loaded.text) if node is not None else []
    try:
        progress(f"tracing {loaded.qualname}")
        _run_engine(report, loaded, statements, scope, on_conversion)
    except AgxError as exc:
        report.error = exc
    if loaded.args_error is not None and report.error is None:
        report.error = loaded.args_error  # converted, but not traced: no arguments
    return report


def _run_engine(report: Report, loaded: Loaded, statements: list[Statement],
                scope: Scope, on_conversion: Callable[[Conversion], None] | None = None) -> None:
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    def_line = loaded.node.lineno if loaded.node is not None else 0
    t0 = time.perf_counter()
    if loaded.autograph:
        report.conversion, refused = attempt_conversion(loaded.own or loaded.pyfn, report.file,
                                                        def_line, loaded.autograph_options)
        if report.conversion is not None and loaded.own is not None:
            report.conversion.wrapped_by = wrapper_site(loaded.pyfn)
    else:  # the user's tf.function converts nothing: neither does the report's trace
        report.conversion, refused = None, autograph_off(report.function, report.file,
                                                         def_line)
    report.timings["convert_s"] = time.perf_counter() - t0
    if on_conversion is not None and report.conversion is not None:
        on_conversion(report.conversion)
    if refused is not None:
        if loaded.args_error is not None:
            raise refused.error  # nothing to trace it with: the refusal is the news
        report.conversion_note = (
            f"{refused.error.what}: tf.function traces {report.function} as written, so "
            "every if/for/while in it runs in Python while tracing (the verdicts below are "
            "that run)." if refused.construct == "autograph-off" else
            f"{refused.error.message} tf.function goes on without it: it logs a warning and "
            f"traces {report.function} as written, so every if/for/while in it runs in Python "
            "while tracing (the verdicts below are that run).")
    if loaded.args_error is not None:
        return

    span = (report.first_line, report.end_line)
    user_code = UserCode.shared(scope.user_code)
    index = FileIndex({report.file: loaded.text},
                      {report.file: (loaded.tree, loaded.functions)} if loaded.tree else None)
    root = Root(report.file, report.function, def_line, *span)
    own_names = {s.line: s.names for s in statements}

    def names_for(file: str, line: int) -> tuple[str, ...]:
        return own_names.get(line, ()) if root.holds(file, line) else index.names_for(file, line)

    outer = caller_frames(report.file, user_code)  # a notebook's cell that asked
    recorder = Recorder(report.file, span, user_code, names_for, outer=outer)
    lines = LineCounter([(report.file, span)], graph=tf_internals.default_graph)
    traced = False
    failed_line = None  # the line the trace raised at, if it did
    t0 = time.perf_counter()
    try:
        with recording(recorder), (lines.active() if refused else contextlib.nullcontext()):
            traced_with = loaded.traced_with or loaded.tf_function(
                tf, input_signature=loaded.signature)
            concrete = traced_with.get_concrete_function(*loaded.args, **loaded.kwargs)
        traced = True
    except AgxError:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        advice = unconverted_advice(exc, index, user_code)
        report.error = user_code_error(exc, report.file, f"tracing {report.function}",
                                       cause=trace_cause(exc), advice=advice)
        if advice is not None:  # TensorFlow's own advice ("decorate it") does not apply
            report.error.what = tensorflow_words(report.error.what)
            report.error.raised = tensorflow_words(report.error.raised or "")
        failed_line = report.error.line
        # (AutoGraph raises a NameError of its own, with the name in its words only)
        named = re.search(r"name '(\w+)' is not defined", str(exc)) \
            if isinstance(exc, NameError) else None
        unset = named[1] if named else None
        if unset in loaded.not_set:  # the load's failure kept it from being set
            report.error.advice = (
                f"`{unset}` is set at line {loaded.not_set[unset]} of the file's module-level "
                "code, which did not run while agexplorer loaded the file (the load note "
                "says what raised before it), so the function cannot read it: make that "
                "code run when the file is imported with no command line (defaults, not "
                "required arguments), or pass the value to the function as an argument.")
        looped = recursion_advice(exc, user_code.__contains__, recorder.calls,
                                  (report.file, report.function.rpartition(".")[2], *span))
        if looped is not None:
            report.error.advice = looped
        made = _returned_function(exc)
        if made is not None:
            report.error.advice = factory_advice(report.function, made, loaded.text)
        if refused is not None:  # the refusal is the cause; the trace's error says how
            # (TensorFlow's advice, "decorate it with @tf.function", does not apply)
            refused.error.details.append("then, tracing it as written: "
                                         + tensorflow_words(report.error.message))
            report.error = refused.error
    finally:
        report.timings["trace_s"] = time.perf_counter() - t0
    chains = None
    if traced:
        t0 = time.perf_counter()
        inventory = build_inventory(concrete, report.file, span, user_code,
                                    recorder.op_chains, outer=outer)
        report.inventory, chains = inventory, inventory.chains
        report.concrete_name = inventory.bodies[0].name
        report.timings["inventory_s"] = time.perf_counter() - t0
    if refused is not None:
        by_line = report.inventory.by_line(report.file) if report.inventory else {}
        graphs = report.inventory.graph_names if report.inventory else None
        own = fallback_verdicts(statements, lines.lines_of(report.file, graphs), report.function,
                                refused.why, by_line, traced, construct=refused.construct,
                                failed_line=failed_line)
        said = untold_expressions(statements, own, "this run counts lines")
        if said and report.conversion_note:
            report.conversion_note += f" {said[0].upper()}{said[1:]}."
    else:
        own = build_verdicts(statements, recorder.calls, report.inventory, traced,
                             file=report.file, chains=chains, failed_line=failed_line)
    report.statements = root_verdicts(root, own)
    t0 = time.perf_counter()
    entries = {key: Reach(frames, fn) for key, (fn, frames) in recorder.entries.items()}
    report.reached = build_call_tree(root, recorder.calls, entries, report.inventory, traced,
                                     index, chains, convert=convert, depth=scope.depth,
                                     failed_at=(report.file, failed_line) if failed_line
                                     else None)
    if traced and any(not f.converted and f.statements for f in report.reached):
        # Functions reached through code AutoGraph does not convert (a Keras layer's call):
        # one more trace, with their lines counted, gives their statements' counts.
        report.reached = _count_unconverted(tf, loaded, report, index, user_code)
    report.timings["call_tree_s"] = time.perf_counter() - t0


def wrapper_site(wrapper: Any) -> CallSite | None:
    """A decorator's wrapper: its name (``timed.<locals>.wrapper``; a callable object's
    ``Memo.__call__``), file and first line; None where it has no Python code."""
    code = getattr(wrapper, "__code__", None)
    if code is None:  # a callable object: its class's __call__
        code = getattr(getattr(type(wrapper), "__call__", None), "__code__", None)  # noqa: B004
    if code is None:
        return None
    # (its code's name: functools.wraps gave the wrapper the function's __qualname__)
    return CallSite(getattr(code, "co_qualname", code.co_name), code.co_filename,
                    code.co_firstlineno)


# tf.function's words for a return value it cannot make a graph's output of.
_RETURNED = re.compile(r"found return value of type (\w+)")
# What a factory of functions returns: a tf.function, a Python function, a method...
_FUNCTION_TYPES = {"Function", "PolymorphicFunction", "ConcreteFunction", "function", "method",
                   "partial", "builtin_function_or_method"}


def _returned_function(exc: BaseException) -> str | None:
    """The type of the function the traced function returned, as tf.function's TypeError
    names it (``Function``), or None."""
    found = _RETURNED.search(str(exc)) if isinstance(exc, TypeError) else None
    return found[1] if found and found[1] in _FUNCTION_TYPES else None


def factory_advice(function: str, returned: str, text: str) -> str:
    """What to explore when ``function`` makes a function rather than computing tensors."""
    kind = "a tf.function" if returned in ("Function", "PolymorphicFunction") else \
        "a concrete function" if returned == "ConcreteFunction" else "a function"
    said = f"{function} returns {kind}, not tensors: it makes the function to explore"
    try:
        made = made_by(ast.parse(text), function)
    except (SyntaxError, ValueError, RecursionError):
        made = []
    if made:
        names = ", ".join(f"`{name}` (line {line})" for name, line in made)
        return f"{said}. Explore what the file makes with it: {names}."
    return (f"{said}. Bind what it returns to a module-level name (`step = {function}(...)`) "
            "and explore that name, or run `agexplorer record` on the program to see it "
            "where the program calls it.")


def _count_unconverted(tf: Any, loaded: Loaded, report: Report, index: FileIndex,
                       user_code: UserCode) -> list[ReachedFunction]:
    """One more trace, with the lines of the functions AutoGraph did not convert counted;
    where those hold a conditional expression, whose branches share its lines, with the
    user's functions run from copies of their code with counters compiled in
    (``engine.counters``, as ``agexplorer record`` counts them) too."""
    from agexplorer.engine.counters import Counters

    unconverted = [f for f in report.reached if not f.converted and f.statements]
    units = [(f.file, index.unit_at(f.file, f.first_line)) for f in unconverted]
    lines = LineCounter([(f.file, (f.first_line, f.end_line)) for f in unconverted],
                        graph=tf_internals.default_graph,
                        loops=[(file, s) for file, unit in units if unit is not None
                               for s in unit.statements])
    counters = Counters(user_code, graph=tf_internals.default_graph) \
        if any(v.kind == "ifexp" for f in unconverted for v in f.statements) else None
    try:
        with lines.active(), (counters.counting(lambda frame: None) if counters is not None
                              else contextlib.nullcontext()) as counts:
            if counters is not None:
                counters.install()
            concrete = loaded.tf_function(tf, input_signature=loaded.signature
                                          ).get_concrete_function(*loaded.args, **loaded.kwargs)
    except (Exception, SystemExit):  # noqa: BLE001 - it traced once: keep what that showed
        return report.reached
    finally:
        if counters is not None:
            counters.restore()
    graphs = trace_graphs(concrete)  # not the lines run in graphs Keras built for shapes

    def tally(file: str) -> Any:
        counted = lines.lines_of(file, graphs)
        if counters is None or counts is None:
            return counted
        return with_expressions(counted, counts.tally(counters.slots, file, graphs))

    return with_line_counts(report.reached, index, report.inventory, tally, lines.iterated_of)


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
