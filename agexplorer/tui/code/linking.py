"""Cross-pane highlighting: a cursor the user moves shows the same source line everywhere.

The source's cursor line, the converted lines it produced, its verdict row and its first op
are highlighted, each scrolled into view. Moves made by the linking itself land in
unfocused panes and go no further.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.timer import Timer

if TYPE_CHECKING:
    from agexplorer.tui.state import ExplorerState
    from agexplorer.tui.workspace import Workspace

LINK_PAUSE = 0.15  # cursor moves are debounced before cross-highlighting


class Linking:
    """The app passes on the panes' cursor events. It reads the report shown (``state``),
    moves the panes (``panes``: None until they are mounted, after the first frame, and
    again as the app ends) and waits out a burst of cursor moves with ``set_timer``."""

    def __init__(self, state: ExplorerState, panes: Callable[[], Workspace | None],
                 set_timer: Callable[[float, Callable[[], None]], Timer]) -> None:
        self.state, self.panes, self.set_timer = state, panes, set_timer
        self._timer: Timer | None = None

    def selection_changed(self, text_area: Any) -> None:
        """A code pane's cursor moved; only the user's moves (its pane has the focus) link."""
        if not text_area.has_focus:
            return
        if text_area.id == "source":
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.set_timer(LINK_PAUSE, self.from_source)
        elif text_area.id == "converted":
            self._from_converted()

    def from_source(self) -> None:
        """Link the source's cursor line."""
        panes = self.panes()
        if panes is not None:
            self.buffer_line(panes.source.cursor_location[0] + 1, "source")

    def buffer_line(self, line: int, origin: str) -> None:
        """Link ``line`` of the buffer as it is now (the source's cursor, a verdict row): the
        report's line it was, when lines were added or removed since the report."""
        was = self.state.moves.was(line)
        if was is not None:  # (else a line added since the report: nothing to link yet)
            self.line(was, origin)

    def _from_converted(self) -> None:
        # (the code on screen may have come ahead of the next report: its own map, from the
        # buffer it was made from)
        conversion, panes = self.state.conversion, self.panes()
        if panes is None or conversion is None:
            return
        lines = conversion.source_lines_for(panes.converted.cursor_location[0] + 1)
        now = self.state.conversion_moves.now(lines[0]) if lines else None
        if now is None:
            return
        was = self.state.moves.was(now)  # the report's line
        if was is not None:
            self.line(was, "converted")
        else:  # a line added since the report, whose code came ahead of it: the source
            panes.source.goto_line(now)

    def line(self, line: int, origin: str) -> None:
        """Highlight source ``line``'s counterparts in every pane but ``origin``; ``line`` is
        a line of the report's buffer (where an edit since moved it, the source and the
        verdict rows show it at its line now)."""
        report, panes = self.state.report, self.panes()
        if report is None or panes is None:
            return
        now = self.state.moves.now(line)
        if origin != "source" and now is not None:
            panes.source.goto_line(now)  # its cursor line shows, focused or not
        conversion = self.state.conversion
        if origin != "converted" and conversion is not None and now is not None:
            made = self.state.conversion_moves.was(now)  # its line in the code's own buffer
            if made is not None:
                panes.converted.show_lines(conversion.converted_lines_for(made))
        if origin != "verdicts" and now is not None:
            panes.verdicts.select_line(now)
        if origin != "ops":
            panes.ops.select_line(line)

    def sync_gutters(self) -> None:
        """The gutters follow their code panes' scrolling."""
        panes = self.panes()
        if panes is not None:
            panes.verdict_gutter.sync()
            panes.refs.sync()
