"""A function's retraces grouped by what changed ("8 × lr: a new Python float"), and their words."""

from __future__ import annotations

from typing import Any

from agexplorer.model.text import shape_text
from agexplorer.runlog.calls import python_value

_SHOWN = 3  # values named in one group's sentence; the rest are counted


def group_causes(retraces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The retraces of one function (summary rows with ``causes``) grouped by what changed:
    ``{"causes": [{"name", "change"}], "count", "traces"}``, the largest group first. A
    retrace recorded without causes (an older log) is a group of its own reason."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for retrace in retraces:
        causes = retrace.get("causes") or []
        key = tuple((c.get("name"), c.get("change")) for c in causes) or \
            ("reason", retrace.get("reason"))
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"causes": causes, "count": 0, "traces": [],
                                   "reason": None if causes else retrace.get("reason")}
        group["count"] += 1
        group["traces"].append(retrace.get("trace"))
    return sorted(groups.values(), key=lambda g: (-g["count"], g["traces"][0] or 0))


def group_words(group: dict[str, Any], each_trace: list[dict[str, Any]]) -> str:
    """``lr: a new Python float each time`` (``each_trace``: the function's traces, for the
    values the arguments took)."""
    if not group["causes"]:
        return str(group.get("reason") or "why is not recorded")
    traces = {t.get("trace"): t for t in each_trace}
    chosen = [traces[n] for n in group["traces"] if n in traces]
    parts = [_cause_words(c.get("name"), str(c.get("change")), group["count"],
                          [_argument(t, c.get("name")) for t in chosen],
                          str(c["relaxed"]) if c.get("relaxed") else None)
             for c in group["causes"]]
    return "; ".join(parts)


def group_fix(group: dict[str, Any], user: bool = True,
              each_trace: list[dict[str, Any]] | None = None) -> str | None:
    """What lets one trace serve the group's calls, where one thing does. A library's
    tf.function (``user`` False: Keras's train step) takes no input_signature or argument
    change from the user: only the variables' fix applies there. A shape that
    reduce_retracing already relaxed needs no fix: later sizes reuse that trace. Nor does a
    Python bool (``each_trace``: the function's traces, whose arguments say so): a switch
    such as ``training`` is meant to trace once per value, each trace with its branch."""
    traces = {t.get("trace"): t for t in each_trace or []}
    names: dict[str, list[str]] = {}
    for cause in group["causes"]:
        if cause.get("change") == "shape" and cause.get("relaxed"):
            continue
        if not user and cause.get("change") != "variables":
            continue
        if cause.get("change") == "value" and _switch([
                _argument(traces[n], cause.get("name")) for n in group["traces"]
                if n in traces]):
            continue
        names.setdefault(str(cause.get("change")), []).append(str(cause.get("name")))
    fixes = []
    values = names.get("value", []) + names.get("type", [])
    if values:
        # tf.constant of a Python int is an int32 tensor, which fails where the function
        # computes with floats (`0.5 * step`): say the float32 one too, for an int.
        ints = any(_argument(traces[n], values[0]).get("python_type") == "int"
                   for n in group["traces"] if n in traces)
        made = (f"tf.constant({values[0]}), or tf.constant({values[0]}, tf.float32) where the "
                "function computes with it in floats" if ints else f"tf.constant({values[0]})")
        fixes.append(f"pass {_and(values)} as {'a tensor' if len(values) == 1 else 'tensors'} "
                     f"({made}): one trace serves every value")
    if "shape" in names:
        fixes.append(f"a None dimension for {_and(names['shape'])} in input_signature, or "
                     "reduce_retracing=True, lets one trace serve every shape")
    if "dtype" in names:
        fixes.append(f"cast {_and(names['dtype'])} to one dtype before the call")
    if "variables" in names:
        made_by = next((c.get("made_by") for c in group["causes"]
                        if c.get("change") == "variables"), None)
        fixes.append(variables_fix(made_by))
    return "; ".join(fixes) or None


# What makes the variables a first trace created before that trace, by who made them
# (record/hooks.py notes it: "optimizer" where an optimizer's code made one, else "model").
_MAKE_MODELS = "call the model once on a sample input{when} (or build its layers' weights in " \
    "__init__)"
_MAKE_SLOTS = "optimizer.build(model.trainable_variables){when}"
_WHEN = " before the first call"


