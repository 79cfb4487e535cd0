"""`agexplorer serve` in a subprocess, for the serve tests and the security faults: start it,
read the address it printed, knock on it as a browser or a hostile client would."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest

from conftest import ROOT

HANDSHAKE = ("GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")


@dataclass
class Served:
    """A running `agexplorer serve`: its process, port, and the address it printed."""

    proc: subprocess.Popen[str]
    port: int
    url: str  # as printed: http://127.0.0.1:PORT/?token=...
    banner: list[str]  # the lines it printed before listening

    @property
    def token(self) -> str:
        return self.url.partition("?token=")[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(*args: str, env: dict[str, str] | None = None, cwd: str = ROOT) -> Served:
    """`agexplorer serve ARGS --port N` (in ``cwd``), once it listens (its banner read)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "agexplorer", "serve", *args,
                             "--port", str(port)], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    banner: list[str] = []
    while not banner or not banner[-1].startswith("agexplorer: serving"):
        line = proc.stdout.readline()
        if not line:
            proc.wait(30)
            pytest.fail(f"the server ended: {''.join(banner)}")
        banner.append(line.rstrip("\n"))
    url = re.search(r"http://\S+", banner[-1]).group(0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the server ended: {proc.stdout.read()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return Served(proc, port, url, banner)
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("the server did not listen within 60 s")


def stop_server(proc: subprocess.Popen[str]) -> str:
    """SIGTERM, as Ctrl+C would; what it printed after its banner."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"the server did not stop on SIGTERM: {out}")
    return out


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """(status, body) of a GET, a refusal included."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def handshake(port: int, path: str, origin: str | None = None,
              host: str | None = None) -> tuple[str, str]:
    """A WebSocket upgrade written by hand, as a hostile page's browser or a script sends it:
    (the status line, the body) of the answer."""
    text = HANDSHAKE.format(path=path, host=host or f"127.0.0.1:{port}")
    if origin is not None:
        text += f"Origin: {origin}\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall((text + "\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        if head.startswith(b"HTTP/1.1 403"):
            length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))
            while len(body) < length:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                body += chunk
    return head.split(b"\r\n")[0].decode(), body.decode()


def chromium() -> str:
    """A Chromium binary, or the test is skipped saying how to get one."""
    for name in (os.environ.get("AGX_CHROMIUM"), "chromium", "chromium-browser"):
        found = name and shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium to test the browser mode with: `apt-get install chromium` "
                "(.ci/run does) or set AGX_CHROMIUM to a Chromium binary")
