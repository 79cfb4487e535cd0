"""Moving between functions: opening one, the picker following the buffer, next and previous."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file
from agexplorer.source.targets import traceable
from agexplorer.tui.functions.picker import FunctionPicker

if TYPE_CHECKING:
    from textual.timer import Timer

    from agexplorer.tui.buffer.disk import DiskWatch
    from agexplorer.tui.buffer.safety import SafetyNet
    from agexplorer.tui.requests import Requests
    from agexplorer.tui.state import ExplorerState, Target
    from agexplorer.tui.status import StatusReporter
    from agexplorer.tui.workspace import Workspace

OPEN_PAUSE = 0.4  # seconds the cursor rests on a function in the list before it opens
# Seconds the function shown rests before it is analysed: 21 quick `n` presses show each
# function at once but trace only the last (each trace holds the one worker for a while).
ANALYSE_PAUSE = 0.25


class Navigation:
    """Opens a function: ``state`` is told, its file read into the source pane (``panes``:
    None until they are mounted and as the app ends) with a recovery copy ``safety`` kept
    and ``disk`` watching it, its boxes switched (``requests``), and it is analysed through
    ``analyse`` once the keys rest (``set_timer``). ``picker()`` is the function list (None
    while the app is not running); ``later`` runs a callable after the next frame."""

    def __init__(self, state: ExplorerState, requests: Requests, status: StatusReporter,
                 disk: DiskWatch, safety: SafetyNet, panes: Callable[[], Workspace | None],
                 picker: Callable[[], FunctionPicker | None], analyse: Callable[[], object],
                 set_timer: Callable[[float, Callable[[], None]], Timer],
                 later: Callable[..., object]) -> None:
        self.state, self.requests, self.status, self.disk = state, requests, status, disk
        self.safety, self.panes, self.picker, self.analyse = safety, panes, picker, analyse
        self.set_timer, self.later = set_timer, later
        self._relabelled: dict[str, str] = {}  # path -> the text the picker's lines are from
        self._pause: Timer | None = None  # opens the function under the list's cursor
        self._rest: Timer | None = None  # analyses the function shown once the keys rest

    def go(self, new: Target, at_once: bool = False) -> None:
        """Show function ``new`` (nothing to do when it is shown already)."""
        if new != self.state.target:
            self.open(self.state.open(new), new, at_once)

    def open(self, old: Target | None, new: Target, at_once: bool = False) -> None:
        """Show function ``new`` (loading its file when ``old`` was in another one); its
        analysis waits ``ANALYSE_PAUSE`` for the keys to rest, unless ``at_once``."""
        panes = self.panes()
        if panes is None:
            return
        source = panes.source
        restored = None
        self.requests.switch_call(old, new)  # the Run tab's box: now ``new``'s own call
        if old is None or old[0] != new[0]:
            try:
                read = read_source_file(new[0])
                self.disk.mtime = os.stat(new[0]).st_mtime_ns
            except (AgxError, OSError) as exc:
                self.status.set(getattr(exc, "message", str(exc)), error=True)
                return
            source.open(new[0], read.text, read)
            restored = self.safety.restore(new[0], read.text)
        # Text: a str title is read as markup ("we[ird]<b>.py" showed as "we<b>.py").
        source.border_title = Text(f"{os.path.basename(new[0])} :: {new[1]}" if new[1] else
                                   os.path.basename(new[0]))  # (no function: see open_first)
        if restored:  # shown now; said again (and kept over its "ready") once the analysis asks
            self.status.set(restored)
        self._analyse_after_rest(restored, 0.0 if at_once else ANALYSE_PAUSE)
        line = self._def_line(new, source.text)
        if line:
            # A file just loaded has no scroll size until the next refresh: centre then.
            self.later(source.goto_line, line)

    def _analyse_after_rest(self, notice: str | None = None,
                            pause: float = ANALYSE_PAUSE) -> None:
        """Analyse the function shown after ``pause`` without another function; skipped
        when something else asked meanwhile (F5 ran it, an edit re-traced it)."""
        if self._rest is not None:
            self._rest.stop()
            self._rest = None
        asked = self.state.generation
        if pause <= 0:  # (a Textual timer of 0 s divides by its interval)
            self.later(lambda: self._rested(asked, notice))
            return
        self._rest = self.set_timer(pause, lambda: self._rested(asked, notice))

    def _rested(self, asked: int, notice: str | None = None) -> None:
        self._rest = None
        if self.panes() is None:
            return  # the app is ending
        if self.state.generation == asked:
            self.analyse()
        if notice:  # after the request started: a request lets the last notice go
            self.status.announce(notice)
        self.status.log()  # the Log now names this function (and the call of its analysis)

    def relabel(self, path: str) -> None:
        """The picker follows the analysed buffer: line numbers, functions added or renamed
        (run after the answer's frame)."""
        state, picker = self.state, self.picker()
        text = state.analysed_text
        if picker is None or state.target is None or state.target[0] != path or \
                text == self._relabelled.get(path):
            return
        self._relabelled[path] = text
        functions = functions_in(path, text)
        if functions is None:
            return
        if picker.update_functions(path, functions, text) and state.target in picker.functions():
            self.later(picker.select_function, *state.target)  # once laid out
        elif state.target[1] == "" and functions:
            # The file opened with no function as it did not parse (open_first): now that
            # it parses, its first function opens (not another file's: the buffer is this
            # file's).
            wanted = (path, functions[0].qualname)
            self.later(picker.select_function, *wanted)
            self.go(wanted, at_once=True)

    @staticmethod
    def _def_line(target: Target, text: str) -> int | None:
        functions = functions_in(target[0], text) or []
        return next((f.line for f in functions if f.qualname == target[1]), None)

    def picked(self, message: FunctionPicker.Picked) -> None:
        """A function picked in the list: another file only when the buffer is clean."""
        target, panes = self.state.target, self.panes()
        if target and target[0] != message.path and panes is not None and panes.source.dirty:
            self.status.set(f"save or undo the edits to {os.path.basename(target[0])} "
                            "before opening another file (ctrl+s saves)", error=True)
            return
        self.go((message.path, message.qualname), message.at_once)

    def step(self, step: int) -> bool:
        """The next (1) or previous (-1) function in the list, wrapping around; whether it
        is now shown (False: none, or refused for the unsaved edits of another file)."""
        picker, target = self.picker(), self.state.target
        functions = picker.functions() if picker is not None else []
        if picker is None or not functions or target is None:
            return False
        index = functions.index(target) if target in functions else -1
        wanted = functions[(index + step) % len(functions)]
        picker.select_function(*wanted)
        # Picked now, not by a message: keys typed fast are queued ahead of such a message,
        # and each then stepped from the same function (21 quick `n` moved one function).
        self.picked(FunctionPicker.Picked(*wanted))
        return self.state.target == wanted

    def open_first(self, wanted_name: str | None) -> bool:
        """Open the function called ``wanted_name`` in the list, else its first one that
        tf.function could trace with its ready inputs and that is not the program's Python
        running the file's tf.functions (a ``main()`` calling them: not what the program
        traces), else its first tf.function (it asks for its arguments), else the first one
        with its ready inputs, else its first one tf.function could trace (a class's
        ``__init__`` came first and failed). Where the list has none but a file that does
        not parse, that file opens with no function, to be mended in the editor (relabel
        opens its first function once it parses); else False, and the status says so."""
        picker = self.picker()
        functions = picker.functions() if picker is not None else []
        if picker is None or not functions:
            unlisted = next(iter(picker.unlisted), None) if picker is not None else None
            if unlisted is not None:
                # A file that does not parse opens in the editor, to be mended there (its
                # analysis says its syntax error); its first function opens as it parses.
                self.go((unlisted, wanted_name or ""), at_once=True)
                return True
            self.status.set("no functions found in " + ", ".join(
                picker.paths if picker is not None else []), error=True)
            return False
        # The first that traces with its own inputs (a factory that needs arguments may come
        # before the train step it makes), else the first tf.function could trace.
        ready = [f for f in functions if traceable(f[1]) and picker.ready(*f)]
        first = next((f for f in ready if not picker.drives(*f)), None) or \
            next((f for f in functions if picker.staged(*f)), None) or \
            next(iter(ready), None) or \
            next((f for f in functions if traceable(f[1])), functions[0])
        wanted = next((f for f in functions if f[1] == wanted_name), first)
        picker.select_function(*wanted)
        # Analysed at once: no keys to wait out yet (those typed meanwhile come after).
        self.go(wanted, at_once=True)
        return True

    def highlighted(self, key: Target | None) -> None:
        """The cursor moved in the function list: open its function once the moving pauses
        (arrowing through the list opens only where it stops)."""
        if self._pause is not None:
            self._pause.stop()
            self._pause = None
        target = self.state.target
        if key is not None and target is not None and key != target:
            self._pause = self.set_timer(OPEN_PAUSE, lambda: self._open_highlighted(key))

    def _open_highlighted(self, key: Target) -> None:
        self._pause = None
        picker = self.picker()
        node = picker.cursor_node if picker is not None else None
        if node is not None and node.data == key and key != self.state.target:
            self.picked(FunctionPicker.Picked(*key))


def functions_in(path: str, text: str) -> list | None:
    """The functions of ``text`` (the buffer of ``path``); None when it does not parse."""
    from agexplorer.source.targets import list_functions, parse_source

    try:
        return list_functions(parse_source(path, text))
    except AgxError:
        return None
