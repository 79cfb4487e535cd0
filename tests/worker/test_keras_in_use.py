"""Which Keras tf.keras routes to, told from the installed packages as TensorFlow decides it."""

from __future__ import annotations

import importlib
import importlib.util
from importlib import metadata

import pytest

from agexplorer.model.keras import keras_text
from agexplorer.worker.keras_in_use import keras_in_use


def install(folder, module: str, distribution: str, version: str) -> None:
    """A package ``module`` whose metadata says ``distribution`` ``version``."""
    (folder / module).mkdir()
    (folder / module / "__init__.py").write_text(f"__version__ = {version!r}\n")
    info = folder / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\n"
                                   f"Version: {version}\n")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder first on the path, for packages that shadow the installed ones."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    importlib.invalidate_caches()


def test_the_installed_keras_by_default():
    version, flavour = keras_in_use({})
    assert version == metadata.version("keras")
    assert flavour == ("keras-3" if int(version.split(".")[0]) >= 3 else "keras-2")


def test_a_keras_3_package_is_keras_3(site):
    install(site, "keras", "keras", "3.0.0")
    assert keras_in_use({}) == ("3.0.0", "keras-3")


def test_tf_use_legacy_keras_routes_to_tf_keras_where_it_is_installed(site):
    install(site, "keras", "keras", "3.0.0")
    install(site, "tf_keras", "tf-keras", "2.21.0")
    assert keras_in_use({"TF_USE_LEGACY_KERAS": "1"}) == ("2.21.0", "tf-keras")
    assert keras_in_use({"TF_USE_LEGACY_KERAS": "True"}) == ("2.21.0", "tf-keras")
    # TensorFlow reads only these spellings: anything else leaves tf.keras on Keras 3
    assert keras_in_use({"TF_USE_LEGACY_KERAS": "yes"})[1] == "keras-3"


def test_tf_use_legacy_keras_without_tf_keras_is_no_keras(site):
    if importlib.util.find_spec("tf_keras") is not None:
        pytest.skip("tf-keras is installed here")
    assert keras_in_use({"TF_USE_LEGACY_KERAS": "1"}) == ("", "none")


def test_a_keras_2_package_is_keras_2(site):
    install(site, "keras", "keras", "2.15.0")  # what TensorFlow 2.15 installs
    assert keras_in_use({}) == ("2.15.0", "keras-2")


@pytest.mark.parametrize(("version", "flavour", "shown"), [
    ("3.15.1", "keras-3", "Keras 3 (keras 3.15.1)"),
    ("2.21.0", "tf-keras", "Keras 2 (tf-keras 2.21.0)"),
    ("2.15.0", "keras-2", "Keras 2 (keras 2.15.0)"),
    ("", "none", "no Keras"),
    ("4.0.0", "keras-4", "Keras 4.0.0 (keras-4)"),  # a golden file from a later agexplorer
])
def test_how_a_sentence_names_it(version, flavour, shown):
    assert keras_text(version, flavour) == shown
