"""SourcePane: the user's file, editable, highlighted, with line numbers; remembers what is saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from agexplorer.source.files import SourceFile, write_source
from agexplorer.tui import textual_patches

textual_patches.install()

if TYPE_CHECKING:
    from typing_extensions import Self


class SourcePane(TextArea):
    """The editor. ``dirty`` is True while the buffer differs from the file on disk (or the
    file is gone from the disk)."""

    def focus(self, scroll_visible: bool = True) -> Self:
        from agexplorer.tui.layout import reveal_code  # shown first: at 80x24 one pane shows

        if reveal_code(self):  # it was hidden: focus it once the styles show it
            self.call_after_refresh(super().focus, scroll_visible)
            return self
        return super().focus(scroll_visible)

    # Tab indents here, so Escape is the way out to the next pane (TextArea handles the key
    # itself; the binding puts it in the footer while the editor has the focus).
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "Leave editor")]

    def __init__(self, **kwargs) -> None:
        super().__init__("", language="python", show_line_numbers=True, tab_behavior="indent",
                         soft_wrap=False, **kwargs)
        self.path: str | None = None
        self.saved_text = ""
        self.source_file: SourceFile | None = None  # as read: the encoding, BOM, newlines
        self.missing = False  # the file was deleted on disk while open
        # Called right before every change of the text (typing, paste, replace, undo, redo,
        # load). TextArea.Changed says the same, but reaches the app ~20 ms later, after
        # bubbling through each container.
        self.on_edit: Callable[[], None] | None = None

    def _changing(self) -> None:
        if self.on_edit is not None:
            self.on_edit()

    def edit(self, edit: Edit) -> EditResult:
        """Typing, paste and replace pass here; ``on_edit`` hears of it first, so a pause
        counts from the keystroke, not from the end of the re-highlighting (~3 ms)."""
        self._changing()
        return super().edit(edit)

    # Undo and redo replay the history without passing through ``edit``.
    def undo(self) -> None:
        """Undo the last batch of edits (an edit like any other: the app re-analyses)."""
        self._changing()
        super().undo()

    def redo(self) -> None:
        """Redo the last undone batch of edits (re-analysed like any edit)."""
        self._changing()
        super().redo()

    def load_text(self, text: str) -> None:
        """Replace the whole text (and the history)."""
        self._changing()
        super().load_text(text)

    def action_leave(self) -> None:
        """Focus the next pane."""
        self.screen.focus_next()

    def open(self, path: str, text: str, source_file: SourceFile | None = None) -> None:
        """Show ``text`` as the saved content of ``path`` (``source_file``: as read from disk)."""
        self.path = path
        self.saved_text = text
        self.source_file = source_file
        self.missing = False
        self.load_text(text)

    @property
    def dirty(self) -> bool:
        """Unsaved edits (or a buffer whose file was deleted)?"""
        return self.missing or self.text != self.saved_text

    def save(self) -> str | None:
        """Write the buffer to its file atomically, in the encoding, BOM and newlines it was
        read with; returns the real path written. Raises AgxError (the buffer is kept)."""
        if self.path is None:
            return None
        text = self.text
        written = write_source(self.path, text, like=self.source_file)
        self.saved_text, self.missing = text, False
        return written

    def replace_changed_lines(self, new_text: str) -> None:
        """Make the buffer ``new_text`` with one edit of the lines that differ (one undo step;
        the cursor, the scroll and every other line stay as they are)."""
        old = self.text
        if old == new_text:
            return
        # The common prefix and suffix in whole lines (cut at a newline), never overlapping.
        head = 0
        while head < min(len(old), len(new_text)) and old[head] == new_text[head]:
            head += 1
        head = old.rfind("\n", 0, head) + 1
        tail = 0
        limit = min(len(old), len(new_text)) - head
        while tail < limit and old[-1 - tail] == new_text[-1 - tail]:
            tail += 1
        cut = old.find("\n", len(old) - tail)  # keep whole lines of the suffix
        tail = len(old) - (cut + 1) if cut != -1 and tail else 0
        doc: Any = self.document  # a Document: it maps an index to a location
        self.replace(new_text[head:len(new_text) - tail],
                     doc.get_location_from_index(head),
                     doc.get_location_from_index(len(old) - tail))

    def goto_line(self, line: int) -> None:
        """Put the cursor on a 1-based line and scroll it into view."""
        self.move_cursor((max(line - 1, 0), 0), center=True)
