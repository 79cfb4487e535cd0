"""The lesson tour in a real browser (issue 25): `agexplorer serve --tour`, the page sized to
80x24, 100x30, 120x40 and 200x60 terminal cells, a step answered at each size, and the screen
the browser's explorer saves (F9, a download) read back: its size is the browser's, the tour
and the step's answer are on it, and no table cell collapsed to "…". (The terminal's pictures
of every step at each size: tests/tui/test_tour_snapshots.py.)"""

from __future__ import annotations

import os
import re
import time

import pytest
from serve_helpers import chromium, start_server, stop_server

from agexplorer.tui.tour.steps import STEPS
from tests.render.test_user_text_escaping import _svg_text
from tests.tui.test_tour_snapshots import COLLAPSED

# The frames the app sent (to wait on) and the sizes the page asked for (the websocket's
# address carries the first, "resize" messages the next ones).
_RECORD = """
(() => {
  window.__tx = "";
  window.__sizes = [];
  const decoder = new TextDecoder();
  const Original = window.WebSocket;
  window.WebSocket = function (...args) {
    const first = new URL(args[0], location.href).searchParams;
    window.__sizes.push([+first.get("width"), +first.get("height")]);
    const ws = new Original(...args);
    const send = ws.send.bind(ws);
    ws.send = (data) => {
      if (typeof data === "string" && data.startsWith('["resize"')) {
        const size = JSON.parse(data)[1];
        window.__sizes.push([size.width, size.height]);
      }
      send(data);
    };
    ws.addEventListener("message", (event) => {
      const data = event.data;
      if (typeof data === "string") window.__tx += data;
      else if (data instanceof ArrayBuffer) window.__tx += decoder.decode(data);
    });
    return ws;
  };
  window.WebSocket.prototype = Original.prototype;
  Object.assign(window.WebSocket, Original);
})();
"""

# (terminal size, the tour's step shown there): quick steps (an analysis, the Doctor).
SIZES = [((80, 24), 4), ((100, 30), 5), ((120, 40), 7), ((200, 60), 9)]


@pytest.mark.tf  # each tab's explorer starts a worker (forked from the suite's zygote)
def test_the_tour_in_a_browser_at_each_size(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs "
                                   "playwright: pip install -e '.[test]'")
    browser_binary = chromium()
    env = {**os.environ, "TMPDIR": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    served = start_server("--tour", env=env, cwd=str(tmp_path))
    try:
        with sync_api.sync_playwright() as p:
            # downloads open in a new window when the answer comes: no popup blocker (as
            # in test_serve.py's two-session test)
            browser = p.chromium.launch(executable_path=browser_binary,
                                        args=["--no-sandbox", "--disable-gpu",
                                              "--disable-popup-blocking"])
            context = browser.new_context(viewport={"width": 1000, "height": 600},
                                          accept_downloads=True)
            page = context.new_page()
            saved: list = []
            page.on("download", lambda download: saved.append(download))
            page.add_init_script(_RECORD)
            page.goto(served.url)
            page.wait_for_selector("body.-first-byte", timeout=60_000)
            page.wait_for_function("window.__tx.includes('lesson tour')", timeout=120_000)
            # The keys go to the terminal once it is clicked: on the tour's panel (at the right).
            box = page.locator("#terminal").bounding_box()
            assert box is not None
            page.click("#terminal", position={"x": box["width"] * 0.9, "y": box["height"] * 0.5})
            step = 1
            for (cols, rows), wanted in SIZES:
                _size_to(page, cols, rows)
                for _ in range(wanted - step):
                    page.keyboard.press("F8")
                step = wanted
                screen = _answered(page, saved, step, (cols, rows))
                # Drawn at the browser's size, the footer on its last row.
                assert svg_size(saved[-1].path()) == (cols, rows)
                assert "palette" in screen.splitlines()[-1], screen
                # For people to look at (kept in the test's folder: --basetemp).
                page.locator("#terminal").screenshot(path=str(tmp_path / f"{cols}x{rows}.png"))
                collapsed = COLLAPSED.search(screen)
                assert collapsed is None, ((cols, rows), collapsed.group(0), screen)
            browser.close()
    finally:
        print(stop_server(served.proc))  # the server's log, shown if the test fails


def _size_to(page, cols: int, rows: int) -> None:
    """Size the page until its terminal is ``cols`` x ``rows`` cells (the cell's size in
    pixels is the font's: measured from the sizes the page asked for)."""
    viewport = page.viewport_size
    for _ in range(8):
        width, height = page.evaluate("window.__sizes[window.__sizes.length - 1]")
        if (width, height) == (cols, rows):
            return
        cell_w = viewport["width"] / max(width, 1)
        cell_h = viewport["height"] / max(height, 1)
        viewport = {"width": int(viewport["width"] + (cols - width) * cell_w + (cols > width)),
                    "height": int(viewport["height"] + (rows - height) * cell_h + (rows > height))}
        asked = page.evaluate("window.__sizes.length")
        page.set_viewport_size(viewport)
        _poll(page, lambda n=asked: page.evaluate("window.__sizes.length") > n, 5)
    raise AssertionError(f"the page never made a {cols}x{rows} terminal: "
                         f"{page.evaluate('window.__sizes')}")


def _answered(page, saved: list, step: int, size: tuple[int, int]) -> str:
    """Press Enter (the step's action) and save the screen (F9) until it shows the step's
    answer (the tour's panel says what it was made from); the screen's text."""
    from playwright.sync_api import Error as BrowserError

    page.keyboard.press("Enter")
    deadline = time.monotonic() + 90
    screen = ""
    cancelled: list[str] = []
    while time.monotonic() < deadline:
        count = len(saved)
        page.keyboard.press("F9")
        _poll(page, lambda n=count: len(saved) > n, 30)
        try:
            path = saved[-1].path()
        except BrowserError as error:
            # Chromium now and then cancels one of the many downloads a site starts without a
            # click (its guard against them; seen once in a clean-clone run): save again.
            cancelled.append(f"{saved[-1].url}: {error}")
            continue
        with open(path, encoding="utf-8") as fh:
            screen = _svg_text(fh.read())
        function = STEPS[step - 1].function.rpartition(".")[2]
        if f"{step} of 10" in screen and re.search(rf"\bfrom \S*{function}\(", _tour(screen)):
            return screen
        page.wait_for_timeout(500)
    raise AssertionError(f"step {step} never showed its answer at {size} (cancelled downloads: "
                         f"{cancelled}):\n{screen}")


def svg_size(path: str) -> tuple[int, int]:
    """The (columns, rows) of a screen saved as SVG by Textual (rich: 12.2 units a column
    and 18 of margins; a clip path per row but the last)."""
    with open(path, encoding="utf-8") as fh:
        svg = fh.read()
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    return round((width - 18) / 12.2), len(re.findall(r'<clipPath id="[^"]*-line-\d+"', svg)) + 1


def _tour(screen: str) -> str:
    """The tour panel's words, its rows joined (the panel is the box drawn with "║")."""
    rows = [line.split("║")[1] for line in screen.splitlines() if line.count("║") >= 2]
    return " ".join(" ".join(rows).split())


def _poll(page, condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not condition():
        page.wait_for_timeout(100)
