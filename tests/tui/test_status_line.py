"""The status line: a message wider than the screen wraps (up to three rows) instead of being
cut at the edge, and a short one takes one row again (issue 25: at 80 columns an error's
advice was cut off)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from agexplorer.tui.status_line import MAX_LINES, StatusLine

LONG = ("the tour's sample s6_2_bad_loop.py::bad_loop is not open: save or undo the edits to "
        "the open file first, then press enter again")


class _Bottom(App):
    CSS = "#status { height: 1; dock: bottom; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield Static("code", id="body")
        yield StatusLine("ready", id="status")


async def test_a_long_message_wraps_whole_and_a_short_one_takes_one_row_again():
    app = _Bottom()
    async with app.run_test(size=(80, 24)) as pilot:
        line = app.query_one(StatusLine)
        assert line.region.height == 1
        line.update(LONG)
        await pilot.pause()
        assert line.region.height == 2
        shown = _rows(line)
        assert shown.split() == LONG.split(), shown  # every word, none cut to "…"
        line.update("x " * 400)
        await pilot.pause()
        assert line.region.height == MAX_LINES
        line.update("ready")
        await pilot.pause()
        assert line.region.height == 1
        await pilot.resize_terminal(200, 24)
        line.update(LONG)
        await pilot.pause()
        assert line.region.height == 1  # it fits on one row at 200 columns


def _rows(line) -> str:
    """The text the line shows, its rows joined."""
    region = line.content_region
    strips = line.render_lines(region.reset_offset)
    return " ".join("".join(seg.text for seg in strip).strip() for strip in strips)
