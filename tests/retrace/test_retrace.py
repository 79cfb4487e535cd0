"""The retrace explainer: traced or reused per call, why, what ran while tracing, and the replays."""

import pickle

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.retrace.explain import explain_retraces
from conftest import fixture, sample

CASES = fixture("retrace_cases.py")


def explain(name: str, calls: list[str] | None = None):
    return explain_retraces(f"{CASES}::{name}", calls)


def outcomes(report) -> list[str]:
    return [c.outcome for c in report.calls]


def test_a_new_dtype_names_the_argument_and_both_dtypes(tf):
    report = explain("plain_square", ["tf.constant([1.0, 2.0])", "tf.constant([1.0, 2.0], "
                                      "dtype=tf.float64)"])
    assert outcomes(report) == ["traced", "traced"]
    second = report.calls[1]
    assert second.differs == ["x"] and second.closest == 1
    assert "x: now float64[2], before float32[2]" in second.reason
    assert "dtype" in second.reason
    assert report.signatures == ["plain_square(x: float32[2])", "plain_square(x: float64[2])"]


def test_a_new_rank_points_to_an_unknown_rank_not_a_none_dimension(tf):
    """[4] then [2, 2]: no None dimension holds both shapes; an unknown rank does, and the
    replay with the suggested signature (shape=None) shares one trace."""
    report = explain("plain_square", ["tf.ones([4])", "tf.ones([2, 2])"])
    reason = report.calls[1].reason
    assert "x: now float32[2, 2], before float32[4] (call 1): a new rank needs a new trace; " \
        "an input_signature of unknown rank (tf.TensorSpec(shape=None))" in reason
    assert "a None dimension" not in reason
    same = explain("plain_square", ["tf.ones([4])", "tf.ones([3])"]).calls[1].reason
    assert "a None dimension in input_signature" in same


def test_a_new_python_value_names_the_parameter_and_says_it_is_baked_in(tf):
    report = explain("scale", ["tf.constant(1.0), 2", "tf.constant(1.0), 3"])
    reason = report.calls[1].reason
    assert report.calls[1].differs == ["n"]
    assert reason.startswith("n: now the Python int 3, before 2")
    assert "baked into the trace" in reason
    assert report.calls[0].reason == "first call"


def test_an_equal_python_value_of_another_type_reuses_the_trace_and_says_why(tf):
    """3.0 after 3: tf.function tells Python values apart by equality, so it reuses call 1's
    trace; that is the reason given (a relaxed trace, reduce_retracing's, was named before,
    for a function made without it)."""
    report = explain("scale", ["tf.constant(1.0), 3", "tf.constant(1.0), 3.0"])
    assert outcomes(report) == ["traced", "reused"]
    second = report.calls[1]
    assert second.same_as == 1
    assert second.reused_because.startswith("its Python values equal those of call 1 "
                                            "(3.0 == 3)")
    assert "reduce_retracing" not in second.reused_because


def test_a_python_bool_switch_is_said_to_trace_once_per_value_as_meant(tf):
    """``training``-style flags: two traces in all, each with its branch; no advice to pass a
    tensor as the only way, as for a number that changes with every call."""
    report = explain("scale", ["tf.constant(1.0), True", "tf.constant(1.0), False"])
    reason = report.calls[1].reason
    assert reason.startswith("n: now the Python bool False, before True (call 1)")
    assert "fine for a switch such as training" in reason
    assert "pass a tensor to reuse one trace" not in reason


def test_the_same_call_again_reuses_the_trace(tf):
    report = explain("scale", ["tf.constant([1.0]), 2", "tf.constant([5.0]), 2"])
    assert [c.traced for c in report.calls] == [True, False]
    assert report.calls[1].reason is None and report.calls[1].same_as == 1
    assert report.tracing_count == 1


