"""Moving between functions: opening one, the picker following the buffer, next and previous."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.text import Text

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file
from agexplorer.tui.functions.picker import FunctionPicker
from agexplorer.tui.layout import PRESENTING

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer

    from agexplorer.tui.app import AgxApp

OPEN_PAUSE = 0.4  # seconds the cursor rests on a function in the list before it opens
# Seconds the function shown rests before it is analysed: 21 quick `n` presses show each
# function at once but trace only the last (each trace holds the one worker for a while).
ANALYSE_PAUSE = 0.25


class Navigation:
    """Owned by the app, which calls ``open`` when its ``target`` changes."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self._relabelled: dict[str, str] = {}  # path -> the text the picker's lines are from
        self._pause: Timer | None = None  # opens the function under the list's cursor
        self._rest: Timer | None = None  # analyses the function shown once the keys rest

    def present_next(self, screen: Screen) -> None:
        """In presentation mode, open the next function (across the open files) and run it."""
        app = self.app
        if not screen.has_class(PRESENTING) or not app.workspace_ready:
            return
        picker = app.query_one(FunctionPicker)
        functions = picker.functions()
        if not functions:
            return
        index = functions.index(app.target) if app.target in functions else -1
        wanted = functions[(index + 1) % len(functions)]
        self.picked(FunctionPicker.Picked(*wanted))
        if app.target != wanted:
            return  # refused (unsaved edits in another file): the status line says why
        picker.select_function(*wanted)
        app.action_run()

    def go(self, new: tuple[str, str]) -> None:
        """Show function ``new`` (nothing to do when it is shown already)."""
        if new != self.app.target:
            self.open(self.app.state.open(new), new)

    def open(self, old: tuple[str, str] | None, new: tuple[str, str]) -> None:
        """Show function ``new`` (loading its file when ``old`` was in another one)."""
        app = self.app
        source = app.source
        restored = None
        app.requests.switch_call(old, new)  # the Run tab's box: now ``new``'s own call
        if old is None or old[0] != new[0]:
            try:
                read = read_source_file(new[0])
                app.disk.mtime = os.stat(new[0]).st_mtime_ns
            except (AgxError, OSError) as exc:
                app.set_status(getattr(exc, "message", str(exc)), error=True)
                return
            source.open(new[0], read.text, read)
            restored = app.safety.restore(new[0], read.text)
        # Text: a str title is read as markup ("we[ird]<b>.py" showed as "we<b>.py").
        source.border_title = Text(f"{os.path.basename(new[0])} :: {new[1]}")
        if restored:  # shown now; said again (and kept over its "ready") once the analysis asks
            app.set_status(restored)
        self._analyse_after_rest(restored)
        line = self._def_line(new)
        if line:
            # A file just loaded has no scroll size until the next refresh: centre then.
            app.call_after_refresh(source.goto_line, line)

    def _analyse_after_rest(self, notice: str | None = None) -> None:
        """Analyse the function shown after ``ANALYSE_PAUSE`` without another function;
        skipped when something else asked meanwhile (F5 ran it, an edit re-traced it)."""
        if self._rest is not None:
            self._rest.stop()
        asked = self.app.generation
        self._rest = self.app.set_timer(ANALYSE_PAUSE, lambda: self._rested(asked, notice))

    def _rested(self, asked: int, notice: str | None = None) -> None:
        self._rest = None
        app = self.app
        if app.exiting or not app.workspace_ready:
            return
        if app.generation == asked:
            app.analyse()
        if notice:  # after the request started: a request lets the last notice go
            app.announce(notice)
        app.log_line()  # the Log now names this function (and the call of its analysis)

    def relabel(self, path: str) -> None:
        """The picker follows the analysed buffer: line numbers, functions added or renamed
        (run after the answer's frame)."""
        app = self.app
        text = app.analysed_text
        if app.target is None or app.target[0] != path or text == self._relabelled.get(path):
            return
        self._relabelled[path] = text
        functions = functions_in(path, text)
        if functions is None:
            return
        picker = app.query_one(FunctionPicker)
        if picker.update_functions(path, functions) and app.target in picker.functions():
            app.call_after_refresh(picker.select_function, *app.target)  # once laid out

    def _def_line(self, target: tuple[str, str]) -> int | None:
        functions = functions_in(target[0], self.app.source.text) or []
        return next((f.line for f in functions if f.qualname == target[1]), None)

    def picked(self, message: FunctionPicker.Picked) -> None:
        """A function picked in the list: another file only when the buffer is clean."""
        app = self.app
        if app.target and app.target[0] != message.path and app.source.dirty:
            app.set_status(f"save or undo the edits to {os.path.basename(app.target[0])} "
                           "before opening another file (ctrl+s saves)", error=True)
            return
        self.go((message.path, message.qualname))

    def step(self, step: int) -> None:
        """The next (1) or previous (-1) function in the list, wrapping around."""
        app = self.app
        picker = app.query_one(FunctionPicker)
        functions = picker.functions()
        if not functions or app.target is None:
            return
        index = functions.index(app.target) if app.target in functions else -1
        path, qualname = functions[(index + step) % len(functions)]
        picker.select_function(path, qualname)
        # Picked now, not by a message: keys typed fast are queued ahead of such a message,
        # and each then stepped from the same function (21 quick `n` moved one function).
        self.picked(FunctionPicker.Picked(path, qualname))

    def open_first(self) -> None:
        """The workspace is in: open the first function (or the recorded run's program
        view), then replay the keys pressed meanwhile."""
        app = self.app
        if app.program is not None:  # a recorded run opens on its program view
            return app.program.open(app)
        picker = app.query_one(FunctionPicker)
        functions = picker.functions()
        if not functions:
            app.set_status("no functions found in " + ", ".join(app.paths), error=True)
            return
        wanted = next((f for f in functions if f[1] == app.first_function), functions[0])
        picker.select_function(*wanted)
        self.go(wanted)
        app.replay_keys()

    def highlighted(self, key: tuple[str, str] | None) -> None:
        """The cursor moved in the function list: open its function once the moving pauses
        (arrowing through the list opens only where it stops)."""
        if self._pause is not None:
            self._pause.stop()
            self._pause = None
        if key is not None and self.app.target is not None and key != self.app.target:
            self._pause = self.app.set_timer(OPEN_PAUSE, lambda: self._open_highlighted(key))

    def _open_highlighted(self, key: tuple[str, str]) -> None:
        self._pause = None
        picker = self.app.query_one(FunctionPicker)
        node = picker.cursor_node
        if node is not None and node.data == key and key != self.app.target:
            self.picked(FunctionPicker.Picked(*key))


def functions_in(path: str, text: str) -> list | None:
    """The functions of ``text`` (the buffer of ``path``); None when it does not parse."""
    from agexplorer.source.targets import list_functions, parse_source

    try:
        return list_functions(parse_source(path, text))
    except AgxError:
        return None
