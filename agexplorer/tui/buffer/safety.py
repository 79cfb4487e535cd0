"""The safety net: an unsaved buffer survives a crash, SIGTERM, SIGHUP or a closed terminal, and
each of them ends the explorer (and its worker) within two seconds."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from typing import TYPE_CHECKING, Any

from agexplorer.state import recovery
from agexplorer.tui.dialogs.confirm_quit import ConfirmQuit
from agexplorer.tui.messages import WorkerNotice

# After SIGTERM or SIGHUP the explorer ends on its own within this long, worker and all, even
# when giving the terminal back hangs (a closed terminal).
LAST_RESORT_S = 1.5

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp


class SafetyNet:
    """Owned by the app: keeps the recovery copy, catches the signals that end it, and
    restores a copy a previous run left behind."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        def tell(text: str) -> None:
            app.post_message(WorkerNotice(text))

        self.recovery = recovery.RecoveryKeeper(on_error=tell)
        self.discarded = False  # "Quit without saving": the recovery copy goes too
        self._signals: list[tuple[int, Any]] = []  # (signal, the handler it replaced)
        self._last_resort: threading.Timer | None = None

    def discard(self, path: str | None) -> None:
        """The user chose to lose the edits: the recovery copy goes, now."""
        self.discarded = True
        if path is not None:
            self.recovery.now(path, None)

    def quit(self) -> None:
        """Quit, asking first when the buffer has unsaved edits (save, discard or stay)."""
        app = self.app
        if not app.workspace_ready or not app.source.dirty:
            app.exit()  # nothing to lose
            return
        source = app.source

        def decided(choice: str | None) -> None:
            if choice == "save":
                app.action_save()
                if not source.dirty:
                    app.exit()
            elif choice == "discard":
                self.discard(source.path)
                app.exit()

        app.push_screen(ConfirmQuit(source.path or "the buffer"), decided)

    def keep_unsaved(self) -> str | None:
        """Write the recovery copy of an unsaved buffer now, in this thread; returns its
        file's name when there was one to keep. Never raises: it runs as the app fails."""
        app = self.app
        try:
            if not app.workspace_ready or self.discarded:
                return None
            source = app.source
            if source.path is None or not source.dirty:
                return None
            self.recovery.now(source.path, source.text)
            if not self.recovery.holds(source.path, source.text):
                return None
            name = os.path.basename(source.path)
            app.exit_note = (f"your unsaved edits to {name} were kept; open {name} in "
                             "agexplorer again to get them back.")
            return name
        except Exception:  # noqa: BLE001 - the app is failing: do what can be done
            return None

    def restore(self, path: str, disk_text: str) -> str | None:
        """Put a recovery copy of ``path`` into the buffer as one edit (ctrl+z goes back to
        the disk's text); returns what to tell the user, or None when there was none."""
        found = recovery.load_copy(path)
        if found is None:
            return None
        if found.text == disk_text:  # saved after all (by another program, or a later run)
            recovery.drop_copy(path)
            return None
        self.recovery.found(path, found.text)
        self.app.source.replace_changed_lines(found.text)
        return (f"restored unsaved edits to {os.path.basename(path)} from {found.when} (the "
                "explorer ended without saving); ctrl+s saves them, ctrl+z drops them")

    def catch_signals(self) -> None:
        """SIGTERM and SIGHUP (the terminal closed) end the app the way quitting does, with
        the unsaved buffer kept in its recovery copy; so does the end of a served explorer's
        input (its browser tab's server went away)."""
        loop = asyncio.get_running_loop()
        self._watch_input(loop)
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                previous = signal.getsignal(sig)
                loop.add_signal_handler(sig, self._ended_by_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError, OSError):
                continue
            self._signals.append((sig, previous))

    def release_signals(self) -> None:
        """Give the signals back to the handlers they had before the app."""
        loop = asyncio.get_running_loop()
        for sig, previous in self._signals:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
                signal.signal(sig, previous)
        self._signals.clear()

    def _watch_input(self, loop: asyncio.AbstractEventLoop) -> None:
        """A served explorer (Textual's web driver) reads its keys and the browser's "quit"
        from stdin, in one thread: when that thread ends while the app runs, stdin closed
        and nobody can ever quit it, so it ends as on SIGHUP."""
        driver = getattr(self.app, "_driver", None)
        keys = getattr(driver, "_key_thread", None)
        if type(driver).__module__ != "textual.drivers.web_driver" or \
                not isinstance(keys, threading.Thread) or keys.ident is None:
            return  # a terminal (its input ends with SIGHUP), or no reader started

        def wait() -> None:
            keys.join()
            with contextlib.suppress(RuntimeError):  # the loop is closed: the app ended
                loop.call_soon_threadsafe(self._input_closed)

        threading.Thread(target=wait, name="agx-input-watch", daemon=True).start()

    def _input_closed(self) -> None:
        if not self.app.exiting and self.app.is_running:
            self._ended_by_signal(signal.SIGHUP)

    def _ended_by_signal(self, sig: int) -> None:
        self.keep_unsaved()
        self.discarded = True  # kept just now; nothing more to write on the way out
        if not self.app.is_headless:
            # The terminal may be gone (SIGHUP): if restoring it hangs, end anyway.
            self._last_resort = threading.Timer(LAST_RESORT_S, self._end_now, (128 + sig,))
            self._last_resort.daemon = True
            self._last_resort.start()
        self.app.exit(return_code=128 + sig)

    def _end_now(self, code: int) -> None:
        """The last resort: the worker (and what it started) ends, then this process."""
        with contextlib.suppress(Exception):
            self.app.bridge.close()
        os._exit(code)

    def ended(self) -> None:
        """The app's run is over: a last-resort exit timer set by a signal goes."""
        if self._last_resort is not None:
            self._last_resort.cancel()
