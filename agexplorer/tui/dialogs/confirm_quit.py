"""ConfirmQuit: asked before quitting with unsaved edits."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label


class ConfirmQuit(ModalScreen[str]):
    """Save, discard or stay (Esc stays)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "stay", "Stay")]

    # Heights are "auto": a fixed height clipped the buttons to their borders (no labels).
    # The focused button is the one lit, in its colour; the others are quiet, their colour in
    # their text: Stay, focused first, is the most visible (Textual's grey default button was
    # the dialog's own background, its focus a small reversed label beside two coloured ones).
    # Greys, not $panel: in 256 colours (tmux) $panel became navy.
    DEFAULT_CSS = """
    ConfirmQuit { align: center middle; }
    ConfirmQuit > Vertical { width: 72; max-width: 100%; height: auto; padding: 1 2;
                             border: thick $warning; background: $surface; }
    ConfirmQuit Label { width: 100%; content-align: center middle; margin-bottom: 1; }
    ConfirmQuit Horizontal { width: 100%; height: auto; align-horizontal: center; }
    ConfirmQuit Button { width: auto; min-width: 8; margin: 0 1; }
    ConfirmQuit #save, ConfirmQuit #discard, ConfirmQuit #stay {
        background: $surface-lighten-2; text-style: none;
        border-top: tall $surface-lighten-3; border-bottom: tall $surface-darken-1;
    }
    ConfirmQuit #save { color: $text-primary; }
    ConfirmQuit #discard { color: $text-error; }
    ConfirmQuit #stay { color: $text-success; }
    ConfirmQuit #save:hover, ConfirmQuit #discard:hover, ConfirmQuit #stay:hover {
        background: $surface-lighten-3;
    }
    ConfirmQuit #save:focus, ConfirmQuit #discard:focus, ConfirmQuit #stay:focus {
        color: $text; text-style: bold;
    }
    ConfirmQuit #save:focus { background: $primary; border-top: tall $primary-lighten-3;
                              border-bottom: tall $primary-darken-3; }
    ConfirmQuit #discard:focus { background: $error; border-top: tall $error-lighten-2;
                                 border-bottom: tall $error-darken-3; }
    ConfirmQuit #stay:focus { background: $success-darken-1; border-top: tall $success-lighten-2;
                              border-bottom: tall $success-darken-3; }
    """

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"{self.path} has unsaved edits.", markup=False)  # a path: not markup
            with Horizontal():
                yield Button("Save and quit", id="save", variant="primary")
                yield Button("Quit without saving", id="discard", variant="error")
                yield Button("Stay", id="stay")

    def on_mount(self) -> None:
        self.query_one("#stay", Button).focus()  # Enter by reflex keeps the edits

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)

    def action_stay(self) -> None:
        """Esc: back to the editor, nothing lost."""
        self.dismiss("stay")
