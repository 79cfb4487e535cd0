"""VerdictGutter and LineRefGutter: the narrow columns beside the code panes.

Both draw line by line (Textual's line API: ``render_line(y)`` returns one strip) from
pre-parsed styles. They were ``Static`` widgets holding a multi-line ``Text``, which
Textual re-laid out on every change: ~10 ms a frame, the largest cost of a repaint after
each analysis.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from agexplorer.render.badges import VERDICT_STYLE, compact_badge, verdict_badge
from agexplorer.tui.code.changed_rows import changed_runs


@lru_cache(maxsize=256)
def _style(text: str) -> Style:
    return Style.parse(text) if text else Style()


def pane_view(pane: Widget, first_line: int = 1) -> tuple[int, int]:
    """(first line shown, rows) of a code pane whose top line is ``first_line``."""
    return first_line + int(pane.scroll_y), pane.scrollable_content_region.height


def _fit_width(gutter: Widget, width: int) -> None:
    """Set a gutter's width (its padding included) only when it changes: a new width lays
    out the code row again, an unchanged one costs nothing."""
    current = gutter.styles.width
    if current is None or current.value != width:
        gutter.styles.width = width


class _Gutter(Widget):
    """A column of short per-line texts, scrolled with its pane (``follow``); ``view``
    gives (first line, rows) of the pane it stands beside (``sync``)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shades: dict[int, str] = {}
        self.first_line, self.rows = 1, 0
        self.view: Callable[[], tuple[int, int]] | None = None
        self._base: Style | None = None
        self._strips: dict[tuple, Strip] = {}  # most lines look as they did in the last paint
        self._shown: list[tuple] = []  # each row's cells as they stand

    def follow(self, first_line: int, rows: int) -> None:
        """Show ``rows`` lines starting at ``first_line`` (the pane's view)."""
        if (first_line, rows) != (self.first_line, self.rows):
            self.first_line, self.rows = first_line, rows
            self.redraw()

    def redraw(self) -> None:
        """Draw again the rows whose cells changed (an answer that moved nothing: none;
        Textual keeps the others' lines)."""
        shown = self._rows_shown()
        before, self._shown = self._shown, shown
        if len(before) != len(shown):
            self.refresh()
            return
        width = self.size.width + self.styles.padding.width
        for y, height in changed_runs(before, shown):
            self.refresh(Region(0, y, width, height))

    def sync(self) -> None:
        """Follow the pane's view as it is now."""
        if self.view is not None:
            self.follow(*self.view())

    def _rows_shown(self) -> list[tuple]:
        return [tuple(self.cells(self.first_line + y)) if y < self.rows else ()
                for y in range(self.size.height)]

    def on_resize(self) -> None:
        # The row it shares with its pane changed height, with no scroll and no terminal
        # resize (the Run tab's results grew, presentation mode): the pane's rows changed
        # too, and a gutter that kept the old count drew marks below the pane.
        self._shown = self._rows_shown()  # (Textual draws all of it again)
        self.call_after_refresh(self.sync)

    def cells(self, line: int) -> list[tuple[str, str]]:
        """(text, style) pieces for one line of the pane."""
        raise NotImplementedError

    def get_content_width(self, container, viewport) -> int:
        # A grid's ``auto`` column (the stacked, narrow layout) asks for this: the width
        # the column was fitted to, less the padding, not a measure of the empty render.
        width = self.styles.width
        return max(1, int(width.value) - self.styles.padding.width) if width else 1

    def line_text(self, row: int) -> str:
        """The text row ``row`` shows, as drawn (for tests)."""
        return "".join(segment.text for segment in self.render_line(row)).rstrip()

    def render_lines(self, crop):
        self._base = self.rich_style  # the background, from the ancestors: once per paint
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        base = self._base or self.rich_style
        width = self.size.width
        if y >= self.rows:
            return Strip.blank(width, base)
        cells = tuple(self.cells(self.first_line + y))
        key = (cells, width, base)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 2048:
                self._strips.clear()
            segments = [Segment(text, base + _style(style)) for text, style in cells if text]
            strip = self._strips[key] = Strip(segments).crop_extend(0, width, base)
        return strip


class VerdictGutter(_Gutter):
    """Marks (staged, unrolled xN, took true, unreached) kept level with the source's lines."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.badges: dict[int, tuple[str, str]] = {}
        self.short: dict[int, str] = {}  # the compact marks, drawn while ``compact``
        self.compact = False

    # As app.tcss sets it: the colour mark and a space. The column grows to the longest
    # badge of the function shown, so a function without control flow leaves its columns
    # to the code (at 80 columns a fixed 14 took a sixth of the screen).
    MIN_WIDTH = 3

    def set_verdicts(self, verdicts: list, colors: dict[int, str] | None = None) -> None:
        """Badges from a report's verdicts, and the colour of each mapped line.

        The column widens to its longest badge (a cut badge would show a wrong number:
        ``unrolled x200`` as ``unrolled x20``) and narrows back to its usual width.
        """
        self.badges = {v.line: (verdict_badge(v), VERDICT_STYLE[v.verdict]) for v in verdicts}
        self.short = {v.line: compact_badge(v) for v in verdicts}
        self.shades = colors or {}
        self._fit()

    def set_compact(self, compact: bool) -> None:
        """Draw the short marks (``x5``) instead of the badges (``unrolled x5``)."""
        if compact != self.compact:
            self.compact = compact
            self._fit()

    def _fit(self) -> None:
        shown = self.short.values() if self.compact else (b for b, _ in self.badges.values())
        widest = max((len(badge) for badge in shown), default=0)
        _fit_width(self, max(self.MIN_WIDTH, widest + 2))  # the colour mark and the padding
        self.redraw()

    def refresh_marks(self) -> None:
        """Redraw for the current view."""
        self.redraw()

    def cells(self, line: int) -> list[tuple[str, str]]:
        badge, style = self.badges.get(line, ("", ""))
        if self.compact and badge:
            badge = self.short.get(line, badge)
        color = self.shades.get(line)
        return [("▌" if color else " ", color or ""), (badge, style)]

    def mark_at(self, line: int) -> str:
        """The badge for ``line`` in full (empty when none), drawn short while ``compact``."""
        return self.badges.get(line, ("", ""))[0]


class LineRefGutter(_Gutter):
    """Beside the converted code: the source line each converted line came from, in its colour."""

    MIN_WIDTH = 6  # as app.tcss sets it: line numbers up to 9999

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.origin: dict[int, int] = {}

    def set_map(self, source_map: list[tuple[int, int]], colors: dict[int, str]) -> None:
        """``source_map`` pairs (converted line, source line); the first source line wins."""
        self.origin = {}
        for converted, source in source_map:
            self.origin.setdefault(converted, source)
        self.shades = colors
        widest = max((len(str(line)) for line in self.origin.values()), default=0)
        _fit_width(self, max(self.MIN_WIDTH, widest + 2))  # the mark and a space
        self.redraw()

    def cells(self, line: int) -> list[tuple[str, str]]:
        source = self.origin.get(line)
        if source is None:
            return []
        return [(f"▌{source:<4}", self.shades.get(source, ""))]
