"""Lesson 8, section 5 (5.1-5.3): eager vs @tf.function training loop benchmark.

The explorer should make visible: eager vs graph timing per step and the
speed-up (the lesson claims 1.5x-3x); the full training-step graph (forward pass,
gradients and Adam updates). Importing this module trains nothing; the lesson's
benchmark and graph export run only as a script.
"""

import datetime
import time

import numpy as np
import tensorflow as tf

# 5.1 Build data and model: regression data (random, seeded here for repeatability).
# Seeded so that every fresh load of this module starts from the same weights: the
# explorer loads it once per mode (eager, graph, XLA) and compares their losses.
tf.keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
X = rng.random((10000, 20), dtype=np.float32)
y = rng.random((10000, 1), dtype=np.float32)
dataset = tf.data.Dataset.from_tensor_slices((X, y)).batch(256).prefetch(1)

model = tf.keras.Sequential([
    tf.keras.layers.Dense(64, activation='relu'),
    tf.keras.layers.Dense(32, activation='relu'),
    tf.keras.layers.Dense(1)
])
loss_fn = tf.keras.losses.MeanSquaredError()
optimizer = tf.keras.optimizers.Adam(0.001)

# Example batches for the explorer.
x_batch = tf.constant(X[:256])
y_batch = tf.constant(y[:256])


# Training step, eager version.
def train_step_eager(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


# Graph version: with @tf.function.
@tf.function
def train_step_graph(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


AGX_CALLS = {
    "train_step_eager": "x_batch, y_batch",
    "train_step_graph": "x_batch, y_batch",
}

if __name__ == "__main__":
    # 5.2 Performance test.
    epochs = 5

    # Eager mode.
    print("Eager mode training...")
    start = time.time()
    for epoch in range(epochs):
        for x_batch, y_batch in dataset:
            loss = train_step_eager(x_batch, y_batch)
    eager_time = time.time() - start
    print(f"Eager time: {eager_time:.2f} sec")

    # Reset the model weights (re-initialise). train_step_graph has not been
    # traced yet, so its first trace picks up these new globals.
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(32, activation='relu'),
        tf.keras.layers.Dense(1)
    ])
    optimizer = tf.keras.optimizers.Adam(0.001)

    print("Graph mode training...")
    start = time.time()
    for epoch in range(epochs):
        for x_batch, y_batch in dataset:
            loss = train_step_graph(x_batch, y_batch)
    graph_time = time.time() - start
    print(f"Graph time: {graph_time:.2f} sec")
    print(f"Speedup: {eager_time / graph_time:.2f}x")

    # 5.3 Save the computation graph.
    log_dir = "logs/perf_graph/" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    writer = tf.summary.create_file_writer(log_dir)
    # TF 2.21 needs profiler_outdir when profiler=True.
    tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=log_dir)
    # Run one graph training step.
    x_dummy, y_dummy = next(iter(dataset))
    train_step_graph(x_dummy, y_dummy)
    with writer.as_default():
        tf.summary.trace_export(name="train_step_graph", step=0)
    print("Graph saved. Run tensorboard --logdir logs/perf_graph")
