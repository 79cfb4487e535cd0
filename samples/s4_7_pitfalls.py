"""Lesson 8, section 4.7: common pitfalls.

The explorer should make visible: trace-time-only side effects (the global
``counter`` is stuck at 1, the ``tf.Variable`` counter is not); ``build_list``
failing, explained at its source line; the ``tf.TensorArray`` fix.
"""

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf

# Pitfall 1: using Python print or changing a Python global variable.
counter = 0


@tf.function
def increment():
    global counter
    counter += 1  # runs only once, while tracing
    return tf.constant(counter)


# Correct: use a tf.Variable.
counter_var = tf.Variable(0)


@tf.function
def increment_var():
    counter_var.assign_add(1)
    return counter_var


# Pitfall 2: appending to a list inside tf.function.
# Kept as the lesson has it: this is MEANT TO FAIL while tracing. The loop over
# tf.range becomes a tf.while_loop, so each `i` lives inside the loop body graph;
# the list only collects that body's placeholder, and tf.stack(l) outside the loop
# raises InaccessibleTensorError ("... is out of scope and cannot be used here").
@tf.function
def build_list(n):
    l = []
    for i in tf.range(n):
        l.append(i)  # noqa: PERF402  this append does not take effect inside the graph
    return tf.stack(l)  # fails when run


# Correct: use tf.TensorArray.
@tf.function
def build_tensorarray(n):
    ta = tf.TensorArray(tf.int32, size=n)
    for i in tf.range(n):
        ta = ta.write(i, i)
    return ta.stack()


AGX_CALLS = {
    "increment": "",
    "increment_var": "",
    "build_list": "tf.constant(5)",  # expected to raise while tracing
    "build_tensorarray": "tf.constant(5)",
}

if __name__ == "__main__":
    print(increment())  # 1
    print(increment())  # still 1: counter is not reassigned at run time

    print(increment_var())  # 1
    print(increment_var())  # 2

    try:
        print(build_list(tf.constant(5)))
    except ValueError as e:  # InaccessibleTensorError is a ValueError
        print(f"build_list failed as expected ({type(e).__name__}): the list append "
              "ran once while tracing the loop body, so tf.stack(l) got a tensor "
              "from inside the while loop graph. Use tf.TensorArray instead.")

    print(build_tensorarray(tf.constant(5)))


# Call sequences for `agexplorer retrace`: the global counter moves on the tracing call only.
AGX_RETRACE = {
    "increment": ["", "", ""],
    "increment_var": ["", "", ""],
}
