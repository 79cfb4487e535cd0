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
        ("calls: the functions this trace reached, with their verdicts", "focus('calls-tree')"),
        ("doctor: try the selected finding's fix on a copy", "try_fix"),
        ("doctor: apply the tried fix to the buffer", "apply_fix"),
        ("save the file", "save"),
        ("function: next", "next_function"),
        ("function: previous", "previous_function"),
        ("palette: toggle colour-blind-safe line colours", "toggle_palette"),
        ("engine: double the timeout", "double_timeout"),
        ("quit", "quit_app"),
        ("program view: the recorded run's traced functions", "push_screen('program')"),
    ]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action in self.COMMANDS:
            if action.startswith("push_screen") and not (
                    self.app.is_screen_installed("program")
                    and self.screen is self.app.screen_stack[0]):
                continue  # for `agexplorer LOG`, from the explorer's own screen
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name),
                          # after the palette has gone: a focus lands on the explorer's screen
                          partial(self.app.call_after_refresh, self.app.run_action, action),
                          help=f"action {action}")
