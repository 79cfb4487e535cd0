"""A tensor asked for a Python bool in a function AutoGraph did not convert (the code that
called it runs it as written): the report says why, in the user's words, and the fix it
gives is applied here and traced."""

from __future__ import annotations

import pytest

from conftest import fixture

pytestmark = pytest.mark.tf



@pytest.fixture
def cases(tmp_path):
    """A copy of tests/fixtures/unconverted.py (a fix is applied to a copy of it)."""
    path = tmp_path / "unconverted_cases.py"
    path.write_text(open(fixture("unconverted.py"), encoding="utf-8").read())
    return path


def line_of(path, text: str) -> int:
    return path.read_text().splitlines().index(text) + 1


def test_a_helper_a_library_ran_as_written_is_named_with_the_call_and_a_fix_that_traces(
        report, cases):
    from agexplorer.engine.pipeline import build_report

    error = report(f"{cases}::normalize").error
    bool_line = line_of(cases, "    if tf.reduce_max(row) > 1.0:")
    call_line = line_of(cases, "    return tf.vectorized_map(clip_row, m)")
    assert error is not None and error.line == bool_line
    assert error.what.endswith("raised OperatorNotAllowedInGraphError: Using a symbolic "
                               "`tf.Tensor` as a Python `bool` is not allowed")
    assert "decorate this function" not in error.message  # TensorFlow's advice, wrong here
    assert error.advice == (
        "clip_row ran as plain Python while tracing: AutoGraph did not convert it, because "
        f"`return tf.vectorized_map(clip_row, m)` (unconverted_cases.py:{call_line}) handed it "
        "to code that calls it as written, so `if tf.reduce_max(row) > 1.0:` "
        f"(unconverted_cases.py:{bool_line}) asked a tensor for a Python bool. Fix: write the "
        "condition "
        "with tensor ops (tf.where(cond, a, b), or tf.cond), or hand that code AutoGraph's "
        "version of the function, tf.autograph.to_graph(clip_row).")
    fixed = cases.with_name("unconverted_fixed.py")
    fixed.write_text(cases.read_text().replace(
        "tf.vectorized_map(clip_row, m)", "tf.vectorized_map(tf.autograph.to_graph(clip_row), m)"))
    assert build_report(f"{fixed}::normalize").error is None  # the fix, applied, traces


def test_a_keras_3_layer_inside_a_model_is_said_to_run_without_autograph(report, cases):
    error = report(f"{cases}::Net.call").error
    line = line_of(cases, "        if tf.reduce_sum(x) > 0:")
    assert error is not None and error.line == line
    assert error.advice.startswith("Keras 3 runs Gate.call without AutoGraph, so `if "
                                   f"tf.reduce_sum(x) > 0:` (unconverted_cases.py:{line}) asked a "
                                   "tensor for a Python bool while tracing: write the "
                                   "condition with tensor ops")


OFF = '''import tensorflow as tf


@tf.function(autograph=False)
def gated(x):
    if tf.reduce_sum(x) > 0:
        return x
    return -x


@tf.function(autograph=False)
def doubled(x, n):
    for _ in range(n):
        x = x * 2.0
    return x


AGX_CALLS = {"gated": "tf.ones([2])", "doubled": "tf.ones([2]), tf.constant(3)"}
'''


def test_a_tf_function_with_autograph_off_is_traced_as_written_and_its_fix_applies(
        tmp_path):
    # As the user's calls trace it: AutoGraph converts nothing (the report said "staged
    # StatelessIf" for an if that raises in every real call).
    from agexplorer.engine.convert import AUTOGRAPH_OFF_FIX
    from agexplorer.engine.pipeline import build_report

    path = tmp_path / "autograph_off.py"
    path.write_text(OFF)
    report = build_report(f"{path}::gated")
    assert report.conversion is None and "autograph=False" in report.conversion_note
    (branch,) = report.statements
    assert (branch.verdict, branch.branch, branch.hint) == ("python", None, AUTOGRAPH_OFF_FIX)
    assert report.error is not None and "has autograph=False" in report.error.message
    assert any("Using a symbolic `tf.Tensor` as a Python `bool` is not allowed" in d
               and "decorate this function" not in d for d in report.error.details)
    loop = build_report(f"{path}::doubled")
    assert loop.error is not None  # `for _ in range(n)` over a tensor n: it raises as written
    # The fix, applied: AutoGraph converts them, the if a tf.cond, the loop a tf.while_loop.
    path.write_text(OFF.replace("@tf.function(autograph=False)", "@tf.function"))
    fixed = build_report(f"{path}::gated")
    assert fixed.error is None and fixed.statements[0].verdict == "staged"
    fixed = build_report(f"{path}::doubled")
    assert fixed.error is None and fixed.statements[0].verdict == "staged"
