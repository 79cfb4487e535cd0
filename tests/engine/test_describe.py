"""Plain-words value descriptions."""

import numpy as np

from agexplorer.engine.describe import describe


def test_python_values():
    assert describe(4) == "the Python int 4"
    assert describe(True) == "the Python bool True"
    assert describe(2.5) == "the Python float 2.5"
    assert describe(range(4)) == "range(4)"
    assert describe(range(1, 9, 2)) == "range(1, 9, 2)"
    assert describe([1, 2, 3]) == "a Python list of 3 items"
    assert describe(None) == "None"


def test_numpy_values():
    assert describe(np.zeros((2, 3), np.float32)) == "a NumPy ndarray (float32[2, 3])"


def test_tensors(tf):
    assert describe(tf.constant([1, 2])) == "an eager tensor captured from outside (int32[2])"
    assert describe(tf.Variable(1.0)) == "a tf.Variable (float32[])"
