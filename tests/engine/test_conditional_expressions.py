"""Conditional expressions get verdicts as ifs do: staged as tf.cond on a tensor, a branch
taken in Python on a Python value, unreached in a branch Python did not take; each checked
against the graph itself."""

from __future__ import annotations

import importlib.util
import itertools

import pytest

from conftest import fixture

pytestmark = pytest.mark.tf

FILE = fixture("conditional_expressions.py")
CALL = "tf.constant([1.0, 2.0])"


_names = itertools.count()


def load_module(path: str):
    """The file as a fresh module of its own, as Python runs it."""
    spec = importlib.util.spec_from_file_location(f"ifexp_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verdicts(rep) -> dict[int, object]:
    return {v.line: v for v in rep.statements if v.kind == "ifexp"}


def if_ops(concrete) -> list[str]:
    return [op.type for op in concrete.graph.get_operations() if op.type.endswith("If")]


def test_a_tensor_condition_is_staged_and_a_python_one_takes_a_branch(report, tf):
    rep = report(f"{FILE}::choose", CALL)
    found = verdicts(rep)
    assert sorted(found) == [8, 9, 10]
    assert (found[8].verdict, found[8].branch) == ("python", "true")
    assert "`training` was the Python bool True" in found[8].reason
    assert found[9].verdict == "staged" and found[9].graph_op == "StatelessIf"
    assert "staged the expression as tf.cond" in found[9].reason
    assert (found[10].verdict, found[10].branch) == ("python", "true")
    # the graph itself: one conditional op, the staged expression's
    module = load_module(FILE)
    assert if_ops(module.choose.get_concrete_function(tf.constant([1.0, 2.0]))) \
        == ["StatelessIf"]


def test_in_an_unrolled_loop_each_branch_is_counted(report):
    v = verdicts(report(f"{FILE}::in_loop", CALL))[16]
    assert v.verdict == "python" and v.branch is None and v.times == 3
    assert "the true branch 1 time and the false branch 2 times" in v.reason


def test_in_a_branch_python_did_not_take_it_is_unreached(report):
    v = verdicts(report(f"{FILE}::in_branch", CALL))[23]
    assert v.verdict == "unreached"
    assert "true branch of the if at line 22" in v.reason


def test_the_dynamic_shape_fix_applies_and_stages_a_cond(report, tf, tmp_path):
    v = verdicts(report(f"{FILE}::by_size"))[29]
    assert (v.verdict, v.branch) == ("python", "false")  # None == 2, while tracing
    assert "`... if tf.shape(x)[0] == 2 else ...`" in v.hint
    fixed = tmp_path / "fixed.py"
    fixed.write_text(open(FILE).read().replace("if x.shape[0] == 2 else",
                                               "if tf.shape(x)[0] == 2 else"))
    after = verdicts(report(f"{fixed}::by_size"))[29]
    assert after.verdict == "staged"
    concrete = load_module(str(fixed)).by_size.get_concrete_function()
    assert if_ops(concrete) == ["StatelessIf"]
    assert concrete(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert concrete(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 2.0, 3.0]


def test_a_keras_3_layers_are_counted_branch_by_branch_or_not_shown(report):
    """Keras 3 runs a layer's call as plain Python: its conditional expressions are counted
    from a counted copy of its code (a line cannot tell which branch ran); a layer made
    inside a function has no such copy, so its expression gets no verdict rather than a
    made-up one."""
    rep = report(f"{fixture('conditional_expressions_keras.py')}::step", "model, x")
    found = {(f.function, v.line): v for f in rep.reached for v in f.statements
             if v.kind == "ifexp"}
    assert set(found) == {("Noisy.call", 10), ("Noisy.call", 11)}
    assert (found["Noisy.call", 10].verdict, found["Noisy.call", 10].branch) \
        == ("python", "false")  # training=False
    assert found["Noisy.call", 11].branch == "false"  # 3 features, not 4
    assert found["Noisy.call", 10].unconverted == "keras3"
    assert found["Noisy.call", 10].hint is None  # a Python value: nothing to fix
    [inner] = [f for f in rep.reached if f.function == "build"]  # Inner.call's, made in it
    assert "the conditional expression at line 17 ran uncounted: its branches share its " \
        "lines" in inner.note


SIGN = '''\
import keras
import numpy as np
import tensorflow as tf


class Sign(keras.layers.Layer):
    def call(self, x):
        return x if tf.reduce_sum(x) > 0 else -x


inputs = keras.Input((3,))
model = keras.Model(inputs, Sign()(inputs))
x = np.ones((2, 3), "float32")


@tf.function
def step(model, x):
    return model(x)
'''


def test_a_keras_3_layer_that_raises_as_the_module_builds_its_model_is_explained(tmp_path, tf):
    """Keras calls the layer on the functional model's symbolic inputs as the module loads,
    with no tf.function: TensorFlow's text holds no frames, the traceback does. The note says
    why and the fix, and the fix (tf.where) builds the model."""
    from agexplorer.engine.load import load_target

    path = tmp_path / "sign.py"
    path.write_text(SIGN)
    loaded = load_target(f"{path}::Sign.call", require_args=False)
    assert ("Keras 3 runs Sign.call without AutoGraph, so `return x if tf.reduce_sum(x) > 0 "
            "else -x` (sign.py:8) asked a tensor for a Python bool") in loaded.load_note
    assert "tf.where, tf.cond or keras.ops.cond" in loaded.load_note
    path.write_text(SIGN.replace("x if tf.reduce_sum(x) > 0 else -x",
                                 "tf.where(tf.reduce_sum(x) > 0, x, -x)"))
    fixed = load_target(f"{path}::step", call="model, x")
    assert fixed.load_note is None
    assert fixed.tf_function(tf)(*fixed.args).numpy().tolist() == [[1.0] * 3] * 2


def test_in_a_function_autograph_refused_an_uncounted_expression_is_said(report):
    rep = report(f"{FILE}::refused", CALL)
    assert [v.kind for v in rep.statements] == ["for"]  # counted by lines: no branch known
    assert ("The conditional expression at line 35 ran uncounted: its branches share its "
            "lines, and this run counts lines") in rep.conversion_note
