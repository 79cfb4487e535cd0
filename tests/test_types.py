"""The package type-checks: `mypy agexplorer` with pyproject's settings, the whole package
clean and the records (model/) and the worker's protocol strict. A wrong attribute, a
None passed where a value is needed or a changed signature fails here, before a user sees
it; a typed record is what the TUI and every renderer read."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_mypy_finds_nothing(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "agexplorer", "--cache-dir",
                           str(tmp_path / "cache")], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_the_records_and_the_protocol_are_strict():
    """pyproject keeps the strict flags on model/ and worker/protocol.py."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11's; CI runs 3.11

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    [strict] = [o for o in settings["overrides"]
                if "agexplorer.model.*" in o["module"] and "agexplorer.worker.protocol" in o["module"]]
    assert all(strict[flag] for flag in ("disallow_untyped_defs", "disallow_any_generics",
                                         "warn_return_any", "disallow_untyped_calls"))
