"""VerdictTable: every if/for/while with its verdict, reason and fix; selecting a row jumps there."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from agexplorer.model.report import VERDICT_WORDS, driver_words
from agexplorer.render.badges import VERDICT_STYLE
from agexplorer.render.loopvars import loop_var_lines
from agexplorer.render.page import verdict_detail
from agexplorer.tui import textual_patches

textual_patches.PRIVATE += (("textual.widgets._data_table", "DataTable._update_dimensions"),)

if TYPE_CHECKING:
    from agexplorer.tui.state import FixesTried, ReportChanged


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


class VerdictTable(DataTable):
    """The control-flow verdicts of the current report."""

    class Jump(Message):
        """Go to ``line`` of the source."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    COLUMNS = ("line", "statement", "verdict", "why, and what to do")

    def _update_dimensions(self, new_rows: Any) -> None:
        # Textual's DataTable measures a refill's columns when idle, and keeps the lines it
        # drew before (the header's among them, as wide as the labels alone) unless the
        # measuring changed its scrollable size: after a refill of the same size (the
        # doctor's tried fixes, a resize), the header stayed cut to its labels above rows
        # drawn at their measured widths. Changed widths: those lines go, and it repaints.
        widths = [column.get_render_width(self) for column in self.columns.values()]
        super()._update_dimensions(new_rows)
        if [column.get_render_width(self) for column in self.columns.values()] == widths:
            return
        # (its cells' renders are cached without their width: the rows' were made while
        # measuring, at the measured widths; the header's before, at its labels')
        header, cells = getattr(self, "_header_row_key", None), getattr(
            self, "_cell_render_cache", None)
        if cells is not None:
            for key in [key for key in cells.keys() if key[0] == header]:
                cells.discard(key)
        for cache in ("_row_render_cache", "_line_cache"):
            getattr(self, cache, {}).clear()
        self.refresh()

    def on_mount(self) -> None:
        self.verdicts: list = []
        self._kept_row: int | None = None  # the row a refill keeps (show)
        self.cursor_type = "row"
        self.add_columns(*self.COLUMNS)

    def on_report_changed(self, message: ReportChanged) -> None:
        self.show(message.report.statements)

    def on_fixes_tried(self, message: FixesTried) -> None:
        self.show(message.report.statements)  # told only when a fix changed

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        # A refill puts the cursor on the first row and says so: until the row ``show``
        # kept is highlighted, that is not the user's move (nothing links it).
        kept = self._kept_row
        if not self.has_focus:  # the app links only a row the user moves to: a refill's
            event.stop()        # message goes no further (8 hops before each answer's frame)
        if kept is None:
            return
        if event.cursor_row != kept and kept < self.row_count:
            event.stop()
            self.move_cursor(row=kept)
        else:
            self._kept_row = None

    def show(self, verdicts: list) -> None:
        """Fill the table from a report's verdicts."""
        # The columns too: DataTable keeps a column as wide as its widest cell ever, so a
        # long statement of an earlier function pushed this one's "why" off the screen.
        # The same statements again (their fixes tried, the table resized): the row the
        # user is on stays (a refill puts the cursor on the first row).
        row = self.cursor_row if [v.line for v in verdicts] == [v.line for v in self.verdicts] \
            else 0
        self.clear(columns=True)
        self.verdicts = verdicts
        self._refill(verdicts)
        if 0 < row < self.row_count:
            self._kept_row = row
            self.move_cursor(row=row)

    def _refill(self, verdicts: list) -> None:
        """The columns and one row per verdict, wrapped to the table's width."""
        badges = [verdict_detail(v) for v in verdicts]
        widths = self.widths(verdicts, badges)
        if widths is None:  # too narrow for four columns: each row's cells stacked in one
            self.add_columns(*self.STACKED)
            width = self.stacked_width(verdicts)
            for v, badge in zip(verdicts, badges, strict=True):
                cell = Text("\n".join(textwrap.wrap(v.header, width) or [v.header]) + "\n")
                cell.append(badge, style=VERDICT_STYLE[v.verdict])
                cell.append("\n" + "\n".join(self.why_lines(v, width)))
                self.add_row(str(v.line), cell, key=str(v.line), height=None)
            return
        self.add_columns(*self.COLUMNS)
        header_width, why_width = widths
        for v, badge in zip(verdicts, badges, strict=True):
            why = "\n".join(self.why_lines(v, why_width))
            header = "\n".join(textwrap.wrap(v.header, header_width) or [v.header])
            # Text, never str: DataTable reads a str cell as markup, and the statement and
            # reason quote the user's code (``for s in [x, x * 2]:``, a ``"[/b]"``).
            self.add_row(str(v.line), Text(header), Text(badge, style=VERDICT_STYLE[v.verdict]),
                         Text(why), key=str(v.line), height=None)

    @staticmethod
    def why_lines(v: Any, width: int) -> list[str]:
        """The reason, the fix and the loop variables, wrapped to ``width``."""
        return (textwrap.wrap(v.reason, width)
                + (textwrap.wrap("fix: " + v.hint, width) if v.hint else [])
                + [w for line in loop_var_lines(v)
                   for w in textwrap.wrap(line, width, subsequent_indent="  ")])

    MIN_WHY = 24  # the explanation's narrowest column: below it the statement wraps too
    # Where the four columns leave under MIN_WHY for the explanation (a table 46 columns
    # wide beside the tour at 80x24 cut it to its first 4 letters): the line, and the
    # statement, its verdict and why, one under the other.
    STACKED = ("line", "statement · verdict · why")

    def widths(self, verdicts: list, badges: list[str]) -> tuple[int, int] | None:
        """The statement's and the explanation's widths: DataTable clips a long cell, so both
        are wrapped to the room that the line and verdict columns leave (at 80 columns too);
        None where the explanation would get under ``MIN_WHY`` (stacked instead)."""
        table, pad, line = self._room(verdicts)
        verdict = max([len("verdict"), *(len(b) for b in badges)]) + pad
        statement = max([len("statement"), *(len(v.header) for v in verdicts)])
        room = table - line - verdict - pad - pad - 2  # 2: the vertical scrollbar
        if room - len("statement") < self.MIN_WHY:
            return None
        if room - statement < self.MIN_WHY:
            statement = max(len("statement"), room - self.MIN_WHY)
        return statement, max(self.MIN_WHY, room - statement)

    def stacked_width(self, verdicts: list) -> int:
        """The width of the stacked cell: what the line column leaves."""
        table, pad, line = self._room(verdicts)
        # Never wider than the table: a column past its edge (with the tour's outline round
        # the table) made Textual's renderer fail.
        return max(len(self.STACKED[1]), table - line - pad - pad - 2)

    def _room(self, verdicts: list) -> tuple[int, int, int]:
        """The table's width, a cell's padding (both sides) and the line column's width."""
        pad = 2 * self.cell_padding
        return (self.size.width or 120, pad,
                max([len("line"), *(len(str(v.line)) for v in verdicts)]) + pad)

    def on_resize(self) -> None:
        if self.verdicts:
            self.show(self.verdicts)

    def select_line(self, line: int) -> None:
        """Highlight the row of the statement at ``line``, if any."""
        try:
            self.move_cursor(row=self.get_row_index(str(line)))
        except Exception:  # noqa: BLE001 - no statement on that line
            pass

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Jump(int(str(event.row_key.value))))
