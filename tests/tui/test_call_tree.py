"""The Calls tab and a reached function's view: this trace's verdicts for the helpers it ran."""

from __future__ import annotations

import shutil

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.model.report import Report
from agexplorer.tui.calltree.tab import summary
from conftest import FIXTURES, explorer, wait_for

# The line of step's call to normalize, in the fixture.
CALL_LINE = next(i for i, line in enumerate(open(f"{FIXTURES}/calltree/train.py"), start=1)
                 if "normalize(x, 4)" in line)


@pytest.fixture
def project(tmp_path):
    """A copy of tests/fixtures/calltree (train.py calling into helpers.py) to edit."""
    shutil.copytree(f"{FIXTURES}/calltree", tmp_path / "calltree")
    return tmp_path / "calltree"


def labels(tree) -> dict[str, tuple[str, str | None]]:
    """Each node's function name -> (its label, its parent's function name)."""
    found = {}

    def walk(node, parent):
        for child in node.children:
            text = str(child.label)
            found[text.split()[0]] = (text, parent)
            walk(child, text.split()[0])

    walk(tree.root, None)
    return found


async def open_view(app, pilot, function: str):
    """Put the Calls tab's cursor on ``function`` and press Enter: its view."""
    from agexplorer.tui.program.reached import ReachedScreen

    calls = app.panes.calls
    app.panes.panels.active = "tab-calls"
    tree = calls.call_tree
    assert await wait_for(pilot, lambda: len(labels(tree)) > 1)
    tree.focus()
    node = next(n for n in _nodes(tree.root) if str(n.label).split()[0] == function)
    tree.move_cursor(node)
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, ReachedScreen), 10)
    return app.screen


def _nodes(node):
    for child in node.children:
        yield child
        yield from _nodes(child)


def test_the_summary_says_why_the_tree_is_empty():
    assert summary(None).startswith("tracing")
    alone = Report(file="/p/m.py", function="C.f")
    assert summary(alone).startswith("f reached no other function of your code")
    alone.error = AgxError("trace-error", "it raised.")
    assert summary(alone) == "no call tree for f: it did not trace (the status line says why)"
    # The call the trace was made with is named (another call can reach other functions).
    called = Report(file="/p/m.py", function="f", call="tf.ones([4])", call_origin="AGX_CALLS")
    assert summary(called).startswith("f(tf.ones([4])) [AGX_CALLS] reached no other function")


@pytest.mark.tf
async def test_the_calls_tab_nests_the_functions_reached_with_their_badges(project, worker):
    app = explorer(project / "train.py", worker, "step")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.panes.panels.active = "tab-calls"
        tree = app.panes.calls.call_tree
        assert await wait_for(pilot, lambda: "normalize" in labels(tree))
        found = labels(tree)
        assert found["step"][1] is None and "(explored)" in found["step"][0]
        assert found["normalize"] == ("normalize  helpers.py:6  32 ops  unrolled x4", "step")
        assert found["Scaler.apply"][1] == "step" and "unrolled x2" in found["Scaler.apply"][0]
        assert found["clip"] == ("clip  helpers.py:12  2 ops  took true", "step"), [
            (f.function, f.file, [(s.line, s.verdict, s.ops_created) for s in f.statements])
            for f in app.state.report.reached]
        # in the order the calls come in step: lines 16, 17, 18
        assert list(found) == ["step", "normalize", "Scaler.apply", "clip"]
        assert app.panes.calls.summary_line.text.startswith(
            "3 functions reached from step(tf.ones([4])) [AGX_CALLS], 3 with control flow "
            "run in Python")

        # Another function: the tab follows it, nested by call path (chained -> helper -> clip).
        app.navigation.go((str(project / "train.py"), "chained"))
        assert await wait_for(pilot, lambda: app.state.report is not None
                              and app.state.report.function == "chained")
        assert await wait_for(pilot, lambda: "no_control_flow" in labels(tree))
        found = labels(tree)
        assert found["clip"][1] == "no_control_flow" and "normalize" not in found


