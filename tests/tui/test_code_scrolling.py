"""The code panes scroll back to the start of the lines once the cursor fits there (issue 25:
after End on a long line, the editor stayed scrolled sideways, every indentation hidden)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from agexplorer.tui.code.converted_pane import ConvertedPane
from agexplorer.tui.code.source_pane import SourcePane

LONG = "    return x + " + " + ".join(f"value_{i}" for i in range(20))
TEXT = f"def f(x):\n    y = 1\n{LONG}\n    return y\n"


class _One(App):
    def __init__(self, pane) -> None:
        super().__init__()
        self.pane = pane

    def compose(self) -> ComposeResult:
        yield self.pane


@pytest.mark.parametrize("kind", [SourcePane, ConvertedPane])
async def test_after_end_on_a_long_line_a_short_line_shows_from_its_start(kind):
    pane = kind()
    app = _One(pane)
    async with app.run_test(size=(60, 12)) as pilot:
        pane.load_text(TEXT)
        pane.focus()
        pane.move_cursor((2, 0))
        await pilot.press("end")
        await pilot.pause()
        assert pane.scroll_x > 100  # the end of the long line is shown
        await pilot.press("down")  # to "    return y": fits from column 0
        await pilot.pause()
        assert pane.scroll_x == 0, pane.cursor_location
        await pilot.press("up", "end")
        await pilot.pause()
        assert pane.scroll_x > 100
        await pilot.press("home")  # to the first non-blank: column 4
        await pilot.pause()
        assert pane.scroll_x == 0, pane.cursor_location
        await pilot.press("end", "left", "left")  # still far right: stays scrolled
        await pilot.pause()
        assert pane.scroll_x > 100


async def test_the_converted_pane_names_the_decorators_wrapper_its_code_is_called_by():
    from types import SimpleNamespace

    from agexplorer.model.report import CallSite, Conversion, Report

    pane = ConvertedPane()
    app = _One(pane)
    wrapped = Conversion("def tf__f(x):\n    pass\n", [(1, 7)],
                         wrapped_by=CallSite("timed.<locals>.wrapper", "/p/[x]deco.py", 5))
    async with app.run_test(size=(60, 12)) as pilot:
        pane.on_report_changed(SimpleNamespace(report=Report("/p/a.py", "f",
                                                             conversion=wrapped)))
        await pilot.pause()
        assert pane.text == wrapped.code  # the function's own code, as converted
        # (the file name's brackets are text, not markup)
        assert str(pane.border_subtitle) == r"called by timed.<locals>.wrapper (\[x]deco.py:5)"
        assert "[x]deco.py:5" in app.export_screenshot()
        pane.on_report_changed(SimpleNamespace(report=Report(
            "/p/a.py", "f", conversion=Conversion("def tf__f(x):\n", [(1, 7)]))))
        assert not pane.border_subtitle


@pytest.mark.parametrize("kind", [SourcePane, ConvertedPane])
async def test_a_text_of_another_length_updates_the_scroll_bar_without_a_layout(kind):
    # Textual lays the whole screen out for a new virtual size; a code pane's own size
    # never follows its text, so only its scroll bars change: a longer text scrolls further
    # at once, and a scroll bar that appears or goes still lays the screen out.
    from textual.containers import Horizontal
    from textual.widgets import Static

    class Beside(App):
        CSS = "#beside { width: 10; } TextArea { width: 1fr; }"

        def compose(self) -> ComposeResult:
            with Horizontal():
                yield Static("beside", id="beside")
                yield pane

    pane = kind()
    app = Beside()
    short = "".join(f"x_{i} = {i}\n" for i in range(30))
    async with app.run_test(size=(60, 12)) as pilot:
        pane.load_text(short)
        await pilot.pause()
        assert pane.show_vertical_scrollbar
        screen = app.screen
        reflows = []
        refresh_layout = screen._refresh_layout

        def counted(*args, **kwargs):
            reflows.append(1)
            return refresh_layout(*args, **kwargs)

        screen._refresh_layout = counted
        pane.load_text(short + "y = 1\n" * 20)
        assert pane.virtual_size.height == 51 and pane.max_scroll_y == 51 - pane.size.height
        assert pane.vertical_scrollbar.window_virtual_size == 51
        pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert reflows == [] and pane.scroll_y == pane.max_scroll_y
        assert not screen._layout_required
        pane.load_text("z = 0\n")  # fits: the bar goes, the screen is laid out
        await pilot.pause()
        assert reflows and not pane.show_vertical_scrollbar and pane.scroll_y == 0


class _Below(App):
    """The source pane above a panel whose height changes (a result opened below it)."""

    def compose(self) -> ComposeResult:
        from textual.widgets import Static

        yield SourcePane(id="source")
        yield Static("results", id="below")

    def on_mount(self) -> None:
        self.query_one("#source").styles.height = "1fr"
        self.query_one("#below").styles.height = 3


MANY = "".join(f"x_{i} = {i}\n" for i in range(200))


async def centred_after_layout(then=None) -> tuple[int, int, int]:
    """(the pane's first row, the row it would have centred line 100 at in its final height,
    the pane's final height) after goto_line(100) and then a panel below growing."""
    app = _Below()
    async with app.run_test(size=(60, 40)) as pilot:
        pane = app.query_one(SourcePane)
        pane.load_text(MANY)
        await pilot.pause()
        pane.goto_line(100)
        await pilot.pause()
        if then is not None:
            await then(pilot, pane)
        app.query_one("#below").styles.height = 30  # the pane shrinks to a few rows
        await pilot.pause()
        await pilot.pause()
        top = int(pane.scroll_y)
        pane.scroll_cursor_visible(center=True)  # centred now, in the final height
        return top, int(pane.scroll_y), pane.scrollable_content_region.height


async def test_a_line_goto_line_centred_stays_centred_as_a_panel_opens_below():
    """Where the function's first line stood after a layout change depended on whether its
    centring came before that layout (the tour's pictures differed from run to run)."""
    top, centred, height = await centred_after_layout()
    assert height < 10 and top == centred


async def test_a_moved_cursor_or_a_scroll_is_left_alone_by_a_later_layout():
    async def moved(pilot, pane):
        pane.move_cursor((120, 0))
        await pilot.pause()

    async def scrolled(pilot, pane):
        pane.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        from textual import events

        # the user's wheel: the centring is let go
        pane.post_message(events.MouseScrollDown(pane, 1, 1, 0, 1, 0, False, False, False))
        await pilot.pause()

    top, centred, _ = await centred_after_layout(moved)
    assert top != centred
    top, centred, _ = await centred_after_layout(scrolled)
    assert top != centred
