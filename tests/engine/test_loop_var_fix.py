"""The fix for a loop variable that starts as a Python number and becomes a tensor creates
it with the dtype and shape one iteration gave it (a scalar tf.constant fails a staged loop
whose value is a [4, 3] tensor); applied, the staged loop traces."""

from __future__ import annotations

import textwrap

import pytest

from agexplorer.model.loopvars import LoopVar, VarState, loop_var_fix


def became(start: str, python_type: str, dtype: str, shape) -> LoopVar:
    return LoopVar("acc", VarState(python_type=python_type, value=start),
                   VarState(dtype=dtype, shape=shape), changed=True)


@pytest.mark.parametrize(("var", "made"), [
    (became("0.0", "float", "float32", (4, 3)), "tf.zeros([4, 3], tf.float32)"),
    (became("1", "int", "int32", (2,)), "tf.fill([2], tf.constant(1, tf.int32))"),
    (became("0", "int", "int32", ()), "tf.constant(0, tf.int32)"),
    (became("0.0", "float", "float32", (None, 3)),
     "tf.zeros(SHAPE, tf.float32), SHAPE being [None, 3] with each None from an input's "
     "tf.shape"),
    (became("[]", "list", "float32", ()), "tf.constant(..., tf.float32)"),
])
def test_the_fix_creates_the_value_one_iteration_gave(var, made):
    assert loop_var_fix(var) == (f"make acc a {var.after.text()} tensor before the loop "
                                 f"({made}), so every iteration carries the same kind of value.")


@pytest.mark.tf
def test_applied_the_fix_stages_the_loop(report, tmp_path):
    source = textwrap.dedent('''
        import tensorflow as tf


        @tf.function
        def pooled(x):
            acc = 0.0
            for t in range(3):
                acc = acc + x[t] * 2.0
            return acc
    ''')
    path = tmp_path / "pooled.py"
    path.write_text(source)
    rep = report(f"{path}::pooled", "tf.ones([3, 4, 2])")
    [var] = next(s for s in rep.statements if s.kind == "for").loop_vars
    fix = loop_var_fix(var)
    assert fix is not None and "tf.zeros([4, 2], tf.float32)" in fix
    staged = source.replace("acc = 0.0", "acc = tf.zeros([4, 2], tf.float32)") \
        .replace("range(3)", "tf.range(3)")
    fixed = tmp_path / "pooled_fixed.py"
    fixed.write_text(staged)
    after = report(f"{fixed}::pooled", "tf.ones([3, 4, 2])")
    assert after.error is None
    assert next(s for s in after.statements if s.kind == "for").verdict == "staged"
