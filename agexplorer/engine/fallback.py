"""Verdicts for a function AutoGraph could not convert, which tf.function runs as written.

AutoGraph refuses some constructs (a loop's ``else:`` clause): ``tf.function`` then logs a
warning and traces the function unconverted, so every loop and if runs in Python while
tracing, and AutoGraph's operators (what the recorder watches) never run. Here a line
tracer, active only for that one trace and only in the function's own code, counts how
often each statement's lines ran; the counts become the verdicts.
"""

from __future__ import annotations

import ast
import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Container, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from agexplorer.engine.convert import AUTOGRAPH_OFF_FIX, LOOP_ELSE_FIX, MATCH_FIX, WALRUS_FIX
from agexplorer.engine.describe import classify
from agexplorer.engine.hints import (
    intended,
    unconverted_hint,
    unrolling_is_the_point,
    unstackable,
)
from agexplorer.engine.statements import Statement
from agexplorer.engine.verdicts import copied_words
from agexplorer.model.report import CONDITIONALS, LOOPS, Verdict
from agexplorer.model.text import plural

if TYPE_CHECKING:
    from agexplorer.engine.convert import Construct
    from agexplorer.model.values import Described


class LineCounter:
    """Line events of the code objects that start inside given lines of given files (a
    function and the functions nested in it), counted per (file, line) and the graph being
    built then (``graph()``, when given: see :meth:`lines_of`)."""

    def __init__(self, spans: list[tuple[str, tuple[int, int]]],
                 graph: Callable[[], Any] | None = None,
                 loops: Sequence[tuple[str, Statement]] = ()) -> None:
        self.spans: dict[str, list[tuple[int, int]]] = {}
        for file, span in spans:
            self.spans.setdefault(file, []).append(span)
        # (file, line, the graph: held, so that its id is not reused meanwhile) -> times
        self.counts: Counter[tuple[str, int, Any]] = Counter()
        self._graph = graph
        # id(code object) -> (it, whether it is in a span): by id, as opchains.OpChains does
        # (a code object's hash reads its whole bytecode, at every call while tracing)
        self._decided: dict[int, tuple[Any, bool]] = {}
        # The fors (of ``loops``) whose iterable is a name or an attribute of one
        # (``self.blocks``): read as the header first runs, which has no side effect.
        self._iterables: dict[tuple[str, int], Any] = {}
        for file, stmt in loops:
            code = _plain_reading(stmt) if stmt.kind == "for" else None
            if code is not None:
                self._iterables[(file, stmt.line)] = code
        self.iterables: dict[tuple[str, int], Described | None] = {}

    def _mine(self, code: Any) -> bool:
        known = self._decided.get(id(code))
        if known is None:
            spans = self.spans.get(code.co_filename, ())
            known = self._decided[id(code)] = (code, any(low <= code.co_firstlineno <= high
                                                         for low, high in spans))
        return known[1]

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "call" and self._mine(frame.f_code):
            return self._local
        return None

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            graph = self._graph() if self._graph is not None else None
            key = (frame.f_code.co_filename, frame.f_lineno)
            self.counts[(key[0], key[1], graph)] += 1
            if key in self._iterables and key not in self.iterables:
                try:
                    self.iterables[key] = classify(eval(self._iterables[key], frame.f_globals,
                                                        frame.f_locals))
                except Exception:  # noqa: BLE001 - not readable here: not described
                    self.iterables[key] = None
        return self._local

    def iterated_of(self, file: str) -> Callable[[Statement], Described | None]:
        """What each for of ``file`` (of those given) iterated over, by statement."""
        return lambda stmt: self.iterables.get((file, stmt.line))

    def lines_of(self, file: str, graphs: Container[int] | None = None) -> Counter[int]:
        """The counts of one file, by line; with ``graphs`` (the ids of the trace's own
        graphs), only the lines run while one of them was being built: Keras 3 also calls
        a layer in scratch graphs of its own to infer shapes, which are not in the trace."""
        lines: Counter[int] = Counter()
        for (f, line, graph), n in self.counts.items():
            if f == file and (graphs is None or graph is None or id(graph) in graphs):
                lines[line] += n
        return lines

    @contextlib.contextmanager
    def active(self) -> Iterator[LineCounter]:
        """Count within the block (the tracer before it is put back after)."""
        previous = sys.gettrace()
        sys.settrace(self._global)
        try:
            yield self
        finally:
            sys.settrace(previous)


