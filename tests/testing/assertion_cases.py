"""User code for the assertion tests: staged and unrolled loops, a helper, a method."""

import tensorflow as tf


@tf.function
def staged_sum(n):
    s = tf.constant(0)
    for i in tf.range(n):
        s += i
    return s


@tf.function
def unrolled_sum(n):
    s = tf.constant(0)
    for i in range(n):
        s += i
    return s


def plain_unrolled(n):
    i = 0
    while i < n:
        i += 1
    return i


def normalize(x, steps):
    for _ in range(steps):
        x = x / 2.0
    return x


@tf.function
def calls_helper(x):
    if tf.reduce_sum(x) > 0:
        x = x + 1.0
    return normalize(x, 3)


class Model:
    def __init__(self):
        self.layers = 4

    @tf.function
    def call(self, x):
        for _ in range(self.layers):
            x = x * 2.0
        return x

    def step(self, x):
        for i in tf.range(3):
            x = x + tf.cast(i, tf.float32)
        return x


@tf.function
def traces_per_value(n):
    return tf.constant(n) * 2


@tf.function
def raises(x):
    raise ValueError("no good")


def no_source_for_this():
    return 1
