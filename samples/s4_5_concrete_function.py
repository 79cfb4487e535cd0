"""Lesson 8, section 4.5: inside the graph with ``get_concrete_function``.

The explorer should make visible: the concrete function's graph (GraphDef) as ops.
"""

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf


def add_func(a, b):
    return a + b


AGX_CALLS = {
    "add_func": "tf.constant([1., 2.]), tf.constant([3., 4.])",
}

if __name__ == "__main__":
    # Get the concrete graph function (ConcreteFunction).
    concrete = tf.function(add_func).get_concrete_function(
        tf.TensorSpec(shape=[None], dtype=tf.float32),
        tf.TensorSpec(shape=[None], dtype=tf.float32),
    )
    print(concrete(tf.constant([1., 2.]), tf.constant([3., 4.])))

    # Look at the graph structure.
    print(concrete.graph.as_graph_def())
