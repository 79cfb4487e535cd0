"""VerdictTable: every if/for/while with its verdict, reason and fix; selecting a row jumps there.

A line-API widget of its own (it was Textual's DataTable): DataTable measures a refill's
columns when the app is next idle and draws every row again, ~3 ms of each answer's frame
(and a frame drawn between the two showed the header at its labels' widths). Here the rows
are laid out when they are given (verdict_rows.py, columns measured then), and only the lines
that look different from the ones shown are drawn again: an answer with the same verdicts
(a value edited in the function) draws nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from agexplorer.model.report import VERDICT_WORDS, driver_words
from agexplorer.source.line_moves import moved_lines
from agexplorer.tui.code.changed_rows import changed_runs
from agexplorer.tui.code.verdict_rows import PAD, Cell, Layout, layout

if TYPE_CHECKING:
    from agexplorer.tui.state import FixesTried, LinesMoved, ReportChanged


def flow_summary(function: str, verdicts: list, failed: bool, label: str | None = None,
                 callees: int = 0, refused: str | None = None, error: str | None = None,
                 drives: tuple[str, ...] = ()) -> str:
    """The Control flow tab's one line above the table: what the table holds, or why empty;
    ``label`` names the call the verdicts were made from (``range_loop(5) [AGX_CALLS]``);
    ``callees``: how many functions of the user's it reached have an if/for/while;
    ``refused``: why AutoGraph did not convert it, if it did not; ``error``: why it failed,
    in full (the status line cuts a long one at three lines); ``drives``: the file's
    tf.functions a plain function calls (its verdicts are tf.function(it)'s, said first)."""
    if drives:
        return (driver_words(function, drives) + ". "
                + flow_summary(function, verdicts, failed, label, callees, refused, error))
    name = label or function.split(".")[-1]
    if not verdicts:
        if failed:
            return (f"no verdicts for {name}: it did not trace: {error}" if error else
                    f"no verdicts for {name}: it did not trace (the status line says why)")
        if refused:  # what AutoGraph refused and the fix (what tf.function did next: below)
            return refused.split(" tf.function goes on")[0]
        if callees:
            some = "one function it calls has" if callees == 1 else \
                f"{callees} functions it calls have"
            return (f"no if, for or while in {name} itself, but {some} some: their verdicts "
                    "are in the Calls tab (2)")
        return (f"no if, for or while in {name}: nothing for AutoGraph to stage; its converted "
                "code only wraps the function (FunctionScope, the return value)")
    counts = {k: sum(v.verdict == k for v in verdicts) for k in VERDICT_WORDS}
    parts = [f"{n} {VERDICT_WORDS[k]}" for k, n in counts.items() if n]
    noun = "statement" if len(verdicts) == 1 else "statements"
    before = " before tracing failed (the status line says why)" if failed else ""
    return (f"{len(verdicts)} {noun} in {name}{before}: " + ", ".join(parts)
            + " (Enter on a row: its line)")




class VerdictTable(ScrollView, can_focus=True):
    """The control-flow verdicts of the current report: a header, then one row per
    statement (its line, the statement, the verdict, why and the fix), a row cursor."""

    class Jump(Message):
        """Go to ``line`` of the source."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    class Highlighted(Message):
        """The user moved the cursor to the row of ``line`` (a refill says nothing)."""

        def __init__(self, table: VerdictTable, line: int) -> None:
            super().__init__()
            self.table, self.line = table, line

        @property
        def control(self) -> VerdictTable:
            return self.table

    COMPONENT_CLASSES: ClassVar[set[str]] = {"verdict-table--header", "verdict-table--cursor"}
    # As Textual's DataTable looks, so the explorer looks the same.
    DEFAULT_CSS = """
    VerdictTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .verdict-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .verdict-table--header { background-tint: $foreground 5%; }
        }
        & > .verdict-table--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .verdict-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .verdict-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Go to line", show=False),
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,ctrl+home", "first", "First row", show=False),
        Binding("end,ctrl+end", "last", "Last row", show=False),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.verdicts: list = []  # as shown: their lines in the buffer now
        self._given: list = []  # the report's, at the lines of the buffer it was made from
        self.cursor_row = 0
        self._layout: Layout = layout([], 0)
        self._lines: list[tuple[int, tuple[Cell, ...]]] = []  # below the header
        self._starts: list[int] = []  # each row's first line
        self._paint: tuple[Style, Style, Style] | None = None  # base, header, cursor
        self._strips: dict[tuple, Strip] = {}

    # -- what it shows ---------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self._layout.rows)

    def get_row_at(self, index: int) -> tuple[str, ...]:
        """Row ``index``'s cells as drawn, each cell's lines joined."""
        return self._layout.rows[index].cells()

    def on_report_changed(self, message: ReportChanged) -> None:
        self._given = message.report.statements
        self.show(moved_lines(self._given, message.moves))

    def on_fixes_tried(self, message: FixesTried) -> None:
        self._given = message.report.statements
        self.show(moved_lines(self._given, message.moves))  # told only when a fix changed

    def on_lines_moved(self, message: LinesMoved) -> None:
        """Lines were added or removed above or inside the function: each row names its
        statement's line in the buffer now, until the next answer."""
        moved = moved_lines(self._given, message.moves)
        self.show(moved, keep=len(moved) == len(self.verdicts))

    def show(self, verdicts: list, keep: bool = False) -> None:
        """Show a report's verdicts. The same statements again (their fixes tried, the next
        answer after an edit; ``keep``: the same moved to other lines): the row the user is
        on stays; others: the first row."""
        keep = keep or [v.line for v in verdicts] == [v.line for v in self.verdicts]
        self.verdicts = list(verdicts)
        self._lay_out(self.cursor_row if keep else 0)

    def _lay_out(self, row: int) -> None:
        """Lay the verdicts out at the table's width; draw again only the lines that changed."""
        before = self._visible_keys()
        self._layout = layout(self.verdicts, self.size.width)
        self._lines = self._layout.lines()
        self._starts, line = [], 0
        for each in self._layout.rows:
            self._starts.append(line)
            line += len(each.lines)
        self.cursor_row = max(0, min(row, self.row_count - 1))
        size = Size(self._layout.width, 1 + len(self._lines))
        if size != self.virtual_size:
            self.virtual_size = size  # a new height lays the screen out again
            self.refresh()
        else:
            for y, height in changed_runs(before, self._visible_keys()):
                self.refresh(Region(0, y, self.size.width, height))
        self._scroll_to_cursor()

    def on_resize(self) -> None:
        if self.verdicts:
            self._lay_out(self.cursor_row)  # wrapped to the new width

    def select_line(self, line: int) -> None:
        """Put the cursor on the row of the statement at ``line``, if there is one."""
        for index, row in enumerate(self._layout.rows):
            if row.line == line:
                self.move_cursor(row=index)
                return

    def move_cursor(self, row: int, scroll: bool = True) -> None:
        """Put the cursor on ``row`` (kept in the table)."""
        row = max(0, min(row, self.row_count - 1))
        if row != self.cursor_row:
            old, self.cursor_row = self.cursor_row, row
            self._refresh_row(old)
            self._refresh_row(row)
        if scroll:
            self._scroll_to_cursor()

    # -- drawing ---------------------------------------------------------------------------
    def _line_key(self, y: int, cursor: int) -> tuple:
        """What row ``y`` of the view shows (equal keys look the same)."""
        widths = self._layout.widths
        if y == 0:
            return ("header", self._layout.labels, widths)
        index = int(self.scroll_y) + y - 1
        if index >= len(self._lines):
            return ("blank",)
        row, cells = self._lines[index]
        return (cells, widths, row == cursor)

    def _visible_keys(self) -> list[tuple]:
        return [self._line_key(y, self.cursor_row) for y in range(self.size.height)]

    def _refresh_row(self, row: int) -> None:
        if 0 <= row < len(self._starts):
            first = self._starts[row] - int(self.scroll_y) + 1
            height = len(self._layout.rows[row].lines)
            self.refresh(Region(0, max(first, 1), self.size.width, height))

    def render_lines(self, crop: Region) -> list[Strip]:
        # The styles once a paint: the lines to draw all use them.
        self._paint = (self.rich_style, self.get_component_rich_style("verdict-table--header"),
                       self.get_component_rich_style("verdict-table--cursor"))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        base, header, cursor = self._paint or (self.rich_style, Style(), Style())
        width, scroll_x = self.size.width, int(self.scroll_x)
        shows = self._line_key(y, self.cursor_row)
        key = (shows, base, header, cursor, width, scroll_x)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 1024:
                self._strips.clear()
            # (the header's colour across the whole width, as DataTable draws it)
            strip = self._strips[key] = self._draw(shows, base, header, cursor).crop_extend(
                scroll_x, scroll_x + width, base + header if y == 0 else base)
        return strip

    def _draw(self, shows: tuple, base: Style, header: Style, cursor: Style) -> Strip:
        """The line ``shows`` (its ``_line_key``) describes."""
        if shows[0] == "header":
            _, labels, widths = shows
            style = base + header
            return Strip([segment for label, width in zip(labels, widths, strict=True)
                          for segment in self._cell(label, width, style, style)])
        if shows[0] == "blank":
            return Strip.blank(self._layout.width, base)
        cells, widths, on = shows
        style = base + cursor if on else base
        # The cursor's colour over a cell's own (the verdict's), as DataTable draws it.
        over = Style(color=cursor.color) if on else Style()
        return Strip([segment for (text, look), width in zip(cells, widths, strict=True)
                      for segment in self._cell(text, width, style,
                                                style + Style.parse(look) + over if look
                                                else style)])

    @staticmethod
    def _cell(text: str, width: int, style: Style, text_style: Style) -> list[Segment]:
        """A cell's segments: its padding and fill in the row's style, its text in its own."""
        shown = set_cell_size(text, width)
        if text_style == style:
            return [Segment(" " * PAD + shown + " " * PAD, style)]
        kept = shown.rstrip(" ")
        return [Segment(" " * PAD, style), Segment(kept, text_style),
                Segment(" " * (width - cell_len(kept) + PAD), style)]

    def _scroll_to_cursor(self) -> None:
        """Scroll so the cursor's row shows (its first line, and all of it when it fits)."""
        if not self._starts:
            return
        first = self._starts[self.cursor_row]
        height = len(self._layout.rows[self.cursor_row].lines)
        rows = max(1, self.scrollable_content_region.height - 1)  # under the header
        top = int(self.scroll_y)
        if first < top:
            self.scroll_to(y=first, animate=False, immediate=True)
        elif first + min(height, rows) > top + rows:
            self.scroll_to(y=first + min(height, rows) - rows, animate=False, immediate=True)

    # -- the user's moves -------------------------------------------------------------------
    def _moved(self, row: int) -> None:
        before = self.cursor_row
        self.move_cursor(row)
        if self.cursor_row != before and self._layout.rows:
            self.post_message(self.Highlighted(self, self._layout.rows[self.cursor_row].line))

    def action_cursor_up(self) -> None:
        if self._starts and self._starts[self.cursor_row] < int(self.scroll_y):
            self.scroll_to(y=int(self.scroll_y) - 1, animate=False, immediate=True)
        else:  # (a row taller than the view: its hidden lines first, a line a key)
            self._moved(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        if self._starts:
            end = self._starts[self.cursor_row] + len(self._layout.rows[self.cursor_row].lines)
            rows = max(1, self.scrollable_content_region.height - 1)  # under the header
            if end > int(self.scroll_y) + rows:
                self.scroll_to(y=int(self.scroll_y) + 1, animate=False, immediate=True)
                return
        self._moved(self.cursor_row + 1)

    def _page(self) -> int:
        """Rows in a page: as many as fill the view below the header."""
        rows = max(1, self.scrollable_content_region.height - 1)
        count, lines = 0, 0
        for row in self._layout.rows[self.cursor_row:]:
            lines += len(row.lines)
            if lines > rows:
                break
            count += 1
        return max(1, count)

    def action_page_up(self) -> None:
        self._moved(self.cursor_row - self._page())

    def action_page_down(self) -> None:
        self._moved(self.cursor_row + self._page())

    def action_first(self) -> None:
        self._moved(0)

    def action_last(self) -> None:
        self._moved(self.row_count - 1)

    def action_select_cursor(self) -> None:
        if self._layout.rows:
            self.post_message(self.Jump(self._layout.rows[self.cursor_row].line))

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on its row; on the cursor's row, it goes to its line."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = int(self.scroll_y) + offset.y - 1
        if not 0 <= index < len(self._lines):
            return
        row = self._lines[index][0]
        if row == self.cursor_row:
            self.action_select_cursor()
        else:
            self._moved(row)
