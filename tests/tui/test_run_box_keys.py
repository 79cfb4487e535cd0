"""The Run tab's call box is reachable from the keyboard, and what is typed there is text.

A tester pressed 5 (the Run tab), then shift+tab to reach the call box: the focus went to the
tab bar, and the letters typed next ran as shortcuts (n opened another function).
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

# Every letter and digit the explorer binds outside an input (run, trace, try and apply a fix,
# compare, cost curve, zoom, next and previous function, quit, the tabs, help).
SHORTCUTS = "rtfacuznpqx123456789?NP"


async def test_the_run_tabs_key_again_goes_into_its_call_box_where_every_key_types(
        bad_loop_file, worker):
    app = explorer(bad_loop_file, worker, "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        target = app.state.target
        app.panes.converted.focus()
        await pilot.press("5")  # the Run tab: its results, not its box (a digit would type)
        assert app.panes.panels.active == "tab-run"
        assert await wait_for(pilot, lambda: app.focused is app.run_panel, 5)
        prompt = app.run_panel.query_one("#run-results")
        assert "5 again, or Tab, goes into the box" in str(prompt.render())
        await pilot.press("tab")  # the box is next in the focus order
        assert app.focused is app.call_input
        # The prompt says where the keys go now: into the box (a 5 would type).
        assert await wait_for(pilot, lambda: str(prompt.render()).startswith(
            "Type the arguments as inside f(...)"), 5)
        await pilot.press("escape")  # out of the box
        assert not isinstance(app.focused, Input)
        assert await wait_for(pilot, lambda: "5 again" in str(prompt.render()), 5)
        await pilot.press("5")  # the Run tab is shown: its key goes into the box
        assert await wait_for(pilot, lambda: app.focused is app.call_input, 5)

        await pilot.press(*SHORTCUTS, "space")
        assert await wait_for(pilot, lambda: app.call_input.value == SHORTCUTS + " ", 5)
        await pilot.pause()  # a key taken as a shortcut would have acted by now
        # Text in the box: no function opened, no tab switched, no quit dialog, no help.
        assert app.call_input.value == SHORTCUTS + " "
        assert app.state.target == target and app.panes.panels.active == "tab-run"
        assert app.screen is app.screen_stack[0] and app.focused is app.call_input


async def test_the_trace_and_graph_tabs_keys_again_go_into_their_boxes(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(150, 42)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.panes.converted.focus()
        for digit, box in (("6", "#trace-calls"), ("4", "#op-filter")):
            await pilot.press(digit)
            assert await wait_for(pilot, lambda: app.focused is not None
                                  and not isinstance(app.focused, Input), 5)
            await pilot.press(digit)
            assert await wait_for(pilot, lambda b=box: app.focused is app.query_one(b), 5)
            await pilot.press(digit, "n")  # typed, not the Trace tab or the next function
            assert app.query_one(box).value == f"{digit}n"
            assert app.state.target[1] == "python_for"
            await pilot.press("escape")
