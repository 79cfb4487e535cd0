"""A recorded run's retraces grouped by cause: each group's words and its fix, where one
applies (runlog/causes.py), from the trace records' arguments."""

from __future__ import annotations

from agexplorer.runlog.causes import group_causes, group_fix, group_words


def _trace(number: int, **python: object) -> dict:
    return {"trace": number, "arguments": [
        {"name": name, "kind": "python", "text": f"the Python {type(v).__name__} {v}",
         "python_type": type(v).__name__, "value": repr(v)} for name, v in python.items()]}


def _group(name: str, traces: list[dict]) -> tuple[dict, list[dict]]:
    retraces = [{"trace": t["trace"], "causes": [{"name": name, "change": "value"}]}
                for t in traces[1:]]
    (group,) = group_causes(retraces)
    return group, traces


def test_a_new_python_number_each_time_is_fixed_by_a_tensor():
    group, traces = _group("lr", [_trace(1, lr=0.1), _trace(2, lr=0.05), _trace(3, lr=0.01)])
    assert group_words(group, traces) == "lr: a new Python float each time (0.05 and 0.01)"
    assert group_fix(group, each_trace=traces).startswith("pass lr as a tensor")


def test_a_python_bool_switch_gets_no_fix_and_says_it_is_meant():
    group, traces = _group("training", [_trace(1, training=True), _trace(2, training=False)])
    words = group_words(group, traces)
    assert words == ("training: a new Python bool (False): one trace per value, as a switch "
                     "such as training is meant to trace")
    assert group_fix(group, each_trace=traces) is None
    assert group_fix(group) == ("pass training as a tensor (tf.constant(training)): one trace "
                                "serves every value")  # without the traces, nothing says bool


def test_a_new_python_int_names_the_float_tensor_too():
    """tf.constant of a Python int is an int32 tensor, which fails where the function computes
    with it in floats (a learning-rate warm-up over `epoch`): the fix names both."""
    group, traces = _group("epoch", [_trace(1, epoch=0), _trace(2, epoch=1)])
    assert group_fix(group, each_trace=traces) == (
        "pass epoch as a tensor (tf.constant(epoch), or tf.constant(epoch, tf.float32) where "
        "the function computes with it in floats): one trace serves every value")
    floats, traces = _group("lr", [_trace(1, lr=0.1), _trace(2, lr=0.05)])
    assert "tf.float32" not in group_fix(floats, each_trace=traces)
