"""Why a tf.function traced anew: a sequence of calls, each traced or reused, with the reason.

The calls run on a fresh ``tf.function`` (earlier traces, e.g. module-level calls, do
not count), each with its own captured output and a before/after look at the Python
state it could change; then the same calls are replayed with ``reduce_retracing=True``
and with an ``input_signature`` derived from them, so what those settings change is
shown, never predicted.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agexplorer.engine import callargs, tf_internals
from agexplorer.engine.capture import capture_output
from agexplorer.engine.effects import changes, snapshot
from agexplorer.engine.load import EVALUATING, Loaded, load_target, resolve
from agexplorer.model.errors import AgxError, user_code_error
from agexplorer.model.retrace import Argument, Effect, Replay, ReplayCall, RetraceCall, RetraceReport
from agexplorer.retrace.args import (
    NotApplicable,
    bind_arguments,
    call_arguments,
    derive_signature,
    differences,
    refusal,
    relaxed_for,
    signature_code,
    spec_words,
)
from agexplorer.source.targets import parse_source, parse_spec, read_source


@dataclass
class _Call:
    text: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def explain_calls(fn: Any, loaded: Loaded, calls: list[tuple[str, tuple, dict]],
                  settings: dict[str, Any]) -> list[RetraceCall]:
    """Call the tf.function ``fn`` (made from ``loaded`` with ``settings``) with each
    (text, args, kwargs) in turn: the explainer's record of each call, retraces explained.
    For callers that hold live values (agexplorer.testing), not argument strings."""
    try:
        parameters = inspect.signature(loaded.bound)
    except (TypeError, ValueError):
        parameters = None
    sequence = [_Call(text, args, kwargs) for text, args, kwargs in calls]
    return _explained(_run_sequence(fn, sequence, loaded, parameters, lambda phase: None, ""),
                      settings, fn, parameters)


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
    return dataclasses.replace(report, load_output=captured.stdout, log=captured.log)


def _explain(target: str, calls: list[str] | None, progress: Callable[[str], None]) -> RetraceReport:
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    progress(f"loading {target.partition('::')[0]}")
    loaded = load_target(target, call=None, require_args=False, progress=progress)
    progress(EVALUATING + (" (--call)" if calls else ""))
    sequence, origin = _sequence(loaded, calls)
    one = ("one call cannot show a retrace: pass several, e.g. --call "
           '"tf.constant(1)" --call "tf.constant(2.0)", or add an AGX_RETRACE '
           f"entry for {loaded.qualname} to the file.")
    return _report(tf, loaded, sequence, origin, _settings(loaded), progress, one)


def retrace_calls(loaded: Loaded, calls: list[tuple[str, tuple, dict]],
                  settings: dict[str, Any], origin: str,
                  progress: Callable[[str], None] | None = None) -> RetraceReport:
    """The whole retrace report for live calls of a function loaded in this process (a
    notebook's ``%agx retrace f(a); f(b)``): each (text, args, kwargs) called in turn on a
    fresh tf.function with ``settings`` (the user's own tf.function's, which is not
    called), then replayed as :func:`explain_retraces` replays them."""
    from agexplorer.engine.tfenv import import_tf

    sequence = [_Call(text, args, kwargs) for text, args, kwargs in calls]
    one = ("one call cannot show a retrace: write several, separated by `;` "
           "(f(a); f(b)).")
    return _report(import_tf(), loaded, sequence, origin, settings,
                   progress or (lambda phase: None), one)


def _report(tf: Any, loaded: Loaded, sequence: list[_Call], origin: str,
            settings: dict[str, Any], progress: Callable[[str], None],
            one_call: str) -> RetraceReport:
    notes = [one_call] if len(sequence) == 1 else []
    try:
        parameters = inspect.signature(loaded.bound)
    except (TypeError, ValueError):
        parameters = None
    eager = tf.config.functions_run_eagerly()  # a live process's own (a module's: off)
    if eager or loaded.eager_setting_off:  # under it tf.function never traces
        notes.append("the module turns on tf.config.run_functions_eagerly(True), under which "
                     "every tf.function runs as plain Python and never traces; these calls "
                     "were made with it off, to show what tracing does.")
        tf.config.run_functions_eagerly(False)
    try:
        fn = tf.function(loaded.bound, **settings)
        made = _explained(_run_sequence(fn, sequence, loaded, parameters, progress, ""),
                          settings, fn, parameters)
        tracing_count = fn.experimental_get_tracing_count()
        replays = _replays(tf, loaded, sequence, made, tracing_count, settings, parameters,
                           progress)
    finally:
        if eager:
            tf.config.run_functions_eagerly(True)
    return RetraceReport(
        file=loaded.path, function=loaded.qualname, decorated=loaded.decorated,
        settings=_settings_code(settings), calls_origin=origin, calls=made,
        tracing_count=tracing_count, signatures=_signatures(fn, loaded.qualname),
        replays=replays, findings=_findings(made), notes=notes)


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
        raise AgxError("needs-arguments", f"{loaded.qualname} takes arguments", advice="pass a sequence "
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
        if getattr(original, "_experimental_autograph_options", None) is not None:
            settings["experimental_autograph_options"] = original._experimental_autograph_options
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
    parts += [f"{k}={_setting_code(v)}" for k, v in settings.items() if k != "input_signature"]
    return f"tf.function({', '.join(parts)})"


def _setting_code(value: Any) -> str:
    """A setting as code: AutoGraph's features by their name under tf.autograph."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_setting_code(v) for v in value) + ("," if len(value) == 1
                                                                  else "") + ")"
    if type(value).__name__ == "Feature":
        return f"tf.autograph.experimental.Feature.{value.name}"
    return str(value)


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
        effects = [Effect(*e, during=outcome) for e in changes(before, snapshot(loaded))]
        error, error_line = (None, None) if failure is None else \
            _error(failure, fn, arguments, loaded, index, call, traced)
        refused = failure is not None and _refused(failure, fn, traced)
        results.append(RetraceCall(index=index, call=call.text, outcome=outcome, traced=traced,
                                   tracing_count=after, arguments=arguments, printed=out.stdout,
                                   logged=out.log, effects=effects, error=error,
                                   error_line=error_line,
                                   tf_message=f"{type(failure).__name__}: {failure}"
                                   if refused else None))
    return results


