"""VerdictTable: every if/for/while with its verdict, reason and fix; selecting a row jumps there."""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from agexplorer.render.badges import VERDICT_STYLE, verdict_badge


def flow_summary(function: str, verdicts: list, failed: bool) -> str:
    """The Control flow tab's one line above the table: what the table holds, or why empty."""
    name = function.split(".")[-1]
    if not verdicts:
        if failed:
            return f"no verdicts for {name}: it did not trace (the status line says why)"
        return (f"no if, for or while in {name}: nothing for AutoGraph to stage; its converted "
                "code only wraps the function (FunctionScope, the return value)")
    kinds = {"staged": "staged in the graph", "python": "run in Python while tracing",
             "mixed": "staged on some runs and Python on others", "unreached": "never reached"}
    counts = {k: sum(v.verdict == k for v in verdicts) for k in kinds}
    parts = [f"{n} {kinds[k]}" for k, n in counts.items() if n]
    noun = "statement" if len(verdicts) == 1 else "statements"
    return f"{len(verdicts)} {noun} in {name}: " + ", ".join(parts) + " (Enter on a row: its line)"


class VerdictTable(DataTable):
    """The control-flow verdicts of the current report."""

    class Jump(Message):
        """Go to ``line`` of the source."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    def on_mount(self) -> None:
        self.verdicts: list = []
        self.cursor_type = "row"
        self.add_columns("line", "statement", "verdict", "why, and what to do")

    def show(self, verdicts: list) -> None:
        """Fill the table from a report's verdicts."""
        self.clear()
        self.verdicts = verdicts
        # DataTable clips long cells: wrap the explanation to the room the other columns leave.
        width = max(40, (self.size.width or 120) - 50)
        for v in verdicts:
            why = "\n".join(textwrap.wrap(v.reason, width)
                            + (textwrap.wrap("fix: " + v.hint, width) if v.hint else []))
            self.add_row(str(v.line), v.header,
                         Text(verdict_badge(v) + (f" {v.graph_op}" if v.graph_op else ""),
                              style=VERDICT_STYLE[v.verdict]),
                         why, key=str(v.line), height=None)

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
        self.post_message(self.Jump(int(event.row_key.value)))
