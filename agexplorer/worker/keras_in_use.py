"""Which Keras ``tf.keras`` routes to in this process, found without importing Keras."""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Mapping
from importlib import metadata

from agexplorer.model.keras import KerasFlavour, flavour_of

# TensorFlow's own test (tensorflow/__init__.py and its KerasLazyLoader, 2.15 to 2.21).
_LEGACY_VALUES = ("true", "True", "1")


def keras_in_use(environ: Mapping[str, str] | None = None) -> tuple[str, KerasFlavour]:
    """(version, flavour) of the Keras that ``tf.keras`` resolves to, by the rule TensorFlow
    applies on first use: TF_USE_LEGACY_KERAS set and ``tf_keras`` importable: tf-keras;
    otherwise the ``keras`` package, Keras 3 from 3.0 on. Read from the installed packages'
    metadata: importing Keras 3 costs the worker a second it may never need."""
    env = os.environ if environ is None else environ
    if env.get("TF_USE_LEGACY_KERAS") in _LEGACY_VALUES and _importable("tf_keras"):
        return _version("tf-keras", "tf_keras"), "tf-keras"
    if env.get("TF_USE_LEGACY_KERAS") in _LEGACY_VALUES or not _importable("keras"):
        return "", "none"  # TensorFlow then raises on tf.keras: nothing to route to
    version = _version("keras", "keras")
    return version, flavour_of("keras", version)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _version(distribution: str, module: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        # installed without metadata (a source checkout on the path): its own attribute
        try:
            return str(getattr(importlib.import_module(module), "__version__", "")) or "?"
        except Exception:  # noqa: BLE001 - a broken install still gets a flavour
            return "?"
