"""The run lab explains itself: fixed call cost against work, retrace reasons, each mode's
time box, XLA skipped, and inputs evaluated once for every mode."""

from __future__ import annotations

import os

import pytest

from agexplorer.lab.runs import retrace_reason, time_calls
from agexplorer.model.lab import ModeRun, RunLab
from agexplorer.render.lab_notes import about, cost_note, timing_notes

CASES = os.path.join(os.path.dirname(__file__), "cases_boxed.py")


def _lab(eager: float, graph: float, fixed: float) -> RunLab:
    runs = {"eager": ModeRun(ok=True, median_s=eager), "graph": ModeRun(ok=True, median_s=graph),
            "xla": ModeRun(skipped=True, error="skipped")}
    return RunLab(device="/device:CPU:0", runs=runs, overhead_s={"graph": fixed},
                  speedup={"graph": round(eager / graph, 3), "xla": None})


def test_a_slower_graph_is_explained_by_its_fixed_cost_against_its_work():
    lab = _lab(eager=1e-4, graph=3.8e-4, fixed=3.5e-4)
    assert lab.work_s("graph") == pytest.approx(3e-5)
    assert cost_note(lab, "graph") == (
        "graph is slower here: each call costs about 0.35 ms of fixed overhead, this function "
        "does about 0.03 ms of work; graphs pay off when a function runs many small ops or "
        "loops.")
    assert cost_note(lab, "xla") is None  # skipped: nothing to explain


def test_a_faster_graph_says_so_and_work_is_never_negative():
    assert cost_note(_lab(eager=5e-3, graph=1e-3, fixed=3e-4), "graph").startswith(
        "graph is faster here: each call costs about 0.30 ms of fixed overhead, this function "
        "does about 0.70 ms of work")
    assert _lab(eager=1e-4, graph=2e-4, fixed=3e-4).work_s("graph") == 0.0
    assert about(2e-6) == "less than 0.01 ms" and about(0.0123) == "12.3 ms"


def test_retrace_reasons_come_from_the_trace_counts():
    assert retrace_reason(ModeRun(first_call_traces=2, tracing_count=2)) == "variables"
    assert retrace_reason(ModeRun(first_call_traces=1, tracing_count=3)) == "signature"
    assert retrace_reason(ModeRun(first_call_traces=1, tracing_count=1)) is None
    lab = _lab(1e-4, 2e-4, None)
    lab.retrace_reason = "variables"
    assert any("created variables" in note.plain for note in timing_notes(lab))


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def function(self, seconds: float):
        def fn():
            self.now += seconds
        return fn


def test_a_deadline_ends_timing_early_keeping_what_was_measured():
    clock = FakeClock()
    samples: list[float] = []
    got, total = time_calls(clock.function(2.0), (), {}, lambda r: r, 0.5, clock=clock,
                            deadline=3.0, samples=samples)
    assert got is samples and samples == [2.0, 2.0]  # not the three a box-less run insists on
    assert total == 2


# -- with TensorFlow -------------------------------------------------------------------------

@pytest.mark.tf
def test_the_lab_measures_fixed_costs_and_can_skip_xla(tf):
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::plus_zero", "tf.constant([1.0])", budget=0.05, skip_xla=True)
    assert lab.runs["xla"].skipped and not lab.runs["xla"].ok
    assert lab.speedup["xla"] is None and set(lab.overhead_s) == {"graph"}
    assert lab.overhead_s["graph"] > 0 and lab.work_s("graph") >= 0
    assert lab.to_dict()["overhead_s"] == lab.overhead_s
    assert lab.results_match is True  # eager and graph still compared


@pytest.mark.tf
def test_random_inputs_are_evaluated_once_for_every_mode(tf):
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::plus_zero", "tf.random.normal([4])", budget=0.05)
    assert lab.shared_inputs and lab.results_match is True, lab.mismatch
    assert lab.runs["eager"].result == lab.runs["graph"].result == lab.runs["xla"].result


@pytest.mark.tf
def test_a_mode_past_its_box_times_out_and_the_others_still_report(tf):
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::slow_eagerly", "tf.constant(1.0)", budget=0.05, mode_timeout=1.0,
                  skip_xla=True)
    eager = lab.runs["eager"]
    assert eager.timed_out and not eager.ok
    assert eager.error.startswith("timed out after 1 s before its first call returned")
    assert lab.runs["graph"].ok and lab.runs["graph"].result == "float32[] 2.0"
    assert lab.speedup["graph"] is None and lab.results_match is None


@pytest.mark.tf
def test_variables_made_on_the_first_trace_explain_the_second(tf):
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::makes_a_variable", "tf.constant(1.0)", budget=0.05, skip_xla=True)
    assert lab.tracing_count == 2 and lab.retrace_reason == "variables"
