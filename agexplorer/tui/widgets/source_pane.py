"""SourcePane: the user's file, editable, highlighted, with line numbers; remembers what is saved."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from agexplorer.tui.widgets import query_cache

query_cache.install()


class SourcePane(TextArea):
    """The editor. ``dirty`` is True while the buffer differs from the file on disk."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", language="python", show_line_numbers=True, tab_behavior="indent",
                         soft_wrap=False, **kwargs)
        self.path: str | None = None
        self.saved_text = ""
        # Called right after every edit (typing, paste, undo). TextArea.Changed says the
        # same, but reaches the app ~20 ms later, after bubbling through each container.
        self.on_edit: Callable[[], None] | None = None

    def edit(self, edit: Edit) -> EditResult:
        """Every change of the text passes here; tell ``on_edit`` at once."""
        result = super().edit(edit)
        if self.on_edit is not None:
            self.on_edit()
        return result

    def open(self, path: str, text: str) -> None:
        """Show ``text`` as the saved content of ``path``."""
        self.path = path
        self.saved_text = text
        self.load_text(text)

    @property
    def dirty(self) -> bool:
        """Unsaved edits?"""
        return self.text != self.saved_text

    def save(self) -> None:
        """Write the buffer to its file."""
        if self.path is None:
            return
        with open(self.path, "w", encoding="utf-8") as fh:
            fh.write(self.text)
        self.saved_text = self.text

    def goto_line(self, line: int) -> None:
        """Put the cursor on a 1-based line and scroll it into view."""
        self.move_cursor((max(line - 1, 0), 0), center=True)
