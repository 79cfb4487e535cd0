"""The verdict table as the user drives it (keys, clicks) and as an answer redraws it: only
the lines that look different (no TensorFlow: made-up verdicts)."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from agexplorer.model.report import Verdict
from agexplorer.tui.code.verdict_table import VerdictTable


def verdict(line: int, kind: str = "python", reason: str = "why.", header: str = "") -> Verdict:
    return Verdict(kind="for", line=line, header=header or f"for i in range({line}):",
                   verdict=kind, graph_op=None, iterations=3 if kind == "python" else None,
                   branch=None, ops_created=0, reason=reason, hint=None, times=1, loop_vars=())


class TableApp(App):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list = []

    def compose(self) -> ComposeResult:
        yield VerdictTable()

    def on_verdict_table_highlighted(self, message: VerdictTable.Highlighted) -> None:
        self.heard.append(("highlighted", message.line))

    def on_verdict_table_jump(self, message: VerdictTable.Jump) -> None:
        self.heard.append(("jump", message.line))


def counting(table: VerdictTable) -> list[int]:
    """The rows of the view the table draws from now on."""
    drawn: list[int] = []
    draw = table.render_line

    def render_line(y: int):
        drawn.append(y)
        return draw(y)

    table.render_line = render_line  # type: ignore[method-assign]
    return drawn


def text(table: VerdictTable) -> list[str]:
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


async def test_an_answer_with_the_same_verdicts_draws_nothing_and_a_change_only_its_lines():
    app = TableApp()
    async with app.run_test(size=(120, 20)) as pilot:
        table = app.query_one(VerdictTable)
        rows = [verdict(3), verdict(9, reason="a long reason " * 12), verdict(14)]
        table.show(rows)
        await pilot.pause()
        before = text(table)
        drawn = counting(table)
        table.show([replace(v) for v in rows])  # the next answer: equal, new objects
        await pilot.pause()
        assert drawn == []
        table.show([rows[0], rows[1], replace(rows[2], reason="another.")])
        await pilot.pause()
        redrawn = sorted(set(drawn))
        after = text(table)
        changed = [y for y, line in enumerate(after) if line != before[y]]
        assert redrawn == changed == [len(after) - 1] and "another." in after[-1]

async def test_keys_and_clicks_move_the_cursor_and_go_to_a_line_and_a_refill_says_nothing():
    app = TableApp()
    async with app.run_test(size=(120, 20)) as pilot:
        table = app.query_one(VerdictTable)
        table.show([verdict(3), verdict(9), verdict(14)])
        await pilot.pause()
        assert app.heard == [] and table.cursor_row == 0
        table.focus()
        await pilot.press("down", "down", "down")  # the last row stays the last
        await pilot.press("enter")
        await pilot.pause()
        assert app.heard == [("highlighted", 9), ("highlighted", 14), ("jump", 14)]
        app.heard.clear()
        table.show([verdict(3), verdict(9), verdict(14)])  # the same lines: the row stays
        await pilot.pause()
        assert table.cursor_row == 2 and app.heard == []
        await pilot.press("home")
        await pilot.pause()
        assert table.cursor_row == 0 and app.heard == [("highlighted", 3)]
        app.heard.clear()
        row_of_9 = next(y for y, line in enumerate(text(table)) if line.startswith(" 9 "))
        await pilot.click(VerdictTable, offset=(2, row_of_9))  # another row: the cursor
        await pilot.click(VerdictTable, offset=(2, row_of_9))  # the cursor's row: its line
        await pilot.click(VerdictTable, offset=(2, 0))  # the header: nothing
        await pilot.pause()
        assert app.heard == [("highlighted", 9), ("jump", 9)]
        table.show([verdict(5)])  # other statements: the first row, and no message
        await pilot.pause()
        assert table.cursor_row == 0 and app.heard == [("highlighted", 9), ("jump", 9)]


async def test_a_narrow_table_stacks_each_row_and_keeps_every_line_inside():
    app = TableApp()
    async with app.run_test(size=(44, 30)) as pilot:
        table = app.query_one(VerdictTable)
        long = "the condition was a Python bool, not a tensor " * 3
        table.show([verdict(7, reason=long, header="while some_long_name < other_long_name:")])
        await pilot.pause()
        lines = text(table)
        assert "statement · verdict · why" in lines[0]
        assert all(len(line) <= table.size.width for line in lines)
        shown = " ".join(line[7:].strip() for line in lines[1:])
        assert "unrolled x3" in shown and " ".join(long.split()) in " ".join(shown.split())
        assert table.get_row_at(0)[0] == "7"


async def test_user_text_is_drawn_as_written():
    app = TableApp()
    async with app.run_test(size=(120, 12)) as pilot:
        table = app.query_one(VerdictTable)
        table.show([verdict(4, header='for s in ["[/b]", "[red]x"]:', reason="[bold]no[/bold]")])
        await pilot.pause()
        drawn = "\n".join(text(table))
        assert '"[/b]", "[red]x"' in drawn and "[bold]no[/bold]" in drawn
