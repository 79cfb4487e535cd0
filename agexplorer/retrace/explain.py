"""Why a tf.function traced anew: a sequence of calls, each traced or reused, with the reason.

The calls run on a fresh ``tf.function`` (earlier traces, e.g. module-level calls, do
not count), each with its own captured output and a before/after look at the Python
state it could change; then the same calls are replayed with ``reduce_retracing=True``
and with an ``input_signature`` derived from them, so what those settings change is
shown, never predicted.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agexplorer.engine import callargs, tf_internals
from agexplorer.engine.capture import capture_output
from agexplorer.engine.load import EVALUATING, Loaded, load_target, resolve
from agexplorer.model.errors import AgxError, user_code_error
from agexplorer.model.retrace import Argument, Effect, Replay, ReplayCall, RetraceCall, RetraceReport
from agexplorer.retrace.args import (
    NotApplicable,
    bind_arguments,
    derive_signature,
    differences,
    refusal,
    signature_code,
    spec_words,
)
from agexplorer.retrace.effects import changes, snapshot
from agexplorer.source.targets import parse_source, parse_spec, read_source


@dataclass
class _Call:
    text: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def explain_retraces(target: str, calls: list[str] | None = None,
                     progress: Callable[[str], None] | None = None) -> RetraceReport:
    """Call ``PATH::QUALNAME`` with each argument list in turn and explain every retrace.

    ``calls`` are argument lists (``["2", "3", "tf.constant(2)"]``); None takes the
    module's ``AGX_RETRACE`` entry, else its single ready call. Bad input raises
    :class:`AgxError`; a call that raises is recorded and the next one still runs.
    """
    spec = parse_spec(target)
    parse_source(spec.path, read_source(spec.path))  # bad files fail before TensorFlow loads
    failure: AgxError | None = None
    with capture_output() as captured:  # what the module prints at load; calls capture their own
        try:
            report = _explain(target, calls, progress or (lambda phase: None))
        except AgxError as exc:
            failure = exc
    if failure is not None:
        failure.details.extend(f"printed: {line}" for line in captured.stdout.splitlines()[:20])
        raise failure
    report.load_output, report.log = captured.stdout, captured.log
    return report


def _explain(target: str, calls: list[str] | None, progress: Callable[[str], None]) -> RetraceReport:
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    progress(f"loading {target.partition('::')[0]}")
    loaded = load_target(target, call=None, require_args=False, progress=progress)
    progress(EVALUATING + (" (--call)" if calls else ""))
    sequence, origin = _sequence(loaded, calls)
    settings = _settings(loaded)
    report = RetraceReport(file=loaded.path, function=loaded.qualname, decorated=loaded.decorated,
                           settings=_settings_code(settings), calls_origin=origin)
    if len(sequence) == 1:
        report.notes.append("one call cannot show a retrace: pass several, e.g. --call "
                            '"tf.constant(1)" --call "tf.constant(2.0)", or add an AGX_RETRACE '
                            f"entry for {loaded.qualname} to the file.")
    try:
        parameters = inspect.signature(loaded.bound)
    except (TypeError, ValueError):
        parameters = None
    fn = tf.function(loaded.bound, **settings)
    report.calls = _run_sequence(fn, sequence, loaded, parameters, progress, "")
    report.tracing_count = fn.experimental_get_tracing_count()
    report.signatures = _signatures(fn, loaded.qualname)
    _explain_calls(report.calls, settings)
    report.findings = _findings(report.calls)
    report.replays = _replays(tf, loaded, sequence, report, settings, parameters, progress)
    return report


def _sequence(loaded: Loaded, calls: list[str] | None) -> tuple[list[_Call], str]:
    """The calls to make: ``calls``, else AGX_RETRACE, else the one call load_target built."""
    namespace = callargs.call_namespace(loaded.module)
    if calls:
        return [_Call(c, *callargs.parse_call(c, namespace, origin="--call")) for c in calls], "--call"
    table = getattr(loaded.module, callargs.SAMPLE_SEQUENCES, None)
    if isinstance(table, dict) and loaded.qualname in table:
        entry = table[loaded.qualname]
        where = f"{callargs.SAMPLE_SEQUENCES}[{loaded.qualname!r}]"
        if not isinstance(entry, (list, tuple)) or not all(isinstance(c, str) for c in entry):
            raise AgxError("bad-call", f"{where} must be a list of argument strings, e.g. "
                           '["tf.constant(1)", "tf.constant(2.0)"].')
        return [_Call(c, *callargs.parse_call(c, namespace, origin=f"{where}[{i}]"))
                for i, c in enumerate(entry)], callargs.SAMPLE_SEQUENCES
    if loaded.args_error is not None:
        raise AgxError("needs-arguments", f"{loaded.qualname} takes arguments; pass a sequence "
                       'of calls with --call, e.g. --call "tf.constant(1)" --call "tf.constant(2.0)".')
    return [_Call(loaded.call or "", loaded.args, loaded.kwargs)], loaded.call_origin or ""


def _settings(loaded: Loaded) -> dict[str, Any]:
    """The user's own tf.function settings that decide tracing (jit_compile does not)."""
    signature = loaded.signature
    if signature is not None and not len(signature) and _takes_none(loaded.bound):
        signature = None  # TensorFlow gives a function without parameters an empty signature
    settings: dict[str, Any] = {"input_signature": signature}
    if loaded.decorated:
        original = resolve(loaded.module, loaded.qualname, loaded.functions)
        if getattr(original, "_reduce_retracing", False):
            settings["reduce_retracing"] = True
        if getattr(original, "_autograph", True) is False:
            settings["autograph"] = False
    return settings


