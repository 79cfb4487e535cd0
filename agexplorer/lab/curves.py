"""A function called step after step in one load of its module: the scalars it returns, charted.

A training step keeps its state in the module (a model's weights, a ``tf.Variable`` holding
the learning rate), so calling it N times with the same arguments trains N epochs; what it
returns each time (``return loss, lr``) makes one series per value. The function is called
as the program would call it (a ``@tf.function`` as one), after one fresh, seeded load, so
the same request draws the same curves.
"""

from __future__ import annotations

import ast
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agexplorer.engine.load import Loaded, load_target, resolve
from agexplorer.lab.seeds import LAB_SEED, seed_everything
from agexplorer.model.curves import MAX_STEPS, Curves, Series, steps_problem
from agexplorer.model.errors import AgxError, user_code_error
from agexplorer.model.text import shape_text
from agexplorer.source.segments import Segments
from agexplorer.source.targets import own_nodes

# A return expression longer than this is no name for a series: "value N" instead.
_LONGEST_NAME = 24
# Progress is said at most this often (seconds): a fast step must not flood the socket.
_PROGRESS_EVERY = 0.25


def run_curves(target: str, call: str | None = None, steps: int = 20,
               progress: Callable[[str], None] | None = None, init: str | None = None
               ) -> Curves:
    """Load ``PATH::QUALNAME`` once, call it ``steps`` times with the same arguments
    (``call``, else the file's ready call) and keep every scalar it returns.

    Bad input (a target, a call, a number of steps) raises :class:`AgxError`; a step that
    raises ends the steps, its sentence kept in ``Curves.error`` with the steps before it.
    """
    from agexplorer.engine.capture import capture_output

    problem = steps_problem(steps)
    if problem is not None:
        raise AgxError("bad-arguments", problem, advice=f"ask for 1 to {MAX_STEPS} "
                       "steps (--steps 20).")
    say = progress or (lambda phase: None)
    failure: AgxError | None = None
    with capture_output() as captured:
        try:
            seed_everything(LAB_SEED)
            say(f"loading {target.partition('::')[0]}")
            loaded = load_target(target, call, progress=say, init=init)
            seed_everything(LAB_SEED)
            curves = _Steps(loaded, steps, say).run()
        except AgxError as exc:
            failure = exc
    if failure is not None:
        failure.details.extend(f"printed: {line}" for line in captured.stdout.splitlines()[:20])
        raise failure
    return Curves(**{**curves, "printed": captured.stdout, "log": captured.log})


def as_written(loaded: Loaded) -> Any:
    """What the program calls: the module's own object (a ``tf.function`` stays one; the
    loaded ``bound`` is its plain Python function), a method looked up on its instance."""
    instance = getattr(loaded.bound, "__self__", None)
    if isinstance(loaded.bound, types.MethodType) and instance is not None:
        return getattr(instance, loaded.qualname.rpartition(".")[2], loaded.bound)
    found = resolve(loaded.module, loaded.qualname, loaded.functions)
    return found if callable(found) else loaded.bound


# -- the names of the returned values ----------------------------------------------------

def returned_names(node: ast.AST | None, text: str) -> list[str | None] | None:
    """The source text of each value the function's ``return`` gives (``return loss, lr``:
    ``["loss", "lr"]``; ``return loss``: ``["loss"]``), None in place of one too long or
    starred; None when there is no such return, or when its returns disagree."""
    if node is None:
        return None
    segment = Segments(text)  # the file split into lines once, not at each part
    found: list[list[str | None]] = []
    for returned in _returns(node):
        value = returned.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            continue  # a bare return: the path that returns nothing charts nothing
        parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        found.append([_name_of(part, segment) for part in parts])
    if not found or any(names != found[0] for names in found[1:]):
        return None
    return found[0]


def _returns(node: ast.AST) -> Iterator[ast.Return]:
    """The function's own return statements (not those of a function defined inside it)."""
    return (child for child in own_nodes(node) if isinstance(child, ast.Return))


def _name_of(part: ast.expr, segment: Segments) -> str | None:
    if isinstance(part, ast.Starred):
        return None
    words = " ".join((segment(part) or "").split())
    return words if 0 < len(words) <= _LONGEST_NAME else None


def _leaves(result: Any) -> list[tuple[str | None, Any]]:
    """The returned values, each with the name its container gives it (a dict's key, a
    named tuple's field) or None."""
    if result is None:
        return []
    if isinstance(result, dict):
        return [(str(key), value) for key, value in result.items()]
    fields = getattr(result, "_fields", None)
    if isinstance(result, tuple) and isinstance(fields, tuple) and len(fields) == len(result):
        return list(zip(map(str, fields), result, strict=True))
    if isinstance(result, (tuple, list)):
        return [(None, value) for value in result]
    return [(None, result)]


