"""Assertions for the user's own test suite: staged loops, no unrolling, trace counts (in-process).

They run in the test's own process, on the live function and the arguments given (no
worker, no file target), and fail with the explorer's sentence: which statement, its
verdict, why and the fix. Importing this module imports no TensorFlow; the first
assertion does (the user's test has already imported it).

"Every statement" means every if/for/while the trace reached in the function and in the
functions of the user's code it called (helpers, methods, nested functions): a loop
unrolled in a helper unrolls inside the same graph.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from agexplorer.model.report import CONDITIONALS, IN_PYTHON, LOOPS
from agexplorer.model.text import times

if TYPE_CHECKING:
    from agexplorer.model.report import Report, Verdict

__all__ = ["assert_no_unrolled", "assert_staged", "assert_traces"]



def assert_staged(fn: Any, *args: Any, line: int | None = None, **kwargs: Any) -> None:
    """Trace ``fn(*args, **kwargs)`` and fail unless every if/for/while and conditional
    expression it reached (or those at ``line`` of fn's file) was staged into the graph."""
    __tracebackhide__ = True
    if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
        raise TypeError(f"line must be a line number (an int), got {line!r}.")
    report = _report(fn, args, kwargs)
    verdicts = _verdicts(report)
    if line is not None:
        here = [v for v in verdicts if v.file == report.file and v.line == line]
        if not here:
            raise AssertionError(_no_statement(report, verdicts, line))
        bad = [v for v in here if v.verdict != "staged"]
    else:
        bad = [v for v in verdicts if v.verdict in IN_PYTHON]
    if bad:
        raise AssertionError(_failure(f"of {report.function} {_were(bad)} not staged", bad))


def assert_no_unrolled(fn: Any, *args: Any, max_iterations: int = 0, **kwargs: Any) -> None:
    """Trace ``fn(*args, **kwargs)`` and fail if a for/while it reached ran in Python while
    tracing more than ``max_iterations`` times (each iteration copies the body's ops)."""
    __tracebackhide__ = True
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) \
            or max_iterations < 0:
        raise TypeError(f"max_iterations must be an int of 0 or more, got {max_iterations!r}.")
    report = _report(fn, args, kwargs)
    bad = [v for v in _verdicts(report) if v.kind in LOOPS
           and v.verdict in IN_PYTHON and (v.iterations or 0) > max_iterations]
    if bad:
        allowed = f" (at most {max_iterations} allowed)" if max_iterations else ""
        raise AssertionError(_failure(f"of {report.function} {_were(bad)} unrolled{allowed}",
                                      bad))


def assert_traces(fn: Any, calls: Iterable[Any], count: int) -> None:
    """Call ``fn`` once per entry of ``calls`` on a fresh ``tf.function`` with fn's settings
    (traces made before do not count) and fail unless it traced exactly ``count`` times.

    An entry is a tuple of positional arguments, an ``(args_tuple, kwargs_dict)`` pair, or
    any other value as the one argument (``[2, 3, tf.constant(4)]``).
    """
    __tracebackhide__ = True
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise TypeError(f"count must be an int of 0 or more, got {count!r}.")
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Iterable):
        raise TypeError("calls must be a list of calls: argument tuples, (args, kwargs) "
                        f"pairs or single arguments, got {type(calls).__name__}.")
    name, results, traced = _run_calls(fn, [_entry(c) for c in calls])
    failed = [c for c in results if c.outcome == "failed"]
    if failed:
        raise AssertionError(failed[0].error)
    if traced != count:
        lines = [f"call {c.index}, {name}({c.call}): "
                 + (f"traced: {c.reason}" if c.traced else f"reused ({c.reused_because})")
                 for c in results]
        raise AssertionError(f"{name} traced {times(traced)} over {len(results)} calls, "
                             f"expected {count}:\n" + "\n".join(lines))


