"""Shared by the notebook tests (imported by each: a second conftest.py would shadow the suite's
`conftest` module): the user code module, loaded once, and its lines by text."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CODE_PATH = os.path.join(HERE, "live_code.py")


def _line(text: str) -> int:
    with open(CODE_PATH, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, start=1) if text in line)


@pytest.fixture(scope="session")
def code_line():
    """``code_line(text)``: the line of live_code.py that holds ``text`` (no test hard-codes
    a line)."""
    return _line


@pytest.fixture(scope="session")
def code(tf):
    """tests/notebook/live_code.py, imported from its file as ``import`` would (its functions
    have a source file; its module is in sys.modules)."""
    spec = importlib.util.spec_from_file_location("live_code", CODE_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["live_code"] = module
    spec.loader.exec_module(module)
    return module
