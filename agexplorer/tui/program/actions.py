"""A recorded run in the explorer: the program view's data, and "explore this call" on one trace."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agexplorer.runlog.calls import RebuiltCall, parameter_kinds, rebuild_call
from agexplorer.runlog.log import read_log
from agexplorer.runlog.summary import summarise

if TYPE_CHECKING:
    from agexplorer.tui.parts import ExplorerApp

SCREEN = "program"  # the installed screen's name: the P key and the palette push it


def load_program(path: str) -> Program:
    """The log at ``path`` summed up; a missing, empty or foreign file raises one sentence."""
    return Program(os.path.abspath(path), summarise(read_log(path)))


class Program:
    """A recorded run: the summary the program view shows, and the explorer it hands over to."""

    def __init__(self, path: str, summary: dict[str, Any]) -> None:
        self.path = path
        self.summary = summary
        self.app: ExplorerApp | None = None

    @property
    def functions(self) -> list[dict[str, Any]]:
        """The traced functions, by total trace time."""
        return self.summary["functions"]

    @property
    def explored(self) -> bool:
        """Whether the explorer behind the program view shows a function yet."""
        return self.app is not None and self.app.state.target is not None

    def user_files(self) -> list[str]:
        """The files of the user's traced functions, and of the user's functions a library's
        trace reached (a Keras layer), that still exist: the explorer's list."""
        files = [f["file"] for f in self.functions if f.get("user") and f.get("file")]
        files += [str(r.get("file")) for f in self.functions for t in f.get("each_trace") or []
                  for r in t.get("reached") or [] if isinstance(r, dict) and r.get("file")]
        return [f for f in dict.fromkeys(files) if os.path.isfile(f)]

    def reached_only(self, file: str, function: str) -> bool:
        """Whether the run reached ``function`` of ``file`` only from another one's trace:
        no trace of its own (a tf.function of the user's), as `doctor LOG` decides."""
        path = os.path.abspath(file)
        return not any(f.get("user") and f.get("function") == function
                       and os.path.abspath(str(f.get("file"))) == path
                       for f in self.functions)

    def open(self, app: ExplorerApp) -> None:
        """Show the program view (the explorer's first screen for a LOG); P brings it back."""
        from agexplorer.tui.program.screen import ProgramScreen

        self.app = app
        app.install_screen(ProgramScreen(self), name=SCREEN)
        app.bind("P", f"push_screen('{SCREEN}')", description="Program view")
        app.push_screen(SCREEN)

    def rebuilt(self, function: dict[str, Any], trace: dict[str, Any]) -> RebuiltCall:
        """The call of ``trace`` (one of ``function``'s) as the Run tab's arguments; for a
        library's trace (Keras's train step, a tf.data function), the call of the nearest
        function of the user's it reached (the layer, the map function), and its instance's
        constructor arguments in ``init``."""
        file, name = function["file"], function["function"]
        if not function.get("user"):
            return self._reached_call(function, trace)
        return self._own_call(file, name, trace.get("arguments"), trace.get("trace"))

    def _reached_call(self, function: dict[str, Any], trace: dict[str, Any]) -> RebuiltCall:
        name = str(function["function"]).rpartition(".")[2]  # wrapped_fn, not its path
        reached = [r for r in trace.get("reached") or [] if isinstance(r, dict)]
        recorded = [r for r in reached if r.get("arguments") is not None]
        local = next((r for r in reached if r.get("local")), None)
        if not recorded and local is not None:
            return RebuiltCall(None, problem=f"{name} is library code that reached your code "
                               f"through {local['local']}, defined inside {local.get('function')}"
                               ", which cannot be explored on its own; its verdicts are "
                               "listed here.")
        if not recorded:
            said = "reached no def of yours" if not reached else \
                "kept no call of the functions of yours it reached (a log of an older record)"
            return RebuiltCall(None, problem=f"{name} is library code that {said}; pick one "
                               "of your functions.")
        first = recorded[0]
        if first.get("init") is None and first.get("init_note"):
            return RebuiltCall(None, problem=f"{first.get('function')}: {first['init_note']}; "
                               "open it and type them in the Run tab's init box.")
        call = self._own_call(str(first.get("file")), str(first.get("function")),
                              first["arguments"], trace.get("trace"))
        call.target = (os.path.abspath(str(first.get("file"))), str(first.get("function")))
        call.init = first.get("init") or None
        return call

    def _own_call(self, file: str, name: str, arguments: Any, number: Any) -> RebuiltCall:
        if not os.path.isfile(file):
            return RebuiltCall(None, problem=f"{file} no longer exists, so {name} cannot be "
                               "opened; restore the file or record the run again.")
        parameters = parameter_kinds(file, name)
        if parameters is None:
            return RebuiltCall(None, problem=f"{name} is not a function or method of "
                               f"{os.path.basename(file)} any more; record the run again.")
        if arguments is None:
            return RebuiltCall(None, problem=f"trace {number} of {name} kept no "
                               "signature; pick another trace.")
        return rebuild_call(arguments, *parameters)

    def explore(self, function: dict[str, Any], trace: dict[str, Any]) -> str | None:
        """Open ``function`` in the explorer with ``trace``'s call; the sentence why not, or None."""
        app = self.app
        if app is None or not app.workspace_ready:
            return "the explorer is still starting; try again in a moment."
        call = self.rebuilt(function, trace)
        if call.problem or call.text is None:
            return call.problem or "the call cannot be rebuilt; type it in the Run tab."
        target = call.target or (os.path.abspath(function["file"]), function["function"])
        if app.state.target and app.state.target[0] != target[0] and app.source.dirty:
            return (f"save or undo the edits to {os.path.basename(app.state.target[0])} before "
                    "exploring another file (ctrl+s saves).")
        while len(app.screen_stack) > 1:  # the program view, and a reached function above it
            app.pop_screen()
        app.requests.set_call(target, call.text)  # that function's call: the analysis uses it
        app.requests.set_call(target, call.init or "", "init")
        if call.target is not None and self.reached_only(*target):
            app.state.reached_calls[target] = call.text
        from agexplorer.tui.functions.picker import FunctionPicker

        app.query_one(FunctionPicker).select_function(*target)
        if app.state.target == target:
            app.analyse()
        else:
            app.navigation.go(target)
        if call.notes:
            app.announce("explore this call: " + "; ".join(call.notes), error=False)
        return None
