"""The Keras behind ``tf.keras``: its flavour, and how a sentence names it."""

from __future__ import annotations

from typing import Literal, get_args

# keras-3: the ``keras`` package, 3.x (TensorFlow 2.16 and later route tf.keras to it);
# keras-2: the ``keras`` package, 2.x (TensorFlow 2.15 and older);
# tf-keras: the ``tf-keras`` package (Keras 2), which TF_USE_LEGACY_KERAS=1 routes tf.keras to;
# none: tf.keras routes to nothing installed.
KerasFlavour = Literal["keras-3", "keras-2", "tf-keras", "none"]
FLAVOURS: tuple[str, ...] = get_args(KerasFlavour)

_FLAVOUR_NAMES = {"keras-3": "Keras 3", "keras-2": "Keras 2", "tf-keras": "Keras 2"}
_PACKAGES = {"keras-3": "keras", "keras-2": "keras", "tf-keras": "tf-keras"}


def flavour_of(package: str, version: str) -> KerasFlavour:
    """The flavour of the package (``keras`` or ``tf-keras``) at ``version`` ("3.15.1")."""
    if package == "tf-keras":
        return "tf-keras"
    if not version:
        return "none"
    major = version.split(".", 1)[0]
    return "keras-2" if major.isdigit() and int(major) < 3 else "keras-3"


def keras_text(version: str, flavour: str) -> str:
    """``Keras 3 (keras 3.15.1)``, ``Keras 2 (tf-keras 2.21.0)``, ``no Keras``: the flavour,
    then the package and its version; a flavour this agexplorer does not know (a golden file
    from a later one) is shown as written."""
    if flavour == "none" or (not version and not flavour):
        return "no Keras"
    if flavour not in _FLAVOUR_NAMES:
        return f"Keras {version} ({flavour})" if flavour else f"Keras {version}"
    return f"{_FLAVOUR_NAMES[flavour]} ({_PACKAGES[flavour]} {version or '?'})"
