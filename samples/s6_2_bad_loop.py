"""Lesson 8, section 6.2 (pitfall 4): a ``while`` whose condition is not a tensor.

The explorer should make visible: with a Python int ``n`` the loop in ``bad_loop``
is unrolled at trace time (no while op, the result folded to a constant, one new
trace per value of n); why (``i < n`` is a Python bool, so AutoGraph leaves the
loop to Python); and the fix: a tensor condition (``fixed_loop`` called with a
tensor) or ``tf.range`` (``tf_range_loop``), which both stage a tf.while_loop.
``range_loop`` shows the same unrolling with a Python ``for ... in range(n)``.
"""

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf


@tf.function
def bad_loop(n):
    i = 0
    while i < n:  # if n is a Python int, the loop is constant-folded (unrolled)
        i += 1
    return i


# Fix: the loop condition must depend on a tensor. Same code as bad_loop, but
# called with a tensor n, so `i < n` is a tensor and AutoGraph emits tf.while_loop.
# (The lesson's other fix: `while i < tf.constant(n):`, or tf.while_loop itself.)
@tf.function
def fixed_loop(n):
    i = 0
    while i < n:
        i += 1
    return i


# Pitfall 5: `for` over a Python iterable is unrolled too: n add ops in the graph.
@tf.function
def range_loop(n):
    s = tf.constant(0)
    for i in range(n):
        s += i
    return s


# Fix: iterate over tf.range, which AutoGraph turns into one tf.while_loop.
@tf.function
def tf_range_loop(n):
    s = tf.constant(0)
    for i in tf.range(n):
        s += i
    return s


AGX_CALLS = {
    "bad_loop": "5",
    "fixed_loop": "tf.constant(5)",
    "range_loop": "5",
    "tf_range_loop": "5",
}


if __name__ == "__main__":
    # A helper for the demo only, kept here so that every top-level function
    # of the sample is one to explore.
    def _op_types(fn, *args):
        graph = fn.get_concrete_function(*args).graph
        return sorted({op.type for op in graph.get_operations()})

    print("bad_loop(5):", bad_loop(5), "ops:", _op_types(bad_loop, 5))
    n = tf.constant(5)
    print("fixed_loop(tf.constant(5)):", fixed_loop(n), "ops:", _op_types(fixed_loop, n))
    print("range_loop(5):", range_loop(5), "ops:", _op_types(range_loop, 5))
    print("tf_range_loop(5):", tf_range_loop(5), "ops:", _op_types(tf_range_loop, 5))


# Call sequences for `agexplorer retrace`: each new Python int traces anew; tensors do not.
AGX_RETRACE = {
    "bad_loop": ["2", "3", "3", "tf.constant(4)"],
    "fixed_loop": ["tf.constant(2)", "tf.constant(3)", "tf.constant(4)"],
}
