"""The disk watch: the file shown changed or vanished on disk while the explorer was open."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp


class DiskWatch:
    """Compares the shown file's modification time with the one last seen (polled by the
    app once a second)."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self.mtime: int | None = None  # None: unknown (the next check takes the disk's)

    def saw(self, path: str) -> None:
        """``path`` was just read or written by the explorer: its time is the known one."""
        with contextlib.suppress(OSError):
            self.mtime = os.stat(path).st_mtime_ns

    def check(self) -> None:
        """A change on disk reloads a clean buffer, or warns when the buffer has edits; a
        deleted file is announced (the buffer is then unsaved: ctrl+s writes it again)."""
        app = self.app
        source = app.source
        if source.path is None:
            return
        name = os.path.basename(source.path)
        try:
            mtime = os.stat(source.path).st_mtime_ns
        except FileNotFoundError:
            if not source.missing:
                source.missing = True  # quitting now asks first; the buffer is all there is
                self.mtime = None
                app.announce(f"{name} was deleted on disk: ctrl+s writes it again")
                app.recovery.keep(source.path, source.text)
            return
        except OSError:
            return
        if source.missing:  # back on disk (restored, or written by another program)
            source.missing = False
            self.mtime = -1  # compared with the buffer below, like any change on disk
        if self.mtime is None or mtime == self.mtime:
            self.mtime = mtime
            return
        self.mtime = mtime
        try:
            read = read_source_file(source.path)
        except AgxError as exc:
            app.set_status(exc.message, error=True)
            return
        text = read.text
        source.source_file = read
        if text == source.saved_text:
            return
        if source.dirty:
            app.status.hold(f"{name} changed on disk; your unsaved "
                            "edits are kept (ctrl+s overwrites the file with them)")
            source.saved_text = text  # the disk now holds this; the buffer stays dirty
            return
        source.open(source.path, text, read)
        app.status.release()
        app.set_status(f"reloaded {name}: it changed on disk")
        app.analyse()
