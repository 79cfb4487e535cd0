"""VerdictGutter: beside the source, each if/for/while's verdict on its own line."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from agexplorer.render.badges import VERDICT_STYLE, verdict_badge


class VerdictGutter(Static):
    """Marks (staged, unrolled xN, took true, unreached) kept level with the source's lines."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.badges: dict[int, tuple[str, str]] = {}
        self.shades: dict[int, str] = {}
        self.first_line = 1
        self.rows = 0

    def set_verdicts(self, verdicts: list, colors: dict[int, str] | None = None) -> None:
        """Badges from a report's verdicts, and the colour of each mapped line."""
        self.badges = {v.line: (verdict_badge(v), VERDICT_STYLE[v.verdict]) for v in verdicts}
        self.shades = colors or {}
        self.refresh_marks()

    def follow(self, first_line: int, rows: int) -> None:
        """Show the marks for ``rows`` lines starting at ``first_line`` (the source's view)."""
        self.first_line, self.rows = first_line, rows
        self.refresh_marks()

    def refresh_marks(self) -> None:
        """Redraw for the current view."""
        text = Text(no_wrap=True, overflow="ellipsis")
        for row in range(self.rows):
            line = self.first_line + row
            badge, style = self.badges.get(line, ("", ""))
            color = self.shades.get(line)
            text.append("▌" if color else " ", style=color or "")
            text.append(badge, style=style)
            if row < self.rows - 1:
                text.append("\n")
        self.update(text)

    def mark_at(self, line: int) -> str:
        """The badge shown for ``line`` (empty when none) — for tests and the status line."""
        return self.badges.get(line, ("", ""))[0]


class LineRefGutter(Static):
    """Beside the converted code: the source line each converted line came from, in its colour."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.origin: dict[int, int] = {}
        self.shades: dict[int, str] = {}
        self.first_line, self.rows = 1, 0

    def set_map(self, source_map: list[tuple[int, int]], colors: dict[int, str]) -> None:
        """``source_map`` pairs (converted line, source line); the first source line wins."""
        self.origin = {}
        for converted, source in source_map:
            self.origin.setdefault(converted, source)
        self.shades = colors
        self.follow(self.first_line, self.rows)

    def follow(self, first_line: int, rows: int) -> None:
        """Show the references for ``rows`` converted lines from ``first_line``."""
        self.first_line, self.rows = first_line, rows
        text = Text(no_wrap=True)
        for row in range(rows):
            source = self.origin.get(first_line + row)
            if source is not None:
                text.append(f"▌{source:<4}", style=self.shades.get(source, ""))
            if row < rows - 1:
                text.append("\n")
        self.update(text)
