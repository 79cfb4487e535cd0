"""Lesson 8, section 4.4: AutoGraph converts dynamic control flow.

The explorer should make visible: the ``for`` over ``tf.range`` becomes a while
loop op, the ``if`` on a tensor becomes a cond op, with the converted code side
by side.
"""

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf


# An ordinary Python loop, but it depends on a tensor value.
@tf.function
def dynamic_loop(n):
    s = tf.constant(0)
    for i in tf.range(n):  # tf.range returns a tensor: the loop becomes tf.while_loop
        s += i
    return s


# A conditional branch on a tensor.
@tf.function
def conditional_function(x):
    if tf.reduce_sum(x) > 10:
        return x * 2
    else:
        return x + 10


AGX_CALLS = {
    "dynamic_loop": "tf.constant(5)",
    "conditional_function": "tf.constant([5, 6])",
}

if __name__ == "__main__":
    print(dynamic_loop(tf.constant(5)))  # 10
    print(conditional_function(tf.constant([5, 6])))  # [10 12]
    print(conditional_function(tf.constant([1, 2])))  # [11 12]
