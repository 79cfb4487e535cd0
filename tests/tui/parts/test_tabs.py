"""The tabs that ask the worker, alone: each mounted in a bare Textual app with a Desk of
stand-ins (no explorer, no worker, no TensorFlow). What each asks, which answers it keeps,
and what its fixes and errors do to the buffer, the call and the status line."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget

from agexplorer.model.doctor import DoctorReport, Finding, FixTrial, Rewrite, TrialSide, text_sha
from agexplorer.model.errors import AgxError
from agexplorer.tui.desk import Desk
from agexplorer.tui.doctor.panel import DoctorPanel
from agexplorer.tui.doctor.tab import DoctorTab
from agexplorer.tui.messages import AnalysisKey, BufferRequest, EngineAnswer
from agexplorer.tui.passes.tab import PassesTab
from agexplorer.tui.state import ExplorerState
from agexplorer.tui.trace.panel import TracePanel
from agexplorer.tui.trace.tab import TraceTab
from agexplorer.worker.protocol import DoctorRequest, PassesRequest, ReportRequest, RetraceRequest
from tests.tui.parts.fakes import Pane, Source

PATH, NAME = "/p/loops.py", "bad_loop"
TEXT = "def bad_loop(n):\n    for i in range(n):\n        pass\n"


class Recorder(list):
    """A callable that keeps the arguments of each call."""

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.append((args, kwargs))


class Status:
    """The status line: each sentence set or announced, with whether it is an error."""

    def __init__(self) -> None:
        self.said: dict[str, list[tuple[str, bool]]] = {"set": [], "announce": []}

    def set(self, text: str, error: bool = False) -> None:
        self.said["set"].append((text, error))

    def announce(self, text: str, error: bool = True) -> None:
        self.said["announce"].append((text, error))

    def told(self, name: str) -> list[tuple[str, bool]]:
        return self.said[name]


class Bench:
    """A Desk of stand-ins, and what the tab did through it."""

    def __init__(self) -> None:
        self.state = ExplorerState()
        self.state.open((PATH, NAME))
        self.asked = Recorder()
        self.bridge = SimpleNamespace(ask=self.asked, worker=SimpleNamespace(timeout=60.0))
        self.status, self.provenance, self.linking = Status(), Pane(), Pane()
        self.source = Source(PATH, TEXT)
        self.analysed, self.calls_set = Recorder(), Recorder()
        self.desk = Desk(self.state, self.bridge, self.buffer_request,  # type: ignore[arg-type]
                         self.status, self.provenance, self.linking,  # type: ignore[arg-type]
                         lambda: self.source, self.analysed,  # type: ignore[arg-type, return-value]
                         self.calls_set, lambda: False)
        self.answered: list[tuple[str, int]] = []
        self.state.subscribe(SimpleNamespace(
            on_pane_answered=lambda m: self.answered.append((m.pane, m.key.generation))))

    def buffer_request(self) -> BufferRequest:
        return BufferRequest(AnalysisKey(PATH, NAME, self.state.generation), None, None)

    def analysis(self) -> AnalysisKey:
        """A new analysis of the function (its generation goes up)."""
        return self.state.start(ReportRequest(f"{PATH}::{NAME}"), self.source.text)


class Host(App[None]):
    def __init__(self, tab: Widget) -> None:
        super().__init__()
        self.tab = tab

    def compose(self) -> ComposeResult:
        yield self.tab


def finding(line: int = 2) -> Finding:
    return Finding("AGX004", line, "the loop over range(n) was unrolled", "n is a Python int",
                   "pass a tensor")


def trial(rewrite: Rewrite) -> FixTrial:
    side = TrialSide(PATH, "bad_loop(5)", [], 10, 0.1)
    return FixTrial(PATH, NAME, finding(), rewrite, "", side, side)


def doctor_answer(tab: DoctorTab, key: AnalysisKey, findings: int) -> EngineAnswer:
    report = DoctorReport(PATH, NAME, traced=True, findings=[finding() for _ in range(findings)])
    return EngineAnswer(DoctorRequest, key, tab.answer, value=report)


@pytest.fixture
def bench() -> Bench:
    return Bench()


def doctor_tab(bench: Bench, labels: list[str]) -> DoctorTab:
    return DoctorTab(bench.desk, lambda: "CPU:0", labels.append)


async def test_the_doctor_asks_for_the_analysis_shown_and_drops_an_older_ones_findings(bench):
    labels: list[str] = []
    tab = doctor_tab(bench, labels)
    async with Host(tab).run_test():
        old = bench.analysis()
        new = bench.analysis()
        tab.ask(old, ReportRequest(f"{PATH}::{NAME}"))
        assert bench.asked == []  # a newer analysis started: nothing asked for the older
        tab.ask(new, ReportRequest(f"{PATH}::{NAME}", call="bad_loop(5)"))
        [(args, _)] = bench.asked
        assert args[0] == new and isinstance(args[1], DoctorRequest)
        assert args[1].call == "bad_loop(5)" and args[1].reuse
        tab.answer(doctor_answer(tab, old, 3))
        assert labels == [] and bench.answered == []
        tab.answer(doctor_answer(tab, new, 2))
        assert labels == ["Doctor (2)"] and bench.answered == [("doctor", new.generation)]
        assert bench.provenance.told("show") == [("doctor",)]


async def test_a_function_the_run_only_reached_is_examined_as_such_with_its_recorded_call(
        bench):
    """A layer or helper opened from a recorded run's library trace: with the call recorded
    there the doctor is told nothing traced it alone (no AGX009, as `doctor LOG`); with a
    call typed since, it is examined as the function explored."""
    tab = doctor_tab(bench, [])
    bench.state.reached_calls[(PATH, NAME)] = "tf.zeros([4]), 3"
    async with Host(tab).run_test():
        for call, reached in (("tf.zeros([4]), 3", True), ("tf.zeros([4]), 5", False),
                              (None, False)):
            bench.asked.clear()
            tab.ask(bench.analysis(), ReportRequest(f"{PATH}::{NAME}", call=call))
            [((_, request, *_), _)] = bench.asked
            assert (request.reached, request.call_origin) == (
                reached, "the recorded call" if reached else None), call


async def test_a_fix_to_the_call_sets_this_functions_call_and_analyses_with_it(bench):
    tab = doctor_tab(bench, [])
    async with Host(tab).run_test():
        rewrite = Rewrite("AGX004", 2, "a tensor", None, "bad_loop(tf.constant(5))",
                          text_sha(TEXT))
        tab.on_doctor_panel_apply_fix(DoctorPanel.ApplyFix(trial(rewrite)))
        assert bench.calls_set == [(((PATH, NAME), "bad_loop(tf.constant(5))"), {})]
        assert bench.analysed == [((), {"call": "bad_loop(tf.constant(5))"})]
        [(said, *_)] = bench.status.told("set")
        assert "bad_loop's call is now bad_loop(tf.constant(5)); F5 runs it" == said
        assert bench.source.text == TEXT


async def test_a_fix_to_the_code_is_applied_only_to_the_buffer_it_was_made_from(bench):
    tab = doctor_tab(bench, [])
    fixed = TEXT.replace("range(n)", "tf.range(n)")
    async with Host(tab).run_test():
        bench.source.text = TEXT + "# typed since\n"
        rewrite = Rewrite("AGX004", 2, "tf.range", fixed, None, text_sha(TEXT))
        tab.on_doctor_panel_apply_fix(DoctorPanel.ApplyFix(trial(rewrite)))
        assert bench.source.text == TEXT + "# typed since\n" and bench.analysed == []
        [(said, error)] = bench.status.told("set")
        assert error is True and "the buffer changed since the fix was tried" in said
        assert tab.before_fix is None

        bench.source.text = TEXT
        tab.on_doctor_panel_apply_fix(DoctorPanel.ApplyFix(trial(rewrite)))
        assert bench.source.text == fixed and bench.analysed == [((), {})]
        assert tab.before_fix == ((PATH, NAME), TEXT, "AGX004")
        [(said, error)] = bench.status.told("announce")
        assert said.startswith("AGX004 applied to the buffer") and error is False


async def test_a_fix_trial_runs_on_the_run_tabs_device_within_a_tenth_of_the_timeout(bench):
    tab = doctor_tab(bench, [])
    async with Host(tab).run_test():
        bench.analysis()
        bench.bridge.worker.timeout = 120.0
        tab.on_doctor_panel_try_fix(DoctorPanel.TryFix(finding(2)))
        [(args, _)] = bench.asked
        assert args[1].fix == "AGX004@2" and args[1].device == "CPU:0"
        assert args[1].mode_timeout == 12.0 and args[1].skip_xla is False


async def test_the_trace_tab_turns_needing_arguments_into_the_tabs_own_way(bench):
    tab = TraceTab(bench.desk)
    async with Host(tab).run_test():
        key = bench.analysis()
        tab.on_trace_panel_explain_requested(TracePanel.ExplainRequested(["tf.ones([8])"]))
        [(args, kwargs)] = bench.asked
        assert isinstance(args[1], RetraceRequest) and args[1].calls == ("tf.ones([8])",)
        assert kwargs == {"tells_failures": True}
        error = AgxError("needs-arguments", "bad_loop takes arguments (n)")
        tab.answer(EngineAnswer(RetraceRequest, key, tab.answer, error=error))
        [(said, error_shown)] = bench.status.told("set")
        assert error_shown is True
        assert said.startswith("bad_loop takes arguments (n): type the calls in the Trace tab")
        assert bench.answered == []


async def test_a_tab_asks_when_shown_once_per_analysis_and_not_while_hidden(bench):
    tab = PassesTab(bench.desk)
    async with Host(tab).run_test() as pilot:
        await pilot.pause()
        first = len(bench.asked)
        assert first == 1 and isinstance(bench.asked[0][0][1], PassesRequest)
        tab._follow()
        assert len(bench.asked) == 1  # nothing changed: not asked again
        bench.analysis()
        await pilot.pause()
        assert len(bench.asked) == 2
        tab.display = False
        await pilot.pause()
        bench.analysis()
        await pilot.pause()
        assert len(bench.asked) == 2  # hidden: asks nothing
