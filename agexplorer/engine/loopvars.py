"""The variables a loop carried, read from AutoGraph's ``get_state`` around the loop's body.

``for_stmt``/``while_stmt`` get the loop's state as ``get_state()`` (a tuple, in the
order of ``symbol_names``, the names in the user's source). The recorder wraps the body:
a staged loop's body runs once, symbolically, and TensorFlow then compares the state
entering the body with the state after it ("has shape (1,) before the loop, but shape
(2,) after one iteration"): the state is read right after the body, before that check
can raise, so a loop whose trace fails on it still has its variables. A Python loop's
body runs once per iteration: the first iteration is kept, and any later one where a
variable's type changed (a Python int becoming a tensor).

A name the body creates (``for k in range(n): last = k``) enters the loop as AutoGraph's
``Undefined``, which answers every attribute with itself: it is read as "undefined", never
as a value, and the loop variable is one the loop defines.
"""

from __future__ import annotations

import linecache
import re
from collections.abc import Callable, Sequence
from typing import Any

from agexplorer.engine.describe import is_tensor, is_undefined
from agexplorer.model.loopvars import UNDEFINED, LoopVar, Shape, VarState
from agexplorer.model.text import plural, shortened

_VALUE_CHARS = 40  # a Python value's repr is cut to this: the type tells the story


def _shape(value: Any) -> Shape:
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    try:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    except (TypeError, ValueError):  # unknown rank
        return None
    return tuple(d if d is None else int(d) for d in dims)


def state_of(value: Any) -> VarState:
    """A value as a loop variable's state: a tensor's dtype and shape, else type and value."""
    if is_undefined(value):  # a name the body creates; tested first: it has a "dtype" too
        return VarState(python_type=UNDEFINED, value="")
    if is_tensor(value):
        dtype = getattr(value, "dtype", None)
        return VarState(dtype=dtype if isinstance(dtype, str) else getattr(dtype, "name", "?"),
                        shape=_shape(value))
    name = type(value).__name__
    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
    elif isinstance(value, (list, tuple, dict, set)):
        text = f"{plural(len(value), 'item')}"
    else:  # an object's repr names its address: not a value a reader compares
        dtype = getattr(value, "dtype", None)  # a tf.TensorArray's
        text = getattr(dtype, "name", "") if dtype is not None else ""
    return VarState(python_type=name, value=shortened(text, _VALUE_CHARS))


def _is_subshape(after: Shape, entry: Shape) -> bool:
    """TensorFlow's test: ``after`` is at least as specific as ``entry``."""
    if entry is None:
        return True
    if after is None or len(after) != len(entry):
        return False
    return all(e is None or a == e for a, e in zip(after, entry, strict=True))


def _staged_change(entry: VarState, after: VarState) -> bool:
    """Whether TensorFlow's loop check fails on this variable: dtype, or a shape that the
    state entering the body (the shape invariant, where one is set) does not hold."""
    if entry.is_tensor and after.is_tensor:
        return entry.dtype != after.dtype or not _is_subshape(after.shape, entry.shape)
    return False  # structures and Python values: TensorFlow says so in its own words


def _kind(state: VarState) -> tuple[str | None, ...]:
    """What a Python loop must keep across iterations: the type (a tensor's dtype), not the
    value nor a tensor's shape (an unrolled loop may grow one, by design)."""
    return ("tensor", state.dtype) if state.is_tensor else ("python", state.python_type)


def _python_change(before: VarState, after: VarState) -> bool:
    """A Python loop changed the variable's type in a way that staging the loop would fail
    on (a variable the body defines first is new, not changed). A Python number that became
    a scalar tensor of the dtype AutoGraph gives that number when a staged loop starts
    (``total = 0`` then an int32 sum) is no change: staged, the loop carries the same."""
    if before.undefined or after.undefined or _kind(before) == _kind(after):
        return False
    return not (after.is_tensor and after.shape == ()
                and after.dtype == _staged_dtype(before))


def _staged_dtype(state: VarState) -> str | None:
    """The dtype a Python bool, int or float becomes as a staged loop's variable
    (``tf.convert_to_tensor``'s: an int too large for int32 is int64); None for others."""
    if state.python_type == "bool":
        return "bool"
    if state.python_type == "float":
        return "float32"
    if state.python_type == "int":
        try:
            return "int32" if -2**31 <= int(state.value or "") < 2**31 else "int64"
        except ValueError:  # a shortened repr: too long for int32 anyway
            return "int64"
    return None