def _refused(exc: BaseException, fn: Any, traced: bool) -> bool:
    """TensorFlow refused the call before tracing: its arguments do not bind to the
    input_signature."""
    return getattr(fn, "input_signature", None) is not None and not traced \
        and "Binding inputs" in str(exc)


def _error(exc: BaseException, fn: Any, arguments: list[Argument], loaded: Loaded, index: int,
           call: _Call, traced: bool) -> tuple[str, int | None]:
    """One sentence for a call that raised; an input_signature refusal said as such."""
    signature = getattr(fn, "input_signature", None)
    if _refused(exc, fn, traced):
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


def _explained(calls: list[RetraceCall], settings: dict[str, Any], fn: Any = None,
               parameters: Any = None) -> list[RetraceCall]:
    """The calls with ``reason`` (traced) or ``same_as`` (reused) from the calls before each
    (``fn``: the tf.function called, whose traces say which shapes reduce_retracing relaxed)."""
    relaxed = _relaxed_traces(fn, calls, parameters) if fn is not None else {}
    return [dataclasses.replace(call, **_explanation(call, calls[:i], settings,
                                                     relaxed.get(call.index)))
            for i, call in enumerate(calls)]


def _relaxed_traces(fn: Any, calls: list[RetraceCall], parameters: Any
                    ) -> dict[int, dict[str, str]]:
    """For each call that traced, the arguments its trace was made relaxed for (a None
    dimension or an unknown rank, where reduce_retracing relaxed it; a structure's values
    too): name -> their words (``float32[None]``)."""
    traces = tf_internals.concrete_functions_of(fn)
    found: dict[int, dict[str, str]] = {}
    for call in calls:
        if not call.traced or not 0 < call.tracing_count <= len(traces):
            continue
        try:
            args, kwargs = traces[call.tracing_count - 1].structured_input_signature
        except (AttributeError, TypeError, ValueError):
            continue
        found[call.index] = relaxed_for(call_arguments(parameters, tuple(args), dict(kwargs)))
    return found


