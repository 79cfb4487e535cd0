"""A new converted code is edited into the pane where it changed: the pane then shows what a
fresh pane given the code shows, highlighting included, and keeps its place (no TensorFlow)."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.geometry import Region

from agexplorer.tui.code.converted_pane import ConvertedPane, _common_start

CODE = "".join(f"def tf__f{i}(x):\n    y = ag__.ld(x) + {i}  # é {'a' * i}\n    return y\n"
               for i in range(30))
EDITS = {
    "a value": CODE.replace("+ 7 ", "+ 70 "),
    "a line added at the top": "# new\n" + CODE,
    "lines removed in the middle": CODE.replace("def tf__f9(x):\n", ""),
    "a changed end": CODE[:-10] + "ag__.ld(z)\n",
    "a string opened": CODE.replace("# é a\n", "'''open\n", 1),
    "all of it": "x = 1\n",
}


class Panes(App):
    def compose(self):
        yield ConvertedPane(id="edited")
        yield ConvertedPane(id="fresh")


def lines(pane: ConvertedPane) -> list:
    pane._line_cache.clear()
    pane._styles_cache.clear()
    pane._reused.clear()
    return [list(strip) for strip in pane.render_lines(Region(0, 0, pane.size.width, 30))]


@pytest.mark.parametrize("edit", list(EDITS))
async def test_an_edited_code_shows_as_a_fresh_pane_shows_it(edit):
    new = EDITS[edit]
    app = Panes()
    async with app.run_test(size=(100, 70)) as pilot:
        edited, fresh = app.query_one("#edited", ConvertedPane), app.query_one("#fresh", ConvertedPane)
        app.set_focus(None)
        edited.show_code(CODE)
        await pilot.pause()
        edited.show_code(new)
        fresh.show_code(new)
        fresh.selection = edited.selection
        edited.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert edited.text == new and edited.document.line_count == fresh.document.line_count
        assert lines(edited) == lines(fresh)


@pytest.mark.parametrize("another", [False, True], ids=["the same function", "another"])
async def test_the_view_keeps_its_place_unless_another_functions_code_comes(another):
    app = Panes()
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.query_one("#edited", ConvertedPane)
        pane.show_code(CODE)
        await pilot.pause()
        pane.scroll_to(y=40, animate=False, immediate=True)
        await pilot.pause()
        if another:
            pane.on_target_changed(None)  # the explorer's state: another function is shown
            pane.show_code(CODE.replace("tf__f", "tf__g"))  # from its first line
        else:
            pane.show_code(CODE.replace("+ 3 ", "+ 30 "))  # the next answer: a value edited
        await pilot.pause()
        # (a new document put the view back at its first line after every edit)
        assert int(pane.scroll_y) == (0 if another else 40)
        assert pane.cursor_location == (0, 0)


def test_the_common_start_of_two_texts():
    assert _common_start("abcdef", "abcxef") == 3
    assert _common_start("abc", "abc") == 3 and _common_start("", "x") == 0
    assert _common_start("ab", "abc") == 2 and _common_start("x", "y") == 0
