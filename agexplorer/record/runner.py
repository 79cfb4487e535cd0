"""Run the user's program unchanged while every tf.function trace is recorded; the Python API.

``agexplorer record train.py --epochs 3`` runs ``train.py`` as ``__main__`` in this process
(its argv, stdin, stdout, stderr and exit status are the program's own), with
:class:`Recording` active: each trace is written to the log as it ends, and a short
summary goes to stderr at exit. ``with agexplorer.recording("run.agxlog"):`` is the same
recording around a block of a notebook or a test.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import runpy
import sys
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from agexplorer.model.errors import AgxError
from agexplorer.record.failure import end_fields
from agexplorer.runlog.log import FORMAT, LogWriter, read_log
from agexplorer.runlog.summary import summarise
from agexplorer.runlog.text import columns, text_lines

# Frames of agexplorer and of runpy: not the program's, so not in its traceback.
_OURS = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
         os.path.abspath(runpy.__file__), "<frozen runpy>")


class Recording:
    """Records every trace made while it is active, into the JSON-lines log at ``path``."""

    def __init__(self, path: str = "run.agxlog", *, argv: Sequence[str] | None = None,
                 user_code: Sequence[str] = ()) -> None:
        self.path = os.path.abspath(path)
        self.argv = list(sys.argv if argv is None else argv)
        self.user_code = tuple(user_code)
        self.exit_code: int | None = None  # the program's exit status, where one ran
        # What ended the program, where run_program caught it (Ctrl-C, a crash): the log says.
        self.ended_by: BaseException | None = None
        self._pid = os.getpid()  # the recording process: only it ends the log
        self._writer: LogWriter | None = None
        self._patch: Any = None
        self._hooks: Any = None
        self._t0 = 0.0

    def __enter__(self) -> Recording:
        from agexplorer.engine import tf_internals
        from agexplorer.engine.tfenv import import_tf
        from agexplorer.engine.usercode import UserCode
        from agexplorer.record.hooks import TraceRecorder

        tf = import_tf()
        tf_internals.require_tracing_hooks()
        writer = LogWriter(self.path)
        writer.write({"type": "start", "format": FORMAT, "argv": self.argv,
                      "cwd": os.getcwd(), "python": sys.version.split()[0],
                      "executable": sys.executable,
                      "tensorflow": str(tf.__version__), "started": time.time()})
        hooks = TraceRecorder(writer.write, UserCode(self.user_code))
        self._writer, self._hooks = writer, hooks
        self._patch = tf_internals.patched_tracing(hooks.on_trace)
        self._patch.__enter__()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        wall_s = time.perf_counter() - self._t0
        if self._patch is not None:
            self._patch.__exit__(None, None, None)
            self._patch = None
        if self._hooks is not None:  # the user's functions get their own code back
            self._hooks.counters.restore()
        if self.exit_code is None and exc_type is not None:
            self.exit_code = exit_status(exc) if exc is not None else 1
        ended = exc if exc is not None else self.ended_by
        if self._writer is not None and os.getpid() != self._pid:
            # A copy the program forked ends here (its sys.exit, or the script's end): the
            # log's end is the recording process's, so the copy leaves the log alone.
            self._writer = None
        if self._writer is not None:
            if _eager_at_end():
                self._writer.write({"type": "note", "text": EAGER_NOTE})
            self._writer.write({"type": "end", "exit_code": self.exit_code,
                                "wall_s": round(wall_s, 6),
                                **end_fields(ended, self._hooks.user_code
                                             if self._hooks is not None else None),
                                # agexplorer's own time: verdicts and op inventories
                                "record_s": round(self._hooks.analysis_s, 6)
                                if self._hooks is not None else None})
            self._writer.close()
            self._writer = None

    @property
    def recorder(self) -> bool:
        """Whether this is the recording process (not a copy the program forked)."""
        return os.getpid() == self._pid

    def summary(self) -> dict[str, Any]:
        """What the log holds so far, summed up (the ``summary --json`` object)."""
        return summarise(read_log(self.path))


def recording(path: str = "run.agxlog", *, user_code: Sequence[str] = ()) -> Recording:
    """``with agexplorer.recording("run.agxlog"):``: record every trace made in the block."""
    return Recording(path, user_code=user_code)


def exit_status(exc: BaseException) -> int:
    """The status Python exits with for an exception that ends the program."""
    if isinstance(exc, SystemExit):
        code = exc.code
        return 0 if code is None else code if isinstance(code, int) else 1
    return 130 if isinstance(exc, KeyboardInterrupt) else 1


def default_log(target: str, module: bool) -> str:
    """``train.agxlog`` in the current folder for ``train.py`` (or ``-m pkg.train``)."""
    stem = target.rpartition(".")[2] if module else os.path.splitext(os.path.basename(target))[0]
    return os.path.abspath(f"{stem or 'run'}.agxlog")


def check_program(target: str, module: bool) -> str:
    """The script's absolute path (or the module's name), checked before TensorFlow loads."""
    if module:
        sys.path.insert(0, os.getcwd())
        try:
            found = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            found = None
        finally:
            sys.path.pop(0)
        if found is None:
            raise AgxError("bad-arguments", f"no module named {target} (looked in "
                           f"{os.getcwd()} and the installed packages)", advice="pass -m with an "
                           "importable module.", exit_code=2)
        return target
    path = os.path.abspath(target)
    if not os.path.isfile(path):
        raise AgxError("bad-arguments", f"no script at {target}", advice="pass the path of the Python "
                       "file your program runs as.", exit_code=2)
    return path


def run_program(target: str, args: Sequence[str], *, module: bool = False,
                log_path: str | None = None, user_code: Sequence[str] = ()) -> int:
    """Run ``target`` (a script path, or a module name with ``module``) as ``__main__`` with
    ``args``, recording its traces; print the summary on stderr; return its exit status."""
    program = check_program(target, module)
    path = log_path or default_log(target, module)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [program if not module else target, *args]
    # As Python itself does: the script's folder (or, for -m, the current one) comes first.
    sys.path[0:1] = [os.getcwd() if module else os.path.dirname(program)]
    record = Recording(path, argv=sys.argv, user_code=user_code)
    try:
        with record:
            try:
                if module:
                    runpy.run_module(target, run_name="__main__", alter_sys=True)
                else:
                    runpy.run_path(program, run_name="__main__")
                record.exit_code = 0
            except SystemExit as exc:
                record.exit_code = exit_status(exc)
                if exc.code is not None and not isinstance(exc.code, int):
                    print(exc.code, file=sys.stderr)
            except BaseException as exc:  # noqa: BLE001 - the program's own failure, shown as Python would
                record.exit_code, record.ended_by = exit_status(exc), exc
                _print_user_traceback(exc)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    _flush()
    if record.recorder:  # a forked copy of the program exits as the program would: silently
        print_summary(path)
    return record.exit_code if record.exit_code is not None else 1


def _print_user_traceback(exc: BaseException) -> None:
    """The traceback Python prints for the program, without agexplorer's or runpy's frames
    (those before the program's, and the recording's own around a trace that raised)."""
    kept = []
    tb = exc.__traceback__
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_OURS):
            kept.append(tb)
        tb = tb.tb_next
    for before, after in itertools.pairwise(kept):
        before.tb_next = after
    if kept:
        kept[-1].tb_next = None
    first = kept[0] if kept else None
    _flush()
    sys.excepthook(type(exc), exc.with_traceback(first), first)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the program closed or redirected it
            pass


def print_summary(path: str) -> None:
    """The short summary of the log at ``path`` on stderr (one sentence if it cannot be read)."""
    shown = os.path.relpath(path)
    shown = path if shown.startswith("..") else shown
    try:
        lines = text_lines(summarise(read_log(path)), log=shown, width=columns())
    except AgxError as exc:
        lines = [f"agexplorer record: {exc.message}"]
    lines.append(f"log: {shown} (again: agexplorer summary {shown} [--json])")
    print("\n".join(lines), file=sys.stderr)


EAGER_NOTE = ("the program ended with tf.config.run_functions_eagerly(True) on: its "
              "tf.functions ran as plain Python while it was, and traced nothing then (turn "
              "it off to record their traces)")


def _eager_at_end() -> bool:
    """Whether the program left ``tf.config.run_functions_eagerly(True)`` on (TensorFlow
    imported by it; never imported here)."""
    tf = sys.modules.get("tensorflow")
    try:
        return bool(tf is not None and tf.config.functions_run_eagerly())
    except Exception:  # noqa: BLE001 - a TensorFlow without it: nothing to say
        return False
