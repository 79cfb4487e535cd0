"""What the user is told: the status line, notices that must be read, and the Log."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from agexplorer.tui.messages import EngineStatus

if TYPE_CHECKING:
    from agexplorer.tui.state import ExplorerState
    from agexplorer.tui.status_line import StatusLine


class LogLines(Protocol):
    """Where the Log's lines go (the Log tab's RichLog)."""

    @property
    def is_vertical_scroll_end(self) -> bool: ...

    def write(self, content: str, *, scroll_end: bool | None = None) -> object: ...

    def clear(self) -> object: ...


class StatusReporter:
    """An error stays on the status line until the next request, and a notice is said again
    in place of each "ready" until the next analysis or save.

    It needs the status line, the explorer's state (the Log's headers name its function and
    call) and the Log, asked for when a line is written (it is mounted after the first
    frame: None until then, and the line is only on the status line)."""

    def __init__(self, line: StatusLine, state: ExplorerState,
                 log: Callable[[], LogLines | None]) -> None:
        self.line, self.state, self._log = line, state, log
        self._error = False
        # (text, error): a notice shown again in place of each "ready" (the next analysis
        # or save lets it go)
        self._sticky: tuple[str, bool] | None = None
        # (text, error): a notice about the file itself (the disk changed under unsaved
        # edits): said again in place of each "ready" until a save or a reload, whatever
        # analyses run between (an edit's re-analysis must not hide it)
        self._held: tuple[str, bool] | None = None
        self._log_header: tuple | None = None  # the analysis the Log's last header names

    def set(self, text: str, error: bool = False) -> None:
        """The one-line status at the bottom (an error stays until the next request)."""
        self._error = error
        status = self.line
        status.update(text)
        status.set_class(error, "error")

    def begin(self, text: str, at_once: bool) -> None:
        """A request starts: an error shown is over (the next "ready" replaces it). ``text``
        is said now when ``at_once``; else the request's phases say it once it has run
        ``bridge.PHASE_DELAY`` (an edit's trace takes ~30 ms: said at once, it flashed, and
        its frame was drawn during the trace)."""
        if at_once:
            self.set(text)
        else:
            self._error = False

    def announce(self, text: str, error: bool = True) -> None:
        """A notice that must be read (a worker replaced, edits restored, a file deleted):
        in the status line now and again in place of each "ready" until the next analysis
        or save lets it go, and in the Log."""
        self._sticky = (text, error)
        self.set(text, error=error)
        self.log(text)

    def hold(self, text: str, error: bool = True) -> None:
        """A notice about the file, said as ``announce`` says one, and again after every
        analysis until ``release`` (a save, a reload)."""
        self._held = (text, error)
        self.announce(text, error)

    def release(self) -> None:
        """The file and the buffer agree again: a held notice is done."""
        self._held = None

    def let_go(self) -> None:
        """A new request (or a save): the last notice need not be said again."""
        self._sticky = None

    def new_function(self) -> None:
        """The Log was cleared: its next line is under a new header."""
        self._log_header = None

    def on_target_changed(self, _: object) -> None:
        """Another function: the Log starts empty, its next line under a new header."""
        log = self._log()
        if log is not None:
            log.clear()
        self.new_function()

    def log(self, text: str | None = None) -> None:
        """Append to the Log panel, under a header naming the function and call analysed
        (written once per analysis that logs something; ``text`` None: only the header)."""
        from agexplorer.tui.code.made import call_label

        log = self._log()
        if log is None:
            return
        state = self.state
        sent = state.last_request
        key = (state.target, sent[0] if sent else None)
        # The Log follows its end only while it is there, as a terminal does: scrolled up
        # to read, or on a match found in it, it stays where the user is. (The first
        # write's scroll is made after the next refresh, to the end as it is then.)
        follow = log.is_vertical_scroll_end
        if state.target is not None and key != self._log_header:
            self._log_header = key
            label = call_label(state.target[1], sent[1].call if sent else None)
            log.write(f"── {label} · {time.strftime('%H:%M:%S')} ──", scroll_end=follow)
        if text is not None:
            log.write(text, scroll_end=follow)

    def engine(self, message: EngineStatus) -> None:
        """The worker's state, in words."""
        if message.log:
            self.log(message.log)
        notice = self._sticky or self._held
        if message.ready and notice is not None:
            text, error = notice
            if not self._error or self.line.text == text:
                # said again for every "ready" (the analysis's, then the doctor's and the
                # trace tab's follow-ups) until the next request of the user's lets it go
                self.set(text, error=error)
            return
        if message.ready and self._error:
            return  # keep the error on screen; "ready" is implied
        self.set(message.text)
        if message.text not in ("ready",) and not message.text.endswith("…"):
            self.log(message.text)
