"""Import TensorFlow once, quietly: its C++ start-up chatter is not the user's business."""

from __future__ import annotations

import os
from types import ModuleType


def import_tf() -> ModuleType:
    """Return the ``tensorflow`` module, silencing its start-up log lines."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # "2" still lets cuInit noise through
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    try:  # AutoGraph's own "could not transform" chatter goes to our report instead.
        tf.autograph.set_verbosity(0)
    except Exception:  # noqa: BLE001 - older TensorFlow releases
        pass
    return tf
