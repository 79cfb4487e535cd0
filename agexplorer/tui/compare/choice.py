"""CompareChoice: what to compare the current function with (the disk, before the fix, a function)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class CompareChoice(ModalScreen[str | None]):
    """A list of choices (id, label); Enter answers the chosen id, Esc answers None."""

    DEFAULT_CSS = """
    CompareChoice { align: center middle; }
    CompareChoice #compare-choice { width: 80%; max-width: 90; height: auto; max-height: 80%;
                                    border: round $accent; background: $surface; }
    CompareChoice #compare-choice-title { padding: 0 1; }
    CompareChoice OptionList { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="compare-choice"):
            yield Static(self.title_text, id="compare-choice-title", markup=False)
            yield OptionList(*(Option(Text(label), id=ident) for ident, label in self.choices))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