def _names(leaves: list[tuple[str | None, Any]], source: list[str | None] | None) -> list[str]:
    """One distinct name per value: its container's, else its return expression's (when the
    return gives as many), else ``value N``."""
    names = []
    for i, (own, _) in enumerate(leaves):
        spelled = source[i] if source is not None and len(source) == len(leaves) else None
        names.append(own or spelled or f"value {i + 1}")
    seen: dict[str, int] = {}
    distinct = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        distinct.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return distinct


def scalar(value: Any) -> float | str:
    """``value`` as a float when it is one number (a Python number, a NumPy scalar, a
    rank-0 tensor or variable); else what it is, in words ("a tensor of shape [4]")."""
    import numpy as np

    if value is None:
        return "None"
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, (tuple, list, dict, str, bytes)):
        return f"a {type(value).__name__}"
    kind = "an array" if isinstance(value, np.ndarray) else "a tensor"
    dtype = getattr(getattr(value, "dtype", None), "name", None)
    read = getattr(value, "numpy", None)
    if callable(read) and not isinstance(value, (np.ndarray, np.generic)):
        try:
            value = read()
        except Exception as exc:  # noqa: BLE001 - a symbolic tensor, a resource...
            return f"{kind} that cannot be read ({type(exc).__name__})"
    if not isinstance(value, (np.ndarray, np.generic)):
        return f"a {type(value).__name__}"
    shape = tuple(np.shape(value))
    if shape:
        return f"{kind} of shape {shape_text(list(shape))}"
    if value.dtype.kind not in "biuf":
        return f"a {dtype or value.dtype.name} {'value' if kind == 'an array' else 'tensor'}"
    return float(value)


@dataclass
class _Slot:
    """One returned value: its name, and its values (None: not a scalar, left out)."""

    name: str
    values: list[float] | None = field(default_factory=list)


class _Steps:
    """The steps of one request: call, convert, keep; stop at the first that raises."""

    def __init__(self, loaded: Loaded, steps: int, say: Callable[[str], None]) -> None:
        self.loaded, self.steps, self.say = loaded, steps, say
        self.short = loaded.qualname.rpartition(".")[2]
        self.slots: list[_Slot] | None = None
        self.notes: list[str] = []
        self.error: str | None = None
        self.error_line: int | None = None
        self.done = 0

    def run(self) -> dict[str, Any]:
        """The Curves' fields (but the captured output)."""
        loaded = self.loaded
        fn = as_written(loaded)
        source = returned_names(loaded.node, loaded.text)
        said = 0.0
        start = time.perf_counter()
        for step in range(1, self.steps + 1):
            if time.perf_counter() - said >= _PROGRESS_EVERY:
                self.say(f"calling {self.short}, step {step} of {self.steps}")
                said = time.perf_counter()
            try:
                result = fn(*loaded.args, **loaded.kwargs)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code raises anything
                error = user_code_error(exc, loaded.path, f"step {step} of {self.steps}, "
                                        f"{self.short}({loaded.call or ''}),", kind="call-failed")
                self.error, self.error_line = error.message, error.line
                break
            if not self._keep(step, _leaves(result), source):
                break
            self.done = step
        elapsed = time.perf_counter() - start
        series = [Series(s.name, s.values) for s in self.slots or [] if s.values is not None]
        if self.slots == [] and self.done:
            self.notes.append(f"{self.short} returns nothing: there is no curve to draw; "
                              "return what to chart (return loss, lr).")
        return {"file": loaded.path, "function": loaded.qualname, "call": loaded.call or "",
                "call_origin": loaded.call_origin or "", "steps": self.steps,
                "done": self.done, "series": series, "notes": self.notes,
                "error": self.error, "error_line": self.error_line, "elapsed_s": elapsed}

    def _keep(self, step: int, leaves: list[tuple[str | None, Any]],
              source: list[str | None] | None) -> bool:
        """Keep one step's values; False (``error`` said) when they do not fit step 1's."""
        numbers = [scalar(value) for _, value in leaves]
        if self.slots is None:  # step 1 decides what is charted
            self.slots = [_Slot(name) for name in _names(leaves, source)]
            for slot, number in zip(self.slots, numbers, strict=True):
                if isinstance(number, str):
                    slot.values = None
                    self.notes.append(f"{slot.name} is {number}, not a scalar: left out of "
                                      "the chart.")
        if len(numbers) != len(self.slots):
            self.error = (f"step {step} of {self.steps}: {self.short} returned "
                          f"{len(numbers)} values where step 1 returned {len(self.slots)}; "
                          "the curves stop before it.")
            return False
        for slot, number in zip(self.slots, numbers, strict=True):
            if slot.values is not None and isinstance(number, str):
                self.error = (f"step {step} of {self.steps}: {slot.name} is {number}, no longer "
                              "a scalar as at step 1; the curves stop before it.")
                return False
        for slot, number in zip(self.slots, numbers, strict=True):
            if slot.values is not None and isinstance(number, float):
                slot.values.append(number)
        return True

