"""A recorded run in the explorer: the program view's data, and "explore this call" on one trace."""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING, Any

from agexplorer.model.errors import AgxError
from agexplorer.runlog.calls import RebuiltCall, rebuild_call
from agexplorer.runlog.log import read_log
from agexplorer.runlog.summary import summarise

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp

SCREEN = "program"  # the installed screen's name: the P key and the palette push it


def load_program(path: str) -> Program:
    """The log at ``path`` summed up; a missing, empty or foreign file raises one sentence."""
    return Program(os.path.abspath(path), summarise(read_log(path)))


def where(file: str, line: Any) -> str:
    """``train.py:29``."""
    return f"{os.path.basename(file)}:{line}" if file else f"line {line}"


class Program:
    """A recorded run: the summary the program view shows, and the explorer it hands over to."""

    def __init__(self, path: str, summary: dict[str, Any]) -> None:
        self.path = path
        self.summary = summary
        self.app: AgxApp | None = None

    @property
    def functions(self) -> list[dict[str, Any]]:
        """The traced functions, by total trace time."""
        return self.summary["functions"]

    def user_files(self) -> list[str]:
        """The files of the user's traced functions that still exist: the explorer's list."""
        files = [f["file"] for f in self.functions if f.get("user") and f.get("file")]
        return [f for f in dict.fromkeys(files) if os.path.isfile(f)]

    def open(self, app: AgxApp) -> None:
        """Show the program view (the explorer's first screen for a LOG); P brings it back."""
        from agexplorer.tui.screens.program import ProgramScreen

        self.app = app
        app.install_screen(ProgramScreen(self), name=SCREEN)
        app.bind("P", f"push_screen('{SCREEN}')", description="Program view")
        app.push_screen(SCREEN)

    def rebuilt(self, function: dict[str, Any], trace: dict[str, Any]) -> RebuiltCall:
        """The call of ``trace`` (one of ``function``'s) as the Run tab's arguments."""
        file, name = function["file"], function["function"]
        if not function.get("user"):
            return RebuiltCall(None, problem=f"{name} is library code ({file}): the explorer "
                               "opens your own functions; pick one of yours.")
        if not os.path.isfile(file):
            return RebuiltCall(None, problem=f"{file} no longer exists, so {name} cannot be "
                               "opened; restore the file or record the run again.")
        parameters = _parameters(file, name)
        if parameters is None:
            return RebuiltCall(None, problem=f"{name} is not a function or method of "
                               f"{os.path.basename(file)} any more; record the run again.")
        if trace.get("arguments") is None:
            return RebuiltCall(None, problem=f"trace {trace.get('trace')} of {name} kept no "
                               "signature; pick another trace.")
        return rebuild_call(trace["arguments"], *parameters)

    def explore(self, function: dict[str, Any], trace: dict[str, Any]) -> str | None:
        """Open ``function`` in the explorer with ``trace``'s call; the sentence why not, or None."""
        app = self.app
        if app is None or not app.workspace_ready:
            return "the explorer is still starting; try again in a moment."
        call = self.rebuilt(function, trace)
        if call.problem or call.text is None:
            return call.problem or "the call cannot be rebuilt; type it in the Run tab."
        target = (os.path.abspath(function["file"]), function["function"])
        if app.target and app.target[0] != target[0] and app.source.dirty:
            return (f"save or undo the edits to {os.path.basename(app.target[0])} before "
                    "exploring another file (ctrl+s saves).")
        while len(app.screen_stack) > 1:  # the program view, and a reached function above it
            app.pop_screen()
        app.requests.set_call(target, call.text)  # that function's call: the analysis uses it
        from agexplorer.tui.widgets.function_picker import FunctionPicker

        app.query_one(FunctionPicker).select_function(*target)
        if app.target == target:
            app.analyse()
        else:
            app.target = target
        if call.notes:
            app.announce("explore this call: " + "; ".join(call.notes), error=False)
        return None


def _parameters(path: str, qualname: str) -> tuple[set[str], set[str]] | None:
    """(keyword-only, ``*args``/``**kwargs``) parameter names of ``qualname`` in ``path``."""
    from agexplorer.source.targets import parse_source, read_source

    try:
        body: list[ast.stmt] = parse_source(path, read_source(path)).body
    except AgxError:
        return None
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.ClassDef)) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    args = node.args
    variadic = {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return {a.arg for a in args.kwonlyargs}, variadic
