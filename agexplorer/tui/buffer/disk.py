"""The disk watch: the file shown changed or vanished on disk while the explorer was open."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from agexplorer.model.errors import AgxError
from agexplorer.source.files import SourceFile, read_source_file

if TYPE_CHECKING:
    from agexplorer.state.recovery import RecoveryKeeper
    from agexplorer.tui.status import StatusReporter


class Buffer(Protocol):
    """What the watch reads and sets of the buffer shown (the source pane)."""

    path: str | None
    missing: bool  # its file was deleted on disk: the buffer is all there is
    saved_text: str  # what its file held when last read or written
    source_file: SourceFile | None

    @property
    def text(self) -> str: ...

    @property
    def dirty(self) -> bool: ...

    def open(self, path: str, text: str, source_file: SourceFile | None = None) -> None: ...


class DiskWatch:
    """Compares the shown file's modification time with the one last seen (the app checks
    once a second: a file's change has no event to wait for).

    It says what it found through the status reporter, keeps a deleted file's buffer in its
    recovery copy, and has a reloaded buffer analysed again with ``reloaded``."""

    def __init__(self, status: StatusReporter, recovery: RecoveryKeeper,
                 reloaded: Callable[[], None]) -> None:
        self.status, self.recovery, self.reloaded = status, recovery, reloaded
        self.mtime: int | None = None  # None: unknown (the next check takes the disk's)

    def saw(self, path: str) -> None:
        """``path`` was just read or written by the explorer: its time is the known one."""
        with contextlib.suppress(OSError):
            self.mtime = os.stat(path).st_mtime_ns

    def check(self, source: Buffer) -> None:
        """A change on disk reloads a clean buffer, or warns when the buffer has edits; a
        deleted file is announced (the buffer is then unsaved: ctrl+s writes it again)."""
        status = self.status
        if source.path is None:
            return
        name = os.path.basename(source.path)
        try:
            mtime = os.stat(source.path).st_mtime_ns
        except FileNotFoundError:
            if not source.missing:
                source.missing = True  # quitting now asks first; the buffer is all there is
                self.mtime = None
                status.announce(f"{name} was deleted on disk: ctrl+s writes it again")
                self.recovery.keep(source.path, source.text)
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
            status.set(exc.message, error=True)
            return
        text = read.text
        source.source_file = read
        if text == source.saved_text:
            return
        if source.dirty:
            status.hold(f"{name} changed on disk; your unsaved "
                            "edits are kept (ctrl+s overwrites the file with them)")
            source.saved_text = text  # the disk now holds this; the buffer stays dirty
            return
        source.open(source.path, text, read)
        status.release()
        status.set(f"reloaded {name}: it changed on disk")
        self.reloaded()