def test_the_closest_earlier_trace_is_the_one_with_fewest_differences(tf):
    report = explain("scale", ["tf.constant([1.0]), 2", "tf.constant([1, 2]), 5",
                               "tf.constant([1.0]), 3"])
    third = report.calls[2]
    assert third.traced and third.closest == 1 and third.differs == ["n"]


def test_print_text_appears_only_on_traced_calls(tf):
    report = explain("scale", ["tf.constant(1.0), 2", "tf.constant(4.0), 2",
                               "tf.constant(1.0), 3"])
    assert [c.printed for c in report.calls] == ["tracing scale\n", "", "tracing scale\n"]
    assert any("calls 1 and 3 only" in f and "reused call 2" in f for f in report.findings)


def test_tf_print_on_every_call_is_told_apart_from_python_print(tf):
    report = explain("loud", ["tf.constant(1)", "tf.constant(2)"])
    assert outcomes(report) == ["traced", "reused"]
    assert all("every call" in c.logged for c in report.calls)
    assert all(c.printed == "" for c in report.calls)


def test_a_global_counter_moves_only_on_the_tracing_call(tf):
    report = explain("count_calls", ["tf.constant(1)", "tf.constant(2)", "tf.constant(3)"])
    assert outcomes(report) == ["traced", "reused", "reused"]
    first, *rest = report.calls
    texts = [e.text for e in first.effects]
    assert "global calls_seen: 0 → 1" in texts
    assert "global history (list): 0 → 1 items" in texts
    assert all(e.during == "traced" for e in first.effects)
    assert all(c.effects == [] for c in rest)
    assert any(f.startswith("global calls_seen changed on call 1, while tracing")
               for f in report.findings)


def test_a_nonlocal_counter_is_seen_through_the_closure(tf):
    report = explain("counted", ["tf.constant(1)", "tf.constant(2)", "tf.constant(1.5)"])
    assert [[e.text for e in c.effects] for c in report.calls] == [
        ["nonlocal hits: 0 → 1"], [], ["nonlocal hits: 1 → 2"]]


def test_randomness_drawn_while_tracing_is_detected(tf):
    report = explain("noisy", ["tf.constant(1.0)", "tf.constant(2.0)"])
    kinds = {e.kind for e in report.calls[0].effects}
    assert kinds == {"random", "numpy-random"}
    assert report.calls[1].effects == []
    assert any("baked into the graph as a constant" in f for f in report.findings)


def test_a_call_that_raises_is_reported_and_the_next_call_still_runs(tf):
    report = explain("picky", ["tf.constant([1, 2])", "tf.constant([1, 2, 3])",
                               "tf.constant([1, 2, 3, 4])"])
    assert outcomes(report) == ["traced", "failed", "traced"]
    failed = report.calls[1]
    assert "ValueError: three is not allowed" in failed.error
    assert failed.error_line is not None and f"{CASES}:{failed.error_line}" in failed.error
    assert report.calls[2].reason.startswith("x: now int32[4], before int32[2] (call 1)")


def test_reduce_retracing_replay_traces_fewer_times_on_shape_changes(tf):
    report = explain("plain_square", ["tf.constant([1.0])", "tf.constant([1.0, 2.0])",
                                      "tf.constant([1.0, 2.0, 3.0])"])
    assert report.tracing_count == 3
    replay = report.replays["reduce_retracing"]
    assert replay.applied and replay.code == "reduce_retracing=True"
    assert replay.tracing_count == 2
    assert [c.traced for c in replay.calls] == [True, True, False]
    assert replay.signatures[-1] == "plain_square(x: float32[None])"


def test_no_fewer_traces_says_why_from_what_the_calls_changed(tf):
    """Two shapes: reduce_retracing's relaxed trace comes at the second, so it saves none
    yet (not "the calls differ in a dtype", which would name a cause they do not have); a
    dtype change is one reduce_retracing never relaxes."""
    shapes = explain("plain_square", ["tf.constant([1.0])", "tf.constant([1.0, 2.0])"])
    note = shapes.replays["reduce_retracing"].note
    assert shapes.replays["reduce_retracing"].tracing_count == 2
    assert "differ only in shapes" in note and "dtype" not in note
    dtypes = explain("plain_square", ["tf.constant([1.0])",
                                      "tf.constant([1.0], dtype=tf.float64)"])
    assert "never a dtype or a Python value" in dtypes.replays["reduce_retracing"].note


