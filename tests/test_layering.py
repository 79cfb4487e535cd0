"""The rings: the core never imports textual or rich; importing the package imports no TensorFlow."""

import subprocess
import sys

from conftest import ROOT


def modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120).stdout
    return {name.split(".")[0] for name in out.split()}


def test_core_imports_neither_textual_nor_rich():
    loaded = modules_after("import agexplorer.core.report, agexplorer.core.inventory, "
                           "agexplorer.core.verdicts, agexplorer.core.capture")
    assert "textual" not in loaded and "rich" not in loaded


def test_package_and_cli_import_no_tensorflow():
    loaded = modules_after("import agexplorer, agexplorer.cli, agexplorer.core.report")
    assert "tensorflow" not in loaded


def test_the_tui_imports_no_tensorflow():
    loaded = modules_after("import agexplorer.tui.app, agexplorer.worker.client")
    assert "tensorflow" not in loaded and "textual" in loaded
