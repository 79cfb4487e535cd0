"""No accidental edits in a demo (issue 25): in the tour and in presentation mode the source is
read-only until ctrl+e, with a mark in its border, and Tab moves the focus; ctrl+z outside the editor
undoes the Doctor's last Apply; Enter keeps the indentation.

The worker's answers are replayed (tests/tui/answers.py): no TensorFlow."""

from __future__ import annotations

import os

import pytest

from agexplorer.model.doctor import Finding, FixTrial, Rewrite, TrialSide, text_sha
from agexplorer.tui.code.indent import indent_unit, new_line_indent, opens_block
from agexplorer.tui.code.source_pane import LOCKED_MARK, UNLOCKED_MARK
from conftest import SAMPLES, wait_for
from tests.tui.answers import ReplayWorker, save_recorded

TARGET = os.path.join(SAMPLES, "s6_2_bad_loop.py")


@pytest.fixture(scope="module", autouse=True)
def _save_recorded():
    yield
    save_recorded()


def status(app) -> str:
    return str(app.query_one("#status").render())


def bad_loop_app():
    from agexplorer.tui.app import AgxApp

    return AgxApp([TARGET], "bad_loop", worker=ReplayWorker())


def tour_app():
    """``agexplorer tour``: scratch copies of the samples, the tour open."""
    from agexplorer.cli.common import samples_dir
    from agexplorer.state.scratch import scratch_copies
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.tour.opening import Opening

    return AgxApp(scratch_copies(samples_dir()), worker=ReplayWorker(),
                  program=Opening(scratch=True, tour=True))


async def ready(app, pilot) -> None:
    assert await wait_for(pilot, lambda: app.workspace_ready and app.state.report is not None
                          and app.engine_ready, 60)
    await pilot.pause()


async def doctor_answered(app, pilot) -> None:
    """The Doctor examined the latest analysis (its answer would clear a trial shown before)."""
    assert await wait_for(pilot, lambda: app.doctor_tab.generation == app.state.generation
                          and app.state.answered == app.state.generation, 30)


async def typing_changes_nothing(app, pilot) -> None:
    """A word, Enter, Backspace, paste, cut and ctrl+z in the focused, locked editor: the
    buffer stays as it is, and no letter runs an explorer key (q quits, a applies a fix, n
    opens the next function, a digit shows a tab, space steps in presentation mode)."""
    source = app.source
    source.move_cursor((source.document.line_count - 1, 0))
    before, target, tab = source.text, app.state.target, app.panes.panels.active
    app.copy_to_clipboard("pasted")
    for key in ("d", "e", "f", "space", "q", "a", "n", "1", "equals_sign", "enter", "backspace",
                "delete", "ctrl+v", "ctrl+x", "ctrl+k", "ctrl+z"):
        await pilot.press(key)
        assert app.focused is source, key
    await pilot.pause()
    assert source.text == before and app.is_running
    assert app.state.target == target and app.panes.panels.active == tab


async def test_in_the_tour_the_source_is_read_only_until_ctrl_e_and_tab_moves_on():
    app = tour_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        source = app.source
        await pilot.press("alt+2")
        assert await wait_for(pilot, lambda: app.focused is source, 5)
        assert source.read_only and source.border_subtitle.startswith(LOCKED_MARK)
        assert "F2: AutoGraph's code" in source.border_subtitle  # the layout's hint stays
        await typing_changes_nothing(app, pilot)

        await pilot.press("ctrl+e")
        assert not source.read_only and source.border_subtitle.startswith(UNLOCKED_MARK)
        before = source.text
        await pilot.press("x")
        assert source.text != before and source.text.count("x") == before.count("x") + 1
        typed = source.text
        await pilot.press("tab")  # not an indent: the focus moves on
        assert app.focused is not source and source.text == typed

        app.query_one("TourPanel").tour.close()
        await pilot.pause()
        assert not source.read_only and source.tab_behavior == "indent"
        assert LOCKED_MARK not in source.border_subtitle
        assert UNLOCKED_MARK not in source.border_subtitle


async def test_in_presentation_mode_the_source_is_read_only_and_f12_gives_editing_back():
    app = bad_loop_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        source = app.source
        await pilot.press("f12")
        assert app.screen.has_class("-presenting")
        source.focus()
        await pilot.pause()
        assert source.border_subtitle == LOCKED_MARK
        await typing_changes_nothing(app, pilot)
        await pilot.press("tab")
        assert app.focused is not source

        await pilot.press("f12")
        assert not app.screen.has_class("-presenting")
        assert not source.read_only and source.border_subtitle == ""
        source.focus()
        source.move_cursor((0, 0))
        before = source.text
        await pilot.press("tab")  # outside a demo Tab indents, as before
        assert app.focused is source and source.text == "    " + before
        await pilot.press("ctrl+e")  # and ctrl+e is End again
        assert source.cursor_location == (0, len(source.document.lines[0]))


FIXED = "    while i < tf.constant(n):"


def trial(app, code: str = "AGX004") -> FixTrial:
    """A tried fix of bad_loop's loop (made by hand: no worker tries it here)."""
    text = app.source.text
    rewrite = Rewrite(code, 18, "a tensor condition", text.replace("    while i < n:", FIXED, 1),
                      None, text_sha(text))
    finding = Finding(code, 18, "the loop was unrolled", "n is a Python int", "a tensor")
    side = TrialSide(TARGET, "5", [], 10, 0.1)
    return FixTrial(TARGET, "bad_loop", finding, rewrite, "", side, side)


