"""Lesson 8, section 4.1: eager mode vs static graph mode (simulating TF 1.x).

The explorer should make visible: both functions give the same result; the graph
ops of the one-op function ``matmul_static``; the timings of both.
"""

import numpy as np
import tensorflow as tf

a = tf.constant([[1, 2], [3, 4]])
b = tf.constant([[5, 6], [7, 8]])


# Eager (dynamic graph): computed immediately.
def matmul_eager(x, y):
    return tf.matmul(x, y)


# Simulating the TF 1.x static graph in 2.x.
@tf.function
def matmul_static(x, y):
    return tf.matmul(x, y)


AGX_CALLS = {
    "matmul_eager": "a, b",
    "matmul_static": "a, b",
}

if __name__ == "__main__":
    c = matmul_eager(a, b)
    print("Eager result:\n", c.numpy())  # the result is available immediately

    # The call builds the graph, then executes it.
    result = matmul_static(a, b)
    print("Static graph result:\n", result.numpy())
    print("Same result:", np.array_equal(c.numpy(), result.numpy()))
