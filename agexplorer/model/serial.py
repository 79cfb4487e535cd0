"""The model's records as plain JSON data and back, whole: ``from_dict(Report, to_data(r)) == r``.

The ``--json`` objects (``Report.to_dict`` and the like) are a contract written for readers,
and leave out what a reader does not need. This form leaves nothing out: every field of
every record, so that a report, a run lab or a doctor's answer saved once can be shown again
without TensorFlow (the explorer's snapshot tests run from such files).

It is driven by the records' own type hints: a dataclass is an object of its fields, a
tuple or list an array, a dict an object (or ``[key, value]`` pairs when its keys are not
strings). ``AgxError`` is the one record that is not a dataclass: its fields are named
below. Reading is strict: a field the class does not have, or a value of the wrong shape,
raises ``ValueError`` naming where, so a saved file older than the model says so instead of
showing something else."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Literal, TypeVar, Union

from agexplorer.model.errors import AgxError

T = TypeVar("T")

# AgxError's fields (its constructor's arguments), in the order it takes them.
_ERROR_FIELDS = ("kind", "what", "advice", "raised", "line", "exit_code", "details", "cause")


def to_data(value: Any) -> Any:
    """``value`` (a record, or a container of records and plain values) as JSON data."""
    if isinstance(value, AgxError):
        return {name: to_data(getattr(value, name)) for name in _ERROR_FIELDS}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name))
                for f in dataclasses.fields(_record_class(type(value))) if f.init}
    if isinstance(value, (list, tuple)):
        return [to_data(item) for item in value]
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: to_data(item) for key, item in value.items()}
        return [[to_data(key), to_data(item)] for key, item in value.items()]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"{type(value).__name__} is not a record the model saves")


def _record_class(cls: type) -> type:
    """The model's record ``cls`` is (the engine's live inventory is an Inventory that also
    holds its graphs: they never leave the process that traced them)."""
    for base in cls.__mro__:
        if dataclasses.is_dataclass(base) and base.__module__.startswith("agexplorer.model."):
            return base
    return cls


def from_dict(cls: type[T], data: Any) -> T:
    """The record of class ``cls`` that :func:`to_data` wrote as ``data``. ``cls`` may also
    be a type named in a string (a request's reply type, ``"RetraceReport"``)."""
    return typing.cast(T, _read(cls, data, getattr(cls, "__name__", str(cls))))


@functools.cache
def _records() -> dict[str, Any]:
    """The model's names, for hints that only name them (imported under TYPE_CHECKING)."""
    from agexplorer.model import (
        compare,
        curves,
        doctor,
        inventory,
        lab,
        loopvars,
        passes,
        report,
        retrace,
        sweep,
        values,
    )

    names: dict[str, Any] = {}
    for module in (values, loopvars, inventory, report, lab, doctor, compare, passes,
                   retrace, sweep, curves):
        names.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
    return names


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, localns=_records())


def _read(hint: Any, data: Any, where: str) -> Any:
    if isinstance(hint, typing.ForwardRef):
        hint = hint.__forward_arg__
    if isinstance(hint, str):
        hint = eval(hint, dict(_records()))  # a name, or a union of names: the model's own
    if hint is Any or hint is object:
        return data
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        others = [a for a in args if a is not type(None)]
        if len(others) == 1:
            return _read(others[0], data, where)
        for option in others:  # a union of plain types: the first that reads it
            try:
                return _read(option, data, where)
            except ValueError:
                continue
        raise ValueError(f"{where}: {data!r} is none of {hint}")
    if origin is Literal:
        if data not in args:
            raise ValueError(f"{where}: {data!r} is not one of {args}")
        return data
    if origin in (list, tuple, dict) or hint in (list, tuple, dict):
        return _container(origin or hint, args, data, where)
    if typing.is_typeddict(hint):  # a reply's dict of records (the worker's ReportReply)
        hints = _hints(hint)
        fields = _fields(data, tuple(hints), where)
        return {name: _read(hints[name], value, f"{where}.{name}") for name, value in fields.items()}
    if hint is AgxError:
        fields = _fields(data, _ERROR_FIELDS, where)
        return AgxError(fields.pop("kind"), fields.pop("what"), **fields)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        names = tuple(f.name for f in dataclasses.fields(hint) if f.init)
        fields = _fields(data, names, where)
        return hint(**{name: _read(hints[name], value, f"{where}.{name}")
                       for name, value in fields.items()})
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if hint in (bool, int, float, str, type(None)):
        if type(data) is not hint and not (hint is type(None) and data is None):
            raise ValueError(f"{where}: {data!r} is not a {hint.__name__}")
        return data
    raise ValueError(f"{where}: the type {hint} is not one the model saves")


def _fields(data: Any, names: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: an object was expected, not {type(data).__name__}")
    unknown = set(data) - set(names)
    if unknown:
        raise ValueError(f"{where}: no field {', '.join(sorted(unknown))} (a file of another "
                         "version of agexplorer?)")
    return dict(data)


def _container(kind: type, args: tuple[Any, ...], data: Any, where: str) -> Any:
    if kind is dict:
        key_type, value_type = args or (Any, Any)
        pairs = data.items() if isinstance(data, dict) else data
        if not isinstance(pairs, (list, type({}.items()))):
            raise ValueError(f"{where}: an object was expected, not {type(data).__name__}")
        return {_read(key_type, key, where): _read(value_type, value, f"{where}[{key!r}]")
                for key, value in pairs}
    if not isinstance(data, list):
        raise ValueError(f"{where}: an array was expected, not {type(data).__name__}")
    if kind is list:
        item = args[0] if args else Any
        return [_read(item, value, f"{where}[{i}]") for i, value in enumerate(data)]
    if len(args) == 2 and args[1] is Ellipsis:  # tuple[X, ...]
        return tuple(_read(args[0], value, f"{where}[{i}]") for i, value in enumerate(data))
    if args and len(args) != len(data):
        raise ValueError(f"{where}: {len(args)} items were expected, not {len(data)}")
    return tuple(_read(args[i] if args else Any, value, f"{where}[{i}]")
                 for i, value in enumerate(data))
