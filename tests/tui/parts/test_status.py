"""StatusReporter alone (no app, no TensorFlow): what stays on the status line, what is said
again, and the Log's headers."""

from __future__ import annotations

from agexplorer.tui.messages import EngineStatus
from agexplorer.tui.state import ExplorerState
from agexplorer.tui.status import StatusReporter
from agexplorer.tui.status_line import StatusLine
from agexplorer.worker.protocol import ReportRequest
from tests.tui.parts.fakes import Log

READY = EngineStatus("ready", ready=True)


def reporter(log: Log | None = None) -> tuple[StatusReporter, StatusLine, ExplorerState]:
    line, state = StatusLine("loading TensorFlow…"), ExplorerState()
    return StatusReporter(line, state, lambda: log), line, state


def test_an_error_stays_through_ready_until_the_next_status():
    status, line, _ = reporter()
    status.set("line 3 raises ValueError", error=True)
    status.engine(READY)
    assert line.text == "line 3 raises ValueError" and line.has_class("error")
    status.engine(EngineStatus("tracing bad_loop…"))
    assert line.text == "tracing bad_loop…" and not line.has_class("error")


def test_a_notice_is_said_again_for_each_ready_until_a_request_lets_it_go():
    log = Log()
    status, line, _ = reporter(log)
    status.announce("the worker died and was restarted")
    status.engine(EngineStatus("tracing…"))
    status.engine(READY)
    assert line.text == "the worker died and was restarted" and line.has_class("error")
    assert log == ["the worker died and was restarted"]  # in the Log once
    status.let_go()  # the next request: its status replaces the notice, which is not said again
    status.engine(EngineStatus("tracing…"))
    status.engine(READY)
    assert line.text == "ready"


def test_a_held_notice_about_the_file_outlasts_requests_until_released():
    status, line, _ = reporter(Log())
    status.hold("a.py changed on disk; your unsaved edits are kept")
    status.let_go()  # a new analysis
    status.engine(READY)
    assert line.text.startswith("a.py changed on disk")
    status.release()  # saved or reloaded
    status.let_go()
    status.engine(EngineStatus("tracing…"))
    status.engine(READY)
    assert line.text == "ready"


def test_the_log_heads_each_analysis_with_its_function_and_call():
    log = Log()
    status, _, state = reporter(log)
    state.open(("/p/a.py", "step"))
    state.start(ReportRequest("/p/a.py::step", call="tf.ones([2])"), "text")
    status.log("printed while tracing")
    status.log("a warning")
    state.start(ReportRequest("/p/a.py::step", call=None), "text")
    status.log("again")
    assert [line.split(" · ")[0] for line in log] == [
        "── step(tf.ones([2]))", "printed while tracing", "a warning",
        "── step (its ready inputs)", "again"]


def test_the_log_follows_its_end_only_while_it_is_there():
    log = Log()
    status, _, state = reporter(log)
    state.open(("/p/a.py", "step"))
    status.log("first")
    assert log.scrolled == [True, True]  # the header and the line, at the end
    log.at_end = False  # the user scrolled up to read (or a find showed a match)
    status.log("second")
    status.engine(EngineStatus("traced in 0.2 s"))
    assert log[-2:] == ["second", "traced in 0.2 s"] and log.scrolled[2:] == [False, False]
    log.at_end = True
    status.log("third")
    assert log.scrolled[-1] is True


def test_before_the_log_exists_a_line_is_only_on_the_status_line():
    status, line, _ = reporter(None)
    status.announce("edits restored from the recovery copy")
    assert line.text == "edits restored from the recovery copy"
    status.engine(EngineStatus("TensorFlow 2.20 loaded"))  # logged, were there a Log
    assert line.text == "TensorFlow 2.20 loaded"
