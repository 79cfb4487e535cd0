"""ConvertedPane: AutoGraph's code for the current function (read-only)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from textual.geometry import Offset
from textual.markup import escape
from textual.widgets import TextArea
from textual.widgets.text_area import Document, Selection

from agexplorer.tui import textual_patches
from agexplorer.tui.code.changed_lines import RowsOnly
from agexplorer.tui.code.reused_lines import ReusedLines
from agexplorer.tui.code.scrolling import keep_line_starts, refresh_size

textual_patches.install()

if TYPE_CHECKING:
    from textual.geometry import Region
    from textual.strip import Strip
    from typing_extensions import Self

    from agexplorer.tui.state import CodeConverted, ReportChanged, TargetChanged


class ConvertedPane(TextArea):
    """The converted code; ``show_lines`` selects the lines a source line produced."""

    def focus(self, scroll_visible: bool = True) -> Self:
        from agexplorer.tui.layout import reveal_code  # shown first: at 80x24 one pane shows

        if reveal_code(self):  # it was hidden: focus it once the styles show it
            self.call_after_refresh(super().focus, scroll_visible)
            return self
        return super().focus(scroll_visible)

    def __init__(self, **kwargs) -> None:
        self._rows_only = RowsOnly()  # (before Textual's __init__, which refreshes)
        # The language is set with the first code: compiling its highlight query costs ~20 ms,
        # better spent after the first paint.
        super().__init__("", read_only=True, show_line_numbers=True, soft_wrap=False, **kwargs)
        self._reused = ReusedLines()
        self._another = False  # another function's code comes next: from its first line

    def refresh(self, *regions: Region, **kwargs) -> Self:
        if self._rows_only.holds(regions, kwargs):  # (an edit's: see show_code)
            return self
        return super().refresh(*regions, **kwargs)

    def _render_line(self, y: int) -> Strip:
        if not textual_patches.probe("textual.widgets._text_area", "TextArea._render_line"):
            return super()._render_line(y)
        return self._reused.render(self, y, super()._render_line)

    def render_lines(self, crop: Region) -> list[Strip]:
        with self._reused.frame(self):
            return super().render_lines(crop)

    def notify_style_update(self) -> None:
        self._reused.clear()  # (as Textual clears its own drawn lines)
        super().notify_style_update()

    def _refresh_size(self) -> None:
        if not refresh_size(self):  # a new length of text: no layout of the screen
            super()._refresh_size()

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> Offset:
        """Show the cursor, and the start of the lines when the cursor fits beside them
        (see agexplorer.tui.code.scrolling)."""
        return keep_line_starts(self, super().scroll_cursor_visible(center, animate))

    def on_report_changed(self, message: ReportChanged) -> None:
        report = message.report
        conversion, note = report.conversion, report.conversion_note
        # The function's own conversion, where tf.function converts a decorator's wrapper
        # that calls it (Conversion.wrapper_note says it in full, in the report).
        site = conversion.wrapped_by if conversion is not None and not note else None
        subtitle = f"called by {escape(site.text())}" if site is not None else ""
        if subtitle != self.border_subtitle:  # (set, it redraws the pane: ~1 ms)
            self.border_subtitle = subtitle
        if note:  # AutoGraph refused it: why, where its code would be
            self.show_code("".join(f"# {line}\n" for line in textwrap.wrap(note, 48)))
            return
        self.show_code(conversion.code if conversion else "")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()  # (no one listens: it bubbled through ~8 containers at each new code)

    def on_target_changed(self, _: TargetChanged) -> None:
        self._another = True

    def on_code_converted(self, message: CodeConverted) -> None:
        """AutoGraph's code, ahead of the report: drawn while the function is traced (the
        report's frame then redraws the verdicts alone)."""
        self.show_code(message.conversion.code)  # (its border's subtitle waits for the report)

    def show_code(self, code: str) -> None:
        """Show ``code``: an unchanged text keeps its document; a changed one is edited where
        it changed (tree-sitter parses the edit again, not the text, and the view keeps its
        place: a new document put the pane back at its first line after every edit);
        another function's code is a new document, shown from its first line."""
        if self.language is None:
            self.language = "python"
        old = self.text
        if code == old:
            return
        document, another, self._another = self.document, self._another, False
        if another or not old or not code or "\r" in code \
                or not isinstance(document, Document) or document.newline != "\n":
            self.load_text(code)
            return
        start = _common_start(old, code)
        end = _common_start(old[start:][::-1], code[start:][::-1])
        place = self.scroll_offset  # (an edit brings the cursor into view: not the reader's)
        inserted, removed = code[start:len(code) - end], old[start:len(old) - end]
        first = document.get_location_from_index(start)
        # Only the rows that changed are drawn again (changed_lines.py).
        with self._rows_only.editing(self, first[0], removed.count("\n"), inserted.count("\n"),
                                     super().refresh):
            self.replace(inserted, first, document.get_location_from_index(len(old) - end))
        self.history.clear()  # (read-only: nothing to undo)
        if self.scroll_offset != place:
            self.scroll_to(place.x, place.y, animate=False, immediate=True)

    def show_lines(self, lines: list[int]) -> None:
        """Select converted lines ``min..max`` (1-based) and scroll them into view."""
        if not lines:
            return
        first, last = min(lines) - 1, max(lines) - 1
        last_len = len(self.document.get_line(last)) if last < self.document.line_count else 0
        self.selection = Selection((first, 0), (last, last_len))
        self.scroll_cursor_visible(center=True)
        self.scroll_to(x=0, animate=False)  # keep the start of the lines, not their ends


def _common_start(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from their start (a binary search of slice
    comparisons: C's speed, not a Python loop over each character)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