def _run_calls(fn: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any]]]
               ) -> tuple[str, list[Any], int]:
    """(fn's name, the retrace explainer's RetraceCall per call, the traces made)."""
    from agexplorer.engine.live import call_text, load_callable
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.retrace.explain import explain_calls

    loaded = load_callable(fn)
    tf = import_tf()
    settings = _settings(fn, loaded)
    traced_fn = tf.function(loaded.bound, **settings)
    results = explain_calls(traced_fn, loaded,
                            [(call_text(args, kwargs), args, kwargs) for args, kwargs in calls],
                            settings)
    return loaded.qualname, results, traced_fn.experimental_get_tracing_count()


def _settings(fn: Any, loaded: Any) -> dict[str, Any]:
    """The user's tf.function settings that decide tracing (as the retrace explainer reads
    them from a decorated function)."""
    from agexplorer.engine.live import tracing_settings

    return tracing_settings(fn, loaded)


def _entry(call: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if isinstance(call, tuple) and len(call) == 2 and isinstance(call[0], (tuple, list)) \
            and isinstance(call[1], dict):
        return tuple(call[0]), dict(call[1])
    if isinstance(call, tuple):
        return call, {}
    return (call,), {}


def _report(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Report:
    from agexplorer.engine.live import report_for_callable
    from agexplorer.model.errors import AgxError

    try:
        report = report_for_callable(fn, args, kwargs)
    except AgxError as exc:
        raise AssertionError(exc.message) from None
    if report.error is not None:  # what the failed trace reached says nothing of the rest
        raise AssertionError(f"{report.function} could not be traced: {report.error.message}")
    return report


def _verdicts(report: Report) -> list[Verdict]:
    """The explored function's verdicts, then those of the functions it reached (each once)."""
    seen: set[tuple[str, int, str]] = set()
    found = []
    for v in [*report.statements, *(v for f in report.reached for v in f.statements)]:
        key = (v.file or report.file, v.line, v.function)
        if key not in seen:
            seen.add(key)
            found.append(v)
    return found


def _were(bad: list[Verdict]) -> str:
    return "1 statement was" if len(bad) == 1 else f"{len(bad)} statements were"


def _failure(summary: str, bad: list[Verdict]) -> str:
    if len(bad) == 1:
        return sentence(bad[0])
    return f"{summary}:\n" + "\n".join(f"- {sentence(v)}" for v in bad)


def sentence(v: Verdict) -> str:
    """``train.py:42 `for i in range(n)` ran in Python while tracing (unrolled 200 times):
    why. Fix: how.`` (the explorer's verdict row as one sentence)."""
    from agexplorer.model.report import path_text

    where = f"{os.path.basename(v.file)}:{v.line}"
    text = f"{where} `{v.header.rstrip(':')}` {_verdict_words(v)}"
    if len(v.call_path) > 1:
        text += f" (in {v.function}, reached by {path_text(v.call_path)})"
    text += f": {v.reason}"
    if v.hint:
        text += f" Fix: {v.hint[0].upper()}{v.hint[1:]}"
    return text


def _verdict_words(v: Verdict) -> str:
    if v.verdict == "staged":
        return f"was staged{f' as {v.graph_op}' if v.graph_op else ''}"
    if v.verdict == "unreached":
        return "was not reached by the trace"
    if v.verdict == "mixed" and v.mixed is not None:
        return (f"was staged {times(v.mixed[0])} and ran in Python {times(v.mixed[1])} "
                "while tracing")
    if v.kind in CONDITIONALS:
        return "ran in Python while tracing" + (f" (took the {v.branch} branch)"
                                                 if v.branch else "")
    return f"ran in Python while tracing (unrolled {times(v.iterations or 0)})"


def _no_statement(report: Report, verdicts: list[Verdict], line: int) -> str:
    name = os.path.basename(report.file)
    own = sorted({(v.line, v.kind) for v in verdicts if v.file == report.file})
    there = ", ".join(f"{n} ({k})" for n, k in own)
    listed = f"; its statements in {name} are at lines {there}" if own else \
        f"; it reached none in {name}"
    return (f"{name}:{line} holds no if, for or while that the trace of {report.function} "
            f"reached{listed}.")
