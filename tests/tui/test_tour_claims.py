"""The tour holds a measurement against the lesson's own figure, and quotes TensorFlow where it
refused a call: pure functions of the model, without TensorFlow."""

from __future__ import annotations

from types import SimpleNamespace

from agexplorer.model.lab import ModeRun, RunLab
from agexplorer.model.retrace import RetraceCall
from agexplorer.tui.tour.results import claim_note, trace_result
from agexplorer.tui.tour.steps import STEPS, Claim

CLAIM = Claim(1.5, 3.0, "快1.5~3倍", "graph mode 1.5-3x faster")


def lab(speed: float, eager: tuple[float, float, float], graph: tuple[float, float, float]):
    """A lab whose eager and graph runs have (p25, median, p75) seconds per call."""
    def run(p25: float, median: float, p75: float) -> ModeRun:
        return ModeRun(ok=True, p25_s=p25, median_s=median, p75_s=p75, calls=50)
    return RunLab(device="CPU", runs={"eager": run(*eager), "graph": run(*graph)},
                  speedup={"graph": speed})


def test_a_speed_up_far_above_the_claim_says_so_with_its_spread_and_what_the_times_show():
    note = claim_note(lab(36.0, (0.010, 0.011, 0.012), (0.0003, 0.0003, 0.00035)), CLAIM, 200,
                      (0.2, 2))
    assert "“快1.5~3倍”" in note  # the lesson's own words, quoted
    assert "Here: 36x (29-40x over the middle half of the calls), above it." in note
    assert "Eager takes 11.00 ms a step for the trace's 200 ops, about 55.0 µs each" in note
    assert "300.0 µs" in note and "busy" not in note


def test_a_speed_up_inside_the_claim_is_said_to_be_within_it():
    note = claim_note(lab(2.0, (0.004, 0.004, 0.004), (0.002, 0.002, 0.002)), CLAIM, 200,
                      (0.1, 2))
    assert "Here: 2x (2-2x over the middle half of the calls), within it." in note
    assert "Eager takes" not in note


def test_a_busy_machine_is_named_with_its_load_and_an_unmeasured_one_is_not_judged():
    busy = claim_note(lab(1.2, (0.004, 0.004, 0.005), (0.003, 0.0033, 0.004)), CLAIM, None,
                      (3.04, 2))
    assert "below it" in busy and "busy (load 3.0 on 2 cores)" in busy
    assert "about" not in busy  # no op count: no per-op figure
    unmeasured = claim_note(RunLab(device="CPU"), CLAIM, 10, None)
    assert unmeasured.endswith("Not measured here: see the Run tab.")


def test_the_training_step_holds_its_measurement_against_the_lessons_1_5_to_3x():
    [step] = [s for s in STEPS if s.claim is not None]
    assert step.function == "train_step_graph" and (step.claim.low, step.claim.high) == (1.5, 3.0)
    assert "1.5~3倍" in step.claim.quote_zh  # as the lesson prints it (seed, line 403)


def test_a_refused_call_quotes_tensorflows_own_message():
    calls = [RetraceCall(1, "x", "traced", True, 1),
             RetraceCall(2, "y", "failed", False, 1, error="call 2 was refused by the "
                         "input_signature: x is int32[1, 2]",
                         tf_message="TypeError: Binding inputs to tf.function failed due to "
                                    "`Can not cast TensorSpec`")]
    said = trace_result(SimpleNamespace(calls=calls))
    assert said.startswith("2 calls: 1 traced, 1 failed; TensorFlow's own message: "
                           "“TypeError: Binding inputs to tf.function failed")
    assert "TensorFlow" not in trace_result(SimpleNamespace(calls=calls[:1]))
