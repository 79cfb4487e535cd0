"""The fix for a loop variable that starts as a Python number and becomes a tensor creates
it with the dtype and shape one iteration gave it (a scalar tf.constant fails a staged loop
whose value is a [4, 3] tensor); applied, the staged loop traces."""

from __future__ import annotations

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


_POOLED = """
import tensorflow as tf


@tf.function
def f(x):
    acc = 0.0
    for t in range(3):
        acc = acc + x[t] * 2.0
    return acc
"""
# A Python 0 that an unrolled loop made float32: staged as it is, the int32 0 meets the
# float32 sum and tracing fails.
_SUMMED = _POOLED.replace("acc = 0.0", "acc = 0").replace(" * 2.0", "")


@pytest.mark.tf
@pytest.mark.parametrize(("source", "call", "made"), [
    (_POOLED, "tf.ones([3, 4, 2])", "tf.zeros([4, 2], tf.float32)"),
    (_SUMMED, "tf.ones([3])", "tf.constant(0, tf.float32)"),
])
def test_applied_the_fix_stages_the_loop(report, tmp_path, source, call, made):
    """The loop unrolled, staged (tf.range) as it is fails to trace; started as the fix
    says, the staged loop traces."""
    path = tmp_path / "unrolled.py"
    path.write_text(source)
    [var] = next(s for s in report(f"{path}::f", call).statements
                 if s.kind == "for").loop_vars
    fix = loop_var_fix(var)
    assert fix is not None and made in fix
    start = "acc = 0.0" if "acc = 0.0" in source else "acc = 0"
    for n, new_start in enumerate((start, f"acc = {made}")):
        staged = tmp_path / f"staged_{n}.py"
        staged.write_text(source.replace(start, new_start).replace("range(3)", "tf.range(3)"))
        after = report(f"{staged}::f", call)
        assert (after.error is None) is (n == 1)
        if n == 1:
            assert next(s for s in after.statements if s.kind == "for").verdict == "staged"
