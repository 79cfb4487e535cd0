"""StatusLine: one line at the bottom ("loading TensorFlow…", "ready", the last error); a
message longer than the line takes up to three."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widget import Widget

MAX_LINES = 3  # a long message (an error naming a file and what to do) wraps, up to this


class StatusLine(Widget):
    """One line of plain text (never markup: messages quote code such as ``x[0]``).

    Its height is fixed, so a new text only repaints this line; a ``Static``'s ``update``
    asked Textual to lay out the whole screen again, on every status change. A message
    wider than the line (at 80 columns, an error and its advice) sets the height to the rows
    it needs, up to ``MAX_LINES``: the screen is laid out again only when that count
    changes, and the message is never cut in the middle of its advice.
    """

    def __init__(self, text: str = "", wrap: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = text
        # A wrapping line (a summary, with ``height: auto`` in narrow layouts) asks for a new
        # layout when its text changes: once per analysis, not per status message.
        self.wrap = wrap

    def update(self, text: str) -> None:
        """Show ``text``."""
        if text != self.text:
            self.text = text
            self.refresh(layout=self.wrap)
            self._fit()

    def on_resize(self, _: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """The fixed line's height: the rows the text needs at this width, at most
        ``MAX_LINES`` (a wrapping line's height is the stylesheet's)."""
        width = self.content_region.width
        if self.wrap or not self.is_mounted or width <= 0:
            return
        rows = 1
        if cell_len(self.text) > width:
            rows = min(MAX_LINES, len(Text(self.text).wrap(self.app.console, width)))
        if self.styles.height is None or self.styles.height.value != rows:
            self.styles.height = rows

    def render(self) -> Text:
        return Text(self.text, no_wrap=not self.wrap and self.size.height <= 1,
                    overflow="fold" if self.wrap else "ellipsis")
