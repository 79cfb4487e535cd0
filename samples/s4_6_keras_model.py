"""Lesson 8, section 4.6: TensorBoard graph visualisation of a Keras model.

The explorer should make visible: the model's ops grouped by layer (dense1,
dense2); a logdir that TensorBoard opens (written only when run as a script).
"""

import datetime

import numpy as np  # noqa: F401  (imported by convention in every sample)
import tensorflow as tf


# Define a simple model.
class MyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense1 = tf.keras.layers.Dense(32, activation='relu', name='dense1')
        self.dense2 = tf.keras.layers.Dense(1, name='dense2')

    @tf.function
    def call(self, inputs):
        x = self.dense1(inputs)
        return self.dense2(x)


model = MyModel()

AGX_CALLS = {
    "MyModel.call": "tf.random.normal((1, 10))",
}

if __name__ == "__main__":
    # Build a concrete input.
    dummy_input = tf.random.normal((1, 10))
    # Force the graph to be traced.
    _ = model.call(dummy_input)

    # Write the log.
    log_dir = "logs/graph/" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    writer = tf.summary.create_file_writer(log_dir)
    # Turn graph tracing on. TF 2.21 needs profiler_outdir when profiler=True.
    tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=log_dir)
    _ = model.call(dummy_input)  # run once
    with writer.as_default():
        tf.summary.trace_export(name="my_model", step=0)
    print(f"Graph written to {log_dir}, run: tensorboard --logdir logs/graph")
