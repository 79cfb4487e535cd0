"""explain leaves the user's state as the call itself would: the user's tf.function cache,
Keras weights, TensorFlow's and AutoGraph's global settings."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import agexplorer
from tests.notebook.live_fixtures import code, code_line  # noqa: F401 - the fixtures


@pytest.fixture(scope="module")
def x(tf):
    return tf.ones([4, 3])


def _weights(model):
    return [w.numpy().copy() for w in model.weights]


def test_the_users_tf_function_is_not_traced(code, tf, x):
    fn = tf.function(code.unrolled)  # a tf.function of the user's, with a trace already
    fn(x)
    traces, before = fn.experimental_get_tracing_count(), fn.pretty_printed_concrete_signatures()
    explained = agexplorer.explain(fn, tf.ones([7]))  # another shape: it would trace
    assert explained.verdicts and explained.verdicts[0].iterations == 5
    assert fn.experimental_get_tracing_count() == traces == 1
    assert fn.pretty_printed_concrete_signatures() == before


def test_reuse_traces_through_the_users_own(code, tf):
    fn = tf.function(code.unrolled)
    explained = agexplorer.explain(fn, tf.ones([2]), reuse=True)
    assert fn.experimental_get_tracing_count() == 1  # its cache keeps the trace...
    assert explained.verdicts[0].iterations == 5 and not explained.notes
    again = agexplorer.explain(fn, tf.ones([2]), reuse=True)  # ...which is not made twice
    assert fn.experimental_get_tracing_count() == 1
    assert again.verdicts[0].iterations == 5 and "already held a trace" in again.notes[0]


def test_a_built_models_weights_stay_as_they_were(code, tf, x):
    model = code.Tiny()
    model(x)
    count, values = len(model.weights), _weights(model)
    # A training call moves BatchNormalization's moving statistics: a trace must not, and
    # run=True puts back what its timed calls moved.
    agexplorer.explain(model, x * 3.0, training=True, run=True)
    assert len(model.weights) == count
    for before, after in zip(values, _weights(model), strict=True):
        np.testing.assert_array_equal(before, after)


def test_an_unbuilt_layer_gets_what_a_call_would_build_and_no_more(code, tf, x):
    called, explained = code.Tiny(), code.Tiny()
    called(x, training=False)
    agexplorer.explain(explained, x, training=True)
    assert explained.built
    assert [(w.name, tuple(w.shape)) for w in explained.weights] == \
        [(w.name, tuple(w.shape)) for w in called.weights]
    moving = [w for w in explained.weights if "moving_mean" in w.path]
    np.testing.assert_array_equal(moving[0].numpy(), np.zeros(4))  # traced, never run


def test_global_settings_are_put_back(code, tf, x, monkeypatch):
    from agexplorer.engine import tf_internals

    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    tracer = sys.gettrace()
    operators = tf_internals.autograph_modules()[0]
    for_stmt = operators.for_stmt
    logger = tf.get_logger()
    saved = (logger.level, tf_internals.autograph_logging(), tf.config.optimizer.get_jit())
    try:
        tf.autograph.set_verbosity(3, alsologtostdout=True)
        logger.setLevel("INFO")
        tf.config.run_functions_eagerly(True)
        tf.config.optimizer.set_jit("autoclustering")
        explained = agexplorer.explain(code.unrolled, x, run=True)
        assert explained.verdicts[0].verdict == "python"  # a graph's, though eager is on
        assert "run_functions_eagerly(True) is on" in explained.notes[0]
        assert tf.config.functions_run_eagerly() is True
        assert tf_internals.autograph_logging() == (3, True)
        assert logger.level == 20
        assert tf.config.optimizer.get_jit() == "autoclustering"
        assert "TF_CPP_MIN_LOG_LEVEL" not in os.environ
        assert operators.for_stmt is for_stmt and sys.gettrace() is tracer
    finally:
        tf.config.run_functions_eagerly(False)
        logger.setLevel(saved[0])
        tf_internals.set_autograph_logging(saved[1])
        tf.config.optimizer.set_jit(saved[2])
