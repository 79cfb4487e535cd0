"""Recovery copies of unsaved buffers: kept at each edit pause, offered back when the file opens.

One copy per edited file, in ``$XDG_STATE_HOME/agexplorer/recovery`` (default
``~/.local/state/agexplorer/recovery``; an explorer `serve` started keeps them in its own
session folder instead, gone when the session ends: see session.py): ``<hash of the real
path>.py`` holds the buffer and ``<hash>.json`` the file's path and when the copy was made.
A copy is removed once the buffer is clean again (saved, or undone back to the disk's text)
or the user quits without saving, so a copy that is still there means the explorer ended
with edits it never wrote.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from agexplorer.model.errors import AgxError
from agexplorer.source.files import SourceFile, read_source_file, write_source
from agexplorer.state.session import state_dir


def recovery_dir() -> str:
    """The folder of recovery copies (read from the environment at each call; a served
    session's own)."""
    return state_dir("recovery")


def _stem(path: str) -> tuple[str, str]:
    """(the real path, the recovery files' path without extension)."""
    import hashlib  # here: OpenSSL's loading was ~2 ms of the explorer's first frame

    real = os.path.realpath(path)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return real, os.path.join(recovery_dir(), digest)


@dataclass(frozen=True)
class Recovered:
    """A recovery copy found for a file."""

    path: str
    text: str
    saved_at: float

    @property
    def when(self) -> str:
        """When the copy was made, as a person says it: ``14:02``, or with the date if not today."""
        stamp = time.localtime(self.saved_at)
        same_day = time.strftime("%Y-%m-%d", stamp) == time.strftime("%Y-%m-%d")
        return time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", stamp)


def save_copy(path: str, text: str) -> str:
    """Write the recovery copy of ``path`` holding ``text`` (atomically); returns its path.

    Raises AgxError when it cannot be written (a full disk, the text unencodable in the
    encoding its coding line names).
    """
    real, stem = _stem(path)
    try:
        os.makedirs(os.path.dirname(stem), mode=0o700, exist_ok=True)
    except OSError as exc:
        raise AgxError("write-failed", f"could not make {os.path.dirname(stem)}: "
                       f"{exc.strerror or exc}.") from None
    plain = SourceFile(path=stem, text="", encoding="utf-8", bom=False, newline="\n")
    write_source(stem + ".py", text, like=plain)
    sidecar = json.dumps({"path": real, "saved_at": time.time()})
    write_source(stem + ".json", sidecar, like=plain)
    return stem + ".py"


def load_copy(path: str) -> Recovered | None:
    """The recovery copy of ``path``, or None (none, unreadable, or for another file)."""
    real, stem = _stem(path)
    try:
        with open(stem + ".json", encoding="utf-8") as fh:
            meta = json.load(fh)
        if meta.get("path") != real:
            return None
        text = read_source_file(stem + ".py").text
        return Recovered(real, text, float(meta.get("saved_at", 0.0)))
    except (OSError, ValueError, TypeError, AgxError):
        return None


def copy_path(path: str) -> str:
    """Where the recovery copy of ``path`` is (or would be) kept."""
    return _stem(path)[1] + ".py"


def drop_copy(path: str) -> None:
    """Remove the recovery copy of ``path`` (nothing if there is none)."""
    _, stem = _stem(path)
    for suffix in (".py", ".json"):
        with contextlib.suppress(OSError):
            os.remove(stem + suffix)


class RecoveryKeeper:
    """Writes and drops recovery copies in a background thread (a write ends in an fsync,
    which must not hold up a frame); the latest request for a path wins. Never raises:
    a failure goes to ``on_error`` (called from that thread) once per distinct message."""

    def __init__(self, on_error: Callable[[str], object] | None = None) -> None:
        self.on_error = on_error
        self._lock = threading.Lock()  # guards _pending and _thread
        self._write_lock = threading.Lock()  # one write at a time, in order
        self._pending: dict[str, str | None] = {}  # path -> text to keep (None: drop)
        self._kept: dict[str, str] = {}  # path -> the text its copy holds
        self._writing: str | None = None  # the path whose copy the thread is writing now
        self._thread: threading.Thread | None = None
        self._last_error: str | None = None

    def keep(self, path: str, text: str) -> None:
        """Soon: make ``path``'s recovery copy hold ``text``."""
        with self._lock:
            if path not in self._pending and self._kept.get(path) == text:
                return
            self._pending[path] = text
            self._start()

    def drop(self, path: str) -> None:
        """Soon: remove ``path``'s recovery copy (when one was written or found)."""
        with self._lock:
            # A copy being written now is not kept yet: it is dropped after it (a save
            # just after a pause in typing left it behind, to be "restored" later).
            if path not in self._pending and path not in self._kept and path != self._writing:
                return
            self._pending[path] = None
            self._start()

    def found(self, path: str, text: str) -> None:
        """A copy holding ``text`` exists for ``path`` (restored at open)."""
        with self._lock:
            self._kept[path] = text

    def holds(self, path: str, text: str) -> bool:
        """Whether ``path``'s recovery copy is known to hold ``text``."""
        with self._lock:
            return self._kept.get(path) == text

    def now(self, path: str, text: str | None) -> None:
        """Keep (or with None, drop) right away, in this thread: the app is ending."""
        with self._lock:
            self._pending.pop(path, None)
        self._do(path, text)

    def wait(self, timeout: float = 5.0) -> None:
        """Until the writes asked for so far are done (for tests and for the exit)."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="agx-recovery", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    self._thread = self._writing = None
                    return
                path, text = next(iter(self._pending.items()))
                del self._pending[path]
                self._writing = path
            self._do(path, text)

    def _do(self, path: str, text: str | None) -> None:
        with self._write_lock:
            try:
                if text is None:
                    drop_copy(path)
                    with self._lock:
                        self._kept.pop(path, None)
                elif not self.holds(path, text):
                    save_copy(path, text)
                    with self._lock:
                        self._kept[path] = text
            except AgxError as exc:
                self._failed(f"could not keep a recovery copy of {os.path.basename(path)}: "
                             f"{exc.message}")
            except Exception as exc:  # noqa: BLE001 - a safety net must never take the app down
                self._failed(f"could not keep a recovery copy of {os.path.basename(path)} "
                             f"({type(exc).__name__}: {exc}).")

    def _failed(self, message: str) -> None:
        if message != self._last_error and self.on_error is not None:
            self._last_error = message
            with contextlib.suppress(Exception):
                self.on_error(message)
