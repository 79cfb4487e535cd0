"""A served explorer's packets to textual-serve stay whole while its screen and a download are
written from two threads at once (agexplorer/tui/served_driver.py)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

import pytest

from agexplorer.cli import explorer as explorer_cli
from agexplorer.tui.served_driver import whole_writes

web_driver = pytest.importorskip("textual.drivers.web_driver")
binary = pytest.importorskip("textual_serve._binary_encode")

FRAME = "\x1b[1;1H" + "─loop·" * 4000  # a frame's escape codes, not ASCII only (~36 KB)
CHUNK = "<svg>" + "━x" * 32766  # a download's chunk of text (64 KB of characters)


def packets(stream: bytes) -> list[tuple[bytes, bytes]]:
    """textual-serve's reading of the pipe: (type, payload) for each packet."""
    found, at = [], 0
    while at < len(stream):
        kind, size = stream[at:at + 1], int.from_bytes(stream[at + 1:at + 5], "big")
        found.append((kind, stream[at + 5:at + 5 + size]))
        at += 5 + size
    return found


def interleave(driver_class: type, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bytes, bytes]]:
    """The screen's frames from one thread and a download's chunks from another, written
    through a driver of ``driver_class`` into a pipe read slowly (textual-serve on a loaded
    machine); what came out, packet by packet."""
    keys_r, keys_w = os.pipe()
    out_r, out_w = os.pipe()
    monkeypatch.setattr(sys, "__stdin__", os.fdopen(keys_r, "rb", buffering=0))
    monkeypatch.setattr(sys, "__stdout__", os.fdopen(out_w, "wb", buffering=0))
    received = bytearray()

    def read_slowly() -> None:
        while data := os.read(out_r, 16384):
            received.extend(data)
            time.sleep(0.0005)

    async def write_both() -> None:
        driver = driver_class(None, size=(80, 24))
        screen = threading.Thread(target=lambda: [driver.write(FRAME) for _ in range(40)])
        download = threading.Thread(target=lambda: [
            driver.write_binary_encoded(("deliver_chunk", "key", CHUNK)) for _ in range(20)])
        for thread in (screen, download):
            thread.start()
        for thread in (screen, download):
            thread.join()

    reader = threading.Thread(target=read_slowly)
    reader.start()
    try:
        asyncio.run(write_both())
    finally:
        sys.__stdout__.close()
        reader.join()
        sys.__stdin__.close()
        os.close(keys_w)
        os.close(out_r)
    return packets(bytes(received))


def test_the_screen_and_a_download_written_at_once_reach_textual_serve_whole(monkeypatch):
    found = interleave(whole_writes(web_driver.WebDriver), monkeypatch)
    frames = [payload for kind, payload in found if kind == b"D"]
    chunks = [payload for kind, payload in found if kind == b"P"]
    assert len(found) == 60 and len(frames) == 40 and len(chunks) == 20
    assert all(frame.decode() == FRAME for frame in frames)
    assert all(binary.load(chunk) == ("deliver_chunk", "key", CHUNK) for chunk in chunks)


def test_other_drivers_are_left_as_they_are():
    from textual.drivers.headless_driver import HeadlessDriver

    assert whole_writes(HeadlessDriver) is HeadlessDriver
    made = whole_writes(web_driver.WebDriver)
    assert issubclass(made, web_driver.WebDriver) and whole_writes(made) is not made


def test_the_served_explorer_runs_with_whole_writes(monkeypatch, tmp_path):
    """`agexplorer --served` (what `agexplorer serve` runs for each browser tab) gives its app
    the whole-writing driver; a terminal's explorer keeps Textual's own."""
    from agexplorer.tui.app import AgxApp

    used: list[type] = []
    monkeypatch.setattr(AgxApp, "run", lambda self, *a, **k: used.append(self.driver_class))
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = tmp_path / "f.py"
    path.write_text("def f(x):\n    return x\n")
    monkeypatch.setattr("textual.constants.DRIVER", "textual.drivers.web_driver:WebDriver")
    assert explorer_cli.open_tui(["--served", str(path)]) == 0
    assert explorer_cli.open_tui(["--no-daemon", str(path)]) == 0
    assert used[0].__name__ == "WholeWritesWebDriver"
    assert used[1] is web_driver.WebDriver