def _leaves(arguments: list[Argument]) -> list[Argument]:
    """The values tracing compares one by one: each argument, a structure's values."""
    return [leaf for a in arguments for leaf in (a.parts or [a])]


def _unequal_keys(now: list[Argument], before: list[Argument]) -> list[tuple[Argument, Argument]]:
    """The values of two calls whose keys differ, paired by place."""
    return [(a, b) for a, b in zip(_leaves(now), _leaves(before), strict=False) if a.key != b.key]


def _equal_values(before: list[Argument], now: list[Argument]
                  ) -> list[tuple[Argument, Argument]] | None:
    """The (now, before) Python values where two calls' keys differ, when that is all that
    differs and each pair compares equal (``3.0`` and ``3``, ``True`` and ``1``), which
    tf.function's cache does not tell apart; None otherwise."""
    import ast

    a, b = _leaves(before), _leaves(now)
    if len(a) != len(b) or [x.name for x in a] != [y.name for y in b]:
        return None
    differ = _unequal_keys(now, before)
    if not differ:
        return None
    for x, y in differ:
        if x.kind != "python" or y.kind != "python" or x.value is None or y.value is None:
            return None
        try:
            if ast.literal_eval(x.value) != ast.literal_eval(y.value):
                return None
        except (ValueError, SyntaxError):
            return None
    return differ


def _explanation(call: RetraceCall, before: list[RetraceCall], settings: dict[str, Any],
                 relaxed: dict[str, str] | None = None) -> dict[str, Any]:
    """Why ``call`` traced or reused a trace, given the calls before it: RetraceCall fields."""
    earlier = [c for c in before if c.outcome != "failed"]
    keys = [a.key for a in call.arguments]
    if call.outcome == "reused":
        same_as = next((c.index for c in earlier if [a.key for a in c.arguments] == keys), None)
        if same_as is not None:
            written = next(c.call for c in earlier if c.index == same_as)
            because = (f"no arguments, like call {same_as}" if not keys else
                       f"same arguments as call {same_as}" if written == call.call else
                       # Written otherwise, keyed alike: tensors' values differ, say.
                       f"same kinds of argument as call {same_as} (tensors' shapes and dtypes, "
                       "Python values): a tensor's value is not part of a trace's key")
        elif settings.get("input_signature") is not None:
            because = "fits the input_signature's trace"
        elif (equal := next(((c, pairs) for c in earlier
                             if (pairs := _equal_values(c.arguments, call.arguments))), None)):
            same_as = equal[0].index
            because = (f"its Python values equal those of call {same_as} ("
                       + ", ".join(f"{a.value} == {b.value}" for a, b in equal[1])
                       + "): tf.function tells Python values apart by equality, so call "
                       f"{same_as}'s trace serves it")
        elif settings.get("reduce_retracing"):
            because = "fits a relaxed trace made earlier (reduce_retracing)"
        else:
            because = "TensorFlow found a trace made earlier that fits it"
        return {"same_as": same_as, "reused_because": because}
    if not call.traced:
        return {}
    candidates = [c for c in earlier if c.traced]
    if not candidates:
        return {"reason": "first call" if not before else
                "first call to trace successfully (the calls before it failed)"}
    scored = [(differences(call.arguments, c.arguments, c.index, relaxed), c)
              for c in candidates]
    fewest = min(len(d) for d, _ in scored)
    phrases, closest = [(d, c) for d, c in scored if len(d) == fewest][-1]
    if phrases:
        reason = "; ".join(text for _, text in phrases)
    else:
        reason = (f"the arguments match those of call {closest.index}, yet it traced "
                  "anew: TensorFlow also keys traces on what is not shown here "
                  "(an object's identity, a captured value)")
    return {"reason": reason, "closest": closest.index, "differs": [n for n, _ in phrases]}


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


