"""The source pane highlights a long file's lines around its view at each edit, painted as
Textual paints its whole map (no TensorFlow)."""

from __future__ import annotations

from textual.app import App
from textual.widgets import TextArea

from agexplorer.tui.code import near_highlights
from agexplorer.tui.code.source_pane import SourcePane

LONG = "import tensorflow as tf\nimport numpy as np  # noqa\n\n" + "".join(
    f'\n@tf.function\ndef f{i}(n: int) -> "Tensor":\n    """Sum {i}."""\n'
    f"    s = tf.constant(0)\n    for k in tf.range(n):\n        s += k * {i}  # grows\n"
    f"    return MyModel(s) if s > {i} else print(s)\n" for i in range(90))


class Panes(App):
    def compose(self):
        yield SourcePane(id="ours")
        yield TextArea(LONG, language="python", show_line_numbers=True, soft_wrap=False,
                       id="textual")


def _drawn(pane) -> list[list]:
    """The pane's rows as drawn, but the gutter and the cursor's row (the two panes style
    the cursor's line their own way)."""
    top, cursor = int(pane.scroll_y), pane.cursor_location[0]
    return [list(pane.render_line(y))[1:] for y in range(pane.size.height) if top + y != cursor]


async def test_a_long_files_edit_highlights_the_lines_around_the_view_as_textual_does():
    app = Panes()
    async with app.run_test(size=(120, 80)) as pilot:
        ours, textual = app.query_one(SourcePane), app.query_one("#textual", TextArea)
        ours.load_text(LONG)
        await pilot.pause()
        app.set_focus(None)
        lines = ours.document.line_count
        assert lines > near_highlights.SMALL and ours._near.rows is None  # opened: whole
        for n in range(3):
            for pane in (ours, textual):
                pane.insert(f"x{n} = 1  # typed\n", (5, 0))
        assert ours._near.rows == (0, near_highlights.MARGIN + ours.size.height)
        assert max(ours._highlights) < ours._near.rows[1] + 10 < lines  # the band only
        for top in (0, 300, lines - ours.size.height):  # the band follows the view
            for pane in (ours, textual):
                pane.scroll_to(y=top, animate=False, immediate=True)
            await pilot.pause()
            start, end = ours._near.rows
            assert start <= top and top + ours.size.height <= end
            assert _drawn(ours) == _drawn(textual)  # colour for colour (`as` a keyword)


async def test_a_short_file_keeps_textuals_whole_map():
    app = Panes()
    async with app.run_test(size=(120, 40)) as pilot:
        ours = app.query_one(SourcePane)
        short = LONG[:2000]
        ours.load_text(short)
        ours.insert("y = 2\n", (3, 0))
        await pilot.pause()
        assert ours._near.rows is None
        assert max(ours._highlights) >= ours.document.line_count - 2
