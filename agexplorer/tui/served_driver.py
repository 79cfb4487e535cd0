"""A served explorer's screen and its downloads go to textual-serve down one pipe (the
process's stdout), as packets: a type byte, a 4-byte length, the payload. Textual's web driver
writes each packet with a single ``os.write`` and from two threads: the screen's updates from
the app's thread, a download's chunks (64 KB each) from its input thread, which answers
textual-serve's chunk requests. A write larger than the pipe's free space is not atomic: while
one thread's chunk waits for textual-serve to read, the other thread's frame lands in the
middle of it, and from there textual-serve reads lengths out of the payloads. Seen in the
browser tests as "DecodeError: More data expected", a download cancelled after 30 s and a
screen that no longer changed (a loaded machine, where textual-serve reads slowly); shown
by tests/tui/test_served_driver.py, which interleaves the two writers on a slowly read pipe.

:func:`whole_writes` gives the explorer a web driver whose packets are written one at a time
and whole (a partial write, e.g. cut short by a signal, is carried on). Textual's name for the
driver's write (``_write``, a function of the instance) is checked on each driver made: a
Textual that names it otherwise gets its own driver, unchanged.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.driver import Driver

WEB_DRIVER_MODULE = "textual.drivers.web_driver"


def whole_writes(driver_class: type[Driver]) -> type[Driver]:
    """``driver_class`` where it is not Textual's web driver; else a subclass whose packets
    never interleave and are always written whole."""
    if not any(cls.__module__ == WEB_DRIVER_MODULE for cls in driver_class.__mro__):
        return driver_class

    class WholeWrites(driver_class):  # type: ignore[valid-type, misc]
        """Textual's web driver, one whole packet at a time."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._writing = threading.Lock()
            if callable(getattr(self, "_write", None)) and \
                    isinstance(getattr(self, "fileno", None), int):
                self._write = self._write_whole

        def _write_whole(self, data: bytes) -> None:
            view = memoryview(data)
            with self._writing:
                while view:
                    view = view[os.write(self.fileno, view):]

    WholeWrites.__name__ = WholeWrites.__qualname__ = f"WholeWrites{driver_class.__name__}"
    return WholeWrites
