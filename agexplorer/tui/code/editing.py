"""The buffer being edited: re-converting after a pause in typing, and saving it."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from agexplorer.model.errors import AgxError
from agexplorer.state.scratch import saved_note
from agexplorer.state.session import ServedSession, served
from agexplorer.tui.guards import while_mounted

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp

EDIT_PAUSE = 0.6  # seconds of quiet typing before re-converting


class Editing:
    """Owned by the app; the source pane calls ``edited`` at each change of its text."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self._timer: asyncio.TimerHandle | None = None

    def edited(self) -> None:
        """The buffer changed: re-convert once the typing pauses."""
        self.app.state.edited()
        if self._timer is not None:
            self._timer.cancel()
        # The event loop's own timer calls back on time; a Textual timer posts a message
        # that waits behind the edit's repaint (measured ~15 ms late).
        self._timer = asyncio.get_running_loop().call_later(EDIT_PAUSE, self._paused)

    def stop(self) -> None:
        """The app ends: no re-conversion is due."""
        if self._timer is not None:
            self._timer.cancel()

    @while_mounted
    def _paused(self) -> None:
        # Loading a file passes here too; only a real edit re-converts.
        app = self.app
        source = app.source
        if source.text != app.analysed_text:
            app.analyse()
        app.provenance.mark()
        # The safety net: the unsaved buffer goes to a recovery copy (in a thread: it ends
        # in an fsync), and goes away once the buffer is clean again.
        if source.path is not None:
            if source.dirty:
                app.recovery.keep(source.path, source.text)
            else:
                app.recovery.drop(source.path)

    def save(self) -> None:
        """Write the buffer to its file (atomic, in the file's own encoding, BOM and
        newlines); a failure is one sentence, and the edits stay in the buffer. A served
        explorer writes its session's copy and sends it to the browser as a download."""
        app = self.app
        source = app.source
        if source.path is None:
            return
        session = served()
        if session is not None and not session.holds(source.path):
            self._download_only(session, source.path)
            return
        try:
            written = source.save()
        except AgxError as exc:
            app.set_status(f"{exc.message.rstrip('.')}; your edits are kept in the buffer.",
                           error=True)
            return
        except OSError as exc:
            app.set_status(f"could not save {source.path}: {exc.strerror or exc}; your edits "
                           "are kept in the buffer.", error=True)
            return
        app.disk.saw(source.path)
        app.recovery.drop(source.path)
        app.status.let_go()
        app.status.release()
        if session is not None:
            session.deliver(app, written or source.path)
            name = os.path.basename(source.path)
            app.announce(f"saved {name}: your browser downloads it (this session's copy; the "
                         "files on the server are unchanged)", error=False)
            return
        # Said as a notice: it outlasts the "ready" of a request still under way (the
        # doctor's, after an analysis), which would otherwise wipe it a moment later.
        app.announce(saved_note(written or source.path), error=False)

    def _download_only(self, session: ServedSession, path: str) -> None:
        """A served explorer never writes outside its session (a recorded run's files are
        the server's): the buffer goes to the browser, and stays unsaved here."""
        app = self.app
        name = os.path.basename(path)
        try:
            session.deliver_buffer(app, path, app.source.text, app.source.source_file)
        except AgxError as exc:
            app.set_status(f"{exc.message.rstrip('.')}; your edits are kept in the buffer.",
                           error=True)
            return
        app.announce(f"sent {name} to your browser as a download; the server's {name} is not "
                     "written, so the edits stay unsaved here", error=False)
