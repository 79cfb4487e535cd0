"""StatusLine: one line at the bottom ("loading TensorFlow…", "ready", the last error)."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class StatusLine(Widget):
    """One line of plain text (never markup: messages quote code such as ``x[0]``).

    Its height is fixed, so a new text only repaints this line; a ``Static``'s ``update``
    asked Textual to lay out the whole screen again, on every status change.
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

    def render(self) -> Text:
        return Text(self.text, no_wrap=not self.wrap, overflow="fold" if self.wrap
                    else "ellipsis")
