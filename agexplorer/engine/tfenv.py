"""Import TensorFlow once, quietly: its C++ start-up chatter is not the user's business; and
TensorFlow's global settings, read and put back (what a user's module may change for the
whole process: ``tf.config.run_functions_eagerly(True)``, XLA's auto-clustering, Keras's
dtype policy)."""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Any


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


def read_settings(tf: Any) -> dict[str, Any]:
    """TensorFlow's process-wide settings that a user's module may change (see
    ``write_settings``)."""
    from agexplorer.engine import tf_internals

    return {"logger": tf.get_logger().level,
            "autograph": tf_internals.autograph_logging(),
            "eager": tf.config.functions_run_eagerly(),
            "jit": tf.config.optimizer.get_jit(),
            "optimizer": tf.config.optimizer.get_experimental_options(),
            "trace": sys.gettrace(),
            "keras": _keras_settings()}


def write_settings(tf: Any, was: dict[str, Any]) -> None:
    """Put back the settings ``read_settings`` read (only those that differ: setting one
    again is not free)."""
    from agexplorer.engine import tf_internals

    tf.get_logger().setLevel(was["logger"])
    tf_internals.set_autograph_logging(was["autograph"])
    if tf.config.functions_run_eagerly() != was["eager"]:
        tf.config.run_functions_eagerly(was["eager"])
    if tf.config.optimizer.get_jit() != was["jit"]:
        tf.config.optimizer.set_jit(was["jit"])
    if tf.config.optimizer.get_experimental_options() != was["optimizer"]:
        tf.config.optimizer.set_experimental_options(was["optimizer"])
    if sys.gettrace() is not was["trace"]:
        sys.settrace(was["trace"])
    _set_keras_settings(was["keras"])


# The Keras modules whose global dtype policy and float type a module may set, each with
# (read policy, set policy, read floatx, set floatx) as its API names them.
_KERAS = {"keras": ("config.dtype_policy", "config.set_dtype_policy", "config.floatx",
                    "config.set_floatx"),
          "tf_keras": ("mixed_precision.global_policy", "mixed_precision.set_global_policy",
                       "backend.floatx", "backend.set_floatx")}


def _attr(module: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


def _keras_settings() -> dict[str, tuple[Any, Any]]:
    """Each imported Keras's (dtype policy, floatx); a Keras not imported yet is left alone
    (importing it here would cost seconds and set nothing)."""
    found = {}
    for name, (policy, _, floatx, _) in _KERAS.items():
        module = sys.modules.get(name)
        if module is None:
            continue
        try:
            found[name] = (_attr(module, policy)(), _attr(module, floatx)())
        except Exception:  # noqa: BLE001 - a Keras without these names: nothing to keep
            continue
    return found


def _set_keras_settings(was: dict[str, tuple[Any, Any]]) -> None:
    for name, (policy, floatx) in was.items():
        module = sys.modules.get(name)
        if module is None:
            continue
        read_policy, set_policy, read_floatx, set_floatx = _KERAS[name]
        try:
            if str(_attr(module, read_policy)()) != str(policy):
                _attr(module, set_policy)(policy)
            if _attr(module, read_floatx)() != floatx:
                _attr(module, set_floatx)(floatx)
        except Exception:  # noqa: BLE001 - put back what can be
            continue
