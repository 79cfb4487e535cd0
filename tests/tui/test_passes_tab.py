"""The Passes tab: AutoGraph's steps from the worker, stepped with [ and ], changes marked."""

from __future__ import annotations

import pytest

from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


async def test_the_passes_tab_steps_through_the_conversion(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        tab = app.panes.passes
        assert tab.passes is None  # asked only when shown
        await pilot.press("8")
        assert app.panes.panels.active == "tab-passes"
        assert await wait_for(pilot, lambda: tab.passes is not None)
        names = [s.name for s in tab.passes.steps]
        assert names[0] == "source" and names[-1] == "variables"
        assert tab.passes.function == "python_for" and tab.passes.file == str(flow_file)
        assert tab.selected == 0 and "for i in range(n):" in tab.shown_code
        flow = names.index("control_flow")
        await pilot.press(*["right_square_bracket"] * flow)
        assert tab.selected == flow
        shown = tab.shown_code
        assert "ag__.for_stmt(" in shown
        [marked] = [line for line in shown.splitlines() if "ag__.for_stmt(" in line]
        assert marked.startswith("+")  # the line this pass made
        # A line of the step's code moves the source pane to the line it came from.
        lines = shown.splitlines()
        body = next(i for i, line in enumerate(lines) if "s = s * 2.0 + 1.0" in line)
        loop = next(i for i, line in enumerate(lines) if "ag__.for_stmt(" in line)
        tab.code.focus()
        tab.code.highlighted = body
        assert await wait_for(pilot, lambda: app.source.cursor_location[0] + 1 == 9)
        tab.code.highlighted = loop
        assert await wait_for(pilot, lambda: app.source.cursor_location[0] + 1 == 8)
        added = next(i for i, line in enumerate(lines) if "ag__.Undefined(" in line)
        assert tab.source_line(added + 1) is None  # a line AutoGraph made up: no source line
        await pilot.press("left_square_bracket")
        assert tab.selected == flow - 1
        # An unsaved edit: the buffer is converted again, not the file on disk.
        app.source.insert("    s = s * 3.0\n", (9, 0))  # before `return s`
        assert await wait_for(pilot, lambda: tab.passes is not None
                              and "s = s * 3.0" in tab.passes.steps[0].code)
        assert "s * 3.0" not in flow_file.read_text()


async def test_a_tab_whose_show_event_never_comes_still_fills(flow_file, worker, monkeypatch):
    """Textual posts Show only when a reflow finds the widget new on screen; a layout query
    between a tab's switch and that reflow makes it not new, and no Show comes (seen on a
    loaded machine: the Passes tab said "shown when this tab opens" for good). The tabs that
    wait to be shown are told by the workspace when their TabPane is activated too."""
    from agexplorer.tui.asking import AsksWhenShown
    from agexplorer.tui.graph.op_tree import OpTree

    monkeypatch.setattr(AsksWhenShown, "on_show", lambda self: None)
    monkeypatch.setattr(OpTree, "on_show", lambda self: None)
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        ops = app.panes.ops
        assert ops._pending  # the Graph tab is hidden: its tree waits
        await pilot.press("8")
        assert await wait_for(pilot, lambda: app.panes.passes.passes is not None)
        await pilot.press("4")
        assert app.panes.panels.active == "tab-graph"
        assert await wait_for(pilot, lambda: not ops._pending and ops._by_line)
