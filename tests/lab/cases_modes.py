"""User code for the run lab's differences between modes: seeded weights, random ops, counters."""

import keras
import tensorflow as tf

# Unseeded random initial weights: every fresh load of this module draws them anew.
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])

count = 0


def predict(x):
    return model(x)


def noise():
    return tf.random.normal([3])


def counted(x):
    global count
    count += 1
    return x * count


def counted_model(x):
    """The first call creates the layer's weights: graph traces twice, and count goes to 2."""
    global count
    count += 1
    return layer(x) * count


layer = keras.layers.Dense(2)


def checked_log(x):
    """An assertion XLA compiles away: eager and graph raise on a negative value, XLA not."""
    tf.debugging.assert_positive(x, message="x must be positive")
    return tf.math.log(x)

AGX_CALLS = {"predict": "tf.ones([2, 4])", "noise": "", "counted": "tf.constant(1.0)",
             "counted_model": "tf.ones([1, 3])", "checked_log": "tf.constant([1.0, -2.0])"}
