"""Call arguments as tf.function tells them apart, in words, and an input_signature fitted to them."""

from __future__ import annotations

import inspect
from typing import Any, Literal

from agexplorer.engine.describe import describe, is_tensor
from agexplorer.model.retrace import Argument, Holder
from agexplorer.model.text import shape_text


class NotApplicable(Exception):
    """An input_signature cannot describe these calls (the message says why)."""


def _dims(value: Any) -> list[int | None] | None:
    shape = value.shape
    try:
        return shape.as_list() if hasattr(shape, "as_list") else [int(d) for d in shape]
    except ValueError:  # unknown rank
        return None


def _short(value: Any) -> tuple[str, str]:
    """(text, key) of a value inside a list, tuple or dict."""
    if is_tensor(value) or (type(value).__module__ == "numpy" and hasattr(value, "shape")):
        text = f"{value.dtype.name}{shape_text(_dims(value))}"
        return text, text
    if isinstance(value, (bool, int, float, str, type(None))):
        return repr(value), f"{type(value).__name__}:{value!r}"
    if isinstance(value, (list, tuple, dict)):
        return _structure(value)
    return type(value).__name__, f"{type(value).__qualname__}@{id(value)}"


def _structure(value: list | tuple | dict) -> tuple[str, str]:
    """(``list [float32[2], 3]``, key) of a list, tuple or dict."""
    items = list(value.items() if isinstance(value, dict) else enumerate(value))
    parts = [(k, *_short(v)) for k, v in items]
    if isinstance(value, dict):
        inner = "{" + ", ".join(f"{k!r}: {t}" for k, t, _ in parts) + "}"
    else:
        inner = "[" + ", ".join(t for _, t, _ in parts) + "]"
    if len(inner) > 60:
        inner = inner[:57] + "...]"
    key = f"{type(value).__name__}(" + ",".join(f"{k!r}={kk}" for k, _, kk in parts) + ")"
    return f"{type(value).__name__} {inner}", key


def describe_argument(name: str, value: Any) -> Argument:
    """The value as tracing sees it: tensors by dtype and shape, Python values by value."""
    if is_tensor(value) or (type(value).__module__ == "numpy" and isinstance(
            getattr(value, "shape", None), tuple) and hasattr(value, "dtype")):
        dims = _dims(value)
        dtype = value.dtype.name
        holder: Holder | None = "variable" if "Variable" in type(value).__name__ else \
            "numpy" if type(value).__module__ == "numpy" else None
        prefix = {"variable": "tf.Variable ", "numpy": "NumPy ", None: ""}[holder]
        text = f"{prefix}{dtype}{shape_text(dims)}"
        return Argument(name, "tensor", text, text, dtype=dtype, shape=dims, holder=holder)
    if isinstance(value, (bool, int, float, str, type(None))):
        return Argument(name, "python", describe(value), f"{type(value).__name__}:{value!r}",
                        python_type=type(value).__name__, value=_literal(value))
    if isinstance(value, (list, tuple, dict)):
        text, key = _structure(value)
        return Argument(name, "structure", f"a Python {text}", key,
                        parts=_flattened(name, value), python_type=type(value).__name__,
                        value=None if value else repr(value))
    return Argument(name, "object", describe(value),
                    f"{type(value).__qualname__}@{id(value)}")


# The longest Python value kept as source (a call is rebuilt from it): longer ones are not.
_LITERAL_CHARS = 200


def _literal(value: bool | int | float | str | None) -> str | None:
    """The value's source, whole (``3``, ``0.1234567``, ``'abc'``), or None if too long."""
    text = repr(value)
    return text if len(text) <= _LITERAL_CHARS else None


_LEAVES = 64  # a structure's values compared one by one; beyond, as a whole


def _flattened(name: str, value: Any) -> list[Argument]:
    """The values of a list, tuple or dict, nested ones flattened, each named by its place
    (``data[0]``, ``batch['x'][1]``); [] for one of more than ``_LEAVES`` values."""
    found: list[Argument] = []

    def visit(prefix: str, v: Any, depth: int) -> bool:
        if isinstance(v, (list, tuple, dict)) and depth < 8:
            items = v.items() if isinstance(v, dict) else enumerate(v)
            return all(visit(f"{prefix}[{k!r}]", inner, depth + 1) for k, inner in items)
        if len(found) >= _LEAVES:
            return False
        found.append(describe_argument(prefix, v))
        return True

    return found if visit(name, value, 0) else []


