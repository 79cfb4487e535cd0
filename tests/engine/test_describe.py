"""Plain-words value descriptions."""

import collections

import numpy as np

from agexplorer.engine.describe import describe
from agexplorer.model.values import Described


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


def test_kinds_come_beside_the_words():
    """Readers branch on the kind; the words are made from it in one place."""
    from agexplorer.engine.describe import classify

    assert classify(4) == Described("python-int", "the Python int 4", "4")
    assert classify(True).kind == "python-bool" and classify(True).literal == "True"
    assert classify(0.5).literal == "0.5"
    assert classify("range(").kind == "python-str"  # words that look like a range are no range
    assert classify(range(1, 9, 2)).kind == "range"
    assert [classify(v).kind for v in ([1], (1,), {1: 2}, {1}, None)] == \
        ["list", "tuple", "dict", "set", "none"]
    # A subclass is named by its own type, so no hint treats it as a plain container.
    assert classify(collections.OrderedDict(a=1)) == \
        Described("other", "a Python OrderedDict of 1 item")
    assert classify(np.zeros(2)).kind == "numpy"
    assert classify(object()).kind == "other"


def test_tensor_kinds(tf):
    from agexplorer.engine.describe import classify

    assert classify(tf.constant(1)).kind == "eager-tensor"
    assert classify(tf.Variable(1.0)).kind == "variable"
    assert classify(tf.data.Dataset.range(3)).kind == "dataset"
