"""Plain-words value descriptions."""

import collections

import numpy as np

from agexplorer.engine.describe import describe
from agexplorer.model.values import Described


def test_python_values():
    assert describe(4) == "the Python int 4"
    assert describe(True) == "the Python bool True"
    assert describe(2.5) == "the Python float 2.5"
    assert describe(1.0) == "the Python float 1.0"  # not "1", which reads as an int
    assert describe(-3.0) == "the Python float -3.0"
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
    # A subclass is named by its own type, so no hint treats it as a plain container; what
    # it holds is still said (Keras's TrackedList of layers: unrolling is the point).
    assert classify(collections.OrderedDict(a=1)) == \
        Described("other", "a Python OrderedDict of 1 item", items="python-int", stackable=True)
    assert classify(np.zeros(2)).kind == "numpy"
    assert classify(object()).kind == "other"


def test_tensor_kinds(tf):
    from agexplorer.engine.describe import classify

    assert classify(tf.constant(1)).kind == "eager-tensor"
    assert classify(tf.Variable(1.0)).kind == "variable"
    assert classify(tf.data.Dataset.range(3)).kind == "dataset"


def test_composite_tensors_and_data_are_named_as_such(tf):
    from agexplorer.engine.describe import classify

    ragged = classify(tf.ragged.constant([[1, 2], [3]]))
    assert ragged == Described("ragged-tensor", "a tf.RaggedTensor (int32[2, None])")
    sparse = classify(tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 3]))
    assert sparse == Described("sparse-tensor", "a tf.SparseTensor (float32[2, 3])")
    assert classify(iter(tf.data.Dataset.range(3))) == \
        Described("dataset-iterator", "a tf.data iterator")
    assert classify(tf.TensorArray(tf.float32, size=2)) == \
        Described("tensor-array", "a tf.TensorArray (float32)")


def test_composite_tensors_inside_a_trace_are_graph_tensors(tf):
    """While tracing they are what the doctor's tensor checks look for, like a plain tensor."""
    from agexplorer.engine.describe import classify
    from agexplorer.model.values import GRAPH_TENSORS

    seen = {}

    @tf.function
    def f(r, s):
        seen["r"], seen["s"] = classify(r), classify(s)
        return r.flat_values

    f(tf.ragged.constant([[1, 2], [3]]), tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 3]))
    assert seen["r"] == Described("ragged-tensor", "a tf.RaggedTensor (int32[2, None])")
    assert seen["s"].kind == "sparse-tensor" and seen["s"].text.startswith("a tf.SparseTensor")
    assert {seen["r"].kind, seen["s"].kind} <= GRAPH_TENSORS


def test_only_tensorflows_datasets_are_datasets():
    from agexplorer.engine.describe import classify

    class ImageDataset:
        pass

    assert classify(ImageDataset()) == Described("other", "a Python ImageDataset")
