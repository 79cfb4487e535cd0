"""Find in the Log tab: the match is scrolled into view and drawn marked; n/N step, "k of N"."""

from __future__ import annotations

import pytest

from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


def _marked(log) -> list[tuple[int, str]]:
    """(row, text) of every segment of the Log drawn in the match style."""
    return [(row, segment.text) for row, line in enumerate(log.lines) for segment in line
            if segment.style is not None and segment.style.reverse and segment.style.bold]


def _count(app) -> str:
    return str(app.finder.bar.count.render())


async def test_find_in_the_log_scrolls_to_and_marks_each_match(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        log = app.panes.log_view
        await pilot.press("7")  # the Log tab
        assert await wait_for(pilot, lambda: app.panes.panels.active == "tab-log", 10)
        # Known lines: three matches (two on one line), far apart, below the fold.
        for i in range(60):
            log.write(f"filler {i}")
        log.write("first Zebra here")
        for i in range(40):
            log.write(f"more filler {i}")
        log.write("zebra and zebra again")
        # The Log scrolls to its end after a refresh (a write's auto scroll is deferred):
        # that lands first, else it could land after the scroll home below, and the find
        # would start from the end (seen on CI: "2 of 3").
        assert await wait_for(pilot, lambda: log.max_scroll_y > 0
                              and log.scroll_y == log.max_scroll_y, 10)
        rows = [row for row, line in enumerate(log.lines) if "zebra" in line.text.lower()]
        assert len(rows) == 2
        log.focus()
        log.scroll_home(animate=False)
        assert await wait_for(pilot, lambda: log.scroll_y == 0, 10)
        await pilot.press("ctrl+f", *"zebra", "enter")
        await pilot.pause()
        assert app.focused is log
        assert _count(app).startswith("1 of 3")
        assert _marked(log) == [(rows[0], "Zebra")]
        height = log.scrollable_content_region.height
        assert log.scroll_y <= rows[0] < log.scroll_y + height  # on screen
        shown = log.scroll_y
        app.status.log("a line the worker sent meanwhile")  # the Log stays on the match
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_y == shown and _marked(log) == [(rows[0], "Zebra")]
        await pilot.press("n")
        await pilot.pause()
        assert _count(app).startswith("2 of 3")
        assert _marked(log) == [(rows[1], "zebra")]  # the first line is drawn as it was
        assert log.lines[rows[0]].text == "first Zebra here"
        assert log.scroll_y <= rows[1] < log.scroll_y + height
        await pilot.press("n")
        await pilot.pause()
        assert _count(app).startswith("3 of 3")
        line = log.lines[rows[1]]
        assert line.text == "zebra and zebra again"
        texts = [s.text for s in line]
        marked = [i for i, s in enumerate(line) if s.style is not None and s.style.reverse]
        assert len(marked) == 1 and texts[marked[0]] == "zebra"
        assert "".join(texts[:marked[0]]) == "zebra and "  # the second one on the line
        await pilot.press("N", "N")
        await pilot.pause()
        assert _count(app).startswith("1 of 3") and _marked(log) == [(rows[0], "Zebra")]
        assert app.state.target[1] == "python_for"  # n/N went through matches, not functions
        await pilot.press("escape")
        await pilot.pause()
        assert not app.finder.is_open and _marked(log) == []
