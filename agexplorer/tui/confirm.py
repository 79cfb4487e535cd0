"""ConfirmQuit: asked before quitting with unsaved edits."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Grid
from textual.screen import ModalScreen
from textual.widgets import Button, Label


class ConfirmQuit(ModalScreen[str]):
    """Save, discard or stay."""

    DEFAULT_CSS = """
    ConfirmQuit { align: center middle; }
    ConfirmQuit > Grid { grid-size: 3; grid-gutter: 1 2; padding: 1 2; width: 64; height: 9;
                         border: thick $warning; background: $surface; }
    ConfirmQuit Label { column-span: 3; width: 100%; content-align: center middle; }
    """

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Grid():
            yield Label(f"{self.path} has unsaved edits.")
            yield Button("Save and quit", id="save", variant="primary")
            yield Button("Quit without saving", id="discard", variant="error")
            yield Button("Stay", id="stay")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)