def _takes_none(bound: Any) -> bool:
    try:
        return not inspect.signature(bound).parameters
    except (TypeError, ValueError):
        return False


def _settings_code(settings: dict[str, Any]) -> str:
    parts = []
    if settings.get("input_signature") is not None:
        parts.append(signature_code(settings["input_signature"]))
    parts += [f"{k}={v}" for k, v in settings.items() if k != "input_signature"]
    return f"tf.function({', '.join(parts)})"


def _run_sequence(fn: Any, sequence: list[_Call], loaded: Loaded, parameters: Any,
                  progress: Callable[[str], None], label: str) -> list[RetraceCall]:
    """Call ``fn`` once per entry, each call's output and state changes kept apart."""
    name = loaded.qualname.rpartition(".")[2]
    results = []
    for index, call in enumerate(sequence, start=1):
        progress(f"calling {name}({call.text}){label}, call {index} of {len(sequence)}")
        arguments = bind_arguments(parameters, call.args, call.kwargs)
        count = fn.experimental_get_tracing_count()
        before = snapshot(loaded)
        failure: BaseException | None = None
        with capture_output() as out:
            try:
                fn(*call.args, **call.kwargs)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
                failure = exc
        after = fn.experimental_get_tracing_count()
        traced = after > count
        outcome = "failed" if failure is not None else "traced" if traced else "reused"
        result = RetraceCall(index=index, call=call.text, outcome=outcome, traced=traced,
                             tracing_count=after, arguments=arguments, printed=out.stdout,
                             logged=out.log)
        result.effects = [Effect(*e, during=outcome) for e in changes(before, snapshot(loaded))]
        if failure is not None:
            result.error, result.error_line = _error(failure, fn, arguments, loaded, index, call,
                                                     traced)
        results.append(result)
    return results


def _error(exc: BaseException, fn: Any, arguments: list[Argument], loaded: Loaded, index: int,
           call: _Call, traced: bool) -> tuple[str, int | None]:
    """One sentence for a call that raised; an input_signature refusal said as such."""
    signature = getattr(fn, "input_signature", None)
    if signature is not None and not traced and "Binding inputs" in str(exc):
        return f"call {index} was refused by the input_signature: " \
               f"{refusal(arguments, signature, str(exc))}.", None
    name = loaded.qualname.rpartition(".")[2]
    error = user_code_error(exc, loaded.path, f"call {index}, {name}({call.text}),",
                            kind="call-failed")
    return error.message, error.line


