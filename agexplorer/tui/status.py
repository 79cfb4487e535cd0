"""What the user is told: the status line, notices that must be read, and the Log."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agexplorer.tui.messages import EngineStatus

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp


class StatusReporter:
    """Owned by the app: an error stays on the status line until the next request, and a
    notice is said again in place of each "ready" until the next analysis or save."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
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
        status = self.app.status_line
        status.update(text)
        status.set_class(error, "error")

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

    def log(self, text: str | None = None) -> None:
        """Append to the Log panel, under a header naming the function and call analysed
        (written once per analysis that logs something; ``text`` None: only the header)."""
        from agexplorer.tui.code.made import call_label

        app = self.app
        log = app.panes.log_view
        sent = app.last_request
        key = (app.target, sent[0] if sent else None)
        if app.target is not None and key != self._log_header:
            self._log_header = key
            label = call_label(app.target[1], sent[1].call if sent else None)
            log.write(f"── {label} · {time.strftime('%H:%M:%S')} ──")
        if text is not None:
            log.write(text)

    def engine(self, message: EngineStatus) -> None:
        """The worker's state, once the panels exist."""
        app = self.app
        app.engine_ready = app.engine_ready or message.ready
        if message.devices:
            app.run_panel.set_devices(message.devices)
        notice = self._sticky or self._held
        if message.ready and notice is not None:
            text, error = notice
            if not self._error or app.status_line.text == text:
                # said again for every "ready" (the analysis's, then the doctor's and the
                # trace tab's follow-ups) until the next request of the user's lets it go
                self.set(text, error=error)
            return
        if message.ready and self._error:
            return  # keep the error on screen; "ready" is implied
        self.set(message.text)
        if message.text not in ("ready",) and not message.text.endswith("…"):
            self.log(message.text)
