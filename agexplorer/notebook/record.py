"""``%%agx record``: a notebook cell run under ``agexplorer.recording``, and what it recorded.

The cell runs as IPython would run it (its IPython syntax transformed, its source kept in
IPython's cache so tracebacks and AutoGraph read it, its last expression's value returned
for IPython to show), with every tf.function trace it makes recorded: retraces with their
causes, unrolled loops across the call tree, framework-built traces. The log is a
temporary file, summed up once the cell ends. A cell that raises still has its summary;
then the error is raised again with the cell's own traceback (agexplorer's frames cut).
"""

from __future__ import annotations

import ast
import contextlib
import os
import tempfile
from dataclasses import dataclass
from types import TracebackType
from typing import Any

ARGV = ["%%agx record"]  # how the summary names the program that ran
# agexplorer's own files: their frames are no part of the cell's traceback.
_OURS = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass
class RecordedCell:
    """The summary of what the cell traced (``summarise(read_log(...))``), the cell's last
    expression's value, and the exception it raised (None: it ended)."""

    summary: dict[str, Any]
    value: Any = None
    failure: BaseException | None = None


def record_cell(shell: Any, cell: str) -> RecordedCell:
    """Run ``cell`` in ``shell``'s namespace while every trace is recorded."""
    from agexplorer.record.runner import Recording, exit_status

    handle, path = tempfile.mkstemp(prefix="agx-cell-", suffix=".agxlog")
    os.close(handle)
    try:
        recording = Recording(path, argv=ARGV)
        value, failure = None, None
        with recording:
            try:
                value = _run(shell, cell)
                recording.exit_code = 0
            except BaseException as exc:  # noqa: BLE001 - the cell's own, raised again after
                recording.exit_code, recording.ended_by = exit_status(exc), exc
                failure = exc
        return RecordedCell(recording.summary(), value, failure)
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)


def _run(shell: Any, cell: str) -> Any:
    """Execute the cell as IPython does; its last expression's value (None: it ends with a
    statement)."""
    code = shell.transform_cell(cell)
    name = shell.compile.cache(code, shell.execution_count, raw_code=cell)
    tree = ast.parse(code, filename=name)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    flags = getattr(shell.compile, "flags", 0)
    with shell.builtin_trap:
        exec(compile(tree, name, "exec", flags=flags, dont_inherit=True),  # the user's cell
             shell.user_global_ns, shell.user_ns)
        if last is None:
            return None
        expression = ast.Expression(body=last.value)
        return eval(compile(expression, name, "eval", flags=flags, dont_inherit=True),
                    shell.user_global_ns, shell.user_ns)


def cell_traceback(exc: BaseException) -> TracebackType | None:
    """``exc``'s traceback from the cell's first frame on (agexplorer's frames before it cut)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_OURS):
        tb = tb.tb_next
    return tb


def raise_as_the_cell(shell: Any, exc: BaseException) -> None:
    """Raise ``exc`` again so that IPython shows the traceback the cell alone would have had
    (``_render_traceback_`` is IPython's hook for an exception's own traceback lines)."""
    tb = cell_traceback(exc)
    if tb is not None and not hasattr(exc, "_render_traceback_"):
        def lines() -> list[str]:
            return list(shell.InteractiveTB.structured_traceback(
                type(exc), exc, tb, tb_offset=0))

        with contextlib.suppress(AttributeError, TypeError):  # an exception with __slots__
            exc._render_traceback_ = lines  # type: ignore[attr-defined]
    raise exc.with_traceback(tb)
