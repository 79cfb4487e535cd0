"""The compare screen: the buffer against the disk or another function, from the palette."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from conftest import answered_panes, explorer, palette_offers, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

SAMPLE = Path(__file__).parents[2] / "samples" / "s6_2_bad_loop.py"


@pytest.fixture
def loop_file(tmp_path):
    """A copy of samples/s6_2_bad_loop.py to edit."""
    path = tmp_path / "s6_2_bad_loop.py"
    shutil.copy(SAMPLE, path)
    return path


async def _ready(app, pilot):
    assert await wait_for(pilot, lambda: app.state.report is not None)


async def _palette(pilot, text: str) -> None:
    """Run the palette's command ``text``, pasted into it (typed, each key ran the palette's
    search again: 4 s a sentence; typing in the palette: tests/tui/test_keys.py)."""
    from textual import events
    from textual.widgets import Input

    await pilot.press("ctrl+p")
    pilot.app.screen.query_one(Input).post_message(events.Paste(text))
    # The palette's search is done: a command matching the text is highlighted.
    assert await wait_for(pilot, lambda: palette_offers(pilot.app, text), 10)
    await pilot.press("enter")


def shown(widget) -> str:
    """The text a Static shows (a rich table or a Text), at the widget's width."""
    console = Console(width=max(widget.size.width, 40), file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


def _compare_screen(app):
    from agexplorer.tui.compare.screen import CompareScreen

    return app.screen if isinstance(app.screen, CompareScreen) else None


async def _answered(app, pilot):
    assert await wait_for(pilot, lambda: _compare_screen(app) is not None)
    screen = _compare_screen(app)
    assert await wait_for(pilot, lambda: not screen.pending)
    return screen


async def test_another_function_from_the_palette_shows_the_changed_verdict(loop_file, worker):
    app = explorer(loop_file, worker, "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(app, pilot)
        await _palette(pilot, "Compare with another function")
        from agexplorer.tui.compare.choice import CompareChoice

        assert await wait_for(pilot, lambda: isinstance(app.screen, CompareChoice), 10)
        options = app.screen.query_one("OptionList")
        labels = [str(options.get_option_at_index(i).prompt)
                  for i in range(options.option_count)]
        assert "s6_2_bad_loop.py  fixed_loop" in labels
        assert not any(label.endswith("  bad_loop") for label in labels)  # not itself
        options.highlighted = labels.index("s6_2_bad_loop.py  fixed_loop")
        await pilot.press("enter")
        screen = await _answered(app, pilot)
        assert screen.failure is None, screen.failure
        comparison = screen.comparison
        assert (comparison.left.function, comparison.right.function) == ("bad_loop",
                                                                          "fixed_loop")
        assert "unrolled x5 -> staged" in shown(screen.verdicts)
        header = shown(screen.header)
        assert "bad_loop(5)" in header and "fixed_loop(tf.constant(5))" in header
        # The converted codes side by side, the function's own name marked on each side.
        left, right = shown(screen.left), shown(screen.right)
        [marked] = [line for line in left.splitlines() if "def tf__bad_loop" in line]
        assert marked.startswith("-")
        [marked] = [line for line in right.splitlines() if "def tf__fixed_loop" in line]
        assert marked.startswith("+")
        assert not any(line.startswith(("-", "+")) and "do_return = False" in line
                       for line in left.splitlines())  # a line both sides share
        figures = shown(screen.figures)
        assert "StatelessWhile" in figures and "trace" in figures
        assert screen.query_one("#compare-code").styles.layout.name == "horizontal"


async def test_buffer_against_disk_after_an_edit_and_esc_keeps_the_buffer(loop_file, worker):
    app = explorer(loop_file, worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(app, pilot)
        # range(n) becomes tf.range(n) in the editor, unsaved.
        source = app.source
        row = next(i for i, line in enumerate(source.text.splitlines())
                   if "for i in range(n):" in line)
        col = source.text.splitlines()[row].index("range(n)")
        source.insert("tf.", (row, col))
        edited = source.text
        assert source.dirty
        await _palette(pilot, "Compare with the file on disk")
        screen = await _answered(app, pilot)
        assert screen.failure is None, screen.failure
        assert screen.comparison.left.code != screen.comparison.right.code
        assert "unrolled x5 -> staged" in shown(screen.verdicts)
        assert "for i in range(n)" in loop_file.read_text()  # the disk is as it was
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.screen_stack[0], 5)
        assert app.source.text == edited and app.source.dirty


async def test_nothing_to_compare_when_the_buffer_is_saved(loop_file, worker):
    app = explorer(loop_file, worker, "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(app, pilot)
        await _palette(pilot, "Compare with the file on disk")
        assert await wait_for(pilot, lambda: "nothing to compare" in str(
            app.status_line.render()), 10)
        assert app.screen is app.screen_stack[0]
        await _palette(pilot, "Compare with before the fix")
        assert await wait_for(pilot, lambda: "no fix applied yet" in str(
            app.status_line.render()), 10)


async def test_the_screen_stacks_its_code_at_80x24(loop_file, worker):
    app = explorer(loop_file, worker, "bad_loop")
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(app, pilot)
        app.action_compare_function()
        from agexplorer.tui.compare.choice import CompareChoice

        assert await wait_for(pilot, lambda: isinstance(app.screen, CompareChoice), 10)
        await pilot.press("enter")  # the first other function: fixed_loop
        screen = await _answered(app, pilot)
        assert screen.failure is None, screen.failure
        assert screen.comparison.right.function == "fixed_loop"
        assert screen.query_one("#compare-code").styles.layout.name == "vertical"
        # full width, one above the other (once the screen's layout has run)
        assert await wait_for(pilot, lambda: screen.left.region.width > 60, 5)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.screen_stack[0], 5)


async def test_before_the_fix_after_the_doctors_apply_with_the_c_key(loop_file, worker):
    app = explorer(loop_file, worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(app, pilot)
        panel = app.doctor_tab
        assert await wait_for(pilot, lambda: panel.findings)
        before = app.source.text
        app.query_one("#findings").focus()
        assert await wait_for(pilot, lambda: app.query_one("#findings").has_focus, 5)
        await pilot.press("f")  # try the highlighted finding's rewrite (AGX004: tf.range)
        assert await wait_for(pilot, lambda: panel.trial is not None, 120)
        unfixed = app.state.report
        answered = answered_panes(app)  # from the apply on: the doctor's answers
        await pilot.press("a")
        after = app.source.text
        assert "tf.range(n)" in after
        # The hint outlasts the re-trace the edit starts: it is there once that trace is done.
        assert await wait_for(pilot, lambda: app.state.report is not unfixed and any(
            s.verdict == "staged" for s in app.state.report.statements), 60), (
            str(app.status_line.render()), app.state.report is unfixed,
            [s.verdict for s in app.state.report.statements])
        # The doctor's request that follows it (for the analysis shown) has answered.
        assert await wait_for(pilot, lambda: ("doctor", app.state.answered) in answered, 60)
        assert await wait_for(pilot, lambda: "c compares it" in str(app.status_line.render()),
                              30)
        await pilot.press("c")  # the chooser: the disk, before the fix, the functions
        from agexplorer.tui.compare.choice import CompareChoice

        assert await wait_for(pilot, lambda: isinstance(app.screen, CompareChoice), 10)
        options = app.screen.query_one("OptionList")
        assert [options.get_option_at_index(i).id for i in range(2)] == ["disk", "fix"]
        options.highlighted = 1
        await pilot.press("enter")
        screen = await _answered(app, pilot)
        assert screen.failure is None, screen.failure
        assert screen.request.left_source == before and screen.request.right_source == after
        assert "unrolled x5 -> staged" in shown(screen.verdicts)
        assert screen.names == ("before the fix", "after AGX004")
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is app.screen_stack[0], 5)
        assert app.source.text == after
