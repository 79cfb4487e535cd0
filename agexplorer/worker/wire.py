"""The socket between the client and the worker: length-prefixed pickles, read against a deadline."""

from __future__ import annotations

import pickle
import socket
import struct
import time
from typing import Any

_HEADER = struct.Struct("!Q")
_CHUNK = 1 << 20


def dumps(message: Any) -> bytes:
    """The bytes of one message (raises what pickling raises: the caller words it)."""
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def send_bytes(sock: socket.socket, data: bytes, deadline: float | None = None) -> None:
    """Send one message made by :func:`dumps` (TimeoutError past ``deadline``, a monotonic time)."""
    sock.settimeout(None if deadline is None else max(deadline - time.monotonic(), 0.001))
    if len(data) < 65536:  # one write: a small message never goes out as two packets
        sock.sendall(_HEADER.pack(len(data)) + data)
    else:  # no copy of a large answer just to prepend eight bytes
        sock.sendall(_HEADER.pack(len(data)))
        sock.sendall(data)


def send(sock: socket.socket, message: Any, deadline: float | None = None) -> None:
    """Pickle and send one message."""
    send_bytes(sock, dumps(message), deadline)


def receive(sock: socket.socket, deadline: float | None = None) -> Any:
    """The next message. The whole message must arrive before ``deadline`` (a monotonic
    time; None waits for ever): TimeoutError otherwise, EOFError when the other side closed,
    so a huge answer cannot keep a request past its timeout."""
    (size,) = _HEADER.unpack(_read(sock, _HEADER.size, deadline))
    return pickle.loads(_read(sock, size, deadline))


def _read(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    data = bytearray()
    while len(data) < size:
        if deadline is None:
            sock.settimeout(None)
        else:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("deadline passed")
            sock.settimeout(remaining)
        chunk = sock.recv(min(size - len(data), _CHUNK))
        if not chunk:
            raise EOFError("the other side closed the socket")
        data += chunk
    return bytes(data)
