"""SourcePane: the user's file, editable, highlighted, with line numbers; remembers what is saved,
indents a new line, and stays read-only during a demo until asked to edit."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.geometry import Offset
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult, Selection

from agexplorer.source.files import SourceFile, write_source
from agexplorer.source.line_moves import Move, line_move
from agexplorer.tui import textual_patches
from agexplorer.tui.code.indent import leading, new_line_indent
from agexplorer.tui.code.near_highlights import NearHighlights
from agexplorer.tui.code.scrolling import keep_line_starts, refresh_size

textual_patches.install()

if TYPE_CHECKING:
    from typing_extensions import Self

# What became of an edit asked to be undone by name (the Doctor's last Apply): undone now,
# or why not: edits made since, undone already (ctrl+y redoes it), gone from the history.
UndoOutcome = Literal["undone", "edited-since", "undone-already", "gone"]
# The border's mark in a demo (the tour, presentation mode): locked, and after ctrl+e.
LOCKED_MARK = "read-only: ctrl+e to edit"
UNLOCKED_MARK = "editing: Tab moves on"


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
    # itself; the binding puts it in the footer while the editor has the focus). In a demo
    # the editor is locked: ctrl+e asks to edit (a letter would be typed in a word: "def"
    # would unlock at its e and type the f). Unlocked, ctrl+e is TextArea's End again.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Leave editor"),
        Binding("ctrl+e", "unlock", "Edit"),
        Binding("ctrl+e", "cursor_line_end", "Cursor line end", show=False)]

    _centred: Selection | None  # the cursor goto_line centred (see on_resize)

    def _refresh_size(self) -> None:
        if not refresh_size(self):  # a new length of text: no layout of the screen
            super()._refresh_size()

    def _build_highlight_map(self) -> None:
        if not self._near.build(self):  # a long file: the lines around the view only
            super()._build_highlight_map()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._near.follow(self)

    def on_resize(self) -> None:
        self._near.follow(self)
        # A line centred by goto_line stays centred as the layout changes around the pane
        # (a panel opened below it), until the cursor moves or the view is scrolled: where
        # it stood otherwise depended on whether the centring came before that layout.
        if self._centred is not None and self._centred == self.selection:
            self.scroll_cursor_visible(center=True)

    def on_mouse_scroll_down(self, _: events.MouseScrollDown) -> None:
        self._centred = None  # (Textual's own handler scrolls: each class's handler runs)

    def on_mouse_scroll_up(self, _: events.MouseScrollUp) -> None:
        self._centred = None

    def __init__(self, **kwargs) -> None:
        self._near = NearHighlights()  # (before TextArea's own __init__ highlights)
        self._centred = None
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
        # Called right after a change that added or removed lines, with where they went
        # (source/line_moves.py): the marks beside the code follow it until the next answer.
        self.on_moved: Callable[[Move], None] | None = None
        self._lines_before: list[str] = []
        # Where Esc leads before the next pane (the app's: back to the tour when it is
        # open); False when it led nowhere.
        self.leave_first: Callable[[], bool] | None = None
        self.demos: set[str] = set()  # "tour", "presentation": what keeps the editor locked
        self._hint = ""  # the layout's note under the border (at 80x24: "F2: AutoGraph's code")
        self._told = False  # a key typed in the locked editor said how to edit

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> Offset:
        """Show the cursor, and the start of the lines when the cursor fits beside them
        (see agexplorer.tui.code.scrolling)."""
        return keep_line_starts(self, super().scroll_cursor_visible(center, animate))

    def _changing(self) -> None:
        if self.on_moved is not None:  # (the document edits its own list: a copy)
            self._lines_before = list(self.document.lines)
        if self.on_edit is not None:
            self.on_edit()

    def _changed(self) -> None:
        if self.on_moved is not None:
            move = line_move(self._lines_before, self.document.lines)
            if move is not None:
                self.on_moved(move)
        self._lines_before = []

    def edit(self, edit: Edit) -> EditResult:
        """Typing, paste and replace pass here; ``on_edit`` hears of it first, so a pause
        counts from the keystroke, not from the end of the re-highlighting (~3 ms)."""
        self._changing()
        result = super().edit(edit)
        self._changed()
        return result

    # Undo and redo replay the history without passing through ``edit``.
    def undo(self) -> None:
        """Undo the last batch of edits (an edit like any other: the app re-analyses)."""
        self._changing()
        super().undo()
        self._changed()

    def redo(self) -> None:
        """Redo the last undone batch of edits (re-analysed like any edit)."""
        self._changing()
        super().redo()
        self._changed()

    def load_text(self, text: str) -> None:
        """Replace the whole text (and the history): another file, or the file as the disk
        has it now, whose answer comes next; no line of it is said to have moved."""
        self._changing()
        super().load_text(text)
        self._lines_before = []

    def action_leave(self) -> None:
        """Where ``leave_first`` leads (the lesson tour, when open), else the next pane."""
        if self.leave_first is None or not self.leave_first():
            self.screen.focus_next()

    async def _on_key(self, event: events.Key) -> None:
        # TextArea takes Escape itself while editable (to the next pane): with the tour open
        # it leads back to the tour instead, as from every other pane.
        if event.key == "escape" and not self.read_only:
            event.stop()
            event.prevent_default()
            self.action_leave()
            return
        if self._locked_key(event):
            return
        if event.key == "enter" and not self.read_only:
            self._new_line(event)
        elif not event.is_printable:
            await self._own_binding(event)
        # Otherwise TextArea's own _on_key runs next: Textual calls each class's handler
        # along the MRO until one prevents the default (calling it here ran it twice).

    async def _own_binding(self, event: events.Key) -> None:
        """The editor's own binding for the key (End, an arrow, Backspace, ctrl+z), run here,
        in order with the characters typed around it. Textual runs a focused widget's
        bindings once the key has bubbled back up to the app, after the widget has typed the
        characters behind it: a burst of keys (typeahead on a loaded machine, keys through
        a browser) put "  # hi" before End's move and deleted the wrong character."""
        active = self.screen.active_bindings.get(event.key)
        if active is None or active.node is not self or active.binding.priority \
                or not active.enabled:
            return  # another's (the app's, the screen's): Textual runs it as it does
        if await self.app.run_action(active.binding.action, self):
            event.stop()
            event.prevent_default()
        # Refused here (ctrl+z in a locked editor): the key goes on to the next binding up.

    def _new_line(self, event: events.Key) -> None:
        """Enter starts the new line at the line's indentation, one step deeper after a
        line whose code ends with ":" (TextArea inserts a bare line break)."""
        event.stop()
        event.prevent_default()  # TextArea's own handler is skipped
        self._restart_blink()
        start, end = sorted(self.selection)
        lines = self.document.lines
        indent = new_line_indent(lines, *start)
        # The text carried to the new line starts at its indentation, not at the spaces
        # that followed the cursor.
        row, column = end
        rest = lines[row][column:] if row < len(lines) else ""
        result = self._replace_via_keyboard("\n" + indent, start,
                                            (row, column + len(leading(rest))))
        if result is not None:
            self.move_cursor(result.end_location)

    # -- a demo: read-only until ctrl+e, Tab moves the focus ----------------------------
    def set_demo(self, demo: str, on: bool) -> None:
        """The tour or presentation mode (``demo``) starts (``on``) or ends. While one is on,
        the editor is locked (read-only until ctrl+e) and Tab moves the focus (a teacher's
        Tab indented ``def matmul_static`` into a syntax error); when the last ends, editing
        is back."""
        was = bool(self.demos)
        (self.demos.add if on else self.demos.discard)(demo)
        if bool(self.demos) != was:
            self.read_only = bool(self.demos)
            self.tab_behavior = "focus" if self.demos else "indent"
            self._show_mark()

    @property
    def locked(self) -> bool:
        """Read-only for a demo, until ctrl+e."""
        return self.read_only and bool(self.demos)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        # Locked, a printable key is the editor's (it is refused there): typing in it runs
        # none of the explorer's letter keys (q quits, a applies a fix, space steps).
        if self.locked:
            return character is not None and character.isprintable()
        return super().check_consume_key(key, character)

    def _locked_key(self, event: events.Key) -> bool:
        """A printable key in the locked editor: nothing typed, and the first one says how
        to edit (the border says it too)."""
        if not (self.locked and event.is_printable):
            return False
        event.stop()
        event.prevent_default()
        if not self._told:
            self._told = True
            self.notify("The source is read-only in the tour and in presentation mode: "
                        "ctrl+e edits it.", timeout=4)
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "unlock":
            return self.locked
        return super().check_action(action, parameters)

    def action_unlock(self) -> None:
        """ctrl+e in a demo: edit the source (Tab still moves the focus until it ends)."""
        self.read_only = False
        self._show_mark()

    def _watch_read_only(self, read_only: bool) -> None:
        super()._watch_read_only(read_only)
        self._told = False  # locked again: the first key typed says how to edit
        self.refresh_bindings()  # ctrl+e comes and goes from the footer

    @property
    def hint(self) -> str:
        """The layout's note in the border, after the demo's mark."""
        return self._hint

    @hint.setter
    def hint(self, text: str) -> None:
        self._hint = text
        self._show_mark()

    def _show_mark(self) -> None:
        mark = "" if not self.demos else LOCKED_MARK if self.read_only else UNLOCKED_MARK
        self.border_subtitle = " · ".join(part for part in (mark, self._hint) if part)

    # Read-only, ctrl+z is the app's (it undoes the Doctor's last Apply): TextArea's own undo
    # would change the text of a locked editor.
    def action_undo(self) -> None:
        if self.read_only:
            raise SkipAction
        super().action_undo()

    def action_redo(self) -> None:
        if self.read_only:
            raise SkipAction
        super().action_redo()

    def open(self, path: str, text: str, source_file: SourceFile | None = None) -> None:
        """Show ``text`` as the saved content of ``path`` (``source_file``: as read from disk)."""
        self.path = path
        self.saved_text = text
        self.source_file = source_file
        self.missing = False
        self.load_text(text)
        if self.demos and not self.read_only:  # in a demo, each file opens read-only again
            self.read_only = True
            self._show_mark()

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
        self.history.checkpoint()  # its own batch: ctrl+z undoes this edit alone
        self.replace(new_text[head:len(new_text) - tail],
                     doc.get_location_from_index(head),
                     doc.get_location_from_index(len(old) - tail))

    def last_edit(self) -> object | None:
        """The newest batch of edits in the undo history (``undo_edit`` names it later)."""
        stack = self.history.undo_stack
        return stack[-1] if stack else None

    def undo_edit(self, batch: object) -> UndoOutcome:
        """Undo ``batch`` (from ``last_edit``) when it is still the newest edit; else say why
        not. Read-only or not: the user asked for it by name."""
        undo, redo = self.history.undo_stack, self.history.redo_stack
        if undo and undo[-1] is batch:
            self.undo()
            return "undone"
        if any(done is batch for done in undo):
            return "edited-since"
        if any(undone is batch for undone in redo):
            return "undone-already"
        return "gone"

    def goto_line(self, line: int) -> None:
        """Put the cursor on a 1-based line and scroll it into view."""
        self.move_cursor((max(line - 1, 0), 0), center=True)
        self._centred = self.selection
