"""Errors a user can cause, each carrying one sentence that says what to do."""

from __future__ import annotations

import os
import re
import traceback
from typing import Any, Literal

from agexplorer.model.text import file_line, plural

# The kinds of AgxError for a function that converts but has no call to run it with (none
# given, or one that does not evaluate): the engine raises them, the doctor and the
# explorer then ask the user for arguments.
ARGUMENT_ERRORS: frozenset[str] = frozenset({"needs-arguments", "bad-call"})

# The kinds of AgxError, one spelling each: mypy refuses any other (tests/test_error_kinds.py
# checks that KINDS describes each of them).
ErrorKind = Literal[
    "bad-arguments",
    "bad-call",
    "bad-golden",
    "bad-log",
    "bad-python",
    "bad-target",
    "bad-vary",
    "missing-dependency",
    "no-function",
    "no-targets",
    "output-is-input",
    "output-not-a-file",
    "output-other-kind",
    "svg-timeout",
    "file-changed",
    "file-exists",
    "missing-file",
    "no-golden",
    "not-a-regular-file",
    "not-python",
    "read-only",
    "too-big",
    "unencodable",
    "unreadable",
    "write-failed",
    "build-failed",
    "call-failed",
    "conversion-failed",
    "eager-failed",
    "graph-failed",
    "load-error",
    "needs-arguments",
    "no-instance",
    "not-a-function",
    "syntax-error",
    "trace-failed",
    "unknown-function",
    "xla-failed",
    "call-only",
    "fix-failed",
    "no-driver",
    "no-rewrite",
    "no-unrolled-loop",
    "sweep-failed",
    "tf-unsupported",
    "unknown-device",
    "bad-request",
    "daemon-folder",
    "internal-error",
    "protocol-mismatch",
    "stale",
    "timeout",
    "worker-closed",
    "worker-died",
    "worker-start",
]

# Every kind of AgxError, the JSON contract of every command's "error": "kind", with what it
# means (docs/errors.md lists them; tests/test_error_kinds.py checks both against the code).
KINDS: dict[ErrorKind, str] = {
    # the command line and its arguments
    "bad-arguments": "an option or argument that cannot be used as given",
    "bad-call": "the --call (or a typed call) does not evaluate",
    "bad-golden": "a golden file that is not one agexplorer wrote",
    "bad-log": "a run log that is not one agexplorer wrote",
    "bad-python": "the --python interpreter cannot host the worker",
    "bad-target": "PATH::FUNC is not written that way",
    "bad-vary": "the sweep's --vary names no argument of the call",
    "missing-dependency": "an optional package the command needs is not installed",
    "no-function": "the command needs a function (PATH::FUNC) and got a file",
    "no-targets": "nothing to check was given",
    "output-is-input": "the output file is one of the inputs",
    "output-not-a-file": "the output path is a folder or a device",
    "output-other-kind": "the output file holds another kind of content than the one asked",
    "svg-timeout": "the explorer did not finish its screen for --svg in time",
    # files
    "file-changed": "the file changed on disk since the fix was made",
    "file-exists": "a file is where a folder was asked",
    "missing-file": "no such file or folder",
    "no-golden": "no golden file for this target yet",
    "not-a-regular-file": "a FIFO, a device or another non-file",
    "not-python": "not a Python file (.py)",
    "read-only": "the file cannot be written",
    "too-big": "the file is larger than agexplorer reads",
    "unencodable": "the text cannot be written in the file's encoding",
    "unreadable": "the file cannot be read or decoded",
    "write-failed": "writing the file failed",
    # the user's code
    "build-failed": "building the layer with the call's inputs raised",
    "call-failed": "a call of the retrace explanation raised",
    "conversion-failed": "AutoGraph could not convert the function",
    "eager-failed": "the eager run raised",
    "graph-failed": "the graph run raised",
    "load-error": "loading the file as a module raised",
    "needs-arguments": "the function needs arguments and none were given",
    "no-instance": "the method's instance could not be made",
    "not-a-function": "the name is not a function or method",
    "syntax-error": "the file does not parse",
    "trace-failed": "tracing the function raised",
    "unknown-function": "the file has no such function",
    "xla-failed": "the XLA run raised",
    # what agexplorer could do with it
    "call-only": "the fix changes the call, not the file",
    "fix-failed": "the fix could not be applied",
    "no-driver": "no Python int argument drives the loop",
    "no-rewrite": "no finding with a mechanical rewrite matches",
    "no-unrolled-loop": "the function has no loop unrolled in Python",
    "sweep-failed": "the sweep traced nothing",
    "tf-unsupported": "this TensorFlow is outside the range agexplorer supports",
    "unknown-device": "no such TensorFlow device",
    # the worker
    "bad-request": "the worker does not know the request",
    "daemon-folder": "the background worker's folder is not a private folder of the user's",
    "internal-error": "agexplorer itself failed (a bug: please report it)",
    "protocol-mismatch": "the worker is of another agexplorer install",
    "stale": "the trace asked about is no longer in the worker",
    "timeout": "the request took longer than the timeout",
    "worker-closed": "the worker was closed",
    "worker-died": "the worker process died",
    "worker-start": "the worker could not start",
}

