"""`agexplorer serve`: loopback by default, one sentence on a bad address, and a real browser."""

from __future__ import annotations

import base64
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from agexplorer.cli import main
from agexplorer.cli import serve as serve_module
from conftest import ROOT, fixture

# Wraps the page's WebSocket so the test can wait on what the app drew: the terminal is a
# canvas, so the DOM never holds the text.
_RECORD_FRAMES = """
(() => {
  window.__tx = "";
  const decoder = new TextDecoder();
  const Original = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Original(...args);
    ws.addEventListener("message", (event) => {
      const data = event.data;
      if (typeof data === "string") window.__tx += data;
      else if (data instanceof ArrayBuffer) window.__tx += decoder.decode(data);
      else if (data instanceof Blob) data.text().then((text) => { window.__tx += text; });
    });
    return ws;
  };
  window.WebSocket.prototype = Original.prototype;
  Object.assign(window.WebSocket, Original);
})();
"""

# How many colours a screenshot holds, counted by the browser itself (no image library here).
_COUNT_COLOURS = """
async (b64) => {
  const img = new Image();
  img.src = "data:image/png;base64," + b64;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width;
  canvas.height = img.height;
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, canvas.width, canvas.height).data;
  const seen = new Set();
  for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  return seen.size;
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(*args: str) -> tuple[subprocess.Popen[str], int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "agexplorer", "serve", *args,
                             "--port", str(port)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the server ended: {proc.stdout.read()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("the server did not listen within 60 s")


def _stop_server(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"the server did not stop on SIGTERM: {out}")
    return out


def _living_processes() -> dict[int, int]:
    """Every process that is not a zombie, with its parent."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    return parents


def _descendants(pid: int) -> set[int]:
    parents, found, todo = _living_processes(), set(), [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _is_worker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"agexplorer.worker.server" in f.read()
    except OSError:
        return False


def _listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as /proc shows them) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, _, hex_port = local.partition(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


def test_bad_port_is_one_sentence(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--port", "70000"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'70000' is not a port from 1 to 65535" in err


def test_bad_host_is_one_sentence(capsys):
    assert main(["serve", "--host", "203.0.113.5", "--port", str(_free_port())]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("agexplorer: cannot listen on 203.0.113.5")
    assert "--host 127.0.0.1" in err


def test_busy_port_is_one_sentence(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"port {port} on 127.0.0.1 is already in use" in err


def test_missing_path_is_one_sentence(capsys):
    assert main(["serve", "no_such_lesson.py"]) == 2
    err = capsys.readouterr().err
    assert err == ("agexplorer: no_such_lesson.py: no such file or folder; give the PATH the "
                   "explorer should open, or none for the lesson's samples.\n")


def test_exposed_host_warns_that_it_runs_code(capsys, monkeypatch):
    served = []

    class Recorder:
        def __init__(self, command: str, host: str, port: int, title: str) -> None:
            served.append((command, host, port))

        def serve(self) -> None:
            return None

    monkeypatch.setattr(serve_module, "_server_class", lambda: Recorder)
    port = _free_port()
    assert main(["serve", fixture("control_flow.py"), "--host", "0.0.0.0", "--port",
                 str(port)]) == 0
    err = capsys.readouterr().err
    assert err == (f"agexplorer: warning: --host 0.0.0.0 lets anyone who can reach port {port} "
                   "run code on this machine (the explorer runs what it opens, and there is "
                   "no password).\n")
    command, host, _ = served[0]
    assert host == "0.0.0.0" and command.endswith(f"-m agexplorer {fixture('control_flow.py')}")
    assert serve_module.exposure_warning("localhost", port, ["::1", "127.0.0.1"]) is None


def test_server_listens_on_loopback_only():
    proc, port = _start_server(fixture("control_flow.py"))
    try:
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing else
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read().decode()
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
    finally:
        out = _stop_server(proc)
    assert proc.returncode == 0
    assert out.splitlines()[0] == (f"agexplorer: serving the explorer on http://127.0.0.1:{port} "
                                   "(each browser tab runs its own; Ctrl+C stops it).")


def _chromium() -> str:
    for name in (os.environ.get("AGX_CHROMIUM"), "chromium", "chromium-browser"):
        found = name and shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium to test the browser mode with: `apt-get install chromium` "
                "(.ci/run does) or set AGX_CHROMIUM to a Chromium binary")


@pytest.mark.tf
def test_explorer_in_a_real_browser(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs "
                                   "playwright: pip install -e '.[test]'")
    chromium = _chromium()
    proc, port = _start_server(fixture("control_flow.py"))
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium,
                                        args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.add_init_script(_RECORD_FRAMES)
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("body.-first-byte", timeout=60_000)
            # The function list: the fixture's functions, drawn by the explorer.
            page.wait_for_function("window.__tx.includes('tensor_while')", timeout=60_000)
            assert "python_for" in page.evaluate("window.__tx")
            # A key press reaches it: ctrl+p opens the command palette.
            page.click("#terminal")
            page.keyboard.press("Control+p")
            page.wait_for_function("window.__tx.includes('for commands')", timeout=30_000)
            shot = page.locator("#terminal").screenshot(path=str(tmp_path / "browser.png"))
            colours = page.evaluate(_COUNT_COLOURS, base64.b64encode(shot).decode())
            assert colours >= 8, f"the screenshot looks blank ({colours} colours)"
            session = _descendants(proc.pid)
            workers = [pid for pid in session if _is_worker(pid)]
            deadline = time.monotonic() + 60
            while not workers and time.monotonic() < deadline:
                time.sleep(0.2)
                session = _descendants(proc.pid)
                workers = [pid for pid in session if _is_worker(pid)]
            assert workers, "the browser's explorer started no TensorFlow worker"
            browser.close()  # the session ends: its explorer and worker must end with it
        deadline = time.monotonic() + 60
        living = _living_processes()
        while set(living) & session and time.monotonic() < deadline:
            time.sleep(0.2)
            living = _living_processes()
        assert not set(living) & session, "the session's processes outlived the browser tab"
    finally:
        _stop_server(proc)
    assert proc.returncode == 0
