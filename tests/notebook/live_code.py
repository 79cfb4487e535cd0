"""User code for the notebook tests: a loop that unrolls, a tf.function, a method, a Keras model."""

from __future__ import annotations

from typing import TYPE_CHECKING

import keras
import tensorflow as tf

if TYPE_CHECKING:
    from tensorflow import Tensor as Tensorish  # a name the module never sets


def unrolled(x):
    for _ in range(5):
        x = x + 1.0
    return x


@tf.function
def decorated(x, n):
    total = x
    for i in tf.range(n):
        total = total + tf.cast(i, x.dtype)
    return total


def broken(x):
    y = x * 2.0
    return y.numpy()  # a graph tensor has no value: tracing raises here


class Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        for _ in range(self.k):
            x = x * 2.0
        return x


class Tiny(keras.Model):
    """Two Dense layers and a BatchNormalization, whose moving statistics a training call
    moves (a trace must not)."""

    def __init__(self):
        super().__init__()
        self.d1 = keras.layers.Dense(4, activation="relu")
        self.bn = keras.layers.BatchNormalization()
        self.d2 = keras.layers.Dense(1)

    def call(self, x, training=False):
        x = self.bn(self.d1(x), training=training)
        if training:
            x = x * 1.0
        return self.d2(x)


class Holder:
    @tf.function
    def step(self, x):
        for _ in range(3):
            x = x * 2.0
        return x


class Blocks(keras.layers.Layer):
    """A loop over its sublayers, which Keras 3 runs as Python."""

    def __init__(self):
        super().__init__()
        self.blocks = [keras.layers.Dense(3) for _ in range(2)]

    def call(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x


blocks_model = keras.Sequential([keras.Input((3,)), Blocks()])
forward = tf.function(lambda x: blocks_model(x))


def summed(parts):
    total = tf.zeros_like(parts[0])
    for i in range(len(parts)):
        total = total + parts[i]
    return total


@tf.function
def annotated(x: Tensorish) -> Tensorish:
    for _ in range(3):
        x = x * 2.0
    return x


REGISTRY: list[str] = []


def register_function(fn):
    REGISTRY.append(fn.__name__)
    return fn


@register_function
def registered(x):
    for _ in range(2):
        x = x + 1.0
    return x