def _plain_reading(stmt: Statement) -> Any:
    """The compiled iterable of a for that only reads names and attributes, else None."""
    try:
        tree = ast.parse(stmt.expr, mode="eval")
    except SyntaxError:
        return None
    if not all(isinstance(node, (ast.Expression, ast.Name, ast.Attribute, ast.Load))
               for node in ast.walk(tree)):
        return None
    return compile(tree, "<agexplorer: a loop's iterable>", "eval")


# How often a statement ran while tracing: (times reached, body runs: a loop's iterations,
# an if's true branch); None where it was not counted. From line counts, or from counters
# compiled into the function.
Tally = Callable[[Statement], "tuple[int, int] | None"]


def line_tally(counts: Counter[int]) -> Tally:
    """A statement's counts from its lines' counts (a line tracer's): its body's first line
    ran once per iteration (a loop) or per true branch (an if); a loop's header line once
    more per loop than its body. A conditional expression is not counted: its branches
    share its lines."""
    def tally(stmt: Statement) -> tuple[int, int] | None:
        if stmt.kind == "ifexp":
            return None
        header, body = counts.get(stmt.line, 0), counts.get(stmt.body_lines[0], 0)
        if stmt.kind == "if" or not header:
            return header, body
        return max(header - body, 1), body
    return tally


def with_expressions(lines: Counter[int], counted: Tally) -> Tally:
    """``line_tally(lines)``, but for each conditional expression the counters' count
    (``counted``, from a counted copy of its function: ``engine.counters``); None (not
    counted) for one whose lines ran with no count of its own: its function ran its own
    code (no copy of it could be made, or none was found to swap)."""
    by_line = line_tally(lines)

    def tally(stmt: Statement) -> tuple[int, int] | None:
        if stmt.kind != "ifexp":
            return by_line(stmt)
        reached = counted(stmt)
        if reached is None or (not reached[0] and lines.get(stmt.line)):
            return None
        return reached
    return tally


def untold_expressions(statements: list[Statement], verdicts: list[Verdict],
                       why: str) -> str | None:
    """The clause for the conditional expressions of ``statements`` that got no verdict (no
    count could tell their branches: ``why``); None where every one got its verdict."""
    told = {v.line for v in verdicts if v.kind == "ifexp"}
    untold = [s.line for s in statements if s.kind == "ifexp" and s.line not in told]
    if not untold:
        return None
    many = len(untold) > 1
    return (f"the conditional expression{'s' if many else ''} at line{'s' if many else ''} "
            f"{', '.join(map(str, untold))} ran uncounted: {'their' if many else 'its'} "
            f"branches share {'their' if many else 'its'} lines, and {why}, so which branch "
            "Python took is not known")


