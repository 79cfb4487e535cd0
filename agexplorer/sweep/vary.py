"""Which Python argument a sweep varies, and its values: ``--vary NAME=V1,V2``, or picked from a report."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from agexplorer.model.errors import AgxError

_EXAMPLE = "e.g. --vary n=10,100,1000"


def parse_vary(text: str) -> tuple[str, tuple[int, ...]]:
    """``NAME=V1,V2,...`` -> (name, distinct values in ascending order); AgxError otherwise."""
    name, eq, rest = text.partition("=")
    name = name.strip()
    if not eq or not name.isidentifier():
        raise AgxError("bad-vary", f"--vary takes a parameter name and its values, "
                       f"NAME=V1,V2,... ({_EXAMPLE}), not '{text}'.")
    words = [w.strip() for w in rest.split(",") if w.strip()]
    try:
        values = [int(w.replace("_", "")) for w in words]
    except ValueError:
        raise AgxError("bad-vary", f"--vary {name}= takes whole numbers separated by commas "
                       f"({_EXAMPLE}), not '{rest}'.") from None
    if not values:
        raise AgxError("bad-vary", f"--vary {name}= names no values", advice=f"list them: {_EXAMPLE}.")
    if any(v < 0 for v in values):
        raise AgxError("bad-vary", f"--vary {name}= takes counts of 0 or more, not "
                       f"{min(values)}.")
    return name, tuple(sorted(set(values)))


def bind(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
    """The call bound to ``fn``'s parameters (names for positional arguments too)."""
    try:
        return inspect.signature(fn).bind_partial(*args, **kwargs)
    except TypeError as exc:
        raise AgxError("bad-call", f"the call does not fit the function's parameters ({exc}).",
                       exit_code=2) from None


def is_python_count(value: Any) -> bool:
    """A value a sweep can vary: a Python int (a bool is not a count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_vary(fn: Any, bound: inspect.BoundArguments, name: str, function: str) -> None:
    """AgxError unless ``name`` is a parameter of ``fn`` the call gives a Python int (or
    leaves at an int default)."""
    params = inspect.signature(fn).parameters
    if name not in params:
        names = ", ".join(params) or "none"
        raise AgxError("bad-vary", f"--vary {name}: {function} has no parameter '{name}' "
                       f"(its parameters: {names}).")
    current = bound.arguments.get(name, params[name].default)
    if current is inspect.Parameter.empty:
        return  # not in the call: the sweep supplies it
    if not is_python_count(current):
        raise AgxError("bad-vary", f"--vary {name}: the call passes {name} a "
                       f"{type(current).__name__}, not a Python int, so its value does not "
                       "change the trace", advice="vary a Python int argument (one a loop counts "
                       "to).")


def with_value(bound: inspect.BoundArguments, name: str, value: Any
               ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call's (args, kwargs) with ``name`` set to ``value``."""
    arguments = dict(bound.arguments)
    arguments[name] = value
    again = inspect.BoundArguments(bound.signature, arguments)
    return again.args, again.kwargs


def spread(traced: int) -> tuple[int, ...]:
    """Values over two orders of magnitude up to ``traced`` (N/100, N/10, N), at least 1,
    distinct; a small N gets values in between so that the line rests on three points."""
    values = {max(traced // 100, 1), max(traced // 10, 1), max(traced, 1)}
    for extra in (traced // 2, traced // 4, 2, 3):
        if len(values) >= 3:
            break
        if 1 <= extra <= traced:
            values.add(extra)
    return tuple(sorted(values))


def pick(statements: Sequence[Any], bound: inspect.BoundArguments, fn: Any,
         line: int | None = None) -> tuple[str, int, int, str]:
    """(parameter, its value, the loop's line, how it was decided) for the report's largest
    unrolled loop; AgxError asking for --vary when no Python int argument drives it.

    The loop is the statement run in Python (verdict "python" or "mixed") with the most
    iterations, or the one at ``line``. Its driver is the Python int argument equal to that
    count, preferring one
    the loop's header reads; failing that, a Python int argument the header reads (a loop
    over ``range(2 * n)`` counts 2n).
    """
    loops = [v for v in statements if v.unrolled and (line is None or v.line == line)]
    if not loops and line is not None:
        raise AgxError("no-unrolled-loop", f"the trace unrolled no loop at line {line}",
                       advice="sweep a loop that ran in Python (its verdict says unrolled).")
    if not loops:
        raise AgxError("no-unrolled-loop", "the trace unrolled no loop", advice="name the Python "
                       f"argument to vary and its values with --vary NAME=V1,V2,... "
                       f"({_EXAMPLE}).")
    loop = max(loops, key=lambda v: (v.iterations, -v.line))
    params = inspect.signature(fn).parameters
    ints = {name: value for name, value in _arguments(bound, params).items()
            if is_python_count(value)}
    read = [n.name for n in loop.names if n.name in ints]
    equal = [name for name, value in ints.items() if value == loop.iterations]
    equal.sort(key=lambda name: name not in read)
    if equal:
        name = equal[0]
        how = (f"{name}={ints[name]} equals the {loop.iterations} iterations of the loop at "
               f"line {loop.line}")
    elif read:
        name = read[-1]
        how = (f"the loop at line {loop.line} ({loop.iterations} iterations) reads the "
               f"Python int argument {name}={ints[name]}")
    else:
        raise AgxError("no-driver", f"no Python int argument of the call drives the loop at "
                       f"line {loop.line} ({loop.iterations} iterations)", advice="name the one to "
                       f"vary with --vary NAME=V1,V2,... ({_EXAMPLE}).")
    return name, ints[name], loop.line, how


def _arguments(bound: inspect.BoundArguments, params: Any) -> dict[str, Any]:
    """Every parameter's value in the call, defaults included."""
    values = {name: p.default for name, p in params.items() if p.default is not p.empty}
    values.update(bound.arguments)
    return values