def _replays(tf: Any, loaded: Loaded, sequence: list[_Call], calls: list[RetraceCall],
             tracing_count: int, settings: dict[str, Any], parameters: Any,
             progress: Callable[[str], None]) -> dict[str, Replay]:
    """The calls again with reduce_retracing=True, then with a derived input_signature."""
    base = {k: v for k, v in settings.items() if k == "autograph"}
    takes_none = parameters is not None and not parameters.parameters
    nothing = "it takes no arguments: there is nothing to relax."

    def replay(setting: str, code: str, fn: Any) -> Replay:
        return _replay(setting, code, fn, sequence, loaded, parameters, calls, tracing_count,
                       progress)

    code = "reduce_retracing=True"
    if takes_none:
        reduce = Replay("reduce_retracing", applied=False, code=code, note=nothing)
    elif settings.get("input_signature") is not None:
        reduce = Replay("reduce_retracing", applied=False, code=code, note=(
            "it has an input_signature, which already decides every trace: "
            "reduce_retracing=True would change nothing."))
    elif settings.get("reduce_retracing"):
        reduce = Replay("reduce_retracing", applied=False, code=code, note=(
            "it already has reduce_retracing=True: the calls above are that replay."))
    else:
        reduce = replay("reduce_retracing", code,
                        tf.function(loaded.bound, reduce_retracing=True, **base))
    if takes_none:
        derived = Replay("input_signature", applied=False, note=nothing)
    elif settings.get("input_signature") is not None:
        derived = Replay("input_signature", applied=False,
                         code=signature_code(settings["input_signature"]),
                         note="it already has this input_signature: the calls above are "
                              "that replay.")
    else:
        try:
            specs = derive_signature(tf, parameters, [c.arguments for c in calls])
        except NotApplicable as exc:
            derived = Replay("input_signature", applied=False,
                             note=f"input_signature does not apply: {exc}.")
        else:
            extra = {"reduce_retracing": True} if settings.get("reduce_retracing") else {}
            derived = replay("input_signature", signature_code(specs),
                             tf.function(loaded.bound, input_signature=specs, **extra, **base))
    return {"reduce_retracing": reduce, "input_signature": derived}


def _no_fewer(calls: list[RetraceCall]) -> str:
    """Why reduce_retracing traced as often as the calls as written, from what changed
    between each retrace and the call it was compared with."""
    by_index = {c.index: c for c in calls}

    def shape_only(call: RetraceCall) -> bool:
        before = by_index.get(call.closest or 0)
        if before is None or not call.differs:
            return False
        now = {a.name: a for a in call.arguments}
        then = {a.name: a for a in before.arguments}
        return all(name in now and name in then and now[name].kind == then[name].kind ==
                   "tensor" and now[name].dtype == then[name].dtype for name in call.differs)

    retraced = [c for c in calls if c.traced and c.closest is not None]
    if retraced and all(shape_only(c) for c in retraced):
        return ("no fewer traces here: the calls differ only in shapes, and reduce_retracing "
                "traces a relaxed function (None dimensions) at the first new shape; it "
                "saves the traces of the shapes after that.")
    return ("no fewer traces: reduce_retracing relaxes shapes (to None dimensions), never "
            "a dtype or a Python value, and these calls differ in one.")


def _replay(setting: str, code: str, fn: Any, sequence: list[_Call], loaded: Loaded,
            parameters: Any, calls: list[RetraceCall], tracing_count: int,
            progress: Callable[[str], None]) -> Replay:
    """``sequence`` called again on ``fn`` (the same function with ``setting`` changed)."""
    runs = _run_sequence(fn, sequence, loaded, parameters, progress, f" with {setting}")
    count = fn.experimental_get_tracing_count()
    times = lambda n: "once" if n == 1 else f"{n} times"  # noqa: E731
    summary = f"traced {times(count)} (as written: {times(tracing_count)})"
    refused = [r for r in runs if r.outcome == "failed"]
    if refused:
        summary += f"; {_numbers(refused)} failed"
    note = None
    if setting == "reduce_retracing" and count >= tracing_count > 1:
        note = _no_fewer(calls)
    if setting == "input_signature":
        numbers = sorted({a.name for c in calls for a in c.arguments if a.kind == "python"})
        if numbers:
            note = (f"the Python numbers passed for {', '.join(numbers)} become scalar "
                    "tensors of the signature's dtype: their values are no longer baked "
                    "into the trace.")
    return Replay(setting, applied=True, code=code, note=note,
                  calls=[ReplayCall(r.outcome, r.traced, r.error) for r in runs],
                  tracing_count=count, signatures=_signatures(fn, loaded.qualname),
                  summary=summary + ".")
