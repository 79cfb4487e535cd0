"""Lesson 8, section 7.3 (advanced homework): a custom training loop with
dynamic control flow.

If the current loss is larger than the previous one, halve the learning rate;
the previous loss is kept in a ``tf.Variable``. The explorer should make visible:
the ``if loss > prev_loss`` on two tensors staged as a cond op (AutoGraph turns
the Python ``if`` into ``tf.cond`` because its condition is a tensor); the loss
and learning-rate curves over 20 epochs (drawn as text when run as a script).
Each epoch is one full-batch step on the small data set.
"""

import math

import numpy as np
import tensorflow as tf

# Small seeded regression data.
rng = np.random.default_rng(0)
x_train = (2.0 * rng.normal(size=(256, 4))).astype(np.float32)
true_w = np.array([[2.0], [-1.0], [0.5], [3.0]], dtype=np.float32)
y_train = (x_train @ true_w + 1.0 + 0.1 * rng.normal(size=(256, 1))).astype(np.float32)

model = tf.keras.Sequential([
    tf.keras.Input((4,)),
    tf.keras.layers.Dense(16, activation='relu',
                          kernel_initializer=tf.keras.initializers.GlorotUniform(seed=1)),
    tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=2)),
])
loss_fn = tf.keras.losses.MeanSquaredError()
prev_loss = tf.Variable(np.inf, trainable=False)  # loss of the previous epoch
lr = tf.Variable(0.1, trainable=False)
# A callable learning rate: the optimizer reads `lr` at every step.
optimizer = tf.keras.optimizers.SGD(learning_rate=lambda: lr)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if loss > prev_loss:  # an if on two tensors: becomes tf.cond
        lr.assign(lr / 2.0)
    prev_loss.assign(loss)
    return loss, lr


AGX_CALLS = {
    "train_step": "x_train, y_train",
}


if __name__ == "__main__":
    # A helper for the demo only, kept here so that every top-level function
    # of the sample is one to explore.
    def text_chart(values, title, height=8, log=False):
        """Return a small text plot of `values`, one column per epoch."""
        ys = [math.log10(v) for v in values] if log else list(values)
        lo, hi = min(ys), max(ys)
        span = (hi - lo) or 1.0
        rows = [[" "] * len(ys) for _ in range(height)]
        for col, v in enumerate(ys):
            rows[height - 1 - round((v - lo) / span * (height - 1))][col] = "*"
        fmt = (lambda v: f"{10 ** v:9.3g}") if log else (lambda v: f"{v:9.3g}")
        lines = [title + (" (log scale)" if log else "")]
        for r, row in enumerate(rows):
            label = fmt(hi - r * span / (height - 1)) if r in (0, height - 1) else " " * 9
            lines.append((f"{label} |" + "  ".join(row)).rstrip())
        lines.append(" " * 9 + " +" + "-" * (3 * len(ys) - 2))
        lines.append(" " * 11 + "".join(f"{e:<3d}" for e in range(1, len(ys) + 1)).rstrip())
        lines.append(" " * 11 + "epoch")
        return "\n".join(lines)

    losses, lrs = [], []
    for epoch in range(20):
        loss, cur_lr = train_step(x_train, y_train)
        losses.append(float(loss))
        lrs.append(float(cur_lr))
        print(f"epoch {epoch + 1:2d}  loss {losses[-1]:10.4f}  lr {lrs[-1]:.4f}")
    print()
    print(text_chart(losses, "Loss", log=True))
    print()
    print(text_chart(lrs, "Learning rate"))