# The variables AutoGraph adds for return, break and continue inside a loop; its namer adds a
# suffix where the user's function already has the name.
_AUTOGRAPH_OWN = re.compile(r"(?:do_return|retval_|break_|continue_)(?:_\d+)?")
_DEF = re.compile(r"\s*(?:async\s+)?def\s")


def _autograph_own(name: str, file: str | None, line: int | None) -> bool:
    """Whether a loop variable is one AutoGraph made: its kind of name, found nowhere in the
    user's function around the loop (where it is, it may be the user's own: it is kept)."""
    if not _AUTOGRAPH_OWN.fullmatch(name):
        return False
    return re.search(rf"\b{name}\b", "".join(_function_lines(file, line))) is None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _function_lines(file: str | None, line: int | None) -> list[str]:
    """The source of the function whose body holds ``line`` (the nearest ``def`` above it,
    less indented, to where its body ends); the whole file where that cannot be told."""
    lines = linecache.getlines(file or "")
    if line is None or not 0 < line <= len(lines):
        return lines
    indent = _indent(lines[line - 1])
    start = next((i for i in range(line - 2, -1, -1)
                  if _DEF.match(lines[i]) and _indent(lines[i]) < indent), None)
    if start is None:
        return lines
    outer = _indent(lines[start])
    end = next((i for i in range(line, len(lines))
                if lines[i].strip() and not lines[i].lstrip().startswith("#")
                and _indent(lines[i]) <= outer), len(lines))
    return lines[start:end]


class LoopWatch:
    """Reads one loop's state around its body; :attr:`loop_vars` is what it found."""

    def __init__(self, get_state: Callable[[], Any], symbol_names: Sequence[str],
                 staged: Callable[[], bool], file: str | None = None,
                 line: int | None = None) -> None:
        self.get_state = get_state
        names = [str(n) for n in symbol_names or ()]
        self.size = len(names)
        # AutoGraph orders the state as a set iterates (by the process's string hashing):
        # by name, the same every run. Its own variables (``break_``) are no news.
        mine = [i for i, name in enumerate(names) if not _autograph_own(name, file, line)]
        self.order = sorted(mine, key=names.__getitem__)
        self.names = tuple(names[i] for i in self.order)
        self.staged = staged  # whether the loop took the staged path (known once it runs)
        self.before = self._read()
        self.loop_vars: tuple[LoopVar, ...] = ()
        self._last: tuple[VarState, ...] | None = None  # a Python loop: after the last body
        self._done = False

    def _read(self) -> tuple[VarState, ...] | None:
        if not self.names:
            return None
        try:
            state = self.get_state()
            if len(state) != self.size:
                return None
            return tuple(state_of(state[i]) for i in self.order)
        except Exception:  # noqa: BLE001 - reading the state is never worth the user's trace
            return None

    def wrap(self, body: Callable[..., Any]) -> Callable[..., Any]:
        """``body``, reading the state after it runs (and, staged, as it enters)."""
        def watched(*args: Any) -> Any:
            if self._done or self.before is None:
                return body(*args)
            if self.staged():
                entry = self._read()
                result = body(*args)
                self._staged_after(entry)
                return result
            result = body(*args)
            self._python_after()
            return result
        return watched

    def _staged_after(self, entry: tuple[VarState, ...] | None) -> None:
        after = self._read()
        self._done = True  # the body is traced once: that trace is the story
        if after is None or self.before is None:
            return
        entry = entry or self.before
        self.loop_vars = tuple(
            LoopVar(n, b, a, _staged_change(e, a))
            for n, b, e, a in zip(self.names, self.before, entry, after, strict=True))

    def _python_after(self) -> None:
        after = self._read()
        if after is None or self.before is None:
            self._done = True
            return
        if self._last is None:  # the first iteration: before -> after
            self.loop_vars = tuple(LoopVar(n, b, a, _python_change(b, a))
                                   for n, b, a in zip(self.names, self.before, after, strict=True))
        else:  # later ones: keep the first change of each variable's type
            self.loop_vars = tuple(_later(v, last, a)
                                   for v, last, a in zip(self.loop_vars, self._last, after,
                                                         strict=True))
        self._last = after


def _later(var: LoopVar, last: VarState, after: VarState) -> LoopVar:
    """A Python loop's variable after a later iteration: its first change of type, or its
    first value where only this iteration defined it (an if inside the loop took the branch
    that creates it)."""
    if var.changed:
        return var
    if _python_change(last, after):
        return LoopVar(var.name, last, after, True)
    if var.after.undefined and not after.undefined:
        return LoopVar(var.name, var.before, after, False)
    return var
