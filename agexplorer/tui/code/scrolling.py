"""The code panes' scrolling: back to the start of the lines once the cursor fits; a new
length of text without a layout of the whole screen."""

from __future__ import annotations

from textual.geometry import Offset, Size
from textual.widget import Widget
from textual.widgets import TextArea

from agexplorer.tui import textual_patches

textual_patches.PRIVATE += (
    ("textual.widgets._text_area", "TextArea._refresh_size"),
    ("textual.widget", "Widget._scroll_update"),
    ("textual.widget", "Widget._refresh_scrollbars"),
)


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


def refresh_size(area: TextArea) -> bool:
    """``TextArea._refresh_size`` without a layout of the screen (False: not done, Textual's
    own is to run).

    Textual gives a widget a new virtual (scrollable) size through a reactive that lays the
    whole screen out again, so that the widget's size may follow its content; a TextArea's
    size never does (Textual's ScrollView keeps its own virtual size out of the layout), and
    all the layout did for it was update its scroll bars. So the explorer's answers, which
    load a converted text of another length, laid out every widget (1-2 ms, and a larger
    render after it), as did each new line typed in the source. Here the scroll bars are
    updated directly; one that appears or goes still lays the screen out (its own reactive
    asks for it), as it must."""
    if not (textual_patches.probe("textual.widget", "Widget._scroll_update")
            and textual_patches.probe("textual.widget", "Widget._refresh_scrollbars")):
        return False
    if area.soft_wrap:
        size = Size(0, area.wrapped_document.height)
    else:  # +1 width: room for the cursor at the end of the longest line
        width, height = area.document.get_size(area.indent_width)
        size = Size(width + area.gutter_width + 1, height)
    if size == area.virtual_size:
        area._refresh_scrollbars()  # as Textual's own does
        return True
    area.set_reactive(Widget.virtual_size, size)
    area.refresh()
    area._scroll_update(size)  # the bars shown and their thumbs, the scroll kept in range
    return True
