"""A call rebuilt from a recorded signature: tensors as zeros of their dtype and shape, values as recorded."""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from agexplorer.model.errors import AgxError

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
    # Where the call goes when it is not the traced function's own: a library's trace opens
    # the function of the user's it reached, (file, qualname), built with ``init``.
    target: tuple[str, str] | None = None
    init: str | None = None


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
    holder = argument.get("holder")
    if holder == "numpy":
        one = "," if shape is not None and len(shape) == 1 else ""  # (16,) is a tuple
        return f"np.zeros(({dims}{one}), np.{dtype})"
    zeros = f"tf.zeros([{dims}], tf.{dtype})"
    return f"tf.Variable({zeros})" if holder == "variable" else zeros


def python_expression(argument: dict) -> str | None:
    """The recorded Python value's source (``3``, ``'abc'``, ``None``), or None if not kept."""
    return python_value(argument)[1]


def python_value(argument: dict) -> tuple[str | None, str | None]:
    """(type, source) of a recorded Python value: ``("int", "3")``; the source None where it
    was not kept. A log written before arguments kept them has only the phrase to read them
    from (``the Python int 3``)."""
    if "python_type" in argument:  # a log of this version
        value = argument.get("value")
        return str(argument["python_type"]), value if isinstance(value, str) else None
    text = str(argument.get("text") or "")
    if text == "None":
        return "NoneType", "None"
    if text in _EMPTY:
        return text.split()[2], _EMPTY[text]
    found = _PYTHON.match(text)
    return (found.group(1), found.group(2)) if found else (None, None)


def rebuild_call(arguments: list[dict], keyword: Collection[str] = (),
                 variadic: Collection[str] = (), advice: str = "type the call in the Run tab"
                 ) -> RebuiltCall:
    """The call for ``arguments`` (a trace record's, in parameter order). ``keyword``: the
    keyword-only parameters, passed by name; ``variadic``: ``*args``/``**kwargs`` names,
    left out when they were empty; ``advice``: what a problem's sentence ends with."""
    notes: list[str] = []
    parts: list[str] = []
    by_name = False  # from the first keyword-only parameter on
    for argument in arguments:
        name = str(argument.get("name"))
        if name in variadic:
            if python_expression(argument) in ("()", "{}"):
                continue
            return RebuiltCall(None, notes, f"{name} was recorded as {argument.get('text')}, "
                               f"which cannot be passed back as one argument; {advice}")
        value = _expression(argument, notes)
        if value is None:
            return RebuiltCall(None, notes, f"the argument {name} was recorded only as "
                               f"{argument.get('text')}, so the call cannot be rebuilt; {advice}")
        by_name = by_name or name in keyword
        parts.append(f"{name}={value}" if by_name else value)
    return RebuiltCall(", ".join(parts), notes)


def _expression(argument: dict, notes: list[str]) -> str | None:
    """The source of one recorded argument, or None where it cannot be rebuilt."""
    if argument.get("kind") == "tensor":
        return tensor_expression(argument, notes)
    if argument.get("kind") == "structure" and argument.get("parts"):
        return structure_expression(argument, notes)
    return python_expression(argument)


def structure_expression(argument: dict, notes: list[str]) -> str | None:
    """A one-level tuple, list or dict rebuilt from its recorded values (``(tf.zeros([16,
    4], tf.float32), tf.zeros([16, 1], tf.float32))``: a Keras step's ``data``); None for
    a nested one (its inner containers' types are not recorded) or an unknown value."""
    kind, name = argument.get("python_type"), str(argument.get("name"))
    items: list[tuple[object, str]] = []
    for part in argument.get("parts") or []:
        key = _one_key(name, str(part.get("name")))
        value = _expression(part, notes) if part.get("kind") != "structure" else None
        if key is None or value is None:
            return None
        items.append((key, value))
    if kind == "dict":
        return "{" + ", ".join(f"{key!r}: {value}" for key, value in items) + "}"
    if kind not in ("tuple", "list") or [k for k, _ in items] != list(range(len(items))):
        return None
    values = ", ".join(v for _, v in items)
    return f"[{values}]" if kind == "list" else f"({values}{',' if len(items) == 1 else ''})"


def _one_key(name: str, part: str) -> object | None:
    """The key of a part named ``name[key]`` (one subscript: ``data[0]``, ``batch['x']``)."""
    if not (part.startswith(name + "[") and part.endswith("]")):
        return None
    try:
        node = ast.parse(part[len(name):], mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.List) or len(node.elts) != 1 \
            or not isinstance(node.elts[0], ast.Constant):
        return None  # data[0][1]: nested
    return node.elts[0].value


def parameter_kinds(path: str, qualname: str) -> tuple[set[str], set[str]] | None:
    """(keyword-only, ``*args``/``**kwargs``) parameter names of ``qualname`` in ``path``
    (a static parse); None where the file no longer holds such a function."""
    from agexplorer.source.targets import parse_source, read_source

    try:
        body: list[ast.stmt] = parse_source(path, read_source(path)).body
    except AgxError:
        return None
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.ClassDef)) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    args = node.args
    variadic = {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return {a.arg for a in args.kwonlyargs}, variadic
