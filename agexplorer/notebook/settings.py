"""TensorFlow's and AutoGraph's global settings, put back as they were after explaining a call.

The engine quiets TensorFlow for its own report (``engine/tfenv.import_tf`` sets AutoGraph's
verbosity to 0 and TensorFlow's logger to ERROR, and quiets the C++ log by the environment),
and a report is made of graphs, so ``tf.config.run_functions_eagerly(True)`` is turned off
while it is made. In the user's own process none of that may outlast the call: every
setting read here is put back on the way out, an error or Ctrl-C included.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

_QUIET_IMPORT = "TF_CPP_MIN_LOG_LEVEL"


@dataclass
class Kept:
    """What was in force when the block began (``eager``: functions ran eagerly then)."""

    tf: Any
    eager: bool = False
    values: dict[str, Any] = field(default_factory=dict)


def _read(tf: Any) -> dict[str, Any]:
    from agexplorer.engine import tf_internals

    return {"logger": tf.get_logger().level,
            "autograph": tf_internals.autograph_logging(),
            "eager": tf.config.functions_run_eagerly(),
            "jit": tf.config.optimizer.get_jit(),
            "optimizer": tf.config.optimizer.get_experimental_options(),
            "trace": sys.gettrace()}


def _write(tf: Any, was: dict[str, Any]) -> None:
    from agexplorer.engine import tf_internals

    tf.get_logger().setLevel(was["logger"])
    tf_internals.set_autograph_logging(was["autograph"])
    if tf.config.functions_run_eagerly() != was["eager"]:
        tf.config.run_functions_eagerly(was["eager"])
    # Set only where they differ: setting either one again is not free.
    if tf.config.optimizer.get_jit() != was["jit"]:
        tf.config.optimizer.set_jit(was["jit"])
    if tf.config.optimizer.get_experimental_options() != was["optimizer"]:
        tf.config.optimizer.set_experimental_options(was["optimizer"])
    if sys.gettrace() is not was["trace"]:
        sys.settrace(was["trace"])


@contextlib.contextmanager
def kept_settings() -> Iterator[Kept]:
    """Within the block, TensorFlow is imported (quietly), functions run as graphs, and the
    engine may quiet TensorFlow's logs; after it, every one of those settings is as it was."""
    quiet = os.environ.get(_QUIET_IMPORT)
    os.environ.setdefault(_QUIET_IMPORT, "3")  # as import_tf would: no C++ start-up chatter
    try:
        import tensorflow as tf

        was = _read(tf)
        kept = Kept(tf, eager=bool(was["eager"]), values=was)
        if was["eager"]:
            tf.config.run_functions_eagerly(False)  # the report is of graphs
        try:
            yield kept
        finally:
            _write(tf, was)
    finally:
        if quiet is None:
            os.environ.pop(_QUIET_IMPORT, None)
        else:
            os.environ[_QUIET_IMPORT] = quiet
