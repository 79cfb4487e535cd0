"""The explorer's state changes only through its methods, and tells each subscriber every change
through its handlers, at once (no TensorFlow, no app)."""

from types import SimpleNamespace

from agexplorer.model.errors import AgxError
from agexplorer.tui.messages import AnalysisKey
from agexplorer.tui.state import (
    AnalysisStarted,
    BufferEdited,
    CallChanged,
    CodeConverted,
    ExplorerState,
    PaneAnswered,
    ReportChanged,
    ReportFailed,
    TargetChanged,
)
from agexplorer.worker.protocol import ReportRequest

F, G = ("/p/a.py", "f"), ("/p/a.py", "g")


class Listener:
    """A subscriber that keeps what each of its handlers is told, in order, with what the
    state held then (``is_attached`` False: a widget since removed from the app)."""

    def __init__(self, state: ExplorerState | None = None) -> None:
        self.told: list = []
        self.seen: list = []  # (target, report) of the state as each handler ran
        self.is_attached = True
        self.state = state

    def _keep(self, message) -> None:
        self.told.append(message)
        if self.state is not None:
            self.seen.append((self.state.target, self.state.report))

    on_target_changed = on_analysis_started = on_report_changed = on_report_failed = _keep
    on_buffer_edited = on_call_changed = on_pane_answered = on_code_converted = _keep


class OnlyReports:
    """A subscriber with one handler: told nothing else."""

    def __init__(self) -> None:
        self.reports: list = []

    def on_report_changed(self, message) -> None:
        self.reports.append(message.report)


def request(target=F) -> ReportRequest:
    return ReportRequest(f"{target[0]}::{target[1]}", call=None, no_run=True)


def test_opening_a_function_tells_the_old_and_the_new_and_forgets_the_report():
    state, seen = ExplorerState(), Listener()
    state.subscribe(seen)
    assert state.open(F) is None
    key = state.start(request(), "text")
    assert state.answer(key, SimpleNamespace(name="report", conversion=None), None)
    assert state.open(G) == F
    assert (state.target, state.report, state.answered) == (G, None, None)
    assert [type(m) for m in seen.told] == [TargetChanged, AnalysisStarted, ReportChanged,
                                            TargetChanged]
    assert (seen.told[-1].old, seen.told[-1].new) == (F, G)


def test_converted_code_ahead_of_a_report_is_told_only_for_the_request_under_way():
    state, seen = ExplorerState(), Listener(ExplorerState())
    state.subscribe(seen)
    state.open(F)
    first = state.start(request(), "one")
    second = state.start(request(), "two")
    assert not state.converted(first, conversion("def tf__f(): ..."))  # an older buffer's
    assert state.converted(second, conversion("def tf__f(): return 2"))
    told = [m for m in seen.told if isinstance(m, CodeConverted)]
    assert [(m.key, m.conversion.code) for m in told] == [(second, "def tf__f(): return 2")]
    assert state.report is None  # the report is still to come
    assert state.conversion is told[0].conversion  # the code on screen, with its map
    state.open(G)
    assert state.conversion is None
    assert not state.converted(second, conversion("def tf__f(): return 3"))  # another shown


def conversion(code: str, source_map=((1, 1),)):
    from agexplorer.model.report import Conversion

    return Conversion(code, list(source_map))


def test_the_code_on_screen_has_its_own_map_and_moves_until_the_report():
    """The code sent ahead of a report is mapped from the buffer it was made from: lines
    added since the last report move its map as they move the report's."""
    from agexplorer.source.line_moves import Move

    state = ExplorerState()
    state.open(F)
    key = state.start(request(), "a\nb\n")
    old = SimpleNamespace(conversion=conversion("old", [(1, 2)]), statements=[])
    assert state.answer(key, old, None) and state.conversion is old.conversion
    state.lines_moved(Move(1, 0, 1))  # a line typed above line 1: every line one down
    key = state.start(request(), "x\na\nb\n")
    early = conversion("new", [(1, 3), (2, 1)])
    assert state.converted(key, early)
    assert state.conversion is early and not state.conversion_moves  # made from this buffer
    assert state.moves.now(2) == 3  # the report's lines still move
    state.lines_moved(Move(1, 0, 1))  # another line typed above everything
    assert state.conversion_moves.now(3) == 4 and state.moves.now(2) == 4
    state.fail(key, None)  # a failure keeps the code on screen and its map
    assert state.conversion is early


