"""A read-only code pane's new text repainted on the rows that changed, not the whole pane.

Textual's TextArea repaints every row it shows after any edit (the edit sets its selection,
a reactive that repaints the widget even when it is the same), and Textual then renders each
row again through the widget's styles (~0.15 ms a row at 160x45). AutoGraph's code for a
function whose value or condition was edited differs from the last in a line or two, yet its
frame rendered all ~35 rows of the converted pane, ~6 ms in which the app's thread held the
interpreter, and the report that came while it drew waited for it.

:class:`RowsOnly` holds the full repaints asked during an edit and then repaints only the rows
whose text or highlighting changed (from the edit down where it changed the line count), where
every other row shows what it showed: the same text, highlighting as drawn, line number,
selection and scroll. Anything else (another gutter or scrollable width, a scroll, a moved
selection or bracket match) repaints the whole pane, as Textual does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from textual.widgets import TextArea


@dataclass(frozen=True)
class _Shown:
    """What every row of the pane is drawn with, beside its own text."""

    gutter: int
    virtual: tuple[int, int]
    scroll: tuple[float, float]
    size: tuple[int, int]
    selection: Any
    bracket: Any
    top: int
    rows: int
    highlights: tuple[tuple, ...]  # each row's shown, from ``top``


def _shown(area: TextArea) -> _Shown | None:
    highlights = getattr(area, "_highlights", None)
    if highlights is None:  # a Textual without it: the whole pane, as Textual does
        return None
    top, rows = int(area.scroll_offset.y), area.scrollable_content_region.height
    virtual, scroll, size = area.virtual_size, area.scroll_offset, area.size
    return _Shown(area.gutter_width, (virtual.width, virtual.height), (scroll.x, scroll.y),
                  (size.width, size.height), area.selection,
                  getattr(area, "_matching_bracket_location", None), top, rows,
                  tuple(tuple(highlights.get(row, ())) for row in range(top, top + rows)))


def _drawn_otherwise(before: tuple, after: tuple) -> bool:
    """Whether a row's text is drawn otherwise with highlights ``after`` than ``before``."""
    return before != after and _as_drawn(before) != _as_drawn(after)


def _as_drawn(spans: tuple) -> tuple:
    """A row's highlights as they are drawn: for each stretch of the row, the names of the
    highlights over it in the order they are applied (each styles the text over the ones
    before). Tree-sitter gives a row's highlights in an order that changes from one parse to
    the next, which changes nothing drawn where they do not overlap."""
    if len(spans) < 2:
        return tuple(spans)
    names: dict[tuple, list[str]] = {}  # each stretch highlighted, its names in order
    for start, end, name in spans:
        names.setdefault((start, end), []).append(name)
    stretches = sorted(names, key=lambda s: (s[0], _END if s[1] is None else s[1]))
    if all(a[1] is not None and a[1] <= b[0] for a, b in pairwise(stretches)):
        return tuple((stretch, tuple(names[stretch])) for stretch in stretches)
    # Stretches that overlap (a string's, a call's within it): cut where any begins or ends.
    cuts = sorted({point for start, end, _ in spans for point in (start, end)
                   if point is not None})
    return tuple(((a, b), over) for a, b in [*pairwise(cuts), (cuts[-1], None)]
                 if (over := tuple(name for start, end, name in spans
                                   if start <= a and (end is None or (b is not None
                                                                      and end >= b)))))


_END = 1 << 62  # a highlight to the end of its line: after every column


class RowsOnly:
    """The full repaints of one TextArea, held while :meth:`editing` (its ``refresh`` asks
    :meth:`holds` first)."""

    def __init__(self) -> None:
        self._held: bool | None = None  # within an edit: whether a full repaint was asked

    def holds(self, regions: tuple, kwargs: dict[str, Any]) -> bool:
        """Whether a ``refresh(*regions, **kwargs)`` asked now is a full repaint held for the
        edit under way (True: the caller does not repaint)."""
        if self._held is None or regions or kwargs.get("layout") or kwargs.get("recompose") \
                or not kwargs.get("repaint", True):
            return False
        self._held = True
        return True

    @contextmanager
    def editing(self, area: TextArea, first: int, removed: int, added: int,
                repaint: Callable[[], object]) -> Iterator[None]:
        """Around an edit of ``area`` that replaces ``removed`` newlines from document row
        ``first`` on with ``added``; a full repaint asked within it becomes a repaint of
        the rows that changed, or ``repaint()`` (the whole pane) where other rows changed
        too."""
        before = _shown(area)
        self._held = False
        try:
            yield
        finally:
            held, self._held = self._held, None
        if not held:
            return
        rows = _changed_rows(before, _shown(area), first, removed, added)
        if rows is None:
            repaint()
            return
        for start, count in rows:
            area.refresh_lines(start, count)


def _changed_rows(before: _Shown | None, after: _Shown | None, first: int, removed: int,
                  added: int) -> list[tuple[int, int]] | None:
    """The runs of rows to repaint, each (first row, row count) in the document's rows, or
    None for the whole pane."""
    if before is None or after is None:
        return None
    same = (before.gutter, before.virtual[0], before.scroll, before.size, before.selection,
            before.bracket, before.top, before.rows) == \
        (after.gutter, after.virtual[0], after.scroll, after.size, after.selection,
         after.bracket, after.top, after.rows)
    # (the scrollable height follows the line count: the rows below the edit are drawn again)
    if not same or (added == removed and before.virtual != after.virtual):
        return None
    top, end = after.top, after.top + after.rows
    # Rows the text moved (another count of lines from the edit down) are drawn again, and
    # any other row whose highlighting changed (a string opened above it, a bracket closed).
    last = first + added + 1 if added == removed else end
    rows = [row for row in range(top, end) if first <= row < last
            or _drawn_otherwise(before.highlights[row - top], after.highlights[row - top])]
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][0] + runs[-1][1] == row:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((row, 1))
    return runs
