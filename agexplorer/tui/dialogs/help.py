"""HelpScreen (F1 or ?): every binding of the focused context, grouped, and how to leave the editor."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

# How not to get stuck, first: keys as the bindings below show them, so that both columns
# hold text (these were sentences in the right column, beside an empty left one).
GETTING_AROUND: tuple[tuple[str, str], ...] = (
    ("esc", "Leave the editor (to the next pane) or an input"),
    ("tab / shift+tab", "Next / previous pane (in the editor, tab indents)"),
    ("1-9", "Show a tab, outside the editor and inputs"),
    ("alt+1-4", "Focus a pane, from anywhere (the editor too)"),
    ("f2", "Source / AutoGraph's code, from the editor too"),
    ("^p", "The palette: every action by its plain name"),
)
KEYS_WIDTH = 20  # the keys' column at most (a longer key widens only its own group)


def _title(node: Any, app: Any) -> str:
    if node is app:
        return "The explorer"
    if node is app.screen:
        return "This screen"
    name = type(node).__name__
    return f"The focused {name}" + (f" (#{node.id})" if node.id else "")


def context_bindings(app: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    """The live bindings of the focused widget's chain (the focused widget first), as
    (group title, [(keys, description)]); bindings turned off here are left out."""
    groups: dict[int, tuple[str, dict[str, list[str]]]] = {}
    for key, active in app.screen.active_bindings.items():
        binding, node = active.binding, active.node
        if binding.system or not active.enabled:
            continue
        _, actions = groups.setdefault(id(node), (_title(node, app), {}))
        described = binding.description or binding.action
        if binding.group is not None and binding.description:
            described = f"{binding.group.description}: {binding.description}"
        actions.setdefault(described, []).append(app.get_key_display(binding) or key)
    found = [(title, [(" / ".join(keys), described) for described, keys in actions.items()])
             for title, actions in groups.values()]
    # The explorer's own keys first: a focused editor's dozens of cursor keys came first and
    # pushed them below the fold at 80x24.
    return sorted(found, key=lambda group: group[0].startswith("The focused"))


class HelpScreen(ModalScreen[None]):
    """The keys of the context the help was opened from; Esc, F1 or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,question_mark,q", "dismiss", "Close help"),
    ]

    def __init__(self, groups: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__(id="help")
        self.groups = groups

    def text(self) -> Group:
        """The bindings, a titled table per group, their keys' columns one width."""
        groups = [("Getting around", list(GETTING_AROUND)), *self.groups]
        width = min(KEYS_WIDTH, max(len(keys) for _, rows in groups for keys, _ in rows))
        parts: list[Text | Table] = []
        for title, rows in groups:
            # The title on a line of its own: in the keys' column, a long one
            # ("The focused FunctionPicker (#picker)") widened it for every group.
            parts.append(Text(title, style="bold underline"))
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold", no_wrap=True, min_width=width)
            table.add_column()
            for keys, described in rows:
                table.add_row(Text(keys), Text(described))  # "[" is a key: not markup
            parts += [table, Text("")]
        return Group(*parts[:-1])

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "keys (Esc closes)"
            yield Static(self.text(), id="help-keys")
