"""Find in a pane (ctrl+f): a one-line find bar, and n/N (or F3/shift+F3) through the matches."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.strip import Strip
from textual.widgets import Input, RichLog, Static, TextArea
from textual.widgets.text_area import Selection

# The match shown in the Log (a RichLog has no selection: its line is redrawn with this).
MATCH_STYLE = Style(reverse=True, bold=True)


class FindInput(Input):
    """The query; Enter goes to the next match and back to the pane, Esc closes the bar."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close find"),
        Binding("enter", "submit", "Go to the match"),
    ]

    def __init__(self, finder: Finder, **kwargs: Any) -> None:
        super().__init__(placeholder="find (Enter: to the match; then n/N, or F3/shift+F3)",
                         **kwargs)
        self.finder = finder

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()  # the app's Changed handler is for the op filter
        self.finder.search(event.value)

    async def action_submit(self) -> None:
        self.finder.accept()

    def action_close(self) -> None:
        self.finder.close()


class FindBar(Horizontal):
    """"find in source: [query] 2 of 5": mounted above the status line while finding."""

    def __init__(self, finder: Finder, where: str) -> None:
        super().__init__(id="find-bar")
        self.label = Static(f"find in {where}:", id="find-where")
        self.query_input = FindInput(finder, id="find-input")
        self.count = Static("", id="find-count")

    def compose(self) -> ComposeResult:
        yield self.label
        yield self.query_input
        yield self.count


class Finder:
    """Owned by the app: the pane searched, its matches (row, column) and the current one."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.pane: TextArea | RichLog | None = None
        self.bar: FindBar | None = None
        self.query = ""
        self.matches: list[tuple[int, int]] = []
        self.current = -1
        self._marked: tuple[int, Strip, Strip] | None = None  # Log row, its line, as marked

    @property
    def is_open(self) -> bool:
        return self.bar is not None and self.bar.display

    def searchable(self) -> dict[Any, str]:
        """The panes a find can search, with their names."""
        panes = self.app.panes
        return {panes.source: "source", panes.converted: "AutoGraph code",
                panes.log_view: "the Log"}

    def open(self, focused: Any) -> None:
        """Find in the focused pane (the one searched last, else the source, when the focus
        is elsewhere). The bar is made once, then shown and hidden."""
        panes = self.searchable()
        if self.is_open and self.bar is not None and focused is self.bar.query_input:
            return
        pane = focused if focused in panes else self.pane if self.pane in panes else None
        if (pane or self.app.panes.source) is not self.pane:
            self._unmark()
        self.pane = pane or self.app.panes.source
        if self.bar is None:
            self.bar = FindBar(self, panes[self.pane])
            self.app.mount(self.bar, before=self.app.status_line)
        self.bar.label.update(f"find in {panes[self.pane]}:")
        self.bar.display = True
        self.app.call_after_refresh(self.bar.query_input.focus)
        if self.query:
            self.search(self.query)

    def close(self, refocus: bool = True) -> None:
        """Esc: the bar hides, the focus goes back to the pane searched."""
        if self.bar is not None:
            self.bar.display = False
        self._unmark()
        if refocus and self.pane is not None:
            self.pane.focus()

    def _lines(self) -> list[str]:
        pane = self.pane
        if isinstance(pane, TextArea):
            return pane.text.split("\n")
        if isinstance(pane, RichLog):
            return [strip.text for strip in pane.lines]
        return []

    def _scan(self) -> None:
        needle = self.query.lower()
        self.matches = []
        if needle:
            for row, line in enumerate(self._lines()):
                line = line.lower()
                start = line.find(needle)
                while start != -1:
                    self.matches.append((row, start))
                    start = line.find(needle, start + 1)

    def search(self, query: str) -> None:
        """Every match of ``query`` (case-insensitive); shows the first from the cursor."""
        self.query = query
        self._scan()
        self.current = -1
        self._unmark()
        if self.matches:
            here = self._cursor()
            self.current = next((i for i, m in enumerate(self.matches) if m >= here), 0)
            self._show()
        self._count()

    def _cursor(self) -> tuple[int, int]:
        pane = self.pane
        if isinstance(pane, TextArea):
            return pane.selection.start
        return (int(pane.scroll_y), 0) if pane is not None else (0, 0)

    def can_step(self, focused: Any) -> bool:
        """n/N go through the matches while the bar is open and the pane searched (not the
        editor: there n is a letter) has the focus."""
        return (self.is_open and bool(self.query) and focused is self.pane
                and not (isinstance(focused, TextArea) and not focused.read_only))

    def accept(self) -> None:
        """Enter: the focus goes to the pane, on the match shown (n/N from there)."""
        if self.pane is not None:
            self.pane.focus()

    def step(self, step: int) -> None:
        """The next (1) or previous (-1) match, wrapping around (the pane is scanned again:
        its text may have changed since)."""
        if self.pane is None or not self.query:
            return
        self._unmark()  # before the scan: the marked line is the Log's own line again
        self._scan()
        if self.matches:
            if isinstance(self.pane, TextArea):  # from the cursor, wherever the user moved it
                here = self.pane.selection.start
                after = [i for i, m in enumerate(self.matches) if (m > here if step > 0
                                                                   else m < here)]
                self.current = (after[0] if step > 0 else after[-1]) if after else (
                    0 if step > 0 else len(self.matches) - 1)
            else:
                self.current = (self.current + step) % len(self.matches)
            self._show()
        self._count()

    def _show(self) -> None:
        row, column = self.matches[self.current]
        pane = self.pane
        if isinstance(pane, TextArea):
            pane.selection = Selection((row, column), (row, column + len(self.query)))
            pane.scroll_cursor_visible(center=True)
        elif isinstance(pane, RichLog):
            pane.scroll_to(y=max(row - pane.size.height // 2, 0), animate=False)
            self._mark(pane, row, column)

    def _mark(self, log: RichLog, row: int, column: int) -> None:
        """Redraw the Log's line ``row`` with the match (from ``column``) in MATCH_STYLE."""
        self._unmark()
        line = log.lines[row]
        start = line.index_to_cell_position(column)
        end = line.index_to_cell_position(column + len(self.query))
        before, match, after = line.divide([start, end, line.cell_length])
        match = Strip(Segment.apply_style(list(match), post_style=MATCH_STYLE),
                      match.cell_length)
        marked = Strip.join([before, match, after])
        log.lines[row] = marked
        self._marked = (row, line, marked)
        log.notify_style_update()  # drops the RichLog's cache of drawn lines
        log.refresh()

    def _unmark(self) -> None:
        """The marked Log line back as it was (unless the Log was cleared since)."""
        if self._marked is None or not isinstance(self.pane, RichLog):
            self._marked = None
            return
        row, line, marked = self._marked
        self._marked = None
        lines = self.pane.lines
        if row < len(lines) and lines[row] is marked:
            lines[row] = line
            self.pane.notify_style_update()
            self.pane.refresh()

    def _count(self) -> None:
        if self.bar is None:
            return
        if not self.query:
            text = ""
        elif not self.matches:
            text = "no match"
        else:
            row = self.matches[self.current][0] + 1
            text = f"{self.current + 1} of {len(self.matches)} (line {row})"
        self.bar.count.update(text)