def test_each_request_is_a_new_generation_and_only_its_answer_counts():
    state, seen = ExplorerState(), Listener()
    state.subscribe(seen)
    state.open(F)
    first = state.start(request(), "one")
    second = state.start(request(), "two")
    assert (first.generation, second.generation) == (1, 2)
    assert state.asked(first) is None and state.asked(second) == request()
    report, lab = SimpleNamespace(name="report", conversion=None), SimpleNamespace(name="lab")
    assert not state.answer(first, report, lab)  # an older buffer's: dropped
    assert state.report is None and state.lab is None
    assert state.answer(second, report, lab)
    assert (state.report, state.lab, state.report_text, state.answered) == (report, lab, "two", 2)
    assert [m.key for m in seen.told if isinstance(m, ReportChanged)] == [second]


def test_an_answer_for_the_function_shown_before_is_dropped():
    state = ExplorerState()
    state.open(F)
    key = state.start(request(), "text")
    state.open(G)
    assert not state.answer(key, SimpleNamespace(conversion=None), None)
    assert not state.fail(key, AgxError("timeout", "it hung"))
    assert state.report is None


def test_a_report_without_a_run_keeps_the_last_run():
    state = ExplorerState()
    state.open(F)
    lab = SimpleNamespace(name="lab")
    state.answer(state.start(request(), "a"), SimpleNamespace(conversion=None), lab)
    state.answer(state.start(request(), "b"), SimpleNamespace(conversion=None), None)
    assert state.lab is lab


def test_a_failure_tells_its_error_and_keeps_the_report():
    state, seen = ExplorerState(), Listener()
    state.open(F)
    report = SimpleNamespace(conversion=None)
    state.answer(state.start(request(), "a"), report, None)
    state.subscribe(seen)
    key = state.start(request(), "b")
    error = AgxError("syntax-error", "line 3: invalid syntax")
    assert state.fail(key, error)
    assert state.report is report
    assert isinstance(seen.told[-1], ReportFailed) and seen.told[-1].error is error


def test_edits_calls_and_answers_of_the_panes_are_told_for_the_function_shown():
    state, seen = ExplorerState(), Listener()
    state.subscribe(seen)
    state.edited()  # nothing shown yet: nothing to tell
    state.call_changed()
    assert seen.told == []
    state.open(F)
    state.edited()
    state.call_changed()
    key = AnalysisKey(*F, 0)
    state.pane_answered("trace", key)
    told = seen.told[1:]
    assert [type(m) for m in told] == [BufferEdited, CallChanged, PaneAnswered]
    assert told[0].target == F and (told[2].pane, told[2].key) == ("trace", key)


def test_handlers_run_inside_the_change_in_the_order_of_subscription():
    state = ExplorerState()
    first, second = Listener(state), Listener(state)
    order: list = []
    first.on_target_changed = lambda m: order.append("first")
    second.on_target_changed = lambda m: order.append("second")
    for listener in (first, second, first):  # subscribing twice tells once
        state.subscribe(listener)
    state.open(F)
    assert order == ["first", "second"]
    key = state.start(request(), "text")
    report = SimpleNamespace(conversion=None)
    state.answer(key, report, None)
    # The handler saw the state already changed: a pane reads what it is told of.
    assert first.seen[-1] == (F, report)
    assert first.told[-1].text == "text" and first.told[-1].request == request()


def test_a_subscriber_is_told_only_what_it_handles_and_a_removed_widget_is_dropped():
    state, reports, gone = ExplorerState(), OnlyReports(), Listener()
    state.subscribe(reports)
    state.subscribe(gone)
    gone.is_attached = False
    state.open(F)
    report = SimpleNamespace(conversion=None)
    state.answer(state.start(request(), "a"), report, None)
    assert reports.reports == [report]
    assert gone.told == []
    gone.is_attached = True  # dropped for good
    state.open(G)
    assert gone.told == []


def test_the_messages_do_not_bubble_to_the_app_above_a_pane():
    assert not TargetChanged(None, F).bubble
    assert not ReportChanged(AnalysisKey(*F, 1), SimpleNamespace(), None, "", None).bubble


