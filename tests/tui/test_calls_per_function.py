"""A call belongs to its function (issue 22, item 11): typed or applied for one function, it
is never used for another, and every view names the call it was made from."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from textual.app import App

from agexplorer.tui.code.made import call_label, ready_placeholder
from agexplorer.tui.code.verdict_table import flow_summary
from agexplorer.tui.functions.picker import FunctionPicker
from agexplorer.tui.run.calls import Calls
from agexplorer.tui.run.panel import RunPanel
from conftest import explorer, wait_for


def test_each_function_keeps_its_own_calls_in_each_box():
    calls, f, g = Calls(), ("a.py", "f"), ("a.py", "g")
    calls.keep(f, "  tf.constant(5) ")
    calls.keep(f, "tf.constant(1); tf.constant(2)", "trace")
    assert calls.of(f) == "tf.constant(5)" and calls.of(g) == ""
    assert calls.of(f, "trace") == "tf.constant(1); tf.constant(2)"
    assert calls.of(g, "trace") == ""
    calls.keep(f, "   ")  # emptied: back to its ready inputs
    assert calls.of(f) == "" and calls.of(f, "trace") != ""


def test_a_label_says_which_call_and_where_it_came_from():
    assert call_label("bad_loop", "tf.constant(5)", "--call") == "bad_loop(tf.constant(5))"
    assert call_label("range_loop", "5", "AGX_CALLS") == "range_loop(5) [AGX_CALLS]"
    assert call_label("f", "", "no arguments") == "f()"
    assert call_label("f", None) == "f (its ready inputs)"  # asked, not answered yet
    long = call_label("f", "x" * 200, "--call")
    assert len(long) < 70 and long.endswith("…)")
    assert ready_placeholder("5", "AGX_CALLS") == "5 [AGX_CALLS]: its ready inputs"
    assert ready_placeholder("tf.constant(5)", "--call") is None  # typed: no ready inputs
    assert flow_summary("range_loop", [SimpleNamespace(verdict="python")], False,
                        "range_loop(5) [AGX_CALLS]").startswith(
        "1 statement in range_loop(5) [AGX_CALLS]: 1 run in Python")


async def test_a_call_that_looks_like_markup_is_shown_as_typed():
    class Panel(App):
        def compose(self):
            yield RunPanel()

    app = Panel()
    async with app.run_test(size=(80, 24)):
        panel = app.query_one(RunPanel)
        header = "run: " + call_label("f", "'[/b] [bold]x'", "--call")
        panel.set_origin(header)
        assert str(panel.query_one("#run-origin").render()) == header


def box(app, name: str) -> str:
    return app.query_one(name).value


def shown(app, part: str) -> str:
    return str(app.query_one(part).render())


async def pick(app, pilot, path, qualname: str):
    """Pick ``qualname`` in the list, then wait for its report."""
    app.navigation.picked(FunctionPicker.Picked(str(path), qualname))
    assert await wait_for(pilot, lambda: app.state.report is not None
                          and app.state.report.function == qualname, 120), qualname
    return app.state.report


@pytest.mark.tf
async def test_a_call_applied_or_typed_for_one_function_stays_with_it(bad_loop_file, worker):
    app = explorer(bad_loop_file, worker, "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None, 120)
        assert app.state.report.call == "5" and app.state.report.call_origin == "AGX_CALLS"
        # The doctor's AGX009 Apply (a tensor for the Python int): the call of bad_loop only.
        applied = SimpleNamespace(rewrite=SimpleNamespace(new_text=None,
                                                          new_call="tf.constant(5)"))
        app.doctor_tab.on_doctor_panel_apply_fix(app.doctor_tab.ApplyFix(applied))
        assert await wait_for(pilot, lambda: app.state.report.call == "tf.constant(5)", 120)
        assert [v.verdict for v in app.state.report.statements] == ["staged"]
        assert shown(app, "#flow-summary").startswith(
            "1 statement in bad_loop(tf.constant(5)): 1 staged")
        app.query_one("#trace-calls").value = "tf.constant(1); tf.constant(2)"

        report = await pick(app, pilot, bad_loop_file, "range_loop")
        assert box(app, "#call") == "" and box(app, "#trace-calls") == ""
        assert (report.call, report.call_origin) == ("5", "AGX_CALLS")  # its own
        (loop,) = report.statements
        assert (loop.verdict, loop.iterations) == ("python", 5)  # unrolled, as it is
        assert shown(app, "#flow-summary").startswith(
            "1 statement in range_loop(5) [AGX_CALLS]: 1 run in Python")
        assert app.call_input.placeholder == "5 [AGX_CALLS]: its ready inputs"
        # The doctor examined range_loop's own call, and says so: its loop is a finding.
        doctor = app.doctor_tab
        assert await wait_for(pilot, lambda: doctor.findings, 120)
        assert "AGX004" in [f.code for f in doctor.findings]
        assert shown(app, "#doctor-origin") == "examined: range_loop(5) [AGX_CALLS]"

        app.call_input.value = "3"  # typed for range_loop
        await pilot.press("f5")
        assert await wait_for(pilot, lambda: app.state.lab is not None
                              and app.state.report.call == "3", 120)
        assert app.state.report.statements[0].iterations == 3
        assert shown(app, "#run-origin") == "run: range_loop(3)"

        report = await pick(app, pilot, bad_loop_file, "bad_loop")  # its call comes back
        assert box(app, "#call") == "tf.constant(5)"
        assert box(app, "#trace-calls") == "tf.constant(1); tf.constant(2)"
        assert report.call == "tf.constant(5)"
        assert shown(app, "#flow-summary").startswith("1 statement in bad_loop(tf.constant(5))")
        report = await pick(app, pilot, bad_loop_file, "range_loop")
        assert box(app, "#call") == "3" and report.call == "3"
