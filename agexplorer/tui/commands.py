"""Command palette entries for the explorer's actions."""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from textual.command import Hit, Hits, Provider


class ExplorerCommands(Provider):
    """run, trace, try a fix, save, next/previous function, palette, timeout, quit."""

    COMMANDS: ClassVar[list[tuple[str, str]]] = [
        ("run: eager, graph and XLA", "run"),
        ("trace: explain which calls retrace, and why", "trace"),
        ("doctor: try the selected finding's fix on a copy", "try_fix"),
        ("doctor: apply the tried fix to the buffer", "apply_fix"),
        ("save the file", "save"),
        ("function: next", "next_function"),
        ("function: previous", "previous_function"),
        ("palette: toggle colour-blind-safe line colours", "toggle_palette"),
        ("engine: double the timeout", "double_timeout"),
        ("quit", "quit_app"),
    ]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action in self.COMMANDS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name),
                          partial(self.app.run_action, action), help=f"action {action}")
