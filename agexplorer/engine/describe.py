"""Plain-words descriptions of the values AutoGraph dispatched on ("the Python int 4")."""

from __future__ import annotations

import warnings
from typing import Any

from agexplorer.model.text import shape_text
from agexplorer.model.values import DENSE_TENSORS, PYTHON_SCALARS, Described, ValueKind


def _shape(value: Any) -> str:
    shape = getattr(value, "shape", None)
    if shape is None:
        return "?"
    try:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    except ValueError:  # unknown rank
        return "[unknown rank]"
    return shape_text(dims)


def is_undefined(value: Any) -> bool:
    """True for AutoGraph's stand-in for a name not assigned yet (a name a loop's body, or one
    branch of an if, creates). It answers every attribute with itself, so it has a "dtype" and
    a "shape", and it cannot be read back from the worker's pipe: it must never pass for a value."""
    kind = type(value)
    return kind.__name__ in ("Undefined", "UndefinedReturnValue") \
        and (kind.__module__ or "").startswith("tensorflow")


def is_tensor(value: Any) -> bool:
    """True for TensorFlow tensors of any kind (symbolic, eager, variables), without importing TF."""
    module = type(value).__module__ or ""
    return module.startswith(("tensorflow", "keras")) and not is_undefined(value) \
        and hasattr(value, "dtype") and hasattr(value, "shape")


def describe(value: Any) -> str:
    """One noun phrase for ``value``, as a teacher would say it."""
    return classify(value).text


def classify(value: Any) -> Described:
    """The kind of ``value`` and its noun phrase (the phrase is made from the kind here only)."""
    if is_tensor(value):
        return _tensor(value)
    scalar = _python_scalar(value)
    if scalar is not None:
        return scalar
    if value is None:
        return Described("none", "None")
    if isinstance(value, range):
        return Described("range", f"range({_range_args(value)})")
    if isinstance(value, (list, tuple, dict, set)):
        return _container(value)
    if isinstance(value, (zip, enumerate)):
        return _zipped(value)
    module = type(value).__module__ or ""
    if module.startswith("numpy"):
        return Described("numpy", f"a NumPy {type(value).__name__} ({_dtype(value)}{_shape(value)})")
    tf_data = _tensorflow_class(value)
    if tf_data == "TensorArray":
        return Described("tensor-array", f"a tf.TensorArray ({_dtype(value)})")
    if tf_data is not None and "Dataset" in tf_data:
        return Described("dataset", "a tf.data.Dataset")
    if tf_data is not None and tf_data.endswith("Iterator"):
        return Described("dataset-iterator", "a tf.data iterator")
    return Described("other", f"a Python {type(value).__name__}")