def test_the_doctors_trials_change_the_fixes_of_the_report_they_were_tried_for():
    from agexplorer.model.doctor import Finding, Tried
    from agexplorer.model.report import Report, Verdict
    from agexplorer.tui.state import FixesTried

    def loop(line: int, hint: str | None) -> Verdict:
        return Verdict(kind="for", line=line, header="for i in range(3)", verdict="python",
                       graph_op=None, iterations=3, branch=None, ops_created=3, reason="...",
                       hint=hint)

    def tried(line: int, outcome: str, fix: str) -> Finding:
        return Finding("AGX004", line, "unrolled", "why", fix, tried=Tried(
            outcome, graph_op="While" if outcome == "staged" else None,
            error="TypeError: no" if outcome == "fails" else None))

    state, seen = ExplorerState(), Listener()
    seen.on_fixes_tried = seen._keep
    state.subscribe(seen)
    state.open(F)
    key = state.start(request(), "text")
    report = Report(file=F[0], function=F[1], statements=[
        loop(3, "iterate over tf.range(3)"), loop(5, "iterate over tf.range(3)"), loop(7, None)])
    state.answer(key, report, None)
    newer = state.start(request(), "text 2")
    state.fixes_tried(newer, [tried(3, "staged", "x")])  # not the report answered: ignored
    assert state.report is report and not isinstance(seen.told[-1], FixesTried)
    findings = [tried(3, "staged", "doctor's"),
                tried(5, "fails", "instead. Tried: the rewrite fails to trace."),
                tried(7, "fails", "a loop offering no fix is left alone")]
    state.fixes_tried(key, findings)
    hints = [v.hint for v in state.report.statements]
    assert hints == ["iterate over tf.range(3) Tried: the rewrite stages the loop as a While op.",
                     "instead. Tried: the rewrite fails to trace.", None]
    assert isinstance(seen.told[-1], FixesTried) and seen.told[-1].report is state.report
    assert report.statements[0].hint == "iterate over tf.range(3)"  # the answer itself kept
    told = len(seen.told)
    state.fixes_tried(key, findings)  # the doctor answers again: said once
    assert [v.hint for v in state.report.statements] == hints and len(seen.told) == told


def test_the_doctors_trials_change_the_fixes_of_the_functions_the_trace_reached():
    from agexplorer.model.doctor import Finding, Tried
    from agexplorer.model.report import CallSite, ReachedFunction, Report, Verdict
    from agexplorer.tui.state import FixesTried

    loop = Verdict(kind="for", line=12, header="for i in range(3)", verdict="python",
                   graph_op=None, iterations=3, branch=None, ops_created=3, reason="...",
                   hint="iterate over tf.range(3)")
    helper = ReachedFunction(file=F[0], function="helper", first_line=11, end_line=14,
                             call_path=(CallSite(F[1], F[0], 3), CallSite("helper", F[0], 11)),
                             statements=(loop,))
    state, seen = ExplorerState(), Listener()
    seen.on_fixes_tried = seen._keep
    state.subscribe(seen)
    state.open(F)
    key = state.start(request(), "text")
    state.answer(key, Report(file=F[0], function=F[1], reached=[helper]), None)
    # the explored function's own finding at the same line is not the helper's
    own = Finding("AGX004", 12, "unrolled", "why", "own", tried=Tried("fails", error="E"))
    found = Finding("AGX004", 12, "unrolled", "why", "x", tried=Tried("staged", graph_op="While"),
                    file=F[0], function="helper")
    state.fixes_tried(key, [own, found])
    assert state.report.reached[0].statements[0].hint == (
        "iterate over tf.range(3) Tried: the rewrite stages the loop as a While op.")
    assert isinstance(seen.told[-1], FixesTried)


def test_a_request_is_sent_before_the_subscribers_hear_it_started():
    state, seen = ExplorerState(), Listener()
    state.subscribe(seen)
    state.open(F)
    order: list = []
    seen.on_analysis_started = lambda message: order.append(("told", message.key))
    key = state.start(request(), "text", lambda sent: order.append(("sent", sent)))
    assert order == [("sent", key), ("told", key)] and state.is_current(key)


def test_lines_moved_by_edits_follow_the_report_until_the_next_answer():
    from agexplorer.source.line_moves import Move
    from agexplorer.tui.state import LinesMoved

    state, seen = ExplorerState(), []
    state.subscribe(SimpleNamespace(on_lines_moved=seen.append,
                                    on_report_changed=seen.append, is_attached=True))
    state.open(F)
    state.lines_moved(Move(1, 0, 1))  # before any report: nothing to move
    assert seen == [] and not state.moves
    key = state.start(request(), "one")
    state.answer(key, SimpleNamespace(name="report", conversion=None), None)
    assert not seen[-1].moves
    state.lines_moved(Move(1, 0, 2))
    assert isinstance(seen[-1], LinesMoved) and seen[-1].moves.now(5) == 7
    # A request, an edit while the worker works, its answer: the answer's lines moved by
    # that edit alone.
    key = state.start(request(), "two")
    state.lines_moved(Move(3, 1, 0))
    assert state.moves.now(5) == 6  # the report shown: both edits
    state.answer(key, SimpleNamespace(name="report 2", conversion=None), None)
    assert isinstance(seen[-1], ReportChanged) and seen[-1].moves.now(5) == 4
    assert state.moves.now(3) is None
    state.open(G)  # another function: its report will come for the buffer as it is
    assert not state.moves