@pytest.mark.tf
async def test_a_reached_function_opens_with_this_traces_verdicts_and_esc_returns(
        project, worker):
    app = explorer(project / "train.py", worker, "step")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        source = app.source
        source.insert("# an unsaved note\n", (19, 0))  # below step: its lines stay
        edited = source.text
        source.move_cursor((16, 4))
        assert await wait_for(pilot, lambda: app.state.report_text == edited)
        # The doctor tries the helpers' fixes too, while the Calls tab is hidden: the view
        # opened then says how the rewrite went.
        assert await wait_for(pilot, lambda: any(
            "Tried:" in (v.hint or "") for f in app.state.report.reached
            if f.function == "normalize" for v in f.statements))

        view = await open_view(app, pilot, "normalize")
        helpers = (project / "helpers.py").read_text().splitlines()
        assert view.source_view.text.splitlines()[:4] == helpers[5:9]  # lines 6-9 of helpers.py
        assert view.source_view.line_number_start == 6
        assert view.verdict_gutter.mark_at(7) == "unrolled x4"  # the for line
        assert view.verdict_gutter.mark_at(8) == ""
        assert "def tf__normalize(x, steps):" in view.converted.text
        assert "tf__step" not in view.converted.text
        header = str(view.header.render())
        assert f"reached by step (train.py:{CALL_LINE}) -> normalize (helpers.py:6)" in header
        assert "out of date" not in header
        assert view.verdicts.row_count == 1
        assert "unrolled x4" in str(view.verdicts.get_row_at(0)[2])
        assert "Tried:" in view.verdicts.get_row_at(0)[3]

        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.screen_stack[0], 10)
        assert source.text == edited and source.dirty
        assert source.cursor_location == (16, 4)
        assert "# an unsaved note" not in (project / "train.py").read_text()


@pytest.mark.tf
async def test_an_open_view_follows_the_new_trace_or_says_it_is_gone(project, worker):
    app = explorer(project / "train.py", worker, "step")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        view = await open_view(app, pilot, "normalize")
        source = app.source
        # An edit reaching the buffer while the view is open (a reload does the same).
        source.replace("normalize(x, 3)", (CALL_LINE - 1, 8), (CALL_LINE - 1, 23))
        assert await wait_for(pilot, lambda: view.verdict_gutter.mark_at(7) == "unrolled x3")
        assert "out of date" not in str(view.header.render())

        source.replace("x * 1.0", (CALL_LINE - 1, 8), (CALL_LINE - 1, 23))
        assert await wait_for(pilot, lambda: "out of date" in str(view.header.render()))
        assert "normalize is not reached by the latest trace of step" in str(
            view.header.render())
        assert view.verdicts.has_class("stale")
        assert "normalize" not in labels(app.panes.calls.call_tree)


@pytest.mark.tf
async def test_the_view_fits_80x24_and_spreads_out_at_160x45(worker):
    app = explorer(f"{FIXTURES}/calltree/train.py", worker, "step")
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        view = await open_view(app, pilot, "normalize")
        assert await wait_for(pilot, lambda: view.has_class("-narrow"), 5)
        await pilot.pause()  # laid out at that size
        screen = view.region
        gutter = view.verdict_gutter
        for part in (view.header, gutter, view.source_view, view.converted, view.verdicts):
            assert part.region.height >= 2 and screen.contains_region(part.region), part
        # the badge is drawn on the for line's row (line 7: the second row from line 6)
        assert gutter.line_text(1).strip().endswith("unrolled x4")
        assert f"step (train.py:{CALL_LINE}) -> normalize (helpers.py:6)" in str(view.header.render())
        assert any(b.binding.key == "escape" and b.binding.show
                   for b in view.active_bindings.values())  # in the footer

        await pilot.resize_terminal(160, 45)
        # Side by side.
        assert await wait_for(pilot, lambda: view.has_class("-wide") and view.converted.region.x
                              > view.source_view.region.right - 1, 5)
        assert gutter.line_text(1).strip().endswith("unrolled x4")