def test_input_signature_replay_traces_once_and_reports_the_refused_dtype(tf):
    report = explain("plain_square", ["tf.constant([1.0])", "tf.constant([1.0, 2.0])",
                                      "tf.constant([1.0, 2.0], dtype=tf.float64)"])
    replay = report.replays["input_signature"]
    assert replay.code == "input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)]"
    assert replay.tracing_count == 1
    assert [c.outcome for c in replay.calls] == ["traced", "reused", "failed"]
    assert "refused by the input_signature: x is float64[2]" in replay.calls[2].error
    assert "float32[None] only" in replay.calls[2].error


def test_derived_signature_keeps_constant_dimensions_and_turns_python_numbers_into_scalars(tf):
    report = explain("shift", ["tf.ones([2, 3]), 2", "tf.ones([5, 3]), 4"])
    replay = report.replays["input_signature"]
    assert replay.code == ("input_signature=[tf.TensorSpec(shape=[None, 3], dtype=tf.float32), "
                           "tf.TensorSpec(shape=[], dtype=tf.int32)]")
    assert replay.tracing_count == 1 and report.tracing_count == 2
    assert "the Python numbers passed for n become scalar tensors" in replay.note


def test_a_replay_that_fails_while_tracing_says_so(tf):
    # x * n works with a Python int n, not with the int32 tensor the signature makes of it
    report = explain("scale", ["tf.ones([2]), 2", "tf.ones([3]), 4"])
    replay = report.replays["input_signature"]
    assert replay.applied and replay.tracing_count == 0
    assert [c.outcome for c in replay.calls] == ["failed", "failed"]
    assert "TypeError" in replay.calls[0].error and "call 1, scale(" in replay.calls[0].error


def test_input_signature_does_not_apply_to_keyword_only_parameters(tf):
    report = explain("with_options", ["tf.constant(1)", "tf.constant(2), scale=3"])
    replay = report.replays["input_signature"]
    assert not replay.applied and "scale is keyword-only" in replay.note
    assert report.calls[1].differs == ["scale"]


def test_the_users_own_settings_are_kept_and_the_same_replay_skipped(tf):
    report = explain("fixed", ["tf.constant([1.0])", "tf.constant([1.0, 2.0])",
                               "tf.constant([1, 2])"])
    assert outcomes(report) == ["traced", "reused", "failed"]
    assert "refused by the input_signature: x is int32[2]" in report.calls[2].error
    # TensorFlow's own message kept as raised, to quote beside the plain words.
    assert report.calls[2].tf_message.startswith("TypeError: Binding inputs to tf.function")
    assert report.calls[0].tf_message is None
    assert report.settings == "tf.function(input_signature=[tf.TensorSpec(shape=[None], " \
                              "dtype=tf.float32)])"
    assert not report.replays["input_signature"].applied
    assert not report.replays["reduce_retracing"].applied
    relaxed = explain("relaxed", ["tf.constant([1.0])", "tf.constant([1.0, 2.0])",
                                  "tf.constant([1.0, 2.0, 3.0])"])
    assert relaxed.tracing_count == 2  # reduce_retracing=True honoured
    assert "already has reduce_retracing=True" in relaxed.replays["reduce_retracing"].note
    # The second call's trace is the relaxed one: said so, not "reduce_retracing=True lets
    # one trace serve both" (it is on already).
    reason = relaxed.calls[1].reason
    assert "reduce_retracing made this one for float32[None], which later calls of other " \
        "sizes reuse" in reason and "reduce_retracing=True" not in reason
    assert relaxed.calls[2].outcome == "reused"


