"""ExplorerState: the function shown, its analyses and their answers, changed only through its
methods, each of which tells the panes that subscribed with a typed message.

A subscriber's handler of a message (``on_report_changed`` for ``ReportChanged``, Textual's
naming) runs at once, inside the change: every pane shows an answer in the same frame, as
one, and a reader of the state after the change sees the panes agree with it. A handler
that must wait for the rest of the app (an edit is told as it starts) defers itself
(``call_later``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from textual.message import Message

from agexplorer.source.line_moves import NO_MOVES, LineMoves, Move
from agexplorer.tui.messages import AnalysisKey

if TYPE_CHECKING:
    from agexplorer.model.doctor import Finding
    from agexplorer.model.errors import AgxError
    from agexplorer.model.lab import RunLab
    from agexplorer.model.report import Conversion, Report
    from agexplorer.worker.protocol import ReportRequest

Target = tuple[str, str]  # (path, qualname)
# The panes whose own answers a step of the tour (or any other part) may wait for.
Pane = Literal["trace", "doctor"]


class StateChanged(Message, bubble=False):
    """The base of the state's messages: each goes to its subscriber only (no bubbling,
    so a pane and the app above it are told once each)."""

    def __init_subclass__(cls, bubble: bool | None = False, **kwargs: Any) -> None:
        super().__init_subclass__(bubble=bubble, **kwargs)  # Textual's default is to bubble


@dataclass
class TargetChanged(StateChanged):
    """Another function is shown (``old`` is None for the first)."""

    old: Target | None
    new: Target


@dataclass
class AnalysisStarted(StateChanged):
    """A report was asked for the buffer: a new generation of it."""

    key: AnalysisKey
    request: ReportRequest


@dataclass
class ReportChanged(StateChanged):
    """The analysis under way answered: its report, and after a run its run lab."""

    key: AnalysisKey
    report: Report
    lab: RunLab | None
    text: str  # the buffer the report was made from
    request: ReportRequest | None  # what the analysis asked (None: not the last request sent)
    # Where the report's lines are in the buffer now (edited while the worker worked).
    moves: LineMoves = NO_MOVES


@dataclass
class CodeConverted(StateChanged):
    """The analysis under way converted the function (its report follows): AutoGraph's
    code and its source map, for the buffer the analysis was asked for (the state's
    ``conversion`` now)."""

    key: AnalysisKey
    conversion: Conversion


@dataclass
class ReportFailed(StateChanged):
    """The analysis under way failed: the last good report stays (dimmed)."""

    key: AnalysisKey
    error: AgxError


@dataclass
class BufferEdited(StateChanged):
    """The buffer of the function shown was edited (it is analysed after a pause)."""

    target: Target


@dataclass
class LinesMoved(StateChanged):
    """An edit added or removed lines of the buffer: the report's marks follow their code
    (``moves``: from the report's buffer to the buffer now) until the next answer."""

    moves: LineMoves
    target: Target | None = None  # the function shown, whose file was edited
    text: str = ""  # the buffer the report was made from (``moves`` start from it)


@dataclass
class CallChanged(StateChanged):
    """The Run tab's call of the function shown was typed or set."""

    target: Target


@dataclass
class PaneAnswered(StateChanged):
    """A tab showed the answer it asked for (the tour waits for these)."""

    pane: Pane
    key: AnalysisKey


@dataclass
class FixesTried(StateChanged):
    """The doctor traced the rewrites of the report's unrolled loops: the report's verdicts
    now say, in each loop's fix, how its rewrite went."""

    key: AnalysisKey
    report: Report
    moves: LineMoves = NO_MOVES  # as in ReportChanged


class ExplorerState:
    """The explorer's one state. Its fields are read freely and changed only here, and each
    change is told to every subscriber still mounted, in the order they subscribed."""

    def __init__(self) -> None:
        self.target: Target | None = None
        self.generation = 0  # one per report request: older answers are dropped
        self.analysed_text = ""  # the buffer of the request under way
        self.last_request: tuple[int, ReportRequest] | None = None  # (generation, request)
        self.report: Report | None = None
        self.report_text = ""  # the buffer ``report`` was made from
        self.answered: int | None = None  # the generation ``report`` answered
        self.lab: RunLab | None = None
        self._as_answered: Report | None = None
        # Where the lines of ``report_text`` and of ``analysed_text`` are in the buffer now.
        self.moves: LineMoves = NO_MOVES
        self._moved_since_request: LineMoves = NO_MOVES
        # AutoGraph's code on screen: the report's, or the one the analysis under way sent
        # ahead of its report; and where the lines of the buffer it was made from are now.
        self.conversion: Conversion | None = None
        self.conversion_moves: LineMoves = NO_MOVES
        # A recorded run's functions that it reached only from another one's trace (a layer
        # Keras's train step called, a map function's helper), with the call recorded there:
        # with that call, nothing traced them on their own (the doctor says no retrace).
        self.reached_calls: dict[Target, str] = {}
        self._subscribers: list[Any] = []  # widgets and parts, each with handlers it wants

    def subscribe(self, subscriber: Any) -> None:
        """Tell ``subscriber`` each change from now on, through its ``on_<message>``
        handlers (until it is removed from the app, when it is a widget)."""
        if subscriber not in self._subscribers:
            self._subscribers.append(subscriber)

    def unsubscribe(self, subscriber: Any) -> None:
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def _tell(self, message: StateChanged) -> None:
        for subscriber in list(self._subscribers):
            if not getattr(subscriber, "is_attached", True):  # a widget removed from the app
                self.unsubscribe(subscriber)
                continue
            handler = getattr(subscriber, message.handler_name, None)
            if handler is not None:
                handler(message)

    # -- the changes ----------------------------------------------------------------------
    def open(self, new: Target) -> Target | None:
        """Show ``new``; returns the function shown before. Its report is the last one's no
        more (it stays on screen, dimmed, until the new one's answer)."""
        old = self.target
        self.target, self.report, self.answered = new, None, None
        self.moves = self.conversion_moves = NO_MOVES
        self.conversion = None
        self._tell(TargetChanged(old, new))
        return old

    def reached_only(self, target: Target, call: str | None) -> bool:
        """Whether ``call`` is the recorded call of a function the run reached only from
        another one's trace (see ``reached_calls``)."""
        return call is not None and self.reached_calls.get(target) == call

    def start(self, request: ReportRequest, text: str,
              send: Callable[[AnalysisKey], None] | None = None) -> AnalysisKey:
        """A report asked for the function shown, whose buffer is ``text``. ``send(key)``
        puts the request on its way before the subscribers hear of it (what they do then
        overlaps the worker's work instead of delaying its start)."""
        assert self.target is not None, "an analysis is of the function shown"
        self.generation += 1
        self.analysed_text = text
        self._moved_since_request = NO_MOVES
        self.last_request = (self.generation, request)
        key = AnalysisKey(*self.target, self.generation)
        if send is not None:
            send(key)
        self._tell(AnalysisStarted(key, request))
        return key

    def is_current(self, key: AnalysisKey) -> bool:
        """Whether ``key`` answers the analysis under way (not an older one's)."""
        return key.generation == self.generation and key.target == self.target

    def asked(self, key: AnalysisKey) -> ReportRequest | None:
        """The request that ``key``'s analysis sent (None: not the last one sent)."""
        sent = self.last_request
        return sent[1] if sent and sent[0] == key.generation else None

    def converted(self, key: AnalysisKey, conversion: Conversion) -> bool:
        """The analysis ``key`` sent AutoGraph's code ahead of its report; False (and nothing
        is told) when it is not the one under way."""
        if not self.is_current(key):
            return False
        self.conversion, self.conversion_moves = conversion, self._moved_since_request
        self._tell(CodeConverted(key, conversion))
        return True

    def answer(self, key: AnalysisKey, report: Report, lab: RunLab | None) -> bool:
        """The analysis ``key`` answered; False (and nothing changes) when it is not the one
        under way."""
        if not self.is_current(key):
            return False
        self.report, self.report_text, self.answered = report, self.analysed_text, key.generation
        self.moves = self.conversion_moves = self._moved_since_request
        self.conversion = report.conversion
        self._as_answered = report  # the report as the worker sent it (fixes untried)
        if lab is not None:
            self.lab = lab
        self._tell(ReportChanged(key, report, lab, self.report_text, self.asked(key),
                                 self.moves))
        return True

    def fail(self, key: AnalysisKey, error: AgxError) -> bool:
        """The analysis ``key`` failed; False when it is not the one under way."""
        if not self.is_current(key):
            return False
        self._tell(ReportFailed(key, error))
        return True

    def edited(self) -> None:
        """The buffer of the function shown changes (told as the edit starts: a subscriber
        handling it later, as a widget does, reads the edited buffer)."""
        if self.target is not None:
            self._tell(BufferEdited(self.target))

    def lines_moved(self, move: Move) -> None:
        """An edit of the buffer added or removed lines (told after the edit)."""
        self._moved_since_request = self._moved_since_request.then(move)
        self.conversion_moves = self.conversion_moves.then(move)
        if self.report is not None:
            self.moves = self.moves.then(move)
            self._tell(LinesMoved(self.moves, self.target, self.report_text))

    def call_changed(self) -> None:
        """The Run tab's call of the function shown changed."""
        if self.target is not None:
            self._tell(CallChanged(self.target))

    def pane_answered(self, pane: Pane, key: AnalysisKey) -> None:
        """``pane`` shows the answer for ``key``."""
        self._tell(PaneAnswered(pane, key))

    def fixes_tried(self, key: AnalysisKey, findings: list[Finding]) -> None:
        """The doctor's ``findings`` for the report ``key`` answered, their rewrites tried:
        each unrolled loop's fix says how its rewrite went (a fix that fails to trace is
        replaced by the doctor's advice), as ``agexplorer report`` says it, in the explored
        function and in the functions its trace reached."""
        from agexplorer.model.doctor import report_with_tried_fixes

        report, answered = self.report, self._as_answered
        if report is None or answered is None or key.generation != self.answered \
                or key.target != self.target:
            return
        # From the verdicts as answered: a second answer of the doctor for the same report
        # says the same, once. The reached functions' loops too (the helpers').
        tried = report_with_tried_fixes(answered, findings)
        if tried.statements != report.statements or tried.reached != report.reached:
            self.report = replace(report, statements=tried.statements, reached=tried.reached)
            self._tell(FixesTried(key, self.report, self.moves))

