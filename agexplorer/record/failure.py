"""How a recorded program ended: the exception that ended it, its first message line, and the user's line."""

from __future__ import annotations

import os
import re
import traceback
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agexplorer.engine.usercode import UserCode

_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # Keras puts the original message in bold
# AutoGraph's "in user code:" message ends with the error's own "Type: message" line.
_RAISED = re.compile(r"\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning): (.*)")
# Frames after the error's own line belong to AutoGraph's "was defined here" notes.
_AFTER_FRAMES = re.compile(r"\n\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning): ")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_MESSAGE_CHARS = 1000  # the JSON keeps the first line, however long, up to this


def first_line(exc: BaseException) -> str:
    """The line of the exception's message that says what went wrong, without the wrappers
    Keras ("Exception encountered when calling ...") and AutoGraph ("in user code:") put
    around it; "" for an exception without a message."""
    lines = [line.strip() for line in _ANSI.sub("", str(exc)).splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0] == "in user code:":
        raised = [m.group(1) for m in map(_RAISED.match, lines) if m]
        return (raised[-1] if raised else lines[-1])[:_MESSAGE_CHARS]
    if lines[0].startswith("Exception encountered when calling") and len(lines) > 1:
        lines = lines[1:]
        after = [i + 1 for i, line in enumerate(lines[:-1]) if line.endswith("encountered:")]
        if after:  # Keras's "could not infer the output shape ... Error encountered:"
            lines = lines[after[0]:]
    return lines[0][:_MESSAGE_CHARS]


def user_line(exc: BaseException, user_code: UserCode) -> tuple[str, int] | tuple[None, None]:
    """The deepest line of the user's code the exception passed through: AutoGraph's
    "in user code" frames first (its converted code runs from generated files), else the
    traceback's."""
    head = _AFTER_FRAMES.split(str(exc), maxsplit=1)[0]
    found: tuple[str, int] | tuple[None, None] = (None, None)
    for file, line in _FRAME.findall(head):
        if os.path.isabs(file) and file in user_code:
            found = (file, int(line))
    if found[0] is not None:
        return found
    for frame in traceback.extract_tb(exc.__traceback__):
        file = os.path.abspath(frame.filename) if not frame.filename.startswith("<") \
            else frame.filename
        if file in user_code and frame.lineno is not None:
            found = (file, frame.lineno)
    return found


def end_fields(exc: BaseException | None, user_code: UserCode | None = None) -> dict[str, Any]:
    """The end record's account of how the program ended: ``raised`` (an exception other than
    SystemExit ended it), its type in ``exception``, its ``message`` (first line), the
    ``file`` and ``line`` of the user's code it was raised through, and ``interrupted``
    (Ctrl-C)."""
    raised = exc is not None and not isinstance(exc, SystemExit)
    fields: dict[str, Any] = {"raised": raised, "exception": None, "message": None,
                              "file": None, "line": None,
                              "interrupted": isinstance(exc, KeyboardInterrupt)}
    if raised and exc is not None:
        file, line = user_line(exc, user_code) if user_code is not None else (None, None)
        fields.update(exception=type(exc).__name__, message=first_line(exc) or None,
                      file=file, line=line)
        if file is not None and line is not None:
            fields.update(unconverted_cause(exc, file, line) or package_cause(exc, file))
    return fields


def package_cause(exc: BaseException, file: str) -> dict[str, Any]:
    """A module of a package run as a file, whose relative import raised: that cause and the
    command that runs it as ``python -m`` would (``cause``, ``fix``); {} elsewhere."""
    from agexplorer.source.files import package_of

    if not isinstance(exc, ImportError) or "no known parent package" not in str(exc):
        return {}
    package, root = package_of(file)
    if package is None:
        return {}
    module = f"{package}.{os.path.splitext(os.path.basename(file))[0]}"
    return {"cause": f"{os.path.basename(file)} is a module of the package {package}: run as a "
                     "file it has no package, so its relative imports cannot resolve",
            "fix": f"record it as a module, from {root}: agexplorer record -m {module}"}


# A tensor used as a Python bool (an if or while on it) or iterated over in graph code.
_GRAPH_ERRORS = ("OperatorNotAllowedInGraphError",)


def unconverted_cause(exc: BaseException, file: str, line: int) -> dict[str, Any]:
    """Where an if/for/while on a tensor raised in a method Keras 3 runs without AutoGraph
    (a layer's ``call``): that root cause and its fix (``cause``, ``fix``), not Keras's
    wrapper text; {} elsewhere. The class is the frame's own ``self`` (the program's
    module may be gone by now)."""
    if type(exc).__name__ not in _GRAPH_ERRORS:
        return {}
    from agexplorer.engine.calltree import FileIndex
    from agexplorer.engine.hints import unconverted_hint
    from agexplorer.engine.keras_layers import owner_class, runs_unconverted
    from agexplorer.model.report import LOOPS, keras3_words

    unit = FileIndex().unit_at(file, line)
    if unit is None:
        return {}
    cls = _frame_class(exc, file, line) or owner_class(file, unit.qualname)
    if cls is None or not runs_unconverted(cls, unit.qualname.rpartition(".")[2]):
        return {}
    statement = next((s for s in reversed(unit.statements) if s.line <= line <= s.end_line
                      and (s.line == line or s.kind in LOOPS)), None)
    kind = statement.kind if statement is not None and statement.line == line else "if"
    return {"cause": keras3_words(unit.qualname), "fix": unconverted_hint(kind)}


def _frame_class(exc: BaseException, file: str, line: int) -> type | None:
    """The class of ``self`` in the traceback's frame at ``line`` of ``file``."""
    tb = exc.__traceback__
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if os.path.abspath(code.co_filename) == file and tb.tb_lineno == line \
                and code.co_argcount and code.co_varnames[0] == "self":
            found = type(tb.tb_frame.f_locals.get("self"))
        tb = tb.tb_next
    return found
