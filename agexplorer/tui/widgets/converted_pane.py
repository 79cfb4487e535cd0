"""ConvertedPane: AutoGraph's code for the current function (read-only)."""

from __future__ import annotations

from textual.widgets import TextArea


class ConvertedPane(TextArea):
    """The converted code; ``show_lines`` selects the lines a source line produced."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", language="python", read_only=True, show_line_numbers=True,
                         soft_wrap=False, **kwargs)

    def show_lines(self, lines: list[int]) -> None:
        """Select converted lines ``min..max`` (1-based) and scroll them into view."""
        if not lines:
            return
        first, last = min(lines) - 1, max(lines) - 1
        last_len = len(self.document.get_line(last)) if last < self.document.line_count else 0
        self.selection = ((first, 0), (last, last_len))
        self.scroll_cursor_visible(center=True)
