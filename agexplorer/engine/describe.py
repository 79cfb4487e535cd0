"""Plain-words descriptions of the values AutoGraph dispatched on ("the Python int 4")."""

from __future__ import annotations

from typing import Any


def _shape(value: Any) -> str:
    shape = getattr(value, "shape", None)
    if shape is None:
        return "?"
    try:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    except ValueError:  # unknown rank
        return "[unknown rank]"
    return "[" + ", ".join("None" if d is None else str(d) for d in dims) + "]"


def is_tensor(value: Any) -> bool:
    """True for TensorFlow tensors of any kind (symbolic, eager, variables), without importing TF."""
    module = type(value).__module__ or ""
    return module.startswith(("tensorflow", "keras")) and hasattr(value, "dtype") \
        and hasattr(value, "shape")


def describe(value: Any) -> str:
    """One noun phrase for ``value``, as a teacher would say it."""
    if is_tensor(value):
        dtype = getattr(getattr(value, "dtype", None), "name", "?")
        kind = type(value).__name__
        if "Variable" in kind:
            return f"a tf.Variable ({dtype}{_shape(value)})"
        if kind == "EagerTensor":
            return f"an eager tensor captured from outside ({dtype}{_shape(value)})"
        return f"a tensor ({dtype}{_shape(value)})"
    if isinstance(value, bool):
        return f"the Python bool {value}"
    if isinstance(value, int):
        return f"the Python int {value}"
    if isinstance(value, float):
        return f"the Python float {value:g}"
    if value is None:
        return "None"
    if isinstance(value, range):
        return f"range({_range_args(value)})"
    if isinstance(value, (list, tuple, dict, set)):
        noun = type(value).__name__
        n = len(value)
        inner = ""
        if n and all(is_tensor(v) for v in (value.values() if isinstance(value, dict) else value)):
            inner = " tensors" if n != 1 else " tensor"
        elif n:
            inner = " items" if n != 1 else " item"
        return f"a Python {noun} of {n}{inner or ' items'}"
    if isinstance(value, str):
        return f"the Python str {value[:30]!r}"
    module = type(value).__module__ or ""
    if module.startswith("numpy"):
        dtype = getattr(getattr(value, "dtype", None), "name", "?")
        return f"a NumPy {type(value).__name__} ({dtype}{_shape(value)})"
    if "Dataset" in type(value).__name__:
        return "a tf.data.Dataset"
    return f"a Python {type(value).__name__}"


def _range_args(r: range) -> str:
    if r.step != 1:
        return f"{r.start}, {r.stop}, {r.step}"
    if r.start != 0:
        return f"{r.start}, {r.stop}"
    return str(r.stop)