def test_a_relaxed_trace_is_named_for_a_tensor_inside_a_tuple_too(tf):
    # (features, labels) in one tuple: tracing compares batch[0] and batch[1] one by one,
    # and the second call's trace is the relaxed one for batch[0]. It read "a None dimension
    # in input_signature, or reduce_retracing=True, lets one trace serve both".
    report = explain("relaxed_pair", ["(tf.ones([2]), tf.constant(1))",
                                      "(tf.ones([3]), tf.constant(1))",
                                      "(tf.ones([4]), tf.constant(1))"])
    assert outcomes(report) == ["traced", "traced", "reused"]
    reason = report.calls[1].reason
    assert reason.startswith("batch[0]: now float32[3], before float32[2] (call 1): a new "
                             "shape needs a new trace; reduce_retracing made this one for "
                             "float32[None], which later calls of other sizes reuse")


def test_samples_sequences_and_the_lessons_counter(tf):
    report = explain_retraces(f"{sample('s6_2_bad_loop.py')}::bad_loop", None)
    assert report.calls_origin == "AGX_RETRACE"
    assert [c.call for c in report.calls] == ["2", "3", "3", "tf.constant(4)"]
    assert outcomes(report) == ["traced", "traced", "reused", "traced"]
    assert report.replays["input_signature"].tracing_count == 1
    pitfall = explain_retraces(f"{sample('s4_7_pitfalls.py')}::increment", None)
    assert [[e.text for e in c.effects] for c in pitfall.calls] == [
        ["global counter: 0 → 1"], [], []]
    assert "nothing to relax" in pitfall.replays["reduce_retracing"].note


def test_one_ready_call_says_how_to_pass_more(tf):
    report = explain_retraces(f"{sample('s6_2_bad_loop.py')}::range_loop", None)
    assert report.calls_origin == "AGX_CALLS" and [c.call for c in report.calls] == ["5"]
    assert any("one call cannot show a retrace" in n and "--call" in n for n in report.notes)


def test_no_calls_at_all_is_one_sentence(tf):
    with pytest.raises(AgxError) as info:
        explain("plain_square", None)
    assert info.value.kind == "needs-arguments" and "--call" in info.value.message
    assert "\n" not in info.value.message and info.value.message.endswith(".")


def test_the_report_pickles_and_has_the_json_keys(tf):
    report = explain("scale", ["tf.constant(1.0), 2", "tf.constant(1.0), 3"])
    data = pickle.loads(pickle.dumps(report)).to_dict()
    assert set(data) >= {"target", "calls", "tracing_count", "signatures", "replays"}
    assert set(data["calls"][0]) >= {"call", "traced", "reason", "arguments", "printed",
                                     "effects", "error"}
    assert data["calls"][0]["arguments"]["n"]["text"] == "the Python int 2"
    assert set(data["replays"]) == {"reduce_retracing", "input_signature"}


def test_the_worker_explains_an_unsaved_buffer_under_the_files_own_name(tf, tmp_path):
    from agexplorer.worker.protocol import RetraceRequest
    from agexplorer.worker.server import Context, LastReport, handle_retrace

    path = tmp_path / "buffer.py"
    path.write_text("import tensorflow as tf\n\ndef f(x):\n    return x\n")
    source = ("import tensorflow as tf\n\ndef f(x):\n    if x.dtype == tf.float32:\n"
              "        raise ValueError('no floats')\n    return x\n")
    report = handle_retrace(RetraceRequest(target=f"{path}::f", source=source,
                                           calls=("tf.constant([1])", "tf.constant([1.0])")),
                            Context(lambda phase: None, LastReport()))
    assert report.file == str(path)
    assert report.calls[1].error.startswith(f"{path}:5: call 2")
    assert report.replays["reduce_retracing"].calls[1].error.startswith(f"{path}:5:")