# Why tracing failed, where the doctor tells causes apart (None: any other failure).
ErrorCause = Literal["variable-created", "numpy-in-graph"]


class AgxError(Exception):
    """A failure the user can act on: printed as one message, never as a traceback.

    ``kind`` is a stable machine-readable tag (used in JSON output), ``line`` the
    1-based line of the user's file when one is known, and ``exit_code`` what
    the command line exits with (2 for bad input, 1 for user code that failed).
    ``what`` says what happened, ``advice`` how to act on it from the command line (a front
    end with its own way to act shows ``what`` alone), ``raised`` the user code's own
    ``Type: message`` where user code raised it. ``cause`` says what went wrong where a
    reader acts on it (not in the JSON).
    """

    def __init__(self, kind: ErrorKind, what: str, *, advice: str | None = None,
                 raised: str | None = None, line: int | None = None, exit_code: int = 2,
                 details: list[str] | None = None, cause: ErrorCause | None = None) -> None:
        super().__init__(f"{what}; {advice}" if advice else what)
        self.what = what
        self.advice = advice
        self.kind = kind
        self.raised = raised
        self.line = line
        self.exit_code = exit_code
        self.details = details or []
        self.cause = cause

    @property
    def message(self) -> str:
        """The whole sentence: what happened, then the advice after a ";"."""
        if not self.advice:
            return self.what
        # TensorFlow's messages end in a full stop: not before the ";" (an ellipsis stays).
        what = self.what[:-1] if self.what.endswith(".") and \
            not self.what.endswith("..") else self.what
        return f"{what}; {self.advice}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"kind", "message", "line", "details"}``."""
        return {"kind": self.kind, "message": self.message, "line": self.line,
                "details": self.details}

    # Keyword-only arguments: pickled (to and from the worker) by fields.
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_rebuild, (self.kind, self.what, self.advice, self.raised, self.line,
                           self.exit_code, self.details, self.cause))


def _rebuild(kind: ErrorKind, what: str, advice: str | None, raised: str | None, line: int | None,
             exit_code: int, details: list[str], cause: ErrorCause | None = None) -> AgxError:
    return AgxError(kind, what, advice=advice, raised=raised, line=line, exit_code=exit_code,
                    details=details, cause=cause)


def user_frames_message(exc: BaseException, path: str) -> tuple[str, int | None]:
    """`Type: message` plus the deepest line of ``path`` in the exception's traceback."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        # A notebook cell's code name (``<ipython-input-3-...>``) is no path to resolve.
        if frame.filename == path or os.path.abspath(frame.filename) == path:
            line = frame.lineno
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__, line


def raised_line(exc: BaseException) -> str:
    """The error's own ``Type: message`` line (AutoGraph puts the user's frames before it);
    for tf.cond's unmatched branches, with what each gave (TensorFlow says it lines below)."""
    if isinstance(exc, SystemExit):
        said = _parser_error(exc)
        if said:
            return f"SystemExit: {exc.code} (its argument parser: {said})"
    text = str(exc)
    for candidate in text.splitlines():
        m = re.match(r"\s*([A-Za-z_][\w.]*(?:Error|Exception|Warning)): (.*)", candidate)
        if m:
            return f"{m.group(1)}: {m.group(2).strip()}" + _cond_outputs(text)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return (f"{type(exc).__name__}: {first}" if first else type(exc).__name__) + \
        _cond_outputs(text)


