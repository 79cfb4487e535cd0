"""The key actions are typed against tui/parts.py's ExplorerApp (mypy checks them there):
every name it declares must be one AgxApp really has, as a class member or a part its
__init__ makes, or the check would vouch for an app that does not exist."""

from __future__ import annotations

import ast
import inspect
import pathlib

from agexplorer.tui import parts
from agexplorer.tui.app import AgxApp
from agexplorer.tui.compare.actions import CompareActions
from agexplorer.tui.keys import KeyActions


def declared() -> set[str]:
    tree = ast.parse(pathlib.Path(parts.__file__).read_text())
    [cls] = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "ExplorerApp"]
    names = {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)
             and isinstance(n.target, ast.Name)}
    return names | {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}


def test_every_declared_part_is_the_apps():
    made = {node.attr for node in ast.walk(ast.parse(inspect.getsource(AgxApp.__init__).strip()
                                                     .replace("def __init__", "def f", 1)))
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    names = declared()
    assert {"bridge", "navigation", "state", "set_status", "analyse"} <= names
    missing = {n for n in names if not hasattr(AgxApp, n) and n not in made}
    assert missing == set()


def test_at_run_time_the_actions_are_plain_mixins():
    assert parts.ExplorerApp is object
    assert KeyActions.__mro__[1:] == (object,) and CompareActions.__mro__[1:] == (object,)
