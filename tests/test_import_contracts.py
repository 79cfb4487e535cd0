"""The import contracts of pyproject.toml ([tool.importlinter]) hold: `lint-imports` passes."""

import os
import subprocess
import sys

from conftest import ROOT


def lint_imports_command() -> list[str]:
    """`lint-imports` of this interpreter: the script beside it, else its entry point run by it."""
    script = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    if os.path.exists(script):
        return [script]
    return [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"]


def test_the_import_contracts_hold():
    # No cache: the checkout stays as it was, and the graph is always this tree's.
    done = subprocess.run([*lint_imports_command(), "--no-cache"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout
