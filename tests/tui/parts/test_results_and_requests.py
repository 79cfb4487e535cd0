"""Results and Requests alone (no app, no TensorFlow): what an answer, a failure and another
function do to the panes, the status line and the Log; what a request sends, and where each
function's calls stay."""

from __future__ import annotations

from agexplorer.model.errors import AgxError
from agexplorer.model.report import Report
from agexplorer.tui.code.made import Provenance
from agexplorer.tui.messages import AnalysisKey, EngineAnswer
from agexplorer.tui.requests import Requests
from agexplorer.tui.results import Results
from agexplorer.tui.state import ExplorerState
from agexplorer.tui.status import StatusReporter
from agexplorer.tui.status_line import StatusLine
from agexplorer.worker.protocol import RetraceRequest
from tests.tui.parts.fakes import Later, Log, Source, workspace
from tests.tui.parts.test_provenance import Panels

A = ("/p/a.py", "bad_loop")
B = ("/p/a.py", "good_loop")


class Linking:
    def __init__(self) -> None:
        self.linked = 0
        self.synced = 0

    def from_source(self) -> None:
        self.linked += 1

    def sync_gutters(self) -> None:
        self.synced += 1


class Explorer:
    """The parts wired as the app wires them, to stand-ins for the panes."""

    def __init__(self, text: str = "def bad_loop(n):\n    pass\n", mounted: bool = True) -> None:
        self.state = ExplorerState()
        self.line, self.log = StatusLine("loading TensorFlow…"), Log()
        self.status = StatusReporter(self.line, self.state, lambda: self.log)
        self.headers = Panels()
        self.source = Source("/p/a.py", text)
        self.panes = workspace(self.source)
        self.mounted = mounted
        self.provenance = Provenance(lambda: self.source.text, lambda: self.headers)
        self.linking, self.later, self.relabelled = Linking(), Later(), []
        self.results = Results(self.state, self.status, self.provenance, self.linking,
                               lambda: self.panes if self.mounted else None, self.later,
                               self.relabelled.append, lambda: False)
        self.sent: list[tuple] = []
        self.requests = Requests(self.state, lambda *sent: self.sent.append(sent), self.status,
                                 self.provenance, lambda: self.panes if self.mounted else None,
                                 ("/p/lib",))
        for part in (self.results, self.provenance, self.status):
            self.state.subscribe(part)

    def answer(self, report: Report, run: bool = False) -> AnalysisKey:
        self.requests.analyse(run, None)
        key = self.sent[-1][0]
        self.state.answer(key, report, None)
        self.later.run()
        return key


def test_another_function_dims_the_code_until_its_first_answer_which_links_once():
    explorer = Explorer()
    explorer.state.open(A)
    explorer.answer(Report(*A))
    explorer.answer(Report(*A))
    assert explorer.linking.linked == 1  # the cursor line linked at the first answer only
    explorer.state.open(B)
    assert all("stale" in pane.classes for pane in explorer.panes.stale_panes)
    assert explorer.log == []  # the Log starts again for the new function
    explorer.answer(Report(*B))
    assert not any(pane.classes for pane in explorer.panes.stale_panes)
    assert explorer.linking.linked == 2
    assert explorer.relabelled == ["/p/a.py"] * 3  # the function list follows each answer


def test_arguments_needed_say_where_to_type_them_and_the_run_tab_says_why_it_did_not_run():
    explorer = Explorer()
    explorer.state.open(A)
    needs = AgxError("needs-arguments", "bad_loop takes arguments (n)",
                     advice="pass them with --call '5'")
    explorer.answer(Report(*A, error=needs), run=True)
    said = explorer.line.text
    assert said.startswith("bad_loop takes arguments (n): type them in the Run tab (5)")
    assert "--call" not in said and explorer.line.has_class("error")
    assert explorer.panes.run_panel.told("note")[-1] == (said,)
    assert said in explorer.log[-1]
    assert explorer.headers.origins["run"][0].startswith("run: bad_loop")


def test_what_the_trace_printed_and_the_warnings_go_to_the_log():
    explorer = Explorer()
    explorer.state.open(A)
    explorer.answer(Report(*A, output="tracing!\n", log="WARNING: a retrace"))
    text = "\n".join(explorer.log)
    assert "printed while tracing bad_loop:\ntracing!" in text and "WARNING: a retrace" in text
    summary = explorer.panes.flow_summary.told("update")[-1][0]
    assert "bad_loop" in summary
    assert explorer.panes.ops.told("show") and explorer.linking.synced


def test_a_failure_keeps_the_last_results_dimmed_and_the_run_asked_for_says_why():
    explorer = Explorer()
    explorer.state.open(A)
    explorer.answer(Report(*A))
    explorer.requests.analyse(True, "5")
    key = explorer.sent[-1][0]
    explorer.state.fail(key, AgxError("worker-died", "the worker died"))
    explorer.later.run()
    assert all("stale" in pane.classes for pane in explorer.panes.stale_panes)
    assert explorer.line.text.startswith("the worker died") and explorer.line.has_class("error")
    assert explorer.panes.run_panel.told("note")[-1][0].startswith("the worker died")
    assert explorer.relabelled[-1] == "/p/a.py"
    explorer.requests.analyse(False, None)  # a syntax error: the list keeps its functions
    explorer.relabelled.clear()
    explorer.state.fail(explorer.sent[-1][0], AgxError("syntax-error", "line 2: invalid"))
    explorer.later.run()
    assert explorer.relabelled == []


