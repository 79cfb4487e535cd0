"""Verdicts for a function AutoGraph could not convert, which tf.function runs as written.

AutoGraph refuses some constructs (a loop's ``else:`` clause): ``tf.function`` then logs a
warning and traces the function unconverted, so every loop and if runs in Python while
tracing, and AutoGraph's operators (what the recorder watches) never run. Here a line
tracer, active only for that one trace and only in the function's own code, counts how
often each statement's lines ran; the counts become the verdicts.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from agexplorer.engine.hints import unconverted_hint
from agexplorer.engine.statements import Statement
from agexplorer.model.report import Verdict


class LineCounter:
    """Line events of the code objects that start inside given lines of given files (a
    function and the functions nested in it), counted per (file, line)."""

    def __init__(self, spans: list[tuple[str, tuple[int, int]]]) -> None:
        self.spans: dict[str, list[tuple[int, int]]] = {}
        for file, span in spans:
            self.spans.setdefault(file, []).append(span)
        self.counts: Counter[tuple[str, int]] = Counter()
        self._decided: dict[Any, bool] = {}

    def _mine(self, code: Any) -> bool:
        spans = self.spans.get(code.co_filename, ())
        return any(low <= code.co_firstlineno <= high for low, high in spans)

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        mine = self._decided.get(code)
        if mine is None:
            mine = self._decided[code] = self._mine(code)
        if mine and event == "call":
            self._entered(frame)
            return self._local
        return None

    def _entered(self, frame: Any) -> None:
        """A frame of counted code starts (``UserLines`` notes each code's first one)."""

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            self.counts[(frame.f_code.co_filename, frame.f_lineno)] += 1
        return self._local

    def lines_of(self, file: str) -> Counter[int]:
        """The counts of one file, by line."""
        return Counter({line: n for (f, line), n in self.counts.items() if f == file})

    @contextlib.contextmanager
    def active(self) -> Iterator[LineCounter]:
        """Count within the block (the tracer before it is put back after)."""
        previous = sys.gettrace()
        sys.settrace(self._global)
        try:
            yield self
        finally:
            sys.settrace(previous)


_GENERATED = "__autograph_generated_file"
# What UserLines does with a code object: count its lines (the user's file: it runs
# unconverted), note its first frame only (AutoGraph's conversion of a user's function:
# its arguments), or nothing (library code).
_COUNTED, _CONVERTED, _SKIPPED = 1, 2, 0


class UserLines(LineCounter):
    """The lines of every function of the user's code that runs as plain Python while a
    trace is made (AutoGraph's converted code runs from its generated module, so a frame in
    the user's own file is one AutoGraph did not convert: a Keras 3 layer's ``call``), and
    each such code's first frame: where it was entered from and with which arguments.

    ``on_entry(frame)`` is told of each code's first frame (once per code object), AutoGraph's
    converted code's too (its lines are not counted: the recorder watches its operators)."""

    def __init__(self, user_code: Any, on_entry: Callable[[Any], None]) -> None:
        super().__init__([])
        self.user_code = user_code  # supports ``filename in user_code``
        self.on_entry = on_entry
        self._entries: set[Any] = set()

    def _mine(self, code: Any) -> bool:
        return code.co_filename in self.user_code

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        kind = self._decided.get(code)
        if kind is None:
            file = code.co_filename
            kind = self._decided[code] = (_COUNTED if file in self.user_code else
                                          _CONVERTED if _GENERATED in file else _SKIPPED)
        if kind == _SKIPPED or event != "call":
            return None
        self._entered(frame)
        return self._local if kind == _COUNTED else None

    def _entered(self, frame: Any) -> None:
        code = frame.f_code
        if code not in self._entries:
            self._entries.add(code)
            self.on_entry(frame)

    @staticmethod
    def blocked() -> bool:
        """Whether another tracer (a debugger, coverage) is on: counting would replace it,
        so nothing is counted while it is (a ``UserLines`` of an enclosing trace is not
        another tracer)."""
        current = sys.gettrace()
        return current is not None and not isinstance(getattr(current, "__self__", None),
                                                       LineCounter)


def fallback_verdicts(statements: list[Statement], counts: Counter[int], name: str,
                      why: str, ops_by_line: dict[int | None, int], traced: bool,
                      refused: bool = True) -> list[Verdict]:
    """One verdict per statement of a function that ran unconverted, from the line counts
    of its trace: AutoGraph refused it (``why``: the construct), or, ``refused`` False, it
    was called from code AutoGraph does not convert (``why``: by what)."""
    verdicts = []
    for stmt in statements:
        ops = sum(n for line, n in ops_by_line.items() if line is not None and stmt.spans(line))
        header = counts.get(stmt.line, 0)
        common = dict(kind=stmt.kind, line=stmt.line, header=stmt.header, graph_op=None,
                      ops_created=ops)
        if not header:
            reason = (f"Python never reached it while tracing ({name} ran unconverted: {why})."
                      if traced else
                      "tracing stopped with an error before Python reached this statement.")
            verdicts.append(Verdict(verdict="unreached", iterations=None, branch=None,
                                    reason=reason, hint=None, **common))
            continue
        before = (f"AutoGraph could not convert {name} ({why}), so tf.function ran it as "
                  "written: " if refused else
                  f"AutoGraph did not convert {name} ({why}), so it ran as written: ")
        if stmt.kind == "if":
            taken_true = counts.get(stmt.body_lines[0], 0)
            taken_false = header - taken_true
            branch = "true" if taken_true and not taken_false else \
                "false" if taken_false and not taken_true else None
            took = (f"Python took the {branch} branch" if branch else
                    f"Python took the true branch {taken_true} times and the false branch "
                    f"{taken_false} times")
            reason = f"{before}`{stmt.expr}` was evaluated in Python while tracing and {took}."
            verdicts.append(Verdict(verdict="python", iterations=None, branch=branch,
                                    reason=reason, hint=_hint(why, refused, stmt.kind), times=header,
                                    **common))
            continue
        iterations = counts.get(stmt.body_lines[0], 0)
        times = max(header - iterations, 1)
        per = ops // iterations if iterations else 0
        copied = (f", and its {per} op{'s' if per != 1 else ''} were copied {iterations} times"
                  if per else "")
        reason = (f"{before}the loop ran in Python while tracing, its body {iterations} "
                  f"time{'s' if iterations != 1 else ''}{copied}.")
        verdicts.append(Verdict(verdict="python", iterations=iterations, branch=None,
                                reason=reason, hint=_hint(why, refused, stmt.kind), times=times,
                                **common))
    return verdicts


def _hint(why: str, refused: bool, kind: str) -> str | None:
    if not refused:
        return unconverted_hint(kind)
    if "else" in why:
        return ("rewrite the loop without its `else:` (set a flag before `break`, test it "
                "after the loop) so that AutoGraph converts the function and can stage its "
                "loops.")
    return "rewrite the construct AutoGraph refused so that it converts the function."
