"""Keys you can find and that never trap: tabs and panes, Esc, help, the palette, find, queueing."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input

from agexplorer.tui.commands import ExplorerCommands, entries
from agexplorer.tui.dialogs.help import HelpScreen
from agexplorer.tui.keys import TABS
from conftest import explorer, palette_offers, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

SIZE = (150, 42)


async def _ready(app, pilot) -> None:
    assert await wait_for(pilot, lambda: app.state.report is not None)


async def test_digits_show_tabs_and_alt_digits_focus_panes(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        app.panes.converted.focus()
        for digit, (tab, _) in enumerate(TABS, 1):
            await pilot.press(str(digit))
            assert app.panes.panels.active == tab
            # The tab's own widget has the focus (never an input, never the editor).
            assert app.focused is not None and app.focused is not app.source
            assert type(app.focused).__name__ not in ("Input", "OpFilter", "TextArea")
        await pilot.press("2", "tab")  # Tab goes on from the Calls tree, not into the editor
        assert app.focused is not app.source
        await pilot.press("alt+1")
        assert app.focused.id == "picker"
        await pilot.press("alt+2")
        assert app.focused is app.source
        await pilot.press("alt+3")  # out of the editor, whose Tab indents
        assert app.focused is app.panes.converted
        await pilot.press("4", "alt+4")  # the Graph tab, then its first widget
        assert app.focused is app.panes.op_filter


async def test_escape_leaves_inputs_and_the_editor_and_letters_type_in_inputs(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        app.panes.panels.active = "tab-graph"
        app.panes.op_filter.focus()
        await pilot.press("t", "3")  # text in the input: not Trace, not the Doctor tab
        assert app.panes.op_filter.value == "t3"
        assert app.panes.panels.active == "tab-graph"
        await pilot.press("escape")
        assert not isinstance(app.focused, Input)
        app.source.focus()
        before = app.source.text
        await pilot.press("escape")
        assert app.focused is not app.source and app.source.text == before


async def test_the_footer_shows_the_keys_of_the_focused_context(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        app.panes.converted.focus()
        await pilot.pause()
        shown = {b.binding.action for b in app.screen.active_bindings.values()
                 if b.binding.show}
        assert {"run", "trace", "try_fix", "apply_fix", "show_tab('tab-graph')",
                "focus_pane('source')", "help"} <= shown
        app.source.focus()
        await pilot.pause()
        keys = app.screen.active_bindings
        # In the editor the letters and digits are text: their commands leave the footer.
        assert "t" not in keys and "1" not in keys
        assert keys["escape"].binding.description == "Leave editor"
        assert "f5" in keys and "alt+1" in keys


async def test_f1_and_question_mark_show_every_binding_of_the_focused_context(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        app.source.focus()
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(f"{t}: " + "; ".join(f"{k} {d}" for k, d in rows)
                         for t, rows in app.screen.groups)
        assert "Leave editor" in text and "Tabs: Graph" not in text  # digits are text here
        assert "f5" in text and "Run" in text
        # The explorer's keys come before the editor's dozens of cursor keys.
        assert app.screen.groups[-1][0].startswith("The focused SourcePane")
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        app.panes.converted.focus()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.groups)
        assert "Tabs: Graph" in text and "Trace" in text and "Next fn" in text
        await pilot.press("escape")
        assert app.focused is app.panes.converted


async def test_the_palette_names_every_action_plainly_tab_switching_included(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        names = [name for name, _ in entries(app)]
        assert "Run eager, graph and XLA" in names and "Show the Graph tab" in names
        assert not any(name.startswith("action ") for name in names)
        assert ("Double the worker's timeout", "double_timeout") in ExplorerCommands.COMMANDS
        app.source.focus()  # a letter key is text here; the palette still runs its command
        await pilot.press("ctrl+p")
        await pilot.press(*"Show the Graph tab")
        assert await wait_for(pilot, lambda: palette_offers(app, "Show the Graph tab"), 10)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.panes.panels.active == "tab-graph", 10)
        assert app.source.text == app.source.saved_text  # nothing was typed into the editor


async def test_moving_in_the_function_list_opens_the_function_after_a_pause(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        await pilot.press("alt+1", "down")  # the cursor rests on tensor_for
        assert await wait_for(pilot, lambda: app.state.target[1] == "tensor_for", 10)
        assert await wait_for(pilot, lambda: app.state.report is not None
                              and app.state.report.function == "tensor_for")
        assert app.focused.id == "picker"  # the list keeps the focus while it opens


async def test_keys_typed_fast_or_during_start_up_are_queued_not_dropped(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        # Keys arrive together (as from a fast typist), before the first function is open:
        # every one counts.
        for _ in range(5):
            app.post_message(events.Key("n", "n"))
        app.post_message(events.Key("5", "5"))
        picker = app.query_one("#picker")
        assert await wait_for(pilot, lambda: app.state.target is not None
                              and app.state.target == picker.functions()[5], 30)
        assert await wait_for(pilot, lambda: app.state.report is not None
                              and app.state.report.function == picker.functions()[5][1])
        assert app.panes.panels.active == "tab-run"
        for _ in range(3):
            app.post_message(events.Key("p", "p"))
        assert await wait_for(pilot, lambda: app.state.target == picker.functions()[2], 10)


async def test_find_in_a_pane_with_ctrl_f_then_n_and_shift_n(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        converted = app.panes.converted
        converted.focus()
        await pilot.press("ctrl+f")
        await pilot.pause()
        finder = app.finder
        assert finder.is_open and isinstance(app.focused, Input)
        await pilot.press(*"ag__")
        assert len(finder.matches) > 2
        first = finder.matches[finder.current]
        await pilot.press("enter")
        assert app.focused is converted
        assert converted.selected_text.lower() == "ag__"
        await pilot.press("n")
        assert finder.matches[finder.current] > first
        assert converted.selection.start == finder.matches[finder.current]
        assert app.state.target[1] == "python_for"  # n went to the match, not the next function
        await pilot.press("N")
        assert converted.selection.start == first
        assert "of" in str(finder.bar.count.render())
        await pilot.press("escape")
        assert not finder.is_open and app.focused is converted
        await pilot.press("n")  # no find open: n is the next function again
        assert await wait_for(pilot, lambda: app.state.target[1] == "tensor_for", 10)


async def test_find_in_the_editor_uses_f3_and_in_the_log(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(app, pilot)
        source = app.source
        source.focus()
        source.move_cursor((0, 0))
        await pilot.press("ctrl+f", *"range")
        await pilot.press("enter")
        assert app.focused is source and source.selected_text == "range"
        first = source.selection.start
        await pilot.press("f3")
        assert source.selection.start > first and source.selected_text == "range"
        await pilot.press("shift+f3")
        assert source.selection.start == first
        assert source.text == source.saved_text  # nothing typed into the buffer
        await pilot.press("escape")  # leaves the editor; the bar stays until Esc there
        app.panes.panels.active = "tab-log"
        app.panes.log_view.focus()
        await pilot.press("ctrl+f", *"python_for")
        assert app.finder.pane is app.panes.log_view and app.finder.matches
        await pilot.press("escape")
        assert not app.finder.is_open and app.focused is app.panes.log_view


async def test_the_footer_at_80_columns_puts_the_most_useful_keys_first_and_quit_last(
        flow_file, worker):
    from textual.widgets._footer import FooterKey

    def footer() -> list[str]:
        return [key.key for key in app.screen.query(FooterKey)]

    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(app, pilot)
        app.panes.converted.focus()
        # What fits in 80 columns: help, the function list, run, trace, try fix, next fn.
        # The footer is composed again after each focus change (a refresh later): a read
        # mid-way saw only a part of it under CI's load, so wait for the composed one.
        first = ["f1", "ctrl+b", "f5", "t", "f", "alt+down"]
        assert await wait_for(pilot, lambda: app.focused is app.panes.converted
                              and footer()[:6] == first, 10), footer()
        keys = footer()
        assert keys.index("ctrl+q") > keys.index("alt+4")  # Quit after every other key
        # At 80x24 the source is hidden behind AutoGraph's code (a hidden widget cannot take
        # the focus): alt+2 shows it and focuses it, and the footer is composed anew, so wait
        # for its keys rather than read it mid-way.
        await pilot.press("alt+2")
        wanted = ["escape", "f1", "ctrl+b", "f5"]  # the way out comes first
        assert await wait_for(pilot, lambda: footer()[:4] == wanted, 10), footer()
