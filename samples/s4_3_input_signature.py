"""Lesson 8, section 4.3: fixing the signature with ``input_signature``.

The explorer should make visible: one trace serves many batch sizes; an int32
input is refused with a clear error.
"""

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 2], dtype=tf.float32)])
def process_batch(data):
    return tf.reduce_mean(data, axis=0)


AGX_CALLS = {
    "process_batch": "tf.constant([[1, 2], [3, 4]], dtype=tf.float32)",
}

if __name__ == "__main__":
    # Accepts only float32 tensors of shape (?, 2).
    print(process_batch(tf.constant([[1, 2], [3, 4]], dtype=tf.float32)))
    # A different but compatible shape: still valid.
    print(process_batch(tf.constant([[1, 2]], dtype=tf.float32)))

    # Error: dtype mismatch.
    try:
        process_batch(tf.constant([[1, 2]], dtype=tf.int32))
    except TypeError as e:
        print("Error:", e)


# Call sequences for `agexplorer retrace`: two batch sizes share one trace; int32 is refused.
AGX_RETRACE = {
    "process_batch": ["tf.constant([[1.0, 2.0], [3.0, 4.0]])", "tf.constant([[1.0, 2.0]])",
                      "tf.constant([[1, 2]], dtype=tf.int32)"],
}
