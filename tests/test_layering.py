"""The rings: the core never imports textual or rich; importing the package imports no TensorFlow."""

import subprocess
import sys

from conftest import ROOT


def modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120).stdout
    return {name.split(".")[0] for name in out.split()}


EVERY_CORE_MODULE = ("import importlib, pkgutil, agexplorer.core\n"
                     "for m in pkgutil.iter_modules(agexplorer.core.__path__):\n"
                     "    importlib.import_module('agexplorer.core.' + m.name)")


def test_core_imports_neither_textual_nor_rich():
    loaded = modules_after(EVERY_CORE_MODULE)
    assert "textual" not in loaded and "rich" not in loaded
    assert "tensorflow" not in loaded  # TensorFlow is imported lazily, where it is used


def test_package_and_cli_import_no_tensorflow():
    loaded = modules_after("import agexplorer, agexplorer.cli, agexplorer.core.report")
    assert "tensorflow" not in loaded


def test_the_tui_imports_no_tensorflow():
    # The widgets mounted after the first frame, and the results the UI unpickles.
    loaded = modules_after("import agexplorer.tui.app, agexplorer.worker.client, "
                           "agexplorer.tui.widgets.workspace, agexplorer.core.retrace, "
                           "agexplorer.core.doctor, agexplorer.core.fixes, "
                           "agexplorer.render.retrace, agexplorer.render.doctor")
    assert "tensorflow" not in loaded and "textual" in loaded
