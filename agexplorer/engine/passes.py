"""AutoGraph's conversion pass by pass: one conversion, the code printed after each converter."""

from __future__ import annotations

import difflib
import inspect
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agexplorer.engine import tf_internals
from agexplorer.engine.convert import conversion_error
from agexplorer.model.errors import AgxError
from agexplorer.model.passes import SOURCE, Passes, PassStep

# What each converter rewrites, for a reader who has not read AutoGraph's sources.
NOTES = {
    SOURCE: "your function as AutoGraph parsed it (argument defaults read None here: the "
            "converted function gets the real ones back)",
    "functions": "decorators go, and each function's body runs in a scope "
                 "(ag__.FunctionScope) that tracks its return value and conversion options",
    "directives": "tf.autograph.experimental.set_loop_options calls become annotations "
                  "of their loop, and are removed",
    "break_statements": "break becomes a boolean flag the loop tests, and the code after "
                        "it goes under an if",
    "asserts": "assert becomes ag__.assert_stmt (a tf.debugging.Assert on tensors)",
    "continue_statements": "continue becomes a boolean flag, and the rest of the loop body "
                           "goes under an if",
    "return_statements": "every return sets do_return and retval_, so the function has one "
                         "exit that a graph can express",
    "lists": "list append and pop become ag__.list_append and ag__.list_pop (TensorArrays "
             "when staged)",
    "slices": "item assignments to lists become ag__.set_item",
    "call_trees": "each call f(x) becomes ag__.converted_call(f, (x,), ...), so callees "
                  "are converted when they run",
    "control_flow": "if, for and while become ag__.if_stmt, for_stmt and while_stmt, with "
                    "their bodies as functions and their variables as get_state/set_state",
    "conditional_expressions": "a if c else b becomes ag__.if_exp, which stages a tf.cond "
                               "for a tensor condition",
    "logical_expressions": "and, or and not become ag__.and_, or_ and not_ (lazy, staged "
                           "for tensors)",
    "variables": "each read of a variable becomes ag__.ld(x), which says clearly when x "
                 "may be undefined, and del x becomes ag__.Undefined",
}


def unified_diff(before: str, after: str, old: str, new: str) -> str:
    """The unified diff between two steps' code ("" when equal)."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), old, new, lineterm="")
    return "\n".join(lines)


@contextmanager
def _observed(on_pass: Callable[[str, str, bool], None]) -> Iterator[None]:
    """Within the block each converter's outermost ``transform`` is heard before and after
    (``on_pass(name, code, done)``); the converters are restored on exit."""
    modules = tf_internals.converter_modules()
    saved = [module.transform for _, module in modules]
    depth = [0]  # a converter that calls another's transform is part of its own pass

    def observed(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def transform(node: Any, ctx: Any) -> Any:
            depth[0] += 1
            try:
                if depth[0] == 1:
                    on_pass(name, tf_internals.unparse_gast(node), False)
                node = original(node, ctx)
                if depth[0] == 1:
                    on_pass(name, tf_internals.unparse_gast(node), True)
                return node
            finally:
                depth[0] -= 1
        return transform

    for (name, module), original in zip(modules, saved, strict=True):
        setattr(module, "transform", observed(name, original))  # noqa: B010 - a module's
    try:
        yield
    finally:
        for (_, module), original in zip(modules, saved, strict=True):
            setattr(module, "transform", original)  # noqa: B010


def require_passes() -> None:
    """Raise ``tf-unsupported`` when this TensorFlow moved a converter (one sentence)."""
    names = [n for n in tf_internals.NAMES if n.attribute in ("transform", "gast_to_ast")]
    sentences = tf_internals.check_support(names).warnings
    if sentences:
        raise AgxError("tf-unsupported", sentences[0], exit_code=2, details=sentences[1:])


def conversion_passes(function: Any, path: str, def_line: int = 0) -> tuple[Passes, str]:
    """Convert ``function`` once, as ``tf.autograph.to_code`` does, watching every converter:
    (the steps, ``to_code``'s text). The steps keep the function's own name; the transpiler
    renames it (``tf__f``) after the last pass, which is the only difference from to_code."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    require_passes()
    seen: list[tuple[str, str]] = []

    def on_pass(name: str, code: str, done: bool) -> None:
        if not seen and not done:
            seen.append((SOURCE, code))
        if done:
            seen.append((name, code))

    tf_internals.evict_conversion(function)  # a cached conversion would run no converter
    qualname = getattr(function, "__qualname__", "?")
    try:
        with _observed(on_pass):
            converted = tf.autograph.to_graph(function)
        to_code = textwrap.dedent(inspect.getsource(converted))
    except Exception as exc:  # noqa: BLE001 - AutoGraph raises many types here
        raise conversion_error(exc, path, def_line, qualname) from None
    steps: list[PassStep] = []
    for name, code in seen:
        previous = steps[-1] if steps else None
        diff = unified_diff(previous.code, code, previous.name, name) if previous else ""
        steps.append(PassStep(name, NOTES.get(name, ""), code, diff))
    applied = {name for name, _ in seen}
    skipped = tuple(n for n in tf_internals.CONVERTERS if n not in applied)
    return Passes(file=path, function=qualname, steps=tuple(steps), skipped=skipped), to_code


def passes_of(target: str) -> Passes:
    """The passes of ``PATH::FUNC``: load the file (running it, as tracing would) and convert
    its function once."""
    from agexplorer.engine.load import load_target

    loaded = load_target(target, require_args=False)
    def_line = loaded.node.lineno if loaded.node is not None else 0
    # (a decorator's wrapper's function: its own conversion, as the report shows it)
    passes, _ = conversion_passes(loaded.own or loaded.pyfn, loaded.path, def_line)
    passes.function = loaded.qualname
    return passes


def as_to_code(code: str, converted_name: str) -> str:
    """A step's code with its function renamed as the transpiler renames it after the last
    pass: ``def f(`` -> ``def tf__f(`` (only the first ``def``): what to_code prints."""
    head, sep, rest = code.partition("(")
    return f"{head.rsplit(' ', 1)[0]} {converted_name}{sep}{rest}" if sep else code
