"""Lesson 8, section 4.2: basic @tf.function usage and tracing.

The explorer should make visible: the Python ``print`` in ``show_trace`` runs only
while tracing; a new input dtype (int -> float) triggers a retrace.
"""

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf


@tf.function
def simple_func(x):
    return x ** 2 + 2 * x + 1


# Observe how many times the function is traced.
@tf.function
def show_trace(x):
    print("Tracing! (Python print)")  # runs only once, while tracing
    return x + 1


AGX_CALLS = {
    "simple_func": "tf.constant(3.0)",
    "show_trace": "tf.constant(1)",
}

if __name__ == "__main__":
    # First call: trace and build the graph.
    print(simple_func(tf.constant(3.0)))
    print(simple_func(tf.constant(4.0)))  # graph reused: dtype and shape compatible

    print(show_trace(tf.constant(1)))  # prints "Tracing!"
    print(show_trace(tf.constant(2)))  # no print: the graph is reused

    # But a change of input dtype triggers a new trace.
    print(show_trace(tf.constant(1.0)))  # float: new trace


# Call sequences for `agexplorer retrace`: reuse, then a retrace on a new dtype or shape.
AGX_RETRACE = {
    "show_trace": ["tf.constant(1)", "tf.constant(2)", "tf.constant(1.0)"],
    "simple_func": ["tf.constant([1.0, 2.0])", "tf.constant([3.0, 4.0])",
                    "tf.constant([1.0, 2.0, 3.0])", "tf.constant([1.0, 2.0, 3.0, 4.0])"],
}
