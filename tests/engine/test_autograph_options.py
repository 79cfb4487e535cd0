"""A tf.function made with optional AutoGraph features (``experimental_autograph_options``)
is converted and traced with them, as TensorFlow does it: an ``assert`` on a tensor then
becomes a graph op instead of failing the trace."""

from __future__ import annotations

import pytest

SOURCE = '''\
import tensorflow as tf


def positive(x):
    assert x > 0, "x must be positive"
    return tf.sqrt(x)


checked = tf.function(
    positive, experimental_autograph_options=tf.autograph.experimental.Feature.ASSERT_STATEMENTS)
plain = tf.function(positive)

AGX_CALLS = {"checked": "tf.constant(4.0)", "plain": "tf.constant(4.0)"}
AGX_RETRACE = {"checked": ["tf.constant(4.0)", "tf.constant(9.0)"]}
'''


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "checked.py"
    path.write_text(SOURCE)
    return path


def test_the_function_s_own_autograph_features_convert_and_trace_it(module, tf):
    from agexplorer.engine.pipeline import build_report

    report = build_report(f"{module}::checked", None)
    assert report.error is None
    assert "assert_stmt" in report.conversion.code  # converted as the user's tf.function does
    assert report.inventory.by_line(str(module)).get(5, 0) > 0  # the check is in the graph
    plain = build_report(f"{module}::plain", None)  # the same function without them fails
    assert plain.error is not None and "as a Python `bool` is not allowed" in plain.error.raised


def test_the_run_lab_and_retrace_use_them_too(module, tf):
    from agexplorer.lab.runs import run_lab
    from agexplorer.retrace.explain import explain_retraces

    lab = run_lab(f"{module}::checked", budget=0.2)
    assert all(run.ok for run in lab.runs.values()), {m: r.error for m, r in lab.runs.items()}
    retrace = explain_retraces(f"{module}::checked")
    assert "experimental_autograph_options=tf.autograph.experimental.Feature.ASSERT_STATEMENTS" \
        in retrace.settings
