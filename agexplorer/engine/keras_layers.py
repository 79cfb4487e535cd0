"""Whether Keras runs a method without AutoGraph: Keras 3 calls a layer's ``call`` (and runs
``train_step`` under ``do_not_convert``) as plain Python, where Keras 2 (tf-keras, or
``TF_USE_LEGACY_KERAS=1``) converted it.

The answer comes from the live class, not from the source: ``import tf_keras as keras`` and
``from tensorflow import keras`` look alike on the page.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

from agexplorer.source.cells import is_cell

# The packages whose ``Layer`` classes a user's layer derives from; their __version__ says
# which Keras it is (``keras`` 2.x before TensorFlow 2.16, 3.x after; ``tf_keras`` 2.x).
_PACKAGES = ("keras", "tf_keras")


def keras_major(cls: Any) -> int | None:
    """The major version of the Keras whose ``Layer`` ``cls`` derives from (None: no Keras
    layer, or a version that cannot be read)."""
    for base in getattr(cls, "__mro__", ()):
        package = (getattr(base, "__module__", None) or "").partition(".")[0]
        if base.__name__ == "Layer" and package in _PACKAGES:
            version = str(getattr(sys.modules.get(package), "__version__", ""))
            major = version.partition(".")[0]
            return int(major) if major.isdigit() else None
    return None


def runs_unconverted(cls: Any, attr: str) -> bool:
    """Whether Keras runs method ``attr`` of ``cls`` without AutoGraph: a Keras 3 layer's
    method that is not itself a tf.function (a ``@tf.function`` method is converted)."""
    if not isinstance(cls, type) or (keras_major(cls) or 0) < 3:
        return False
    method = inspect.getattr_static(cls, attr, None)
    return inspect.isfunction(method)


def owner_class(file: str, qualname: str) -> type | None:
    """The class a method ``Class.method`` of ``file`` belongs to, from the loaded module of
    that file (None: a function, a class inside a function, a file not loaded)."""
    owner, _, _ = qualname.rpartition(".")
    if not owner or "<locals>" in owner:
        return None
    if is_cell(file):  # a class defined in a notebook cell lives in the session's __main__
        return _walk(sys.modules.get("__main__"), owner)
    wanted, name = os.path.realpath(file), os.path.basename(file)
    for module in sys.modules.copy().values():
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or os.path.basename(path) != name \
                or os.path.realpath(path) != wanted:
            continue
        found = _walk(module, owner)
        if found is not None:
            return found
    return None


def _walk(module: Any, dotted: str) -> type | None:
    found: Any = module
    for part in dotted.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None
