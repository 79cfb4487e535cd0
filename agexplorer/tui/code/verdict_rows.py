"""The verdict table's layout: its columns, and each verdict's cells wrapped into lines.

Kept apart from the widget (verdict_table.py), which only draws it: a layout is a value, so
an answer whose table would look the same as the one shown (the same statements, an
unchanged value edited in the function) is told from it by comparison, and a line that did
not change is not drawn again.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.cells import cell_len

from agexplorer.render.badges import VERDICT_STYLE
from agexplorer.render.loopvars import loop_var_lines
from agexplorer.render.page import verdict_detail

COLUMNS = ("line", "statement", "verdict", "why, and what to do")
# Where the four columns leave under MIN_WHY for the explanation (a table 46 columns wide
# beside the tour at 80x24 cut it to its first 4 letters): the line, and the statement, its
# verdict and why, one under the other.
STACKED = ("line", "statement · verdict · why")
MIN_WHY = 24  # the explanation's narrowest column: below it the statement wraps too
PAD = 1  # a cell's padding, each side
SCROLLBAR = 2  # the vertical scrollbar's columns, left free when fitting the columns

Cell = tuple[str, str]  # (text, Rich style)


@dataclass(frozen=True)
class Row:
    """One verdict: its source line, and its drawn lines (one cell per column each)."""
    line: int
    lines: tuple[tuple[Cell, ...], ...]

    def cells(self) -> tuple[str, ...]:
        """Each column's text, its lines joined (what the row says, for tests and reading)."""
        columns = len(self.lines[0]) if self.lines else 0
        return tuple("\n".join(line[c][0] for line in self.lines).rstrip("\n")
                     for c in range(columns))


@dataclass(frozen=True)
class Layout:
    """The columns' labels and widths (their text, no padding), and the rows."""
    labels: tuple[str, ...]
    widths: tuple[int, ...]
    rows: tuple[Row, ...]

    @property
    def width(self) -> int:
        """The table's width in cells, padding included."""
        return sum(w + 2 * PAD for w in self.widths)

    def lines(self) -> list[tuple[int, tuple[Cell, ...]]]:
        """Every drawn line below the header: (its row's index, its cells)."""
        return [(index, line) for index, row in enumerate(self.rows) for line in row.lines]


@lru_cache(maxsize=512)
def _wrapped(text: str, width: int, indent: str = "") -> tuple[str, ...]:
    """``textwrap.wrap``, kept: the next answer mostly has the same reasons (an edit above a
    function moves its lines, not its words), and wrapping them was most of a refill."""
    return tuple(textwrap.wrap(text, width, subsequent_indent=indent))


def why_lines(v: Any, width: int) -> list[str]:
    """The reason, the fix and the loop variables, wrapped to ``width``."""
    return [*_wrapped(v.reason, width), *(_wrapped("fix: " + v.hint, width) if v.hint else ()),
            *(w for line in loop_var_lines(v) for w in _wrapped(line, width, "  "))]


def _room(verdicts: list, table_width: int) -> tuple[int, int]:
    """The table's width and the line column's, its padding included."""
    return (table_width or 120,
            max([len("line"), *(len(str(v.line)) for v in verdicts)]) + 2 * PAD)


def fitted_widths(verdicts: list, badges: list[str], table_width: int) -> tuple[int, int] | None:
    """The statement's and the explanation's widths: long cells are wrapped to the room that
    the line and verdict columns leave (at 80 columns too); None where the explanation would
    get under ``MIN_WHY`` (stacked instead)."""
    table, line = _room(verdicts, table_width)
    pad = 2 * PAD
    verdict = max([len("verdict"), *(len(b) for b in badges)]) + pad
    statement = max([len("statement"), *(len(v.header) for v in verdicts)])
    room = table - line - verdict - pad - pad - SCROLLBAR
    if room - len("statement") < MIN_WHY:
        return None
    if room - statement < MIN_WHY:
        statement = max(len("statement"), room - MIN_WHY)
    return statement, max(MIN_WHY, room - statement)


def layout(verdicts: list, table_width: int) -> Layout:
    """The table for ``verdicts`` at ``table_width`` columns (0: not laid out yet)."""
    badges = [verdict_detail(v) for v in verdicts]
    fitted = fitted_widths(verdicts, badges, table_width)
    rows: list[Row] = []
    if fitted is None:  # too narrow for four columns: each row's cells stacked in one
        table, line = _room(verdicts, table_width)
        # Never wider than the table (a column past its edge is cut, and its text lost).
        width = max(len(STACKED[1]), table - line - 2 * PAD - SCROLLBAR)
        for v, badge in zip(verdicts, badges, strict=True):
            stacked = [(text, "") for text in _wrapped(v.header, width) or [v.header]]
            stacked.append((badge, VERDICT_STYLE[v.verdict]))
            stacked += [(text, "") for text in why_lines(v, width)]
            rows.append(_row(v.line, [[(str(v.line), "")], stacked]))
        return _laid_out(STACKED, rows)
    header_width, why_width = fitted
    for v, badge in zip(verdicts, badges, strict=True):
        header = _wrapped(v.header, header_width) or [v.header]
        rows.append(_row(v.line, [[(str(v.line), "")], [(text, "") for text in header],
                                  [(badge, VERDICT_STYLE[v.verdict])],
                                  [(text, "") for text in why_lines(v, why_width)]]))
    return _laid_out(COLUMNS, rows)


def _row(line: int, columns: list[list[Cell]]) -> Row:
    """A row from its columns' lines: as tall as its tallest cell, the others blank below."""
    height = max(1, *(len(cell) for cell in columns))
    return Row(line, tuple(tuple(cell[y] if y < len(cell) else ("", "") for cell in columns)
                           for y in range(height)))


def _laid_out(labels: tuple[str, ...], rows: list[Row]) -> Layout:
    """Each column as wide as its label or its widest text, whichever is wider."""
    widths = [cell_len(label) for label in labels]
    for row in rows:
        for line in row.lines:
            for column, (text, _) in enumerate(line):
                widths[column] = max(widths[column], cell_len(text))
    return Layout(labels, tuple(widths), tuple(rows))