def _signatures(fn: Any, qualname: str) -> list[str]:
    """One line per trace: ``show_trace(x: int32[])``, Python values as ``n=2``."""
    name = qualname.rpartition(".")[2]
    lines = []
    # Private, but the only way to list the traces in the order they were made.
    for cf in tf_internals.concrete_functions_of(fn):
        parts = []
        try:
            for p in cf.function_type.parameters.values():
                c = p.type_constraint
                if hasattr(c, "dtype") and hasattr(c, "shape"):
                    parts.append(f"{p.name}: {spec_words(c)}")
                elif hasattr(c, "value"):
                    parts.append(f"{p.name}={c.value!r}")
                else:
                    parts.append(f"{p.name}={c}")
        except Exception:  # noqa: BLE001 - an unexpected trace type: its own text
            parts = [str(cf.structured_input_signature)]
        lines.append(f"{name}({', '.join(parts)})")
    return lines


def _explain_calls(calls: list[RetraceCall], settings: dict[str, Any]) -> None:
    """Fill ``reason`` (traced) and ``same_as`` (reused) from the calls before each one."""
    for i, call in enumerate(calls):
        earlier = [c for c in calls[:i] if c.outcome != "failed"]
        keys = [a.key for a in call.arguments]
        if call.outcome == "reused":
            call.same_as = next((c.index for c in earlier
                                 if [a.key for a in c.arguments] == keys), None)
            if call.same_as is not None:
                call.reused_because = (f"same arguments as call {call.same_as}" if keys
                                       else f"no arguments, like call {call.same_as}")
            elif settings.get("input_signature") is not None:
                call.reused_because = "fits the input_signature's trace"
            else:
                call.reused_because = "fits a relaxed trace made earlier (reduce_retracing)"
            continue
        if not call.traced:
            continue
        candidates = [c for c in earlier if c.traced]
        if not candidates:
            call.reason = "first call" if i == 0 else \
                "first call to trace successfully (the calls before it failed)"
            continue
        scored = [(differences(call.arguments, c.arguments, c.index), c) for c in candidates]
        fewest = min(len(d) for d, _ in scored)
        phrases, closest = [(d, c) for d, c in scored if len(d) == fewest][-1]
        call.closest, call.differs = closest.index, [name for name, _ in phrases]
        if phrases:
            call.reason = "; ".join(text for _, text in phrases)
        else:
            call.reason = (f"the arguments match those of call {closest.index}, yet it traced "
                           "anew: TensorFlow also keys traces on what is not shown here "
                           "(an object's identity, a captured value)")


_EFFECT_WORDS = {
    "random": "the number drawn while tracing is baked into the graph as a constant; "
              "use tf.random for a new value on every call",
    "numpy-random": "the number drawn while tracing is baked into the graph as a constant; "
                    "use tf.random for a new value on every call",
}


def _numbers(calls: list[RetraceCall]) -> str:
    indices = [str(c.index) for c in calls]
    return ("call " if len(indices) == 1 else "calls ") + (
        ", ".join(indices[:-1]) + " and " + indices[-1] if len(indices) > 1 else indices[0])


def _findings(calls: list[RetraceCall]) -> list[str]:
    """The lesson in sentences: what ran while tracing and not on later calls."""
    findings = []
    reused = [c for c in calls if c.outcome == "reused"]
    printed = [c for c in calls if c.printed.strip()]
    if printed:
        on_reused = [c for c in printed if c.outcome == "reused"]
        if on_reused:
            findings.append(f"{_numbers(on_reused)} printed although it reused a trace: that "
                            "output comes from the graph (tf.print), which runs on every call.")
        elif reused:
            findings.append(f"print output appeared on {_numbers(printed)} only, which traced; "
                            f"not on the reused {_numbers(reused)}: Python's print runs while "
                            "tracing only (tf.print prints on every call).")
        else:
            findings.append(f"print output appeared on {_numbers(printed)}: each traced, and "
                            "Python's print runs while tracing; repeat a call to see a reused "
                            "one print nothing.")
    changed: dict[tuple[str, str], list[RetraceCall]] = {}
    for call in calls:
        for effect in call.effects:
            changed.setdefault((effect.kind, effect.name), []).append(call)
    randoms = [k for k in changed if k[0] in _EFFECT_WORDS]
    if len(randoms) == 2 and changed[randoms[0]] == changed[randoms[1]]:  # one sentence for both
        changed[("random", " and ".join(name for _, name in randoms))] = changed.pop(randoms[0])
        del changed[randoms[1]]
    for (kind, name), where in changed.items():
        label = name if kind in _EFFECT_WORDS else f"{kind} {name}"
        verb = "changed" if kind not in _EFFECT_WORDS else \
            "were drawn from" if " and " in name else "was drawn from"
        on_reused = [c for c in where if c.outcome == "reused"]
        why = _EFFECT_WORDS.get(kind, "Python state changes run while tracing only; keep state "
                                      "that must change on every call in a tf.Variable")
        if on_reused:
            findings.append(f"{label} changed on the reused {_numbers(on_reused)} too: "
                            "something in the graph (tf.py_function or the like) changes it on "
                            "every call.")
        elif reused:
            findings.append(f"{label} {verb} on {_numbers(where)}, while tracing, and not on "
                            f"the reused {_numbers(reused)}: {why}.")
        else:
            findings.append(f"{label} {verb} on {_numbers(where)}; no call reused a trace, so "
                            "repeat a call to see it stop.")
    return findings


