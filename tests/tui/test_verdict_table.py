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


async def test_the_keys_read_a_row_taller_than_the_view_before_leaving_it():
    app = TableApp()
    async with app.run_test(size=(60, 6)) as pilot:  # the header and 5 lines
        table = app.query_one(VerdictTable)
        table.show([verdict(3, reason="a long reason that wraps " * 8), verdict(9)])
        await pilot.pause()
        table.focus()
        tall = len(table._layout.rows[0].lines)
        assert tall > 5 and table.show_vertical_scrollbar
        for _ in range(tall - 5):  # down shows the row's next line, the cursor stays
            await pilot.press("down")
        await pilot.pause()
        assert table.cursor_row == 0 and int(table.scroll_y) == tall - 5
        assert "wraps" in text(table)[-1] and app.heard == []
        await pilot.press("down")  # all of it seen: the next row
        await pilot.pause()
        assert table.cursor_row == 1 and app.heard == [("highlighted", 9)]
        await pilot.press("up")  # back to the tall row, shown from its first line
        await pilot.pause()
        assert table.cursor_row == 0 and int(table.scroll_y) == 0


async def test_the_table_fits_its_tab_and_scrolls_there():
    from agexplorer.tui.app import AgxApp
    from conftest import SAMPLES
    from tests.tui.answers import ReplayWorker

    app = AgxApp([f"{SAMPLES}/s6_2_bad_loop.py"], "bad_loop", worker=ReplayWorker())
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if app.state.report is not None and app.workspace_ready \
                    and app.panes.verdicts.row_count:
                break
        await pilot.pause(0.2)
        table, panels = app.panes.verdicts, app.panes.panels
        # Its rows are taller than the room left: it stops at the tab's bottom edge and
        # scrolls (it ran past the edge, its last lines out of reach).
        assert table.virtual_size.height > table.region.height
        assert table.region.bottom <= panels.region.bottom and table.show_vertical_scrollbar


async def test_wide_characters_keep_the_columns_in_line():
    from rich.cells import cell_len

    app = TableApp()
    async with app.run_test(size=(100, 12)) as pilot:
        table = app.query_one(VerdictTable)
        table.show([verdict(4, header="for 词 in ['漢字', '🙂']:", reason="中文的原因" * 4),
                    verdict(9)])
        await pilot.pause()
        lines = text(table)
        verdict_at = lines[0].index("verdict")
        for line in lines[1:3]:  # each row's first line: its badge under "verdict"
            cells = cell_len(line[:line.index("unrolled")])
            assert cells == cell_len(lines[0][:verdict_at]), lines
