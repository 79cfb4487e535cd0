"""The layout at every size: the folding function list, zoom and presentation mode.

A stand-in worker answers without TensorFlow (a report request fails with one sentence),
so these tests drive only the layout, and record what the app asked the worker."""

from __future__ import annotations

import os

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.tui.functions.navigation import ANALYSE_PAUSE
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import DevicesRequest, PingRequest, ReportRequest
from conftest import SAMPLES, wait_for

TARGET = os.path.join(SAMPLES, "s6_2_bad_loop.py")


class AskedWorker(Worker):
    """Answers pings and devices; remembers each report request and fails it."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[ReportRequest] = []

    def request(self, req, **_):
        if isinstance(req, PingRequest):
            return "pong"
        if isinstance(req, DevicesRequest):
            return [{"name": "/device:CPU:0", "type": "CPU"}]
        if isinstance(req, ReportRequest):
            self.asked.append(req)
        raise AgxError("user-code", "no TensorFlow in this test")

    def close(self) -> None:
        pass


@pytest.fixture
def app():
    from agexplorer.tui.app import AgxApp

    return AgxApp([TARGET], "bad_loop", worker=AskedWorker())


async def started(pilot) -> None:
    assert await wait_for(pilot, lambda: pilot.app.workspace_ready and pilot.app.state.target, 30)
    await pilot.pause()  # the first function's layout is applied


def region(app, selector: str):
    return app.query_one(selector).region


async def test_at_80_columns_the_list_folds_and_the_code_panes_stack_or_alternate(app):
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot)
        assert app.screen.has_class("-narrow", "-short")
        assert not app.query_one("#picker").display
        source, converted = region(app, "#source"), region(app, "#converted")
        assert converted.y >= source.bottom and source.width >= 80  # stacked, full width
        # 80x24: room for one code pane; the focused one shows (alt+3 AutoGraph, alt+2 source).
        await pilot.resize_terminal(80, 24)
        source_pane, converted_pane = app.query_one("#source"), app.query_one("#converted")
        assert await wait_for(pilot, lambda: app.screen.has_class("-narrow", "-tiny")
                              and not converted_pane.display, 5)
        assert source_pane.display
        assert source_pane.region.height >= 8  # twice what stacking left it
        await pilot.press("escape", "alt+3")
        assert await wait_for(pilot, lambda: converted_pane.display and converted_pane.has_focus
                              and not source_pane.display, 5)
        await pilot.press("alt+2")
        assert await wait_for(pilot, lambda: source_pane.display
                              and not converted_pane.display, 5)
        # F2 swaps them, from the editor too (alt+digits are not sent by every terminal).
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: converted_pane.display
                              and converted_pane.has_focus, 5)
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: source_pane.display and source_pane.has_focus, 5)
        assert "F2" in str(source_pane.border_subtitle)
        # Code that focuses a hidden pane (Enter on a verdict row focuses the source) shows it.
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: converted_pane.has_focus, 5)
        source_pane.focus()
        assert await wait_for(pilot, lambda: source_pane.has_focus and source_pane.display, 5)
        assert not converted_pane.display
        await pilot.resize_terminal(150, 42)
        assert await wait_for(pilot, lambda: app.screen.has_class("-medium")
                              and app.query_one("#picker").display, 5)
        await pilot.pause()  # the regions of the new layout
        source, converted = region(app, "#source"), region(app, "#converted")
        assert converted.x >= source.right and converted.y == source.y  # side by side


async def test_the_first_frame_has_its_size_classes_and_a_folded_list_takes_no_keys(app,
                                                                                 monkeypatch):
    """The screen's breakpoint classes are set before its first frame (Textual's first resize
    came after it and drew everything again); at 80x24 the folded list is not focused, as
    when a resize folded it: a key then goes to the app, not to a hidden list."""
    from textual.screen import Screen

    seen: list[set[str]] = []
    resume = Screen._on_screen_resume

    def first_layout(screen, event):  # the screen's first layout: its first frame follows
        seen.append(set(screen.classes))
        return resume(screen, event)

    monkeypatch.setattr(Screen, "_on_screen_resume", first_layout)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert {"-narrow", "-tiny"} <= seen[0]
        assert app.screen.focused is None or app.screen.focused.display
    wide = type(app)([TARGET], "bad_loop", worker=AskedWorker())
    async with wide.run_test(size=(160, 45)) as pilot:
        await started(pilot)
        assert wide.screen.focused is wide.query_one("#picker")  # shown: it has the keys


async def test_ctrl_b_shows_the_list_and_picking_folds_it_at_80_columns(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        picker = app.query_one("#picker")
        await pilot.press("ctrl+b")
        assert await wait_for(pilot, lambda: picker.display and picker.has_focus, 5)
        await pilot.press("down", "enter")  # the second function: fixed_loop
        assert await wait_for(pilot, lambda: app.state.target[1] == "fixed_loop"
                              and not picker.display and app.source.has_focus, 10)
        await pilot.press("ctrl+b", "ctrl+b")  # open, then fold again by the same key
        await pilot.pause()  # both keys handled (the list is shown, then folded)
        assert not picker.display


async def test_ctrl_b_folds_the_list_at_wide_sizes_too(app):
    async with app.run_test(size=(200, 60)) as pilot:
        await started(pilot)
        assert app.screen.has_class("-wide", "-tall")
        before = region(app, "#source").width
        await pilot.press("ctrl+b")
        # The room went to the code.
        assert await wait_for(pilot, lambda: not app.query_one("#picker").display
                              and region(app, "#source").width > before, 5)


async def test_f11_zooms_the_focused_pane_and_back(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        # the analysis's answer (a failure here) first: arriving later it replaced the status
        assert await wait_for(pilot, lambda: "no TensorFlow" in app.status_line.text, 30)
        app.query_one("#converted").focus()
        await pilot.press("f11")
        # All but the status line and the footer.
        assert await wait_for(pilot, lambda: region(app, "#converted").height >= 35, 5)
        hidden = ("#picker", "#source", "#gutter", "#panels")
        assert not any(app.query_one(s).display for s in hidden)
        assert app.query_one("#refs").display  # its line references stay beside it
        assert "zoomed converted" in app.status_line.text
        await pilot.press("f11")
        assert await wait_for(pilot, lambda: all(app.query_one(s).display for s in hidden)
                              and region(app, "#converted").height < 35, 5)


async def test_z_outside_the_editor_zooms_the_panels(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        app.panes.verdicts.focus()
        await pilot.press("z")
        assert await wait_for(pilot, lambda: not app.query_one("#code").display
                              and region(app, "#panels").height >= 20, 5)
        await pilot.press("z")
        assert await wait_for(pilot, lambda: app.query_one("#code").display
                              and not app.screen.has_class("-zoomed"), 5)
        app.source.focus()
        await pilot.press("z")  # typed into the editor: no zoom
        assert await wait_for(pilot, lambda: app.source.dirty, 5)
        await pilot.pause()
        assert not app.screen.has_class("-zoomed")


async def test_presentation_hides_chrome_and_space_runs_the_next_function(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        worker = app.bridge.worker
        await pilot.press("f12")
        assert await wait_for(pilot, lambda: app.screen.has_class("-presenting")
                              and not app.query_one("Footer").display, 5)
        assert not app.query_one("#picker").display
        assert await wait_for(pilot, lambda: any(not r.no_run for r in worker.asked), 10)
        assert worker.asked[-1].target.endswith("::bad_loop")
        await pilot.press("space")
        assert await wait_for(pilot, lambda: worker.asked[-1].target.endswith("::fixed_loop")
                              and not worker.asked[-1].no_run, 10)
        assert app.state.target[1] == "fixed_loop" and app.panes.panels.active == "tab-run"
        await pilot.press("f12")
        assert await wait_for(pilot, lambda: app.query_one("Footer").display, 5)
        count = len(worker.asked)
        await pilot.press("space")  # outside presentation mode space steps nowhere
        await pilot.pause(ANALYSE_PAUSE + 0.1)  # a step would have asked by now
        assert app.state.target[1] == "fixed_loop" and len(worker.asked) == count


async def test_tab_from_the_call_box_goes_to_the_init_box_of_a_method(tmp_path):
    """A method's Run tab has an init box below the call box: Tab goes there (it went to the
    device and Run beside the call first, and "k=4" typed then was keys: 4 showed the
    Graph tab); shift+tab comes back; a function's Tab goes on to the device as before."""
    from agexplorer.tui.app import AgxApp

    path = tmp_path / "gate.py"
    path.write_text("class Gate:\n    def __init__(self, k):\n        self.k = k\n\n"
                    "    def call(self, x):\n        return x * self.k\n\n\n"
                    "def plain(x):\n    return x\n")
    app = AgxApp([str(path)], "Gate.call", worker=AskedWorker())
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot)
        await pilot.press("5", "5")  # the Run tab, then into its call box
        assert await wait_for(pilot, lambda: app.focused is app.call_input, 5)
        await pilot.press("tab")
        assert app.focused is app.run_panel.init_input
        await pilot.press(*"k=4")
        assert app.run_panel.init_input.value == "k=4"
        assert app.panes.panels.active == "tab-run"
        await pilot.press("shift+tab")
        assert app.focused is app.call_input
        app.navigation.picked(type(app.query_one("#picker")).Picked(str(path), "plain"))
        assert await wait_for(pilot, lambda: app.state.target == (str(path), "plain"), 10)
        assert not app.run_panel.init_input.display
        app.call_input.focus()
        await pilot.press("tab")
        assert app.focused is app.query_one("#device")


@pytest.mark.parametrize("pane", ["converted", "source"])
async def test_a_gutter_keeps_level_with_its_pane_when_the_row_changes_height(pane):
    # The Run tab's results grow (or presentation mode starts) with no scroll and no
    # terminal resize: the code row shrinks, and a gutter that kept its old row count drew
    # marks below its pane (a stray "▌19" under the converted code's border).
    from agexplorer.tui.app import AgxApp
    from tests.tui.answers import ReplayWorker

    app = AgxApp([TARGET], "bad_loop", worker=ReplayWorker())
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None, 30)
        await pilot.pause()
        code = app.query_one("#converted" if pane == "converted" else "#source")
        gutter = app.query_one("#refs" if pane == "converted" else "#gutter")
        tall = code.scrollable_content_region.height
        assert gutter.rows == tall
        app.query_one("#panels").styles.height = "5fr"  # the panels grow, the code row shrinks
        assert await wait_for(pilot, lambda: code.scrollable_content_region.height < tall - 2, 10)
        await pilot.pause()
        shown = code.scrollable_content_region.height
        assert await wait_for(pilot, lambda: gutter.rows == shown, 10), (gutter.rows, shown)
        assert all(gutter.line_text(row) == "" for row in range(shown, gutter.size.height))
