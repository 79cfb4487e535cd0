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

    def last_edit(self) -> object | None: ...

    def undo_edit(self, batch: object) -> str: ...


class SafetyNet:
    """Keeps the recovery copy of the buffer shown (``buffer``: None until the panes are
    mounted and as the app ends) and restores a copy a previous run left behind. A copy
    that cannot be written is said through ``tell``."""

    def __init__(self, buffer: Callable[[], Buffer | None], tell: Callable[[str], object]) -> None:
        self.buffer = buffer
        self.recovery = recovery.RecoveryKeeper(on_error=tell)
        self.discarded = False  # "Quit without saving": the recovery copy goes too
        self.note: str | None = None  # where the unsaved edits were kept, said after the end
        self.restored: tuple[str, object] | None = None  # (path, the edit) of the last restore
        self.restored_paths: set[str] = set()  # the files a copy was restored into, this run

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
            if source is None or source.path is None:
                return None
            if not source.dirty:
                # Restored this run, then undone to the file's text (the copy goes at the
                # typing pause, which a quick quit does not wait for): it is not kept.
                if source.path in self.restored_paths:
                    self.recovery.now(source.path, None)
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
        edit = source.last_edit()
        self.restored = (path, edit) if edit is not None else None
        self.restored_paths.add(path)
        return (f"restored unsaved edits to {os.path.basename(path)} from {found.when} (the "
                "explorer ended without saving); ctrl+s saves them, ctrl+z drops them")

    def drop_restored(self) -> str | None:
        """ctrl+z outside the editor, where the restore is the buffer's newest edit: undone
        (the buffer is the file on disk again) and its copy dropped. What to say, or None
        where the restore is not what ctrl+z undoes (none, edited since, or undone already:
        the Doctor's Apply is then the one asked about)."""
        source, restored = self.buffer(), self.restored
        if source is None or restored is None or restored[0] != source.path:
            return None
        outcome = source.undo_edit(restored[1])
        if outcome == "undone":
            self.restored = None
            self.recovery.drop(restored[0])  # asked for by name: gone now, not at the pause
            return (f"the restored edits to {os.path.basename(restored[0])} are dropped: the "
                    "buffer is the file on disk again")
        if outcome == "edited-since":
            return None  # a later edit (an Apply, the user's typing) is what ctrl+z is about
        self.restored = None
        return None