def _parser_error(exc: SystemExit) -> str | None:
    """What an ``argparse`` parser said as it exited (``error: the following arguments are
    required: data``, written to stderr before its SystemExit: 2), or None."""
    import argparse

    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "error" and \
                isinstance(frame.f_locals.get("self"), argparse.ArgumentParser):
            message = frame.f_locals.get("message")
            return str(message).strip().splitlines()[0] if message else None
        tb = tb.tb_next
    return None


# (Patterns, compiled by ``re`` on their first use: these modules are on the explorer's way
# to its first frame, which reads no TensorFlow error.)
_COND_OUTPUTS = r"true_fn output: (?P<true>.*)\n\s*false_fn output: (?P<false>.*)"
# A tensor as TensorFlow prints it there: Tensor("n", shape=(2,), dtype=float32), or, in a
# list or dict, <tf.Tensor 'n' shape=(2,) dtype=float32>.
_TENSOR = (r"Tensor\(\"[^\"]*\", shape=\((?P<shape>[^)]*)\), dtype=(?P<dtype>\w+)\)"
           r"|<tf\.Tensor '[^']*' shape=\((?P<shape2>[^)]*)\) dtype=(?P<dtype2>\w+)>")


def _cond_outputs(text: str) -> str:
    """`` (the true branch gives float32[], the false branch int32[])`` from TensorFlow's
    "true_fn output: ... false_fn output: ..." lines; "" where there are none."""
    found = re.search(_COND_OUTPUTS, text)
    if not found:
        return ""

    def said(output: str) -> str:
        return re.sub(_TENSOR, lambda m: f"{m['dtype'] or m['dtype2']}["
                      f"{(m['shape'] if m['dtype'] else m['shape2']).rstrip(',')}]",
                      output.strip())

    return (f" (the true branch gives {said(found['true'])}, the false branch "
            f"{said(found['false'])})")


def user_code_error(exc: BaseException, path: str, doing: str,
                    kind: ErrorKind = "trace-failed",
                    cause: ErrorCause | None = None, advice: str | None = None) -> AgxError:
    """An exception from the user's code as one sentence at the user's (deepest) line.

    ``doing`` names what was happening ("tracing f", "running f eagerly"). For AutoGraph
    errors, the frames come from its "in user code" list; otherwise from the traceback.
    """
    text = str(exc)
    # AutoGraph's message lists the user's frames ("in user code:") before the
    # original error line; frames after it belong to "was defined here" notes.
    head = re.split(r"\n\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning): ", text, maxsplit=1)[0]
    frames = [(f, int(n), fn) for f, n, fn in
              re.findall(r'File "([^"]+)", line (\d+), in (\S+)', head) if f == path]
    line = frames[-1][1] if frames else None
    if line is None:
        _, line = user_frames_message(exc, path)
    message = raised_line(exc)
    where = file_line(path, line)
    details = collapse_repeats([f'File "{f}", line {n}, in {fn}' for f, n, fn in frames])
    return AgxError(kind, f"{where}: {doing} raised {message}", advice=advice, raised=message,
                    line=line, exit_code=1, details=details, cause=cause)


# As Python's traceback module: a frame repeated more than 3 times in a row is shown 3 times.
_RECURSIVE_CUTOFF = 3


def collapse_repeats(frames: list[str]) -> list[str]:
    """Frame lines with a run of the same line cut as Python cuts a recursion's traceback:
    three shown, then ``[Previous line repeated 996 more times]``."""
    shown: list[str] = []
    count = 0
    for i, frame in enumerate(frames):
        count = count + 1 if i and frame == frames[i - 1] else 1
        if count <= _RECURSIVE_CUTOFF:
            shown.append(frame)
        if count > _RECURSIVE_CUTOFF and (i + 1 == len(frames) or frames[i + 1] != frame):
            more = count - _RECURSIVE_CUTOFF
            shown.append(f"[Previous line repeated {plural(more, 'more time')}]")
    return shown
