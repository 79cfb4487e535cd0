"""Every view names the call it was made from (issue 22), and shows the user's text as written.

A verdict, an op count, a call tree or an HLO holds for one call: the Calls tab, the Graph
tab (its tree and an op's detail) and a comparison with another function each say which, and
the other function is compared with its own call, never the one typed for this one.
"""

from __future__ import annotations

import shutil
import textwrap

import pytest
from textual.content import Content
from textual.widgets import DataTable

from conftest import explorer, fixture, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

NAME = "we[ird]<b>.py"
HEADER = "for s in [x, x * 2]:"


def table_lines(table: DataTable) -> list[str]:
    """The table's rows as the screen shows them."""
    return [table.render_line(y).text for y in range(table.size.height)]


async def test_the_calls_tab_graph_and_a_comparison_name_their_calls(bad_loop_file, worker):
    from agexplorer.tui.compare.screen import CompareScreen

    path = str(bad_loop_file)
    app = explorer(bad_loop_file, worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None, 120)
        label = "range_loop(5) [AGX_CALLS]"
        # The hidden Calls tab builds nothing for an answer until it is shown.
        calls = app.panes.calls
        await pilot.pause(0.2)
        assert calls.report is None and calls.summary_line.text.startswith("tracing…")
        await pilot.press("2")
        assert await wait_for(pilot, lambda: calls.summary_line.text.startswith(
            f"{label} reached no other function"), 10), calls.summary_line.text

        await pilot.press("4")
        ops = app.panes.ops
        assert await wait_for(pilot, lambda: ops.root.children, 10)
        assert ops.root.label.plain.startswith(f"{label}: ") and " ops (" in ops.root.label.plain
        ops.focus()
        ops.move_cursor(ops.root.children[0])
        detail = app.panes.op_detail
        assert await wait_for(pilot, lambda: str(detail.render()).startswith(f"op: {label}\n"),
                              30), str(detail.render())

        # Another function is compared with its own call: the one typed for it earlier, never
        # this one's.
        app.requests.set_call((path, "bad_loop"), "tf.constant(7)")
        app.call_input.value = "2"
        app._compare_function(path, "bad_loop")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen)
                              and not app.screen.pending, 120)
        comparison = app.screen.comparison
        assert comparison is not None, app.screen.failure
        assert (comparison.left.function, comparison.left.call) == ("range_loop", "2")
        assert (comparison.right.function, comparison.right.call) == ("bad_loop",
                                                                      "tf.constant(7)")


async def test_the_explorers_tables_titles_and_notes_show_user_text_as_written(tmp_path, worker):
    path = tmp_path / NAME
    shutil.copy(fixture("markup_text.py"), path)
    app = explorer(path, worker, "shout")
    async with app.run_test(size=(160, 45)) as pilot:
        # (a MarkupError ends the app: the waits are short)
        assert await wait_for(pilot, lambda: app.state.report is not None and app.workspace_ready, 30)
        # The source pane's title: "we[ird]<b>.py" once showed as "we<b>.py".
        assert Content.from_markup(app.source.border_title).plain == f"{NAME} :: shout"
        verdicts = app.panes.verdicts
        assert await wait_for(pilot, lambda: verdicts.row_count == 2 and any(
            HEADER in line for line in table_lines(verdicts)), 10), table_lines(verdicts)

        doctor = app.doctor_tab
        assert await wait_for(pilot, lambda: doctor.findings, 30)
        app.panes.panels.active = "tab-doctor"
        findings = doctor.query_one("#findings", DataTable)
        assert await wait_for(pilot, lambda: findings.size.width > 0
                              and findings.row_count == len(doctor.findings), 10)
        await pilot.pause()  # the rows drawn at that width
        shown = table_lines(findings)
        width = max(16, findings.size.width - 18)  # the panel wraps messages to this
        for finding in doctor.findings:
            for part in textwrap.wrap(finding.message, width):
                assert any(part in line for line in shown), (part, shown)

        # A call that does not parse: the Run tab quotes it, brackets and all.
        app.call_input.value = "tf.ones([2]), '[/b]' +"
        await pilot.press("f5")
        results = app.query_one("#run-results")
        assert await wait_for(pilot, lambda: "not a valid" in str(results.render()), 30)
        assert "'[/b]' +" in str(results.render())
        assert str(app.query_one("#run-origin").render()) == \
            "run: shout(tf.ones([2]), '[/b]' +)"
        assert app.is_running
