"""The HLO XLA compiles, each instruction tied to the user's source line, and its compile time.

What TensorFlow 2.21 gives: each HLO instruction's ``metadata`` names the graph op it came
from (``op_name="while/add_2"``: a loop body's op, named in the loop's scope), but its
``source_file``/``source_line`` are TensorFlow's own frame (``ops.py``), never the user's.
So the user's line is found the way the report finds it: the jit-compiled function's own
trace is walked into an op inventory (each op charged to its innermost frame of user code)
and each instruction gets the line of the op it names.

How it is timed (see :class:`~agexplorer.model.lab.HloText`): ``trace_s`` is the jit-compiled
function's trace (``get_concrete_function``); ``lower_s`` lowers that graph to HLO
(``stage="hlo"``); ``compile_s`` builds XLA's executable without running it
(``stage="optimized_hlo"``: lowering again, XLA's passes and code generation), which is what
the first XLA call pays beyond the trace, with nothing of the user's code run.
"""

from __future__ import annotations

import inspect
import re
import time
from typing import Any

from agexplorer.engine.load import Loaded
from agexplorer.model.inventory import Inventory
from agexplorer.model.lab import HloText

# An instruction's op name in its metadata: ``metadata={op_type="AddV2" op_name="while/add"``.
_OP_NAME = re.compile(r'metadata=\{[^}]*?op_name="([^"]+)"')


def op_lines(inventory: Inventory) -> dict[str, tuple[str, int] | None]:
    """Every op's user line by its name, which XLA keeps as the instruction's ``op_name`` (a
    loop body's ops carry the loop's scope already: ``while/add``); None where ops of that
    name in different bodies came from different lines."""
    found: dict[str, tuple[str, int] | None] = {}
    for op in inventory.ops:
        where = (op.file, op.line) if op.file is not None and op.line is not None else None
        found[op.name] = where if found.get(op.name, where) == where else None
    return found


def hlo_lines(text: str, names: dict[str, tuple[str, int] | None]) -> list[tuple[str, int] | None]:
    """Per line of ``text``: the user's (file, line) its instruction came from, or None (a
    header, a parameter, an op TensorFlow added, a name with two lines)."""
    out: list[tuple[str, int] | None] = []
    for line in text.splitlines():
        match = _OP_NAME.search(line)
        out.append(names.get(match.group(1)) if match else None)
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _with_defaults(fn: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """(args, kwargs) with ``fn``'s defaults filled in (as given where its signature cannot
    be read or does not bind them)."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs
    bound.apply_defaults()
    return tuple(bound.args), dict(bound.kwargs)


def compile_hlo(loaded: Loaded, device: str) -> HloText:
    """The HLO of ``loaded`` with XLA on ``device``, its lines' sources and its timings; an
    ``error`` sentence where XLA could not compile it (never raised: XLA refuses many ops)."""
    from agexplorer.engine.inventory import build_inventory
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.engine.usercode import UserCode

    tf = import_tf()
    out = HloText()
    args, kwargs = loaded.args, loaded.kwargs
    try:
        fn = loaded.tf_function(tf, input_signature=loaded.signature, jit_compile=True)
        with tf.device(device):
            start = time.perf_counter()
            concrete = fn.get_concrete_function(*args, **kwargs)
            out.trace_s = time.perf_counter() - start
            # TensorFlow's compiler IR binds the call without the function's defaults
            # ("missing a required argument"): give it every argument, defaults applied.
            full_args, full_kwargs = _with_defaults(loaded.bound, args, kwargs)
            ir = fn.experimental_get_compiler_ir(*full_args, **full_kwargs)
            start = time.perf_counter()
            text = ir(stage="hlo")
            out.lower_s = time.perf_counter() - start
            start = time.perf_counter()
            ir(stage="optimized_hlo")
            out.compile_s = time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001 - XLA refuses many ops; never fatal
        if out.trace_s is None:
            out.error = f"tracing {loaded.qualname} for XLA failed: {_first_line(exc)}"
        else:
            out.error = f"XLA could not compile {loaded.qualname}: {_first_line(exc)}"
        return out
    out.text = text
    node = loaded.node
    span = (node.lineno, getattr(node, "end_lineno", None) or node.lineno) if node else (0, 0)
    try:
        inventory = build_inventory(concrete, loaded.path, span, UserCode())
    except Exception:  # noqa: BLE001 - the text stands without its lines
        return out
    out.lines = hlo_lines(text, op_lines(inventory))
    return out
