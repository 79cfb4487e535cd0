"""The buffer being edited: re-converting after a pause in typing, and saving it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from agexplorer.model.errors import AgxError
from agexplorer.state.scratch import saved_note
from agexplorer.state.session import ServedSession, served

if TYPE_CHECKING:
    from agexplorer.state.recovery import RecoveryKeeper
    from agexplorer.tui.buffer.disk import DiskWatch
    from agexplorer.tui.code.made import Provenance
    from agexplorer.tui.code.source_pane import SourcePane
    from agexplorer.tui.state import ExplorerState
    from agexplorer.tui.status import StatusReporter

EDIT_PAUSE = 0.6  # seconds of quiet typing before re-converting


class Editing:
    """The source pane calls ``edited`` at each change of its text (``source``: the pane,
    None until it is mounted and as the app ends). After a pause it re-analyses through
    ``analyse``, marks the result panels (``provenance``) and keeps or drops the buffer's
    recovery copy (``recovery``); a save tells ``disk`` and speaks through ``status``. A
    served explorer's downloads go through ``send`` (the app's ``deliver_binary``)."""

    def __init__(self, state: ExplorerState, source: Callable[[], SourcePane | None],
                 analyse: Callable[[], object], provenance: Provenance,
                 recovery: RecoveryKeeper, disk: DiskWatch, status: StatusReporter,
                 send: Callable[..., object]) -> None:
        self.state, self.source, self.analyse = state, source, analyse
        self.provenance, self.recovery, self.disk, self.status = provenance, recovery, disk, status
        self.send = send
        self._timer: asyncio.TimerHandle | None = None

    def edited(self) -> None:
        """The buffer changed: re-convert once the typing pauses."""
        self.state.edited()
        if self._timer is not None:
            self._timer.cancel()
        # The event loop's own timer calls back on time; a Textual timer posts a message
        # that waits behind the edit's repaint (measured ~15 ms late).
        self._timer = asyncio.get_running_loop().call_later(EDIT_PAUSE, self.paused)

    def stop(self) -> None:
        """The app ends: no re-conversion is due."""
        if self._timer is not None:
            self._timer.cancel()

    def settle(self) -> None:
        """The typing ends now (a save, an undo at ctrl+z): the edits' pending
        re-conversion starts at once, so that its request comes before what is said next
        (it came ~0.6 s later and let that note go too soon to read)."""
        if self._timer is not None:
            self._timer.cancel()
            self.paused()

    def paused(self) -> None:
        """The typing paused: analyse the buffer when it is not the one analysed."""
        self._timer = None
        source = self.source()
        if source is None:
            return
        # Loading a file passes here too; only a real edit re-converts.
        if source.text != self.state.analysed_text:
            self.analyse()
        self.provenance.mark()
        # The safety net: the unsaved buffer goes to a recovery copy (in a thread: it ends
        # in an fsync), and goes away once the buffer is clean again.
        if source.path is not None:
            if source.dirty:
                self.recovery.keep(source.path, source.text)
            else:
                self.recovery.drop(source.path)

    def save(self) -> None:
        """Write the buffer to its file (atomic, in the file's own encoding, BOM and
        newlines); a failure is one sentence, and the edits stay in the buffer. A served
        explorer writes its session's copy and sends it to the browser as a download."""
        source = self.source()
        if source is None or source.path is None:
            return
        status = self.status
        session = served()
        if session is not None and not session.holds(source.path):
            self._download_only(session, source)
            return
        # A failure is said as a notice too: a background request's status (the doctor's,
        # after the edit's analysis) must not wipe it a moment later.
        try:
            written = source.save()
        except AgxError as exc:
            status.announce(f"{exc.message.rstrip('.')}; your edits are kept in the buffer.")
            return
        except OSError as exc:
            status.announce(f"could not save {source.path}: {exc.strerror or exc}; your edits "
                            "are kept in the buffer.")
            return
        self.disk.saw(source.path)
        self.recovery.drop(source.path)
        self.settle()  # a save ends the typing: its re-conversion comes before the note
        status.let_go()
        status.release()
        if session is not None:
            session.deliver(self.send, written or source.path)
            name = os.path.basename(source.path)
            status.announce(f"saved {name}: your browser downloads it (this session's copy; "
                            "the files on the server are unchanged)", error=False)
            return
        # Said as a notice: it outlasts the "ready" of a request still under way (the
        # doctor's, after an analysis), which would otherwise wipe it a moment later.
        status.announce(saved_note(written or source.path), error=False)

    def _download_only(self, session: ServedSession, source: SourcePane) -> None:
        """A served explorer never writes outside its session (a recorded run's files are
        the server's): the buffer goes to the browser, and stays unsaved here."""
        path = source.path or ""
        name = os.path.basename(path)
        try:
            session.deliver_buffer(self.send, path, source.text, source.source_file)
        except AgxError as exc:
            self.status.announce(f"{exc.message.rstrip('.')}; your edits are kept in the buffer.")
            return
        self.status.announce(f"sent {name} to your browser as a download; the server's {name} "
                             "is not written, so the edits stay unsaved here", error=False)