def _replays(tf: Any, loaded: Loaded, sequence: list[_Call], report: RetraceReport,
             settings: dict[str, Any], parameters: Any, progress: Callable[[str], None]
             ) -> dict[str, Replay]:
    """The calls again with reduce_retracing=True, then with a derived input_signature."""
    base = {k: v for k, v in settings.items() if k == "autograph"}
    takes_none = parameters is not None and not parameters.parameters
    reduce = Replay("reduce_retracing", applied=False, code="reduce_retracing=True")
    if takes_none:
        reduce.note = "it takes no arguments: there is nothing to relax."
    elif settings.get("input_signature") is not None:
        reduce.note = ("it has an input_signature, which already decides every trace: "
                       "reduce_retracing=True would change nothing.")
    elif settings.get("reduce_retracing"):
        reduce.note = "it already has reduce_retracing=True: the calls above are that replay."
    else:
        _replay(reduce, tf.function(loaded.bound, reduce_retracing=True, **base), sequence,
                loaded, parameters, report, progress)
    derived = Replay("input_signature", applied=False)
    if takes_none:
        derived.note = "it takes no arguments: there is nothing to relax."
    elif settings.get("input_signature") is not None:
        derived.code = signature_code(settings["input_signature"])
        derived.note = "it already has this input_signature: the calls above are that replay."
    else:
        try:
            specs = derive_signature(tf, parameters, [c.arguments for c in report.calls])
        except NotApplicable as exc:
            derived.note = f"input_signature does not apply: {exc}."
        else:
            derived.code = signature_code(specs)
            extra = {"reduce_retracing": True} if settings.get("reduce_retracing") else {}
            _replay(derived, tf.function(loaded.bound, input_signature=specs, **extra, **base),
                    sequence, loaded, parameters, report, progress)
    return {"reduce_retracing": reduce, "input_signature": derived}


def _replay(replay: Replay, fn: Any, sequence: list[_Call], loaded: Loaded, parameters: Any,
            report: RetraceReport, progress: Callable[[str], None]) -> None:
    runs = _run_sequence(fn, sequence, loaded, parameters, progress, f" with {replay.setting}")
    replay.applied = True
    replay.calls = [ReplayCall(r.outcome, r.traced, r.error) for r in runs]
    replay.tracing_count = fn.experimental_get_tracing_count()
    replay.signatures = _signatures(fn, loaded.qualname)
    times = lambda n: "once" if n == 1 else f"{n} times"  # noqa: E731
    summary = f"traced {times(replay.tracing_count)} (as written: {times(report.tracing_count)})"
    refused = [r for r in runs if r.outcome == "failed"]
    if refused:
        summary += f"; {_numbers(refused)} failed"
    replay.summary = summary + "."
    if replay.setting == "reduce_retracing" and \
            replay.tracing_count >= report.tracing_count > 1:
        replay.note = ("no fewer traces: reduce_retracing relaxes shapes (to None dimensions), "
                       "never a dtype or a Python value.")
    if replay.setting == "input_signature":
        numbers = sorted({a.name for c in report.calls for a in c.arguments if a.kind == "python"})
        if numbers:
            replay.note = (f"the Python numbers passed for {', '.join(numbers)} become scalar "
                           "tensors of the signature's dtype: their values are no longer baked "
                           "into the trace.")
