"""The background worker's warm explorer (``agexplorer.cli.warm``): started with the socket it
listens on bound here, so a command that comes while it imports waits for it; it dies with
the background worker. Explorers it opened are processes of their own and go on."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

from agexplorer.daemon.place import Place, listen_unix

if TYPE_CHECKING:
    import subprocess

# In an explorer's own process, for its Log: whether the warm explorer opened it (set there,
# by agexplorer.cli.warm), or why a running one refused to (set by agexplorer.cli.handoff).
opened_warm = False
refused_why = ""


class WarmExplorer:
    """The warm explorer for ``place`` (its socket: ``place.explorer``), started now."""

    def __init__(self, place: Place) -> None:
        import subprocess  # here: every explorer imports this module for the two names above

        self.path = place.explorer
        listener, self.inode = listen_unix(self.path)  # the background worker runs in the folder
        try:
            self.proc: subprocess.Popen[bytes] = subprocess.Popen(
                [sys.executable, "-c", "from agexplorer.cli.warm import main; main()",
                 str(listener.fileno()), str(os.getpid())],
                pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True)
        finally:
            listener.close()  # the warm explorer holds it: if it dies, commands are refused

    def close(self) -> None:
        import subprocess

        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
