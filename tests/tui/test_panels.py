"""The Doctor and Trace tabs, driven by Pilot against a real worker."""

from __future__ import annotations

import pytest

from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


async def test_doctor_lists_findings_tries_a_fix_and_applies_it_to_the_buffer_only(
        bad_loop_file, worker):
    app = explorer(bad_loop_file, worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready)
        panel = app.query_one("#doctor-panel")
        assert await wait_for(pilot, lambda: panel.findings)
        assert [(f.code, f.line) for f in panel.findings] == [("AGX004", 38), ("AGX009", 38)]
        assert str(app.query_one("#panels").get_tab("tab-doctor").label) == "Doctor (2)"
        app.query_one("#findings").focus()  # keys act outside the editor
        assert await wait_for(pilot, lambda: app.query_one("#findings").has_focus, 5)
        await pilot.press("f")  # try the highlighted finding's rewrite (AGX004)
        assert app.query_one("#panels").active == "tab-doctor"
        assert await wait_for(pilot, lambda: panel.trial is not None, 120)
        trial = panel.trial
        assert trial.finding.code == "AGX004"
        assert [v.verdict for v in trial.after.verdicts] == ["staged"]
        assert trial.results_equal is True
        before = bad_loop_file.read_text()
        await pilot.press("a")  # Apply (the button posts the same message)
        source = app.query_one("#source")
        assert "    for i in tf.range(n):\n        s += i" in source.text
        assert source.dirty and bad_loop_file.read_text() == before  # the file is untouched
        assert source.text.count("\n") == before.count("\n")  # only that line changed
        source.undo()
        assert source.text == before


async def test_a_function_without_pitfalls_gets_no_findings(bad_loop_file, worker):
    app = explorer(bad_loop_file, worker, "fixed_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        tab = app.query_one("#panels").get_tab("tab-doctor")
        panel = app.query_one("#doctor-panel")
        assert await wait_for(pilot, lambda: "No pitfalls" in str(
            app.query_one("#finding-detail").render()))
        assert panel.findings == [] and str(tab.label) == "Doctor"


async def test_trace_tab_explains_each_retrace(bad_loop_file, worker):
    app = explorer(bad_loop_file, worker, "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.query_one("#trace-calls").value = "2; 3; 3; tf.constant(4)"
        app.query_one("#picker").focus()  # keys act outside the editor
        assert await wait_for(pilot, lambda: app.query_one("#picker").has_focus, 5)
        await pilot.press("t")
        panel = app.query_one("#trace-panel")
        assert await wait_for(pilot, lambda: panel.report is not None, 120)
        calls = panel.report.calls
        assert [c.outcome for c in calls] == ["traced", "traced", "reused", "traced"]
        assert "n: now the Python int 3, before 2" in calls[1].reason
        assert app.query_one("#panels").active == "tab-trace"


async def test_trace_tab_reports_a_bad_call_in_one_sentence(bad_loop_file, worker):
    app = explorer(bad_loop_file, worker, "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.query_one("#panels").active = "tab-trace"
        assert await wait_for(pilot, lambda: app.query_one("#explain").region.width > 0, 5)
        app.query_one("#trace-calls").value = "2; (("
        await pilot.click("#explain")
        assert await wait_for(pilot, lambda: "not a valid Python argument list" in str(
            app.query_one("#trace-results").render()), 60)
        assert app.query_one("#trace-panel").report is None