def _dtype(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    # Keras 3 tensors carry the dtype as a plain string ("float32").
    return dtype if isinstance(dtype, str) else getattr(dtype, "name", "?")


def _tensor(value: Any) -> Described:
    spec = f"{_dtype(value)}{_shape(value)}"
    kind = type(value).__name__
    if "Variable" in kind:
        return Described("variable", f"a tf.Variable ({spec})")
    if kind == "EagerTensor":
        return Described("eager-tensor", f"an eager tensor captured from outside ({spec})")
    if kind == "RaggedTensor":
        return Described("ragged-tensor", f"a tf.RaggedTensor ({spec})")
    if kind == "SparseTensor":
        return Described("sparse-tensor", f"a tf.SparseTensor ({spec})")
    if kind == "KerasTensor":
        return Described("keras-tensor", f"a Keras symbolic input ({spec})")
    return Described("tensor", f"a tensor ({spec})")


def _tensorflow_class(value: Any) -> str | None:
    """The name of the first TensorFlow class ``value`` is an instance of (a user's subclass
    of tf.data.Dataset counts; a user's own ``MyDataset`` does not)."""
    for cls in type(value).__mro__:
        if (cls.__module__ or "").startswith("tensorflow"):
            return cls.__name__
    return None


def _python_scalar(value: Any) -> Described | None:
    # bool before int: a bool is an int to isinstance.
    if isinstance(value, bool):
        return Described("python-bool", f"the Python bool {value}", str(value))
    if isinstance(value, int):
        return Described("python-int", f"the Python int {value}", str(value))
    if isinstance(value, float):  # 1.0 stays 1.0 (a float in Python's own spelling)
        short = f"{value:g}"
        short += ".0" if short.lstrip("-").isdigit() else ""
        return Described("python-float", f"the Python float {short}", short)
    if isinstance(value, str):
        return Described("python-str", f"the Python str {value[:30]!r}", repr(value[:30]))
    return None


_CONTAINER_KINDS: dict[type, ValueKind] = {list: "list", tuple: "tuple", dict: "dict", set: "set"}
_NOUNS: dict[ValueKind, tuple[str, str]] = {"variable": (" tf.Variable", " tf.Variables")}


def _container(value: list | tuple | dict | set) -> Described:
    noun = type(value).__name__
    values = list(value.values() if isinstance(value, dict) else value)
    n = len(values)
    kinds = {classify(v).kind for v in values}
    items = next(iter(kinds)) if len(kinds) == 1 else None
    inner = ""
    if n and all(is_tensor(v) for v in values):
        one, many = _NOUNS.get(items or "tensor", (" tensor", " tensors"))
        inner = many if n != 1 else one
    elif n:
        inner = " items" if n != 1 else " item"
    # A subclass (a namedtuple, an OrderedDict, Keras's TrackedList) is named by its own
    # type, so it is no plain container to the hints either; what it holds is still said.
    kind = _CONTAINER_KINDS.get(type(value), "other")
    return Described(kind, f"a Python {noun} of {n}{inner or ' items'}", items=items,
                     stackable=_stackable(values, items))


def _stackable(values: list, items: ValueKind | None) -> bool:
    """Whether tf.stack makes one tensor of ``values``: tensors of one dtype and shape, or
    Python scalars of one type."""
    if not values or items is None:
        return False
    if items in PYTHON_SCALARS:
        return True
    if items not in DENSE_TENSORS:
        return False
    return len({(_dtype(v), _shape(v)) for v in values}) == 1


def _reads(iterator: Any) -> Any:
    """The object a list/tuple/range/dict iterator walks, read from its pickling state
    (iterating would consume it): ``iter([a, b])`` -> ``[a, b]``; None when not known."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # itertools' __reduce__ is deprecated (3.12)
        try:
            state = iterator.__reduce__()
        except Exception:  # noqa: BLE001 - a generator or a user iterator: not knowable
            return None
    if isinstance(state, tuple) and len(state) >= 2 and state[0] is iter \
            and isinstance(state[1], tuple) and len(state[1]) == 1:
        return state[1][0]
    return None


def _zipped(value: zip | enumerate) -> Described:
    """``zip(a, b)`` / ``enumerate(a)`` over Python values: what each reads, unconsumed."""
    try:
        state = value.__reduce__()
        iterators = state[1] if isinstance(value, zip) else state[1][:1]
    except Exception:  # noqa: BLE001 - a Python that pickles them otherwise
        iterators = ()
    parts = []
    for it in iterators:
        read = _reads(it)
        parts.append(classify(read) if read is not None else
                     Described("other", f"a Python {type(it).__name__}"))
    kind: ValueKind = "zip" if isinstance(value, zip) else "enumerate"
    said = " and ".join(p.text for p in parts)
    article = "an" if kind == "enumerate" else "a"
    return Described(kind, f"{article} {kind} of {said}" if said else f"{article} Python {kind}",
                     parts=tuple(parts))


def _range_args(r: range) -> str:
    if r.step != 1:
        return f"{r.start}, {r.stop}, {r.step}"
    if r.start != 0:
        return f"{r.start}, {r.stop}"
    return str(r.stop)
