"""The footer, the F1 help and the quit dialog as a person reads them at 80x24 and 160x45
(issue 25): whole keys only, the pane keys as one entry, both help columns filled, and the
focused Stay the most visible button. The worker's answers are replayed (no TensorFlow)."""

from __future__ import annotations

import html
import re
from typing import ClassVar

import pytest
from textual.color import Color
from textual.widgets import Button, Footer

from agexplorer.tui.dialogs.help import GETTING_AROUND, HelpScreen
from conftest import SAMPLES, wait_for
from tests.tui.answers import ReplayWorker

SIZES = [(80, 24), (160, 45)]
PALETTE = "▏^p palette"


def make_app():
    from agexplorer.tui.app import AgxApp

    return AgxApp([f"{SAMPLES}/s6_2_bad_loop.py"], "bad_loop", worker=ReplayWorker())


async def settle(app, pilot) -> None:
    assert await wait_for(pilot, lambda: app.state.report is not None and app.engine_ready
                          and app.workspace_ready, 30), "the explorer never showed its answer"
    await pilot.pause(0.2)
    await pilot.wait_for_scheduled_animations()


def screen_lines(app) -> list[str]:
    """The screen's rows as text, each cell at its column (read from the SVG screenshot,
    where rich writes one <text> per run of a style, 12.2 units a cell, clipped to its row)."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for x, row, text in re.findall(
            r'<text [^>]*?x="([\d.]+)" [^>]*?clip-path="url\(#[^)]*?-line-(\d+)\)"[^>]*>'
            r'(.*?)</text>', app.export_screenshot()):
        for i, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            column = round(float(x) / 12.2) + i
            if column < width:
                rows[int(row)][column] = char
    return ["".join(row) for row in rows]


def footer_items(footer: Footer) -> list[str]:
    """The text of each item the footer shows (a key, a group of keys, a group's label), in
    order, the command palette's key left out."""
    def text(widget) -> str:
        if widget.children:
            return " ".join(text(child) for child in widget.children if child.display)
        return str(widget.render())

    return [text(item) for item in footer.children
            if item.display and item.visible and not item.has_class("-command-palette")]


async def footer_settled(app, pilot) -> Footer:
    footer = app.screen.query_one(Footer)
    await pilot.pause(0.2)  # recomposed after the focus moved, then fitted after a refresh
    await pilot.wait_for_scheduled_animations()
    return footer


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_footer_shows_whole_keys_then_the_palette_and_no_stray_cell(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        footer = await footer_settled(app, pilot)
        row = screen_lines(app)[-1]
        # The palette's key at the right end, one blank cell after it, nothing else there.
        assert row.rstrip().endswith(PALETTE) and len(row) - len(row.rstrip()) <= 1, repr(row)
        shown = row[:row.rindex(PALETTE)]
        # Left of it exactly the items the footer shows, each whole: no cell of a cut key.
        items = footer_items(footer)
        assert shown.split() == " ".join(items).split(), (repr(row), items)
        assert len(items) >= 7, items  # f1 Keys ... ^s Save at 80 columns
        if size[0] >= 160:  # every key fits: the tab and pane keys as one entry each
            assert "1-9 Tabs" in shown and "alt+1-4 Panes" in shown, repr(row)
            assert "alt+1alt+2" not in row and "123" not in row
            assert shown.split()[-2:] == ["^q", "Quit"]  # Quit last, before the palette


async def test_keys_cut_at_80_columns_come_back_at_160():
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.resize_terminal(80, 24)
        await footer_settled(app, pilot)
        assert "Quit" not in screen_lines(app)[-1]  # cut at 80: hidden whole
        await pilot.resize_terminal(160, 45)
        footer = await footer_settled(app, pilot)
        row = screen_lines(app)[-1]
        assert "alt+1-4 Panes" in row and "^q Quit" in row, repr(row)
        assert row[:row.rindex(PALETTE)].split() == " ".join(footer_items(footer)).split()


async def test_a_key_the_palette_would_cut_is_hidden_whole_at_each_width():
    """Textual's footer, patched, in a plain app: at each width the row left of the palette
    holds whole items only, one cut by the palette's left edge among them at some widths."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding, BindingType

    from agexplorer.tui import textual_patches

    textual_patches.install_footer()
    panes = Binding.Group("Panes", compact=True)

    class Keys(App[None]):
        BINDINGS: ClassVar[list[BindingType]] = [*(Binding(f"f{i}", f"focus('k{i}')", name) for i, name in
                      enumerate(("Alpha", "Bravo", "Charlie", "Delta", "Echo"), 1)),
                    *(Binding(f"alt+{i}", f"focus('p{i}')", f"Pane {i}", group=panes)
                      for i in range(1, 4))]

        def compose(self) -> ComposeResult:
            yield Footer(compact=True)

    app = Keys()
    cut_at = []
    async with app.run_test(size=(100, 5)) as pilot:
        for width in (*range(30, 80, 4), 100):
            await pilot.resize_terminal(width, 5)
            footer = await footer_settled(app, pilot)
            row = screen_lines(app)[-1]
            assert row.rstrip().endswith(PALETTE), (width, row)
            shown = row[:row.rindex(PALETTE)]
            assert shown.split() == " ".join(footer_items(footer)).split(), (width, row)
            palette = footer.query_one(".-command-palette").region.x
            places = footer.arrange(footer.scrollable_content_region.size).placements
            if any(p.region.x < palette < p.region.right for p in places if not p.fixed):
                cut_at.append(width)
        assert "alt+1-3 Panes" in shown  # at 100 columns all of it
    assert len(cut_at) >= 6, cut_at  # some widths put an item across the palette's edge


def test_a_group_of_keys_reads_as_a_range_or_a_list():
    from agexplorer.tui.textual_patches import group_keys

    assert group_keys([f"alt+{i}" for i in range(1, 5)]) == "alt+1-4"
    assert group_keys([str(i) for i in range(1, 10)]) == "1-9"
    assert group_keys(["^b", "^f"]) == "^b/^f"  # not a run: each key named
    assert group_keys(["1", "2"]) == "1/2"  # two keys: as short either way, plainer named


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_help_fills_both_columns_and_starts_with_getting_around(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), 10)
        await pilot.pause(0.2)
        help_screen = app.screen
        titles = {"Getting around", *(title for title, _ in help_screen.groups)}
        # Every row of every group holds a key and what it does.
        for keys, described in GETTING_AROUND:
            assert keys.strip() and described.strip()
        for _, rows in help_screen.groups:
            assert all(keys.strip() and described.strip() for keys, described in rows), rows
        # On the screen: inside the box, each row is a title, a blank, or a key with its
        # description (two columns, both holding text), starting with how to get around.
        body = help_screen.query_one("#help-body").content_region
        lines = [line[body.x:body.right - 2].rstrip()  # less the scrollbar
                 for line in screen_lines(app)[body.y:body.bottom]]
        assert lines[0] == "Getting around", lines[:3]
        column = lines[1].index("Leave the editor")
        assert lines[1].startswith("esc ") and column <= 20, lines[1]
        for line in lines:
            if not line or line in titles:
                continue
            keys, described = line[:column].strip(), line[column:].strip()
            assert keys and described, (line, lines)
        if size[0] < 160:
            # The keys that free you from any pane are on the first screen.
            assert any(line.startswith("alt+1-4") for line in lines), lines


def _distance(a: Color, b: Color) -> float:
    return sum((x - y) ** 2 for x, y in zip(a.rgb, b.rgb, strict=True)) ** 0.5


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_focused_button_of_the_quit_dialog_is_its_most_visible(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.source.insert("# an edit\n", (0, 0))
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmQuit", 10)
        await pilot.pause(0.2)
        dialog = app.screen
        buttons = {button.id: button for button in dialog.query(Button)}
        behind = dialog.query_one("Vertical").styles.background

        def lit(button: Button) -> float:  # how far its face stands out from the dialog
            return _distance(button.styles.background, behind)

        for focused in ("stay", "save", "discard"):
            assert app.focused is buttons[focused]  # Stay first: Enter by reflex keeps edits
            others = [b for name, b in buttons.items() if name != focused]
            assert all(lit(buttons[focused]) > lit(other) + 60 for other in others), \
                {name: round(lit(b)) for name, b in buttons.items()}
            assert buttons[focused].styles.text_style.bold
            assert not any(other.styles.text_style.bold for other in others)
            await pilot.press("tab")  # Tab lights the next one: the focus is always seen
        # Each button says what it does in its own colour, lit or not.
        assert len({str(b.styles.color) for b in buttons.values()}) == 3
        await pilot.press("escape")  # stays: the edit is kept
        assert await wait_for(pilot, lambda: type(app.screen).__name__ != "ConfirmQuit", 5)
        assert app.source.text.startswith("# an edit\n")