def fallback_verdicts(statements: list[Statement], counts: Counter[int] | Tally, name: str,
                      why: str, ops_by_line: dict[int | None, int], traced: bool,
                      refused: bool = True, construct: Construct | None = None,
                      failed_line: int | None = None,
                      iterated: Callable[[Statement], Described | None] | None = None
                      ) -> list[Verdict]:
    """One verdict per statement of a function that ran unconverted (but those the ``Tally``
    did not count), from the line counts (or a ``Tally``) of its trace: AutoGraph refused it
    (``why``: its reason, ``construct``: what it refused where a rewrite is known), or,
    ``refused`` False, it was called from code AutoGraph does not convert (``why``: by
    what). ``failed_line``: the line of the function where the trace raised, if it did (a
    loop over a symbolic tensor raises at its header). ``iterated``: what each for iterated
    over, where it was seen (a loop over layers runs in Python on purpose: no fix)."""
    tally = counts if callable(counts) else line_tally(counts)
    verdicts = []
    for stmt in statements:
        ops = sum(n for line, n in ops_by_line.items() if line is not None and stmt.spans(line))
        counted = tally(stmt)
        if counted is None:
            continue
        header, runs = counted
        common: dict[str, Any] = dict(kind=stmt.kind, line=stmt.line, header=stmt.header, graph_op=None,
                      ops_created=ops)
        if not header:
            reason = (f"Python never reached it while tracing ({name} ran unconverted: {why})."
                      if traced else
                      "tracing stopped with an error before Python reached this statement.")
            verdicts.append(Verdict(verdict="unreached", iterations=None, branch=None,
                                    reason=reason, hint=None, **common))
            continue
        before = (f"{name}'s tf.function has autograph=False, so it ran as written: "
                  if construct == "autograph-off" else
                  f"AutoGraph could not convert {name} ({why}), so tf.function ran it as "
                  "written: " if refused else
                  f"AutoGraph did not convert {name} ({why}), so it ran as written: ")
        if stmt.kind in CONDITIONALS:
            taken_true = runs
            taken_false = header - taken_true
            branch = "true" if taken_true and not taken_false else \
                "false" if taken_false and not taken_true else None
            took = (f"Python took the {branch} branch" if branch else
                    f"Python took the true branch {taken_true} times and the false branch "
                    f"{taken_false} times")
            reason = f"{before}`{stmt.expr}` was evaluated in Python while tracing and {took}."
            if not traced and failed_line == stmt.line and not taken_true:
                # it raised (a tensor's truth value, in a graph): no branch was taken
                branch = None
                reason = (f"{before}`{stmt.expr}` was evaluated in Python while tracing and "
                          "raised (the error below): no branch was taken.")
            # Called as written, an if that ran had a Python condition: nothing to fix (on a
            # tensor it would have raised). One AutoGraph refused keeps the refusal's fix.
            hint = _hint(construct, refused, stmt.kind) if refused else None
            verdicts.append(Verdict(verdict="python", iterations=None, branch=branch,
                                    reason=reason, hint=hint, times=header, **common))
            continue
        iterations, times = runs, header
        copied = f", and {copied_words(iterations, ops, _runs_differ(stmt, statements, tally))}" \
            if iterations and ops else ""
        reason = (f"{before}the loop ran in Python while tracing, its body "
                  f"{plural(iterations, 'time')}{copied}.")
        hint = _hint(construct, refused, stmt.kind)
        over = iterated(stmt) if iterated is not None else None
        purpose = intended(over) if not refused else None
        if purpose == "variables" and over is not None:
            reason += f" It iterates over {over.text}: one step per variable, the point."
            hint = None
        elif not refused and unrolling_is_the_point(over) and over is not None:
            reason += (f" It iterates over {over.text}, which no tensor holds (layers, "
                       "functions): one step per item is the point, nothing to rewrite.")
            hint = None
        elif not refused and unstackable(over) and over is not None:
            # Code AutoGraph does not convert (Keras 3's train_step): only tf.while_loop or
            # keras.ops.fori_loop could stage it, and those keep one shape for every step.
            reason += (f" It iterates over {over.text}, which differ in shape or dtype: no "
                       "graph loop steps through them, so one step per item is the point, "
                       "nothing to rewrite.")
            hint = None
        elif not refused and stmt.picks_callables:
            picked = " and ".join(f"`{item}`" for item in stmt.picks_callables)
            reason += (f" Its body calls {picked}, an item its counter picks from a Python "
                       "sequence: no tensor holds what is called (layers, functions), so one "
                       "step per item is the point, nothing to rewrite.")
            hint = None
        elif not refused and iterations and not ops:  # as in converted code: no op, no fix
            reason += (" Its body added no ops: it only computed Python values, so there is "
                       "nothing to stage.")
            hint, purpose = None, "constants"
        if not traced and failed_line == stmt.line and not iterations:
            # raised as it started (``range(None)``): it never ran, nor unrolled "x0"
            verdicts.append(Verdict(
                verdict="unreached", iterations=None, branch=None, hint=hint,
                reason=f"{before}the loop's header raised as the loop started (the error "
                       "below), so its body never ran.", **common))
            continue
        if not traced and failed_line == stmt.line:
            reason = (f"{before}the loop ran in Python while tracing, and its header raised "
                      f"(the error below) after its body ran {plural(iterations, 'time')}.")
        verdicts.append(Verdict(verdict="python", iterations=iterations, branch=None,
                                reason=reason, hint=hint, times=times,
                                value=over.text if over is not None else None,
                                value_kind=over.kind if over is not None else None,
                                intended=purpose, **common))
    return verdicts


def _runs_differ(stmt: Statement, statements: list[Statement], tally: Tally) -> bool:
    """Whether runs of the loop ``stmt``'s body made different ops, as the counts show: an
    if inside it taken both ways, a loop inside it whose runs do not divide evenly."""
    for child in stmt.nested(statements):
        counted = tally(child)
        if counted is None:
            continue
        header, runs = counted
        if child.kind in CONDITIONALS and 0 < runs < header:
            return True
        if child.kind in LOOPS and header and runs % header:
            return True
    return False


def _hint(construct: Construct | None, refused: bool, kind: str) -> str | None:
    if not refused:
        return unconverted_hint(kind)
    if construct == "walrus":
        return WALRUS_FIX
    if construct == "match":
        return MATCH_FIX
    if construct == "autograph-off":
        return AUTOGRAPH_OFF_FIX
    if construct == "loop-else":
        return LOOP_ELSE_FIX
    return "rewrite the construct AutoGraph refused so that it converts the function."
