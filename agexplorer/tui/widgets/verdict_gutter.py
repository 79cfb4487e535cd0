"""VerdictGutter: beside the source, each if/for/while's verdict on its own line."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from agexplorer.render.terminal import VERDICT_STYLE, verdict_badge


class VerdictGutter(Static):
    """Marks (staged, unrolled xN, took true, unreached) kept level with the source's lines."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.badges: dict[int, tuple[str, str]] = {}
        self.first_line = 1
        self.rows = 0

    def set_verdicts(self, verdicts: list) -> None:
        """Badges from a report's verdicts (an empty list clears them)."""
        self.badges = {v.line: (verdict_badge(v), VERDICT_STYLE[v.verdict]) for v in verdicts}
        self.refresh_marks()

    def follow(self, first_line: int, rows: int) -> None:
        """Show the marks for ``rows`` lines starting at ``first_line`` (the source's view)."""
        self.first_line, self.rows = first_line, rows
        self.refresh_marks()

    def refresh_marks(self) -> None:
        """Redraw for the current view."""
        text = Text(no_wrap=True, overflow="ellipsis")
        for row in range(self.rows):
            badge, style = self.badges.get(self.first_line + row, ("", ""))
            text.append(badge, style=style)
            if row < self.rows - 1:
                text.append("\n")
        self.update(text)

    def mark_at(self, line: int) -> str:
        """The badge shown for ``line`` (empty when none) — for tests and the status line."""
        return self.badges.get(line, ("", ""))[0]