def variables_fix(made_by: list[str] | None, when: bool = True) -> str:
    """Create them before the first call: the model's weights, the optimizer's slots, or
    both where who made them is not recorded (an older log). ``when``: say "before the
    first call" (a sentence that says it already does not)."""
    said = _WHEN if when else ""
    if made_by == ["model"]:
        return _MAKE_MODELS.format(when=said)
    if made_by == ["optimizer"]:
        return _MAKE_SLOTS.format(when=said)
    return f"{_MAKE_MODELS.format(when=said)}, and {_MAKE_SLOTS.format(when='')}"


def _switch(arguments: list[dict[str, Any]]) -> bool:
    """Whether the recorded ``arguments`` (one name's, trace by trace) are all Python bools:
    a switch such as ``training``, meant to trace once per value."""
    return bool(arguments) and all(a.get("python_type") == "bool" for a in arguments)


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def trace_numbers(numbers: list[Any]) -> str:
    """``trace 4``, ``traces 2-9``, ``traces 2, 5-7 and 12``."""
    ranges: list[list[int]] = []
    for n in sorted(n for n in numbers if isinstance(n, int)):
        if ranges and n == ranges[-1][1] + 1:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])
    words = [str(a) if a == b else f"{a}-{b}" for a, b in ranges]
    if not words:
        return "traces not numbered"
    return ("trace " if len(numbers) == 1 else "traces ") + _and(words)


def _argument(trace: dict[str, Any], name: Any) -> dict[str, Any]:
    """The argument ``name`` of a trace, or the value of a structure it names (``data[0]``)."""
    for a in trace.get("arguments") or []:
        if not isinstance(a, dict):
            continue
        if a.get("name") == name:
            return a
        found = next((p for p in a.get("parts") or [] if isinstance(p, dict)
                      and p.get("name") == name), None)
        if found is not None:
            return found
    return {}


def _values(texts: list[str]) -> str:
    """``0.01, 0.009 and 0.008``; beyond three, ``... and 5 more``."""
    seen = list(dict.fromkeys(t for t in texts if t))
    if not seen:
        return "not recorded"
    shown = seen[:_SHOWN]
    if len(seen) > _SHOWN:
        return ", ".join(shown) + f" and {len(seen) - _SHOWN} more"
    return _and(shown)


def _python_value(argument: dict[str, Any]) -> tuple[str | None, str]:
    """(type, value as shown) of a recorded Python value: ``("int", "3")``; its phrase where
    the value's source was not kept."""
    kind, source = python_value(argument)
    return kind, source if source is not None else str(argument.get("text") or "")


def _cause_words(name: Any, change: str, count: int, arguments: list[dict[str, Any]],
                 relaxed_to: str | None = None) -> str:
    each = " each time" if count > 1 else ""
    texts = [str(a.get("text") or "") for a in arguments]
    if change == "value":
        said = [_python_value(a) for a in arguments]
        kind = said[0][0] if said and said[0][0] else "value"
        switch = (": one trace per value, as a switch such as training is meant to trace"
                  if _switch(arguments) else "")
        return f"{name}: a new Python {kind}{each} ({_values([v for _, v in said])}){switch}"
    if change == "type":
        return f"{name}: a Python value of another type{each} ({_values(texts)})"
    if change == "shape":
        shapes = [shape_text(a.get("shape")) for a in arguments]
        relaxed = f"; reduce_retracing made it {relaxed_to}, which later sizes reuse" \
            if relaxed_to else ""
        return f"{name}: a new shape{each} {_values(shapes)}{relaxed}"
    if change == "dtype":
        return f"{name}: a new dtype{each} ({_values([str(a.get('dtype')) for a in arguments])})"
    if change == "tensor-python":
        return f"{name}: a tensor where a Python value was, or the reverse{each}"
    if change == "identity":
        return (f"{name}: a different object{each} (tf.function tells objects apart by "
                "identity)")
    if change == "structure":
        return f"{name}: a list, tuple or dict with other contents{each}"
    if change == "variables":
        return ("variables were created on the first call, so tf.function traced again with "
                "variable creation forbidden")
    if change == "unseen":
        return ("the same arguments: something else tf.function keys on changed (a captured "
                "value, the device, or the graph it was called from)")
    return f"{name}: another kind of value{each} ({_values(texts)})"
