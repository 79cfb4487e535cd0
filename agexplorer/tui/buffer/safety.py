"""The safety net: an unsaved buffer survives a crash, SIGTERM, SIGHUP or a closed terminal (its
recovery copy, written as the explorer ends however it ends), and comes back the next time its
file is opened. agexplorer.tui.buffer.ending ends the explorer on those signals."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from agexplorer.state import recovery


class Buffer(Protocol):
    """What the net reads of the buffer shown (the source pane), and the one edit it makes."""

    path: str | None

    @property
    def text(self) -> str: ...

    @property
    def dirty(self) -> bool: ...

    def replace_changed_lines(self, text: str) -> object: ...


class SafetyNet:
    """Keeps the recovery copy of the buffer shown (``buffer``: None until the panes are
    mounted and as the app ends) and restores a copy a previous run left behind. A copy
    that cannot be written is said through ``tell``."""

    def __init__(self, buffer: Callable[[], Buffer | None], tell: Callable[[str], object]) -> None:
        self.buffer = buffer
        self.recovery = recovery.RecoveryKeeper(on_error=tell)
        self.discarded = False  # "Quit without saving": the recovery copy goes too
        self.note: str | None = None  # where the unsaved edits were kept, said after the end

    def discard(self, path: str | None) -> None:
        """The user chose to lose the edits: the recovery copy goes, now."""
        self.discarded = True
        if path is not None:
            self.recovery.now(path, None)

    def keep_unsaved(self) -> str | None:
        """Write the recovery copy of an unsaved buffer now, in this thread; returns its
        file's name when there was one to keep (and ``note`` says so). Never raises: it
        runs as the app fails."""
        try:
            source = None if self.discarded else self.buffer()
            if source is None or source.path is None or not source.dirty:
                return None
            self.recovery.now(source.path, source.text)
            if not self.recovery.holds(source.path, source.text):
                return None
            name = os.path.basename(source.path)
            self.note = (f"your unsaved edits to {name} were kept; open {name} in "
                         "agexplorer again to get them back.")
            return name
        except Exception:  # noqa: BLE001 - the app is failing: do what can be done
            return None

    def keep_for_good(self) -> None:
        """The explorer is ending (a signal): the copy is written now, and nothing more on
        the way out."""
        self.keep_unsaved()
        self.discarded = True

    def restore(self, path: str, disk_text: str) -> str | None:
        """Put a recovery copy of ``path`` into the buffer as one edit (ctrl+z goes back to
        the disk's text); returns what to tell the user, or None when there was none."""
        found = recovery.load_copy(path)
        if found is None:
            return None
        if found.text == disk_text:  # saved after all (by another program, or a later run)
            recovery.drop_copy(path)
            return None
        source = self.buffer()
        if source is None:
            return None
        self.recovery.found(path, found.text)
        source.replace_changed_lines(found.text)
        return (f"restored unsaved edits to {os.path.basename(path)} from {found.when} (the "
                "explorer ended without saving); ctrl+s saves them, ctrl+z drops them")
