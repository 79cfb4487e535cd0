"""A live function object as an engine target: the user's own process, the user's own arguments."""

from __future__ import annotations

import ast
import inspect
import types
from collections.abc import Callable
from typing import Any

from agexplorer.engine.load import Loaded, called_function
from agexplorer.model.report import Report
from agexplorer.model.text import shortened
from agexplorer.source.cells import cell_text
from agexplorer.source.targets import (
    find_function_node,
    lambda_as_def,
    list_functions,
    outermost_lambdas,
    parse_source,
    read_source,
)

KINDS = "a function, a tf.function or a bound method"


def unwrap_callable(fn: Any) -> tuple[Any, Any, Any]:
    """(plain Python function, what to call, input_signature) for ``fn``; TypeError otherwise.

    A ``tf.function`` gives its ``python_function`` (a bound method when it decorates a
    method reached through an instance); a bound method is called bound.
    """
    signature = getattr(fn, "input_signature", None) if hasattr(fn, "python_function") else None
    target = getattr(fn, "python_function", fn)
    bound = target
    # A tf.function bound to an instance wraps the method bound to a holder of the instance;
    # once it has traced, AutoGraph's converted function replaces ``__wrapped__``, and the
    # method stays in ``__original_wrapped__``.
    inner = getattr(target, "__original_wrapped__", None) or getattr(target, "__wrapped__", None)
    if isinstance(inner, types.MethodType) and not isinstance(target, types.MethodType):
        # A tf.function reached through an instance wraps the method bound to a holder
        # whose ``target`` is the instance (held weakly): call the method on it.
        owner = getattr(inner.__self__, "target", None)
        if owner is not None:
            target, bound = inner.__func__, types.MethodType(inner.__func__, owner)
    if isinstance(target, types.MethodType):
        target = target.__func__
    if not isinstance(target, types.FunctionType) and not (
            callable(target) and hasattr(target, "__wrapped__")):  # (a callable decorator)
        raise TypeError(f"expected {KINDS}, got {type(fn).__name__} {_short(fn)}.")
    if isinstance(fn, types.MethodType):
        bound = fn
    return target, bound, signature


def _wrapped(pyfn: Any) -> Any | None:
    """Where ``pyfn`` is a decorator's wrapper that functools.wraps named after a function
    (``timed``'s ``wrapper`` as ``step``), that function, found down ``__wrapped__`` and the
    closures; None where ``pyfn`` is a function's own code. (tf.function converts the
    wrapper; AutoGraph converts the function when the wrapper calls it.) AutoGraph's
    converted functions are never taken for it."""
    name, code = getattr(pyfn, "__name__", None), getattr(pyfn, "__code__", None)
    if not isinstance(name, str) or (code is not None and code.co_name == name):
        return None

    def named(fn: Any) -> bool:
        own = getattr(fn, "__code__", None)
        return (isinstance(fn, types.FunctionType) and own is not None and own.co_name == name
                and "__autograph_generated_file" not in own.co_filename)

    return called_function(pyfn, named)


def load_callable(fn: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
                  ) -> Loaded:
    """``fn`` (see :func:`unwrap_callable`) found in its own source file, or in the IPython
    cell that defined it, ready to trace with ``args``/``kwargs``; TypeError when it is not
    a function or has no source."""
    pyfn, bound, signature = unwrap_callable(fn)
    own = _wrapped(pyfn)  # a decorator's wrapper's function: its file, lines, conversion
    shown = own or pyfn
    try:
        found = inspect.getsourcefile(shown)
    except TypeError:
        found = None
    path = found or ""
    text = cell_text(path) if path else None  # defined in an IPython cell
    if text is None:
        if not path.endswith(".py"):
            raise TypeError(f"{shown.__qualname__} has no .py source file; AutoGraph needs "
                            "the function's source: define it in a .py file or a notebook "
                            "cell with def.")
        text = read_source(path)
    tree = parse_source(path, text)
    node = find_function_node(tree, shown.__qualname__) or _node_at(tree, shown)
    return Loaded(path=path, qualname=shown.__qualname__, text=text,
                  functions=list_functions(tree), node=node, own=own, tree=tree,
                  module=inspect.getmodule(shown), pyfn=pyfn, signature=signature, bound=bound,
                  decorated=hasattr(fn, "python_function"),
                  autograph=getattr(fn, "_autograph", True) is not False,
                  autograph_options=getattr(fn, "_experimental_autograph_options", None),
                  call=call_text(args, kwargs or {}),
                  call_origin="the assertion's arguments", args=tuple(args),
                  kwargs=dict(kwargs or {}))


def report_for_callable(fn: Any, args: tuple[Any, ...] = (),
                        kwargs: dict[str, Any] | None = None,
                        progress: Callable[[str], None] | None = None) -> Report:
    """The engine's report for the live ``fn`` called with ``args``/``kwargs``, in this
    process (the pipeline's, from an object instead of ``PATH::QUALNAME``)."""
    from agexplorer.engine.pipeline import report_from_loaded
    from agexplorer.engine.tfenv import import_tf

    loaded = load_callable(fn, args, kwargs)
    import_tf()
    return report_from_loaded(loaded, progress or (lambda phase: None))


def tracing_settings(fn: Any, loaded: Loaded) -> dict[str, Any]:
    """The settings of the user's own tf.function ``fn`` that decide tracing, for a fresh
    tf.function of ``loaded`` that traces as fn would (fn itself is never called)."""
    settings: dict[str, Any] = {"input_signature": loaded.signature}
    if loaded.signature is not None and not len(loaded.signature):
        settings["input_signature"] = None  # TensorFlow's empty signature for no parameters
    if getattr(fn, "_reduce_retracing", False):
        settings["reduce_retracing"] = True
    if getattr(fn, "_autograph", True) is False:
        settings["autograph"] = False
    if getattr(fn, "_experimental_autograph_options", None) is not None:
        settings["experimental_autograph_options"] = fn._experimental_autograph_options
    return settings


def _node_at(tree: ast.Module, pyfn: Any) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def that starts where the code object does (a function defined in a loop, a
    function whose qualname does not lead to it)."""
    first = pyfn.__code__.co_firstlineno
    if pyfn.__name__ == "<lambda>":  # ``tf.function(lambda x: model(x))``: the one there
        outer = outermost_lambdas([n for n in ast.walk(tree)
                                   if isinstance(n, ast.Lambda) and n.lineno == first])
        return lambda_as_def(outer[0], "<lambda>") if len(outer) == 1 else None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == pyfn.__name__ and \
                min([node.lineno] + [d.lineno for d in node.decorator_list]) == first:
            return node
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return shortened(text, 60)


def call_text(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """``5, tf.Tensor(int32[]), training=True``: the call in a few words."""
    def one(value: Any) -> str:
        dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
        if dtype is not None and shape is not None:
            try:
                dims: Any = list(shape)
            except (TypeError, ValueError):  # a shape of unknown rank
                dims = "[?]"
            return f"{type(value).__name__}({getattr(dtype, 'name', dtype)}{dims})"
        return _short(value)

    return ", ".join([one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()])