async def test_ctrl_z_outside_the_editor_undoes_the_last_apply_and_says_when_there_is_none():
    app = bad_loop_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        source, doctor = app.source, app.doctor_tab
        original = source.text
        await pilot.press("3")  # the Doctor tab: its findings table has the focus
        assert await wait_for(pilot, lambda: app.focused is not None
                              and doctor in app.focused.ancestors_with_self, 5)

        await pilot.press("ctrl+z")
        assert await wait_for(pilot, lambda: "nothing to undo: no fix was applied" in status(app),
                              5), status(app)

        await doctor_answered(app, pilot)
        tried = trial(app)
        doctor.show_trial(tried)
        await pilot.press("a")
        assert source.text == tried.rewrite.new_text != original
        await pilot.press("ctrl+z")
        assert source.text == original
        assert await wait_for(pilot, lambda: "AGX004 fix undone" in status(app), 5), status(app)
        await pilot.press("ctrl+z")
        assert await wait_for(pilot, lambda: "nothing to undo: the AGX004 fix is undone "
                              "already" in status(app), 5), status(app)
        assert source.text == original

        # Typed after the Apply: those edits are not thrown away with it.
        await doctor_answered(app, pilot)
        doctor.show_trial(trial(app))
        await pilot.press("a")
        applied = source.text
        source.insert("# mine\n", (0, 0))
        await pilot.press("ctrl+z")  # within the typing pause
        assert source.text == "# mine\n" + applied
        refused = "edited the buffer after the AGX004 fix"
        assert await wait_for(pilot, lambda: refused in status(app), 5), status(app)
        # The edit's re-conversion, answered, leaves the sentence on the status line (it
        # started after it and took it off ~0.6 s later).
        assert await wait_for(pilot, lambda: app.state.analysed_text == source.text
                              and app.state.answered == app.state.generation, 30)
        await pilot.pause(0.8)
        assert refused in status(app)


async def test_ctrl_z_in_a_locked_editor_undoes_the_apply_not_a_keystroke():
    app = bad_loop_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        source = app.source
        original = source.text
        await pilot.press("f12")  # presentation: the editor is locked
        assert await wait_for(pilot, lambda: app.state.lab is not None, 30)  # its run
        await doctor_answered(app, pilot)
        tried = trial(app)
        app.doctor_tab.show_trial(tried)
        await pilot.press("a")
        assert source.text == tried.rewrite.new_text != original
        source.focus()
        await pilot.pause()
        await pilot.press("ctrl+z")
        assert source.text == original
        assert await wait_for(pilot, lambda: "AGX004 fix undone" in status(app), 5), status(app)


def editor_alone():
    """An app of the editor alone (its ``source``)."""
    from textual.app import App, ComposeResult

    from agexplorer.tui.code.source_pane import SourcePane

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            self.source = SourcePane(id="source")
            yield self.source

    return Host()


@pytest.mark.parametrize(("text", "cursor", "typed", "expected"), [
    # after a block's colon: one step deeper than the line (8 spaces in a def's body)
    ("def f():\n    for i in range(3):", (1, 22), "x", "def f():\n    for i in range(3):\n        x"),
    # a plain line keeps its indentation
    ("def f():\n    y = 1", (1, 9), "x", "def f():\n    y = 1\n    x"),
    # a comment after the colon still opens the block
    ("if a:  # yes", (0, 12), "x", "if a:  # yes\n    x"),
    # inside a line: split, the rest at the line's indentation (not at the spaces after it)
    ("def f():\n    y = a +  b", (1, 11), "", "def f():\n    y = a +\n    b"),
    # the file's own indent unit: 2 spaces
    ("def f():\n  if x:\n    y\n  while z:", (3, 10), "x",
     "def f():\n  if x:\n    y\n  while z:\n    x"),
])
async def test_enter_keeps_the_indentation_and_indents_after_a_colon(tmp_path, text, cursor,
                                                                     typed, expected):
    app = editor_alone()
    async with app.run_test(size=(80, 24)) as pilot:
        source = app.source
        source.open(str(tmp_path / "f.py"), text)
        source.focus()
        source.move_cursor(cursor)
        await pilot.press("enter", *typed)
        assert source.text == expected


async def test_a_burst_of_keys_edits_in_the_order_typed(tmp_path):
    """Keys that arrive together (typeahead on a loaded machine, keys sent through a browser
    or tmux) are applied in order: End moves before the characters typed after it, and
    Backspace deletes the last one typed, not the line's end ("  # hi!x = " before)."""
    from textual import events

    app = editor_alone()
    async with app.run_test(size=(80, 24)) as pilot:
        source = app.source
        source.open(str(tmp_path / "f.py"), "x = 1")
        source.focus()
        source.move_cursor((0, 0))
        await pilot.pause()
        burst = [("end", None), *((c if c != " " else "space", c) for c in "  # hi"),
                 ("backspace", None), ("exclamation_mark", "!"), ("home", None), ("y", "y")]
        for key, character in burst:  # posted at once, as a terminal's read delivers them
            app.post_message(events.Key(key, character))
        assert await wait_for(pilot, lambda: source.text == "yx = 1  # h!", 5), source.text


def test_the_indent_rules():
    assert opens_block("    for i in range(3):") and opens_block("else:  # x")
    assert not opens_block("x = 'a:'") and not opens_block("y = x[1:]")
    assert indent_unit(["def f():", "\tx"]) == "\t"
    assert indent_unit([]) == "    "
    assert new_line_indent(["def f():", "    for i in x:"], 1, 15) == "        "
    assert new_line_indent(["def f():", "    for i in x:"], 1, 4) == "    "
