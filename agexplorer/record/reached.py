"""What a recorded trace tells of the user's code it reached: the line that asked for it
(``model.fit``, ``ds.map(featurize)``), and each function's first arguments and instance.

A library's tf.function (Keras's train step, tf.data's map function) starts at the user's
line that asked for it; the call on that line is named as written, so a call path reads
``model.fit (train.py:27) -> AttentionPool.call (train.py:14)``. Each function of the
user's code the trace entered keeps the arguments of its first call (tensors by dtype and
shape, Python values by value) and, for a method, how to build its instance again, so that
the program view can explore it on its own (``agexplorer FILE::Class.call --init ...``).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from agexplorer.engine.calltree import FileIndex, Reach
from agexplorer.engine.recorder import Recorder
from agexplorer.model.retrace import Argument
from agexplorer.model.text import shortened
from agexplorer.retrace.args import describe_argument

_LONGEST = 60  # characters of a call's text before it is cut


class Reached:
    """The functions of the user's code that ran as plain Python while a trace was made,
    each at its first call (the counters tell of each one's first frame): from where, with
    what."""

    def __init__(self, recorder: Recorder, index: FileIndex) -> None:
        self.recorder = recorder
        self.index = index
        self.ran: dict[tuple[str, int], Reach] = {}  # units whose own code ran unconverted
        self.entries: dict[tuple[str, int], Entry] = {}  # their first calls

    def entered(self, frame: Any) -> None:
        code = frame.f_code
        unit = self.index.unit_at(code.co_filename, code.co_firstlineno)
        if unit is None:
            return
        key = (unit.file, unit.def_line)
        if key not in self.ran:
            self.ran[key] = Reach(self.recorder.user_frames())
        if code.co_firstlineno in (unit.first_line, unit.def_line) and key not in self.entries:
            self.entries[key] = entry_of(frame)  # the unit itself, not a function nested in it

    def first_calls(self) -> dict[tuple[str, int], Entry]:
        """Every function's first call, by (file, def line): those AutoGraph converted, then
        those that ran as written (which win: their own frame's arguments)."""
        return {**self.converted(), **self.entries}

    def converted(self) -> dict[tuple[str, int], Entry]:
        """The first calls of the functions AutoGraph converted (converted_call's). A
        function defined inside a unit (a map function made in ``make_ds``) is not the
        unit's call: the unit keeps only its name (``local``), unless the unit itself
        was called too."""
        found: dict[tuple[str, int], Entry] = {}
        for (file, line), (owner, (args, kwargs)) in self.recorder.first_calls.items():
            unit = self.index.unit_at(file, line)
            fn = self.recorder.entries.get((file, line), (None,))[0]
            if unit is None or fn is None:
                continue
            key = (unit.file, unit.def_line)
            if line in (unit.first_line, unit.def_line):
                found[key] = entry_of_call(fn, owner, args, kwargs)
            elif key not in found:
                name = getattr(fn, "__name__", None) or "a function"
                found[key] = Entry(local=f"{unit.qualname}.{name} (line {line})")
        return found


@dataclass
class Entry:
    """A function of the user's code entered while a trace was made: its first call."""

    arguments: list[Argument] = field(default_factory=list)
    init: str | None = None  # the instance's constructor arguments (``steps=6``), or None
    init_note: str | None = None  # why ``init`` is None, where there is an instance
    # The trace entered the function only through one defined inside it (``make_ds.aug
    # (line 25)``): no call of the function's own, so none is kept.
    local: str | None = None

    def to_dict(self) -> dict:
        """The record's form (inside a ``reached`` entry)."""
        if self.local is not None:
            return {"local": self.local}
        return {"arguments": [{"name": a.name, **a.to_dict()} for a in self.arguments],
                "init": self.init, "init_note": self.init_note}


def entry_of(frame: Any) -> Entry:
    """The arguments ``frame`` (a function's first line, as it starts) was called with."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:count])
    if code.co_flags & inspect.CO_VARARGS:
        names.append(code.co_varnames[count])
        count += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        names.append(code.co_varnames[count])
    values = frame.f_locals
    entry = Entry()
    for i, name in enumerate(names):
        if name not in values:
            continue
        value = values[name]
        if i == 0 and name == "self" and not isinstance(value, type):
            entry.init, entry.init_note = instance_init(value)
            continue
        entry.arguments.append(describe_argument(name, value))
    return entry


def entry_of_call(fn: Any, owner: Any, args: Any, kwargs: Any) -> Entry:
    """The arguments of a call ``fn(*args, **kwargs)`` (``owner``: the instance of a bound
    method, whose constructor arguments are kept as ``init``)."""
    from agexplorer.retrace.args import bind_arguments

    args = tuple(args) if isinstance(args, (tuple, list)) else ()
    kwargs = dict(kwargs) if isinstance(kwargs, dict) else {}
    try:
        parameters = inspect.signature(fn)
    except (TypeError, ValueError):
        parameters = None
    entry = Entry()
    if owner is not None and not isinstance(owner, type):
        args = (owner, *args)
        entry.init, entry.init_note = instance_init(owner)
    bound = bind_arguments(parameters, args, kwargs)
    entry.arguments = bound[1:] if owner is not None and bound else bound
    return entry


def instance_init(obj: Any) -> tuple[str | None, str | None]:
    """(the constructor arguments that build ``obj`` again, as Python source; why not).

    A Keras layer or model keeps the arguments it was built with in its config (Keras 3
    keeps them for a layer with no get_config of its own); any other object keeps none."""
    cls = type(obj)
    own_init = cls.__dict__.get("__init__") or next(
        (c.__dict__["__init__"] for c in cls.__mro__ if "__init__" in c.__dict__), None)
    if own_init is None:  # every class has object's: never, but nothing to read then
        return "", None
    try:
        parameters = [p for p in inspect.signature(own_init).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)][1:]
    except (TypeError, ValueError):
        parameters = []
    if not _defined_by_user(own_init):
        built = _built_from_parts(obj)
        if built is not None:  # the library's constructor, given what no text can say
            return None, f"{cls.__name__} was built {built}, which agexplorer cannot build again"
        required = [p.name for p in parameters if p.default is inspect.Parameter.empty]
        if required:  # its defaults do not build it (``class Wide(keras.layers.Dense)``)
            return None, (f"{cls.__name__} keeps its library's constructor, whose arguments "
                          f"({', '.join(required)}) were not recorded")
        return "", None  # the library's own constructor: its defaults build it
    get_config = getattr(obj, "get_config", None)
    if get_config is None:
        return None, f"{cls.__name__} keeps no record of its constructor's arguments"
    try:
        config = get_config()
    except Exception:  # noqa: BLE001 - Keras raises when it cannot serialise the arguments
        config = None
    if not isinstance(config, dict):
        return None, f"{cls.__name__}.get_config() gave no constructor arguments"
    parts = []
    for p in parameters:
        if p.name not in config:
            continue
        value = config[p.name]
        text = _literal(value)
        if text is None:
            return None, (f"{cls.__name__}'s {p.name} was not a plain Python value "
                          f"({type(value).__name__}), so its constructor's arguments could "
                          "not be recorded")
        if p.default is not inspect.Parameter.empty and _same(p.default, value):
            continue
        parts.append(f"{p.name}={text}")
    return ", ".join(parts), None


def _built_from_parts(obj: Any) -> str | None:
    """How a Keras model whose class keeps the library's constructor was built from objects
    (its inputs and outputs, its layers), where it was: its defaults build an empty one."""
    names = {c.__name__ for c in type(obj).__mro__}
    if "Functional" in names or getattr(obj, "_is_graph_network", False):
        return "from Keras inputs and outputs (the functional API)"
    if "Sequential" in names and getattr(obj, "layers", None):
        return "from its layers (keras.Sequential)"
    return None


def _defined_by_user(init: Any) -> bool:
    module = getattr(init, "__module__", "") or ""
    return bool(init) and module.partition(".")[0] not in ("keras", "tf_keras", "tensorflow",
                                                          "builtins")


def _literal(value: Any) -> str | None:
    """``value`` as Python source that gives it back, or None."""
    text = repr(value)
    try:
        return text if ast.literal_eval(text) == value else None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - an __eq__ that raises is not the same
        return False


class CallTexts:
    """The call on a user's line that asked a library for a trace, as written."""

    def __init__(self) -> None:
        self._trees: dict[str, ast.Module | None] = {}

    def text(self, file: str, line: int, callees: list[str]) -> str | None:
        """``model.fit`` or ``ds.map(featurize)``: the call on ``line`` of ``file`` whose name
        is nearest the user's frame among ``callees`` (the library frames' function names,
        innermost user frame's callee first); None where none matches."""
        tree = self._tree(file)
        if tree is None:
            return None
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and n.lineno <= line <= (n.end_lineno or n.lineno)]
        ranked = [(callees.index(name), call) for call in calls
                  if (name := _callee(call)) is not None and name in callees]
        if not ranked:
            return None
        call = min(ranked, key=lambda pair: pair[0])[1]
        text = ast.unparse(call.func)
        for arg in call.args:  # the function it was given (ds.scan(state, step): step)
            if isinstance(arg, ast.Lambda):
                text += "(lambda)"
                break
            if isinstance(arg, (ast.Name, ast.Attribute)) and _names_function(arg, file, line):
                text += f"({ast.unparse(arg)})"
                break
        return shortened(text, _LONGEST)

    def _tree(self, file: str) -> ast.Module | None:
        if file not in self._trees:
            try:
                self._trees[file] = ast.parse("".join(linecache.getlines(file)))
            except (SyntaxError, ValueError):
                self._trees[file] = None
        return self._trees[file]


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _names_function(node: ast.expr, file: str, line: int) -> bool:
    """Whether ``node`` (a name, or a dotted name) is a function or method where the user's
    frame at ``line`` of ``file`` is (read without running any property or __getattr__)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_filename == file
                                     and frame.f_lineno == line):
        frame = frame.f_back
    if frame is None:
        return False
    parts = ast.unparse(node).split(".")
    missing = object()
    value = frame.f_locals.get(parts[0], frame.f_globals.get(parts[0], missing))
    for part in parts[1:]:
        if value is missing:
            break
        try:
            value = inspect.getattr_static(value, part)
        except AttributeError:
            value = missing
    return value is not missing and (inspect.isfunction(value) or inspect.ismethod(value)
                                     or isinstance(value, (staticmethod, classmethod)))
