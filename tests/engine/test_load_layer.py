"""`report FILE::Layer.call --call ARGS`: the layer is built (called once) before its call
is traced, so weights made in build() exist and the call's loop is counted."""

from __future__ import annotations

import pytest

from agexplorer.model.errors import AgxError
from conftest import fixture

POOL = fixture("doctor_tree/pool_layer.py")


def _line(snippet: str) -> int:
    with open(POOL, encoding="utf-8") as fh:
        [line] = [i for i, text in enumerate(fh.read().splitlines(), 1) if snippet in text]
    return line


def test_unbuilt_layer_call_is_built_then_traced(report):
    rep = report(f"{POOL}::AttentionPool.call", "tf.zeros([4, 20, 8])")
    assert rep.error is None and rep.inventory is not None
    [loop] = [v for v in rep.statements if v.kind == "for"]
    assert (loop.line, loop.verdict, loop.iterations) == (_line("for t in range("), "python", 20)
    body = _line("scores.append(")
    made = sum(1 for op in rep.inventory.ops if op.line == body)
    assert made >= 20  # one matmul (and its slice) per unrolled step


def test_arguments_the_layer_cannot_take_are_one_sentence(tf):
    from agexplorer.engine.load import load_target

    with pytest.raises(AgxError) as raised:
        load_target(f"{POOL}::AttentionPool.call", "tf.zeros([4])")
    assert raised.value.kind == "build-failed" and raised.value.exit_code == 1
    assert "building AttentionPool" in raised.value.message
    assert "\n" not in raised.value.message


def test_init_builds_the_instance_with_its_arguments(tf):
    from agexplorer.engine.load import load_target

    loaded = load_target(f"{POOL}::GatedSum.call", "tf.ones([2, 3])", init="steps=4")
    layer = loaded.bound.__self__
    assert layer.steps == 4 and layer.built and layer.gate.shape == (3,)


@pytest.mark.parametrize(("target", "init", "kind", "words"), [
    ("GatedSum.call", "steps=", "bad-call", '--init "steps="'),
    ("GatedSum.call", "1, 2", "no-instance", "GatedSum(1, 2) raised TypeError"),
    ("pooled", "steps=2", "bad-arguments", "pooled is not a method"),
])
def test_bad_init_is_one_sentence(tf, target, init, kind, words):
    from agexplorer.engine.load import load_target

    with pytest.raises(AgxError) as raised:
        load_target(f"{POOL}::{target}", "tf.ones([2, 3])", init=init)
    assert raised.value.kind == kind and words in raised.value.message
    assert "\n" not in raised.value.message


@pytest.mark.parametrize(("target", "record"), [("Scale.call", True), ("Plain.scaled", False)])
def test_a_layer_made_only_inside_the_model_points_to_record(tf, target, record):
    """A Keras layer the file makes only inside its model (`Sequential([..., Scale(2.0)])`)
    and that cannot be made without arguments: the advice names `agexplorer record` (Keras
    calls it in the program's fit and predict), and the file's line that makes it; a plain
    class made the same way is not called by Keras: --init alone."""
    from agexplorer.engine.load import load_target

    path = fixture("layer_in_model.py")
    with open(path, encoding="utf-8") as fh:
        text = fh.read().splitlines()
    made = next(i for i, t in enumerate(text, 1) if f"{target.split('.')[0]}(" in t
                and "class " not in t)
    with pytest.raises(AgxError) as raised:
        load_target(f"{path}::{target}", "tf.ones([1, 2])")
    assert raised.value.kind == "no-instance"
    advice = raised.value.advice
    assert ("`agexplorer record layer_in_model.py`" in advice) == record
    assert (f"makes one at line {made}" in advice) == record
    assert "--init" in advice


def test_an_unbuilt_layer_is_built_with_training_given_by_name(report):
    """A recorded Keras call gives ``training`` by position (``Noisy.call(x, True)``);
    Keras 3's ``Layer.__call__`` takes only the inputs so ("Only input tensors may be passed
    as positional arguments"): the layer is built with the others by name, then traced."""
    rep = report(f"{fixture('layer_in_model.py')}::Noisy.call", "tf.ones([2, 4]), True")
    assert rep.error is None
    [branch] = [s for s in rep.statements if s.kind == "if"]
    assert branch.verdict == "python" and "took the true branch" in branch.reason


@pytest.mark.parametrize(("target", "record"), [("Net.call", True), ("Plain.scaled", False)])
def test_a_model_keras_calls_points_to_record_for_its_inputs(tf, target, record):
    """A Keras model's ``call`` needs the inputs Keras gives it (``fit``): the file makes
    the model (in its ``__main__`` block), so ``agexplorer record`` gets them; a plain
    class made the same way gets --call alone."""
    from agexplorer.engine.load import load_target

    path = fixture("keras_model_in_main.py")
    with open(path, encoding="utf-8") as fh:
        text = fh.read().splitlines()
    name = target.split(".")[0]
    made = next(i for i, t in enumerate(text, 1) if f"{name}()" in t)
    with pytest.raises(AgxError) as raised:
        load_target(f"{path}::{target}", None)
    assert raised.value.kind == "needs-arguments"
    advice = raised.value.advice
    assert ("`agexplorer record keras_model_in_main.py`" in advice) == record
    assert (f"makes a {name} at line {made}" in advice) == record
    assert "--call" in advice
