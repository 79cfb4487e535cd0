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
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agexplorer.engine.tfenv import read_settings, write_settings

_QUIET_IMPORT = "TF_CPP_MIN_LOG_LEVEL"


@dataclass
class Kept:
    """What was in force when the block began (``eager``: functions ran eagerly then)."""

    tf: Any
    eager: bool = False
    values: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def kept_settings() -> Iterator[Kept]:
    """Within the block, TensorFlow is imported (quietly), functions run as graphs, and the
    engine may quiet TensorFlow's logs; after it, every one of those settings is as it was."""
    quiet = os.environ.get(_QUIET_IMPORT)
    os.environ.setdefault(_QUIET_IMPORT, "3")  # as import_tf would: no C++ start-up chatter
    try:
        import tensorflow as tf

        was = read_settings(tf)
        kept = Kept(tf, eager=bool(was["eager"]), values=was)
        if was["eager"]:
            tf.config.run_functions_eagerly(False)  # the report is of graphs
        try:
            yield kept
        finally:
            write_settings(tf, was)
    finally:
        if quiet is None:
            os.environ.pop(_QUIET_IMPORT, None)
        else:
            os.environ[_QUIET_IMPORT] = quiet
