"""User code for the run lab's time boxes, shared inputs and retrace reasons."""

import time

import tensorflow as tf

state = {}


def slow_eagerly(x):
    if tf.executing_eagerly():  # traces at once; run eagerly, it outlasts a short box
        time.sleep(4)  # then ends on its own, so the abandoned thread does not linger
    return x * 2


def plus_zero(x):
    return x + 0.0


def makes_a_variable(x):
    if "v" not in state:  # the first trace creates it: TensorFlow traces once more
        state["v"] = tf.Variable(2.0)
    return x * state["v"]


AGX_CALLS = {"slow_eagerly": "tf.constant(1.0)", "plus_zero": "tf.random.normal([4])",
             "makes_a_variable": "tf.constant(1.0)"}