def bind_arguments(parameters: inspect.Signature | None, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> list[Argument]:
    """One :class:`Argument` per parameter (defaults filled in); [] when the call does not fit."""
    if parameters is None:
        return [describe_argument(f"arg{i}", v) for i, v in enumerate(args)] + \
            [describe_argument(k, v) for k, v in kwargs.items()]
    try:
        bound = parameters.bind(*args, **kwargs)
    except TypeError:  # the call itself will raise and say so
        return []
    bound.apply_defaults()
    return [describe_argument(name, value) for name, value in bound.arguments.items()]


def call_arguments(parameters: inspect.Signature | None, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> list[Argument]:
    """The arguments of a call, or of a trace's input signature, as tracing tells them
    apart: a TensorSpec as the tensor it stands for; by position (``arg0``) where they do
    not bind to ``parameters``."""
    args = tuple(_spec_as_value(a) for a in args)
    kwargs = {k: _spec_as_value(v) for k, v in kwargs.items()}
    found = bind_arguments(parameters, args, kwargs)
    if not found and (args or kwargs):
        found = bind_arguments(None, args, kwargs)
    return found


def relaxed_for(traced: list[Argument]) -> dict[str, str]:
    """The tensors of a trace's arguments (a structure's values too, ``data[0]``) it was made
    for with a None dimension or an unknown rank, where reduce_retracing relaxed them:
    name -> their words (``float32[None, 4]``)."""
    return {leaf.name: leaf.text for a in traced for leaf in [a, *a.parts]
            if leaf.kind == "tensor" and (leaf.shape is None or None in leaf.shape)}


class _SpecValue:
    """A TensorSpec shown as the tensor it describes (get_concrete_function with specs)."""

    __module__ = "tensorflow"

    def __init__(self, spec: Any) -> None:
        self.dtype, self.shape = spec.dtype, spec.shape


def _spec_as_value(value: Any) -> Any:
    if type(value).__name__ == "TensorSpec" and hasattr(value, "dtype"):
        return _SpecValue(value)
    return value


# What changed in one argument between two calls: the kind a retrace is grouped by.
Change = Literal["dtype", "shape", "value", "type", "tensor-python", "identity", "structure",
                 "other"]


def change_kind(now: Argument, before: Argument) -> Change:
    """How ``now`` differs from ``before`` (their keys differ): a tensor's dtype or shape, a
    Python value (same type) or its type, a tensor against a Python value, an object's
    identity, a structure's contents."""
    kinds = {now.kind, before.kind}
    if kinds == {"tensor"}:
        return "dtype" if now.dtype != before.dtype else "shape"
    if kinds == {"python"}:
        return "value" if now.python_type == before.python_type else "type"
    if kinds == {"python", "tensor"}:
        return "tensor-python"
    if kinds == {"object"} and now.text == before.text:
        return "identity"
    if "structure" in kinds:  # two structures, or one against a tensor or a value
        return "structure"
    return "other"


def changes(now: list[Argument], before: list[Argument]) -> list[tuple[str, Change]]:
    """(parameter, kind of change) for each argument that differs from an earlier call's; a
    list, tuple or dict of the same make-up names the values in it that changed
    (``data[0]``: its shape), as tracing compares them one by one."""
    earlier = {a.name: a for a in before}
    found: list[tuple[str, Change]] = []
    for a in now:
        b = earlier.get(a.name)
        if b is None or a.key == b.key:
            continue
        if _same_make_up(a, b):
            found += [(x.name, change_kind(x, y)) for x, y in zip(a.parts, b.parts, strict=True)
                      if x.key != y.key]
        else:
            found.append((a.name, change_kind(a, b)))
    return found


def _same_make_up(a: Argument, b: Argument) -> bool:
    """Two structures of the same type holding values at the same places."""
    return (a.kind == b.kind == "structure" and bool(a.parts) and
            a.text.split(" ", 3)[:3] == b.text.split(" ", 3)[:3]
            and [p.name for p in a.parts] == [p.name for p in b.parts])


def _by_name(arguments: list[Argument]) -> dict[str, Argument]:
    """Every argument by name, a structure's values too (``data[0]``)."""
    found = {}
    for a in arguments:
        found[a.name] = a
        found.update((p.name, p) for p in a.parts)
    return found


def differences(now: list[Argument], before: list[Argument], where: int,
                relaxed: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(parameter, phrase) for each argument that differs from an earlier call (number
    ``where``); ``relaxed``: the shapes a reduce_retracing trace was made for, by name."""
    mine, earlier = _by_name(now), _by_name(before)
    return [(name, _phrase(change, mine[name], earlier[name], where,
                           (relaxed or {}).get(name)))
            for name, change in changes(now, before)]


def _new_rank(a: Argument, b: Argument) -> bool:
    """Whether two tensors' known shapes differ in rank (a None dimension cannot hold both)."""
    return a.shape is not None and b.shape is not None and len(a.shape) != len(b.shape)


def _phrase(change: Change, a: Argument, b: Argument, where: int,
            relaxed: str | None = None) -> str:
    """The sentence for one changed argument: what it is now, what it was, why it traced
    (``relaxed``: the shape reduce_retracing made this trace for, ``float32[None, 4]``)."""
    if change in ("dtype", "shape"):
        why = "a new dtype always needs a new trace" if change == "dtype" else (
            f"a new shape needs a new trace; reduce_retracing made this one for {relaxed}, "
            "which later calls of other sizes reuse" if relaxed else
            "a new shape needs a new trace; a None dimension in input_signature, or "
            "reduce_retracing=True, lets one trace serve both" if not _new_rank(a, b) else
            "a new rank needs a new trace; an input_signature of unknown rank "
            "(tf.TensorSpec(shape=None)), or reduce_retracing=True, lets one trace serve both")
        return f"{a.name}: now {a.text}, before {b.text} (call {where}): {why}"
    if change == "value" and a.python_type == "bool" and b.python_type == "bool":
        # A mode switch (training=True/False): two traces in all, each with its branch.
        return (f"{a.name}: now {a.text}, before {b.value} (call {where}); a Python bool is "
                "baked into the trace, one trace per value: fine for a switch such as "
                "training (two traces in all, each with only its branch); a tensor would "
                "share one trace, its ifs staged as tf.cond")
    if change in ("value", "type"):
        old = b.value if change == "value" and b.value is not None else b.text
        return (f"{a.name}: now {a.text}, before {old} (call {where}); Python values are "
                "baked into the trace: pass a tensor to reuse one trace")
    if change == "tensor-python":
        now_text = f"the tensor {a.text}" if a.kind == "tensor" else a.text
        old_text = f"the tensor {b.text}" if b.kind == "tensor" else b.text
        return (f"{a.name}: now {now_text}, before {old_text} (call {where}): a tensor and "
                "a Python value never share a trace")
    if change == "identity":
        return (f"{a.name}: a different object than in call {where} ({a.text}): "
                "tf.function tells Python objects apart by identity, so each new one "
                "traces anew")
    if change == "structure":
        return (f"{a.name}: now {a.text}, before {b.text} (call {where}): a list, tuple or "
                "dict is traced by its structure and the Python values in it")
    return f"{a.name}: now {a.text}, before {b.text} (call {where})"


_PYTHON_DTYPES = {"bool": "bool", "int": "int32", "float": "float32"}


def derive_signature(tf: Any, parameters: inspect.Signature | None,
                     calls: list[list[Argument]]) -> list[Any]:
    """TensorSpecs covering the calls: the first call's dtype, varying dimensions as None.

    Raises :class:`NotApplicable` when a parameter is not a tensor or a Python number.
    """
    if parameters is None:
        raise NotApplicable("its parameters cannot be read")
    specs = []
    for p in parameters.parameters.values():
        if p.kind == p.KEYWORD_ONLY:
            raise NotApplicable(f"{p.name} is keyword-only, and input_signature covers "
                                "positional parameters only")
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind == p.VAR_POSITIONAL else "**"
            raise NotApplicable(f"{star}{p.name} takes any number of arguments, which an "
                                "input_signature cannot describe")
        values = [a for args in calls for a in args if a.name == p.name]
        if not values:
            raise NotApplicable(f"no call gave {p.name} a value that fits")
        for a in values:
            if a.kind == "tensor" or a.python_type in _PYTHON_DTYPES:
                continue
            raise NotApplicable(f"{p.name} takes {a.text}, and an input_signature describes "
                                "tensors only (Python numbers become scalar tensors); keep "
                                f"{p.name} out of the function's arguments or make it a tensor")
        first = values[0]
        dtype = first.dtype if first.kind == "tensor" else _PYTHON_DTYPES[str(first.python_type)]
        shapes = [a.shape if a.kind == "tensor" else [] for a in values]
        specs.append(tf.TensorSpec(shape=_relaxed(shapes), dtype=tf.as_dtype(dtype)))
    return specs


def _relaxed(shapes: list[list[int | None] | None]) -> list[int | None] | None:
    """Keep what all shapes agree on; None where a dimension varies; unknown rank if the rank does."""
    if any(s is None for s in shapes) or len({len(s) for s in shapes if s is not None}) > 1:
        return None
    first = shapes[0] or []
    return [d if all(s[i] == d for s in shapes if s is not None) else None
            for i, d in enumerate(first)]


def spec_code(spec: Any) -> str:
    """``tf.TensorSpec(shape=[None], dtype=tf.float32)``; other specs as TensorFlow writes them."""
    if not (hasattr(spec, "shape") and hasattr(spec, "dtype")):
        return repr(spec)
    shape = "None" if spec.shape.rank is None else \
        shape_text(spec.shape.as_list())
    return f"tf.TensorSpec(shape={shape}, dtype=tf.{spec.dtype.name})"


def signature_code(signature: Any) -> str:
    """The setting as code to paste: ``input_signature=[tf.TensorSpec(...), ...]``."""
    return "input_signature=[" + ", ".join(spec_code(s) for s in signature) + "]"


def refusal(arguments: list[Argument], signature: Any, message: str) -> str:
    """Which argument an input_signature refused, and what it allows."""
    for a, spec in zip(arguments, signature, strict=False):
        if a.kind != "tensor" or not hasattr(spec, "dtype"):
            continue
        compatible = a.dtype == spec.dtype.name and (
            a.shape is None or spec.shape.is_compatible_with(a.shape))
        if not compatible:
            return f"{a.name} is {a.text}, and the signature allows {spec_words(spec)} only"
    cast = message.split("`")[1] if message.count("`") >= 2 else message.splitlines()[0]
    return cast


def spec_words(spec: Any) -> str:
    """``float32[None, 2]``: a TensorSpec as the explainer writes tensors."""
    dims = "[unknown rank]" if spec.shape.rank is None else \
        shape_text(spec.shape.as_list())
    return f"{spec.dtype.name}{dims}"
