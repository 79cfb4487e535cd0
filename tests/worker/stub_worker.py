"""A TensorFlow worker without TensorFlow, for tests of what the caller does with its Hello.

Run by the stand-in interpreter :func:`stub_python` writes: ``--python`` gets a real Python
for its probe, and this module where the client starts its worker. Its Hello says what the
environment asks (``AGX_STUB_WARNINGS``: a JSON list of lost-capability sentences), and it
answers devices, ping and report requests (a report of the function with nothing in it).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
from pathlib import Path

HERE = Path(__file__).resolve()


def stub_python(folder: Path) -> Path:
    """An executable that runs Python for the interpreter probe and this stub in place of
    ``agexplorer.worker.server`` (the client runs ``PYTHON -c CODE FD PID``)."""
    path = folder / "python"
    path.write_text("#!/bin/sh\n"
                    'case "$2" in\n'
                    f'  *worker.server*) shift 2; exec "{sys.executable}" "{HERE}" "$@" ;;\n'
                    f'  *) exec "{sys.executable}" "$@" ;;\n'
                    "esac\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def main() -> None:
    from agexplorer.model.errors import AgxError
    from agexplorer.model.report import Report
    from agexplorer.worker import protocol, wire
    from agexplorer.worker.protocol import (
        DevicesRequest,
        Failure,
        Hello,
        PingRequest,
        Reply,
        ReportRequest,
    )

    sock = socket.socket(fileno=int(sys.argv[1]))
    warnings = tuple(json.loads(os.environ.get("AGX_STUB_WARNINGS", "[]")))
    wire.send(sock, Hello(version=protocol.VERSION, pid=os.getpid(), import_s=0.0,
                          tf_warnings=warnings, python="3.11.7", executable=sys.executable,
                          tensorflow="2.21.0", keras="2.21.0", keras_flavour="tf-keras"))
    while True:
        try:
            request = wire.receive(sock)
        except (EOFError, OSError):
            return
        reply: Reply | Failure
        if isinstance(request, DevicesRequest):
            reply = Reply([{"name": "/device:CPU:0", "type": "CPU"}])
        elif isinstance(request, PingRequest):
            reply = Reply("pong")
        elif isinstance(request, ReportRequest):
            path, _, function = request.target.partition("::")
            reply = Reply({"report": Report(path, function, first_line=1), "lab": None})
        else:
            reply = Failure(AgxError("bad-request", "the stub worker answers devices, ping "
                                     "and report requests only.", exit_code=3))
        wire.send(sock, reply)


if __name__ == "__main__":
    main()