def test_an_answer_while_the_panes_are_gone_draws_nothing_and_raises_nothing():
    explorer = Explorer(mounted=False)
    explorer.state.open(A)
    explorer.requests.analyse(False, None)
    assert explorer.sent == [] and explorer.requests.buffer() is None
    explorer.mounted = True
    explorer.requests.analyse(False, None)
    explorer.mounted = False  # the app ends before the answer
    explorer.state.answer(explorer.sent[-1][0], Report(*A), None)
    explorer.state.fail(explorer.sent[-1][0], AgxError("worker-died", "the worker died"))
    assert explorer.panes.flow_summary.calls == []


def test_a_request_sends_the_unsaved_buffer_the_boxed_call_and_the_user_code_folders():
    explorer = Explorer()
    explorer.state.open(A)
    explorer.requests.analyse(False, None)
    key, request, path, what = explorer.sent[-1]
    assert (key, path, what) == (AnalysisKey(*A, 1), "/p/a.py", "tracing bad_loop")
    assert request.source is None and request.no_run and request.user_code == ("/p/lib",)
    explorer.source.text += "# edited\n"
    explorer.panes.run_panel.call_input.value = " tf.constant(7) "
    explorer.requests.analyse(True, None)
    key, request, _, what = explorer.sent[-1]
    assert key.generation == 2 and request.source == explorer.source.text
    assert request.call == "tf.constant(7)" and not request.no_run
    assert what == "running bad_loop" and explorer.line.text == "running bad_loop…"
    assert explorer.headers.origins["run"] == ("run: bad_loop(tf.constant(7))", False)
    assert explorer.state.analysed_text == explorer.source.text
    asked = explorer.requests.buffer()
    assert asked.call == "tf.constant(7)" and asked.source == explorer.source.text


def test_each_function_keeps_its_own_call_in_each_box():
    explorer = Explorer()
    requests, boxes = explorer.requests, explorer.panes
    explorer.state.open(A)
    requests.switch_call(None, A)
    boxes.run_panel.call_input.value, boxes.trace_box.value = "5", "5; 6"
    requests.set_call(B, "tf.zeros([3])")  # the tour or the doctor, for a function not shown
    assert boxes.run_panel.call_input.value == "5"
    requests.switch_call(A, B)
    assert (boxes.run_panel.call_input.value, boxes.trace_box.value) == ("tf.zeros([3])", "")
    assert boxes.run_panel.told("show_init")[-1] == (False,)  # a function, not a method
    requests.switch_call(B, A)
    assert (boxes.run_panel.call_input.value, boxes.trace_box.value) == ("5", "5; 6")
    requests.switch_call(A, ("/p/a.py", "Smoother.call"))
    assert boxes.run_panel.told("show_init")[-1] == (True,)  # a method: its instance's box


def test_an_answer_goes_to_its_asker_and_an_engine_failure_is_said_on_the_status_line():
    explorer = Explorer()
    explorer.state.open(A)
    replies: list[EngineAnswer] = []
    died = AgxError("worker-died", "the worker died while tracing")
    explorer.requests.answered(EngineAnswer(RetraceRequest, AnalysisKey(*A, 0), replies.append,
                                            error=died))
    assert replies and explorer.line.text == died.message and died.message in explorer.log
    explorer.line.update("")
    explorer.requests.answered(EngineAnswer(RetraceRequest, AnalysisKey(*A, 0), replies.append,
                                            error=died, tells_failures=True))
    assert len(replies) == 2 and explorer.line.text == ""  # the asker says it itself
    explorer.requests.answered(EngineAnswer(RetraceRequest, AnalysisKey(*B, 0), replies.append))
    assert len(replies) == 2  # about a function no longer shown: dropped


def test_code_sent_ahead_of_the_report_shows_its_own_line_references():
    """The converted side's source lines follow the code on screen: AutoGraph's code sent
    ahead of the next report brings its own map (the last report's would name other lines of
    the new code); a failure after it keeps them with the code."""
    from agexplorer.model.report import Conversion

    explorer = Explorer()
    explorer.state.open(A)
    explorer.answer(Report(*A, conversion=Conversion("old", [(1, 1), (2, 2)])))
    assert explorer.panes.refs.told("set_map")[-1][0] == [(1, 1), (2, 2)]
    explorer.requests.analyse(False, None)
    key = explorer.sent[-1][0]
    assert explorer.state.converted(key, Conversion("new", [(1, 1), (3, 2), (4, 2)]))
    assert explorer.panes.refs.told("set_map")[-1][0] == [(1, 1), (3, 2), (4, 2)]
    explorer.state.fail(key, AgxError("timeout", "tracing bad_loop took over 60 s"))
    assert explorer.panes.refs.told("set_map")[-1][0] == [(1, 1), (3, 2), (4, 2)]
    # another function's code before its first report: no shades of the last one's
    explorer.state.open(B)
    painted = len(explorer.panes.refs.told("set_map"))
    explorer.requests.analyse(False, None)
    assert explorer.state.converted(explorer.sent[-1][0], Conversion("b", [(1, 5)]))
    assert len(explorer.panes.refs.told("set_map")) == painted
