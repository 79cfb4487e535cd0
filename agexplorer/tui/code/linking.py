"""Cross-pane highlighting: a cursor the user moves shows the same source line everywhere.

The source's cursor line, the converted lines it produced, its verdict row and its first op
are highlighted, each scrolled into view. Moves made by the linking itself land in
unfocused panes and go no further.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.timer import Timer

from agexplorer.tui.guards import while_mounted

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp

LINK_PAUSE = 0.15  # cursor moves are debounced before cross-highlighting


class Linking:
    """Owned by the app, which passes on the panes' cursor events."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self._timer: Timer | None = None

    def selection_changed(self, text_area: Any) -> None:
        """A code pane's cursor moved; only the user's moves (its pane has the focus) link."""
        if not text_area.has_focus:
            return
        if text_area.id == "source":
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.app.set_timer(LINK_PAUSE, self.from_source)
        elif text_area.id == "converted":
            self._from_converted()

    @while_mounted
    def from_source(self) -> None:
        """Link the source's cursor line."""
        self.line(self.app.source.cursor_location[0] + 1, "source")

    @while_mounted
    def _from_converted(self) -> None:
        report = self.app.report
        converted = self.app.panes.converted
        if report is None or report.conversion is None:
            return
        lines = report.conversion.source_lines_for(converted.cursor_location[0] + 1)
        if lines:
            self.line(lines[0], "converted")

    def line(self, line: int, origin: str) -> None:
        """Highlight source ``line``'s counterparts in every pane but ``origin``."""
        app = self.app
        report = app.report
        if report is None:
            return
        if origin != "source":
            app.source.goto_line(line)  # its cursor line shows, focused or not
        if origin != "converted" and report.conversion is not None:
            app.panes.converted.show_lines(report.conversion.converted_lines_for(line))
        if origin != "verdicts":
            app.panes.verdicts.select_line(line)
        if origin != "ops":
            app.panes.ops.select_line(line)

    def sync_gutters(self) -> None:
        """The gutters follow their code panes' scrolling."""
        app = self.app
        source = app.source
        rows = source.scrollable_content_region.height
        app.panes.verdict_gutter.follow(int(source.scroll_y) + 1, rows)
        converted = app.panes.converted
        app.panes.refs.follow(
            int(converted.scroll_y) + 1, converted.scrollable_content_region.height)
