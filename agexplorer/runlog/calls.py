"""A call rebuilt from a recorded signature: tensors as zeros of their dtype and shape, values as recorded."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

# "the Python int 3", "the Python str 'abc'": the value after the type is its repr (a float
# is written with %g, a str cut at 30 characters: the nearest the log keeps).
_PYTHON = re.compile(r"the Python (bool|int|float|str) (.*)\Z", re.DOTALL)
_EMPTY = {"a Python tuple []": "()", "a Python list []": "[]", "a Python dict {}": "{}"}


@dataclass
class RebuiltCall:
    """The argument list (``tf.zeros([16, 4], tf.float32), n=3``) or why there is none."""

    text: str | None
    notes: list[str] = field(default_factory=list)  # approximations made (unknown dimensions)
    problem: str | None = None  # one sentence: the argument that cannot be rebuilt


def tensor_expression(argument: dict, notes: list[str]) -> str:
    """``tf.zeros([16, 4], tf.float32)`` for a recorded tensor; an unknown dimension is 1."""
    name, dtype, shape = argument.get("name"), argument.get("dtype") or "float32", \
        argument.get("shape")
    if shape is None:
        notes.append(f"{name} had an unknown rank: passed as a scalar")
        dims = ""
    else:
        if any(d is None for d in shape):
            notes.append(f"{name}'s unknown dimensions are 1")
        dims = ", ".join("1" if d is None else str(d) for d in shape)
    text = str(argument.get("text") or "")
    if text.startswith("NumPy "):
        one = "," if shape is not None and len(shape) == 1 else ""  # (16,) is a tuple
        return f"np.zeros(({dims}{one}), np.{dtype})"
    zeros = f"tf.zeros([{dims}], tf.{dtype})"
    return f"tf.Variable({zeros})" if text.startswith("tf.Variable ") else zeros


def python_expression(argument: dict) -> str | None:
    """The recorded Python value's source (``3``, ``'abc'``, ``None``), or None if not kept."""
    text = str(argument.get("text") or "")
    if text == "None":
        return "None"
    if text in _EMPTY:
        return _EMPTY[text]
    found = _PYTHON.match(text)
    return found.group(2) if found else None


def rebuild_call(arguments: list[dict], keyword: Collection[str] = (),
                 variadic: Collection[str] = ()) -> RebuiltCall:
    """The call for ``arguments`` (a trace record's, in parameter order). ``keyword``: the
    keyword-only parameters, passed by name; ``variadic``: ``*args``/``**kwargs`` names,
    left out when they were empty."""
    notes: list[str] = []
    parts: list[str] = []
    by_name = False  # from the first keyword-only parameter on
    for argument in arguments:
        name = str(argument.get("name"))
        if name in variadic:
            if argument.get("text") in _EMPTY:
                continue
            return RebuiltCall(None, notes, f"{name} was recorded as {argument.get('text')}, "
                               "which cannot be passed back as one argument; type the call in the "
                               "Run tab")
        if argument.get("kind") == "tensor":
            value = tensor_expression(argument, notes)
        else:
            value = python_expression(argument)
        if value is None:
            return RebuiltCall(None, notes, f"the argument {name} was recorded only as "
                               f"{argument.get('text')}, so the call cannot be rebuilt; type it "
                               "in the Run tab")
        by_name = by_name or name in keyword
        parts.append(f"{name}={value}" if by_name else value)
    return RebuiltCall(", ".join(parts), notes)
