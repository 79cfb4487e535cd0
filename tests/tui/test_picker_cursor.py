"""The function list's cursor goes back to the function shown right after the list was rebuilt
for an edited buffer (no TensorFlow)."""

from __future__ import annotations

import ast

from textual.app import App, ComposeResult

from agexplorer.source.targets import list_functions
from agexplorer.tui.functions.picker import FunctionPicker

CODE = "def first(x):\n    return x\n\n\ndef shown(x):\n    return x\n"


class Picking(App):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        yield FunctionPicker([self.path], id="picker")


async def test_the_cursor_lands_on_the_function_at_once_after_a_rebuild(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(CODE)
    app = Picking(str(path))
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(FunctionPicker)
        await pilot.pause()
        picker.select_function(str(path), "shown")
        await pilot.pause()
        assert picker.cursor_node.data == (str(path), "shown")
        # A function added above: the file's list is made anew, and the cursor is put back
        # in the same moment, before the tree has laid out its new lines (under load the
        # explorer's call after the refresh came before the tree's own idle rebuilt them).
        edited = "def added(x):\n    return x\n\n\n" + CODE
        assert picker.update_functions(str(path), list_functions(ast.parse(edited)))
        picker.select_function(str(path), "shown")
        assert picker.cursor_node is not None
        assert picker.cursor_node.data == (str(path), "shown")
