"""The Passes tab: AutoGraph's steps from the worker, stepped with [ and ], changes marked."""

from __future__ import annotations

import pytest

from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


async def test_the_passes_tab_steps_through_the_conversion(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.report is not None)
        tab = app.panes.passes
        assert tab.passes is None  # asked only when shown
        await pilot.press("8")
        assert app.panes.panels.active == "tab-passes"
        assert await wait_for(pilot, lambda: tab.passes is not None)
        names = [s.name for s in tab.passes.steps]
        assert names[0] == "source" and names[-1] == "variables"
        assert tab.passes.function == "python_for" and tab.passes.file == str(flow_file)
        assert tab.selected == 0 and "for i in range(n):" in str(tab.code.render())
        flow = names.index("control_flow")
        await pilot.press(*["right_square_bracket"] * flow)
        assert tab.selected == flow
        shown = str(tab.code.render())
        assert "ag__.for_stmt(" in shown
        [marked] = [line for line in shown.splitlines() if "ag__.for_stmt(" in line]
        assert marked.startswith("+")  # the line this pass made
        await pilot.press("left_square_bracket")
        assert tab.selected == flow - 1
        # An unsaved edit: the buffer is converted again, not the file on disk.
        app.source.insert("    s = s * 3.0\n", (9, 0))  # before `return s`
        assert await wait_for(pilot, lambda: tab.passes is not None
                              and "s = s * 3.0" in tab.passes.steps[0].code)
        assert "s * 3.0" not in flow_file.read_text()
