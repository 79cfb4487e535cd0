"""Sideways scrolling of the code panes: back to the start of the lines once the cursor fits."""

from __future__ import annotations

from textual.geometry import Offset
from textual.widgets import TextArea


def keep_line_starts(area: TextArea, scrolled: Offset) -> Offset:
    """After ``TextArea.scroll_cursor_visible`` (which scrolled by ``scrolled``): when the
    cursor's column fits in the pane without scrolling sideways, scroll back to column 0.

    TextArea scrolls just enough to show the cursor, so after End on a long line, a move to
    a short line (or Home) left the view scrolled: the indentation and the start of every
    line hidden, the cursor at the left edge. A reader of code wants the line starts.
    Returns the scroll made (as ``scroll_cursor_visible`` does).
    """
    if area.scroll_x <= 0:
        return scrolled
    column = area.wrapped_document.location_to_offset(area.cursor_location).x
    visible = area.scrollable_content_region.width - area.gutter_width
    if column < visible - 1:  # the cursor's cell, and one beside it, fit from column 0
        before = area.scroll_x
        area.scroll_to(x=0, animate=False, immediate=True)
        return Offset(scrolled.x - int(before), scrolled.y)
    return scrolled
