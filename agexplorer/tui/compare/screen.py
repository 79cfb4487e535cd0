"""CompareScreen: two variants side by side: paired verdicts, converted code, ops and timings."""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group
from rich.panel import Panel
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agexplorer.model.compare import CompareSide, Comparison
from agexplorer.model.text import plural, seconds_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from agexplorer.tui.messages import AnalysisKey, EngineAnswer
    from agexplorer.worker.protocol import CompareRequest


def changed_lines(left: str, right: str) -> tuple[set[int], set[int]]:
    """The 1-based lines of ``left`` and of ``right`` that are not common to both."""
    a, b = left.splitlines(), right.splitlines()
    only_left: set[int] = set()
    only_right: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            only_left.update(range(i1 + 1, i2 + 1))
            only_right.update(range(j1 + 1, j2 + 1))
    return only_left, only_right


def marked_code(code: str, changed: set[int], mark: str, style: str) -> Text:
    """The code with line numbers; the lines in ``changed`` marked ``mark`` in ``style``."""
    text = Text()
    for number, line in enumerate(code.splitlines(), 1):
        hit = number in changed
        text.append(f"{mark if hit else ' '}{number:>4} ", style=f"bold {style}" if hit else "dim")
        text.append(line + "\n", style=style if hit else "")
    text.rstrip()  # no blank line at the bottom of the pane
    return text


def side_line(name: str, side: CompareSide) -> Text:
    """``left (the file on disk)  s.py::f(5) [AGX_CALLS]  2 ops, traced in 39.50 ms``."""
    text = Text(f"{name}  ", style="bold")
    call = side.call if side.call is not None else "?"
    text.append(f"{os.path.basename(side.file)}::{side.function.split('.')[-1]}({call})")
    if side.call_origin:
        text.append(f" [{side.call_origin}]", style="dim")
    if side.op_count is not None:
        text.append(f"  {side.op_count} ops, traced in {seconds_text(side.trace_s)}")
    if side.error is not None:
        text.append(f"\n  {side.error.message}", style="red")
    return text


class CompareScreen(ModalScreen[None]):
    """Read-only, over the explorer (modal: its keys cannot change the buffer behind it):
    what AutoGraph did with each side, asked of the worker when the screen opens. Esc closes
    it and the explorer is as it was."""

    # The screen's own layout (no theme changes it): side by side when wide, stacked narrow.
    DEFAULT_CSS = """
    CompareScreen { background: $background; }
    CompareScreen #compare-header { height: auto; padding: 0 1; background: $panel; }
    CompareScreen #compare-body { height: 1fr; }
    CompareScreen #compare-verdicts { height: auto; }
    CompareScreen #compare-code { height: auto; layout: horizontal; }
    CompareScreen.-narrow #compare-code { layout: vertical; }
    CompareScreen .compare-side { width: 1fr; height: auto; border: round $primary-darken-2;
                                  border-title-color: $text; }
    CompareScreen #compare-figures { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back to the explorer")]
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 - Textual's own

    def __init__(self, request: CompareRequest, key: AnalysisKey, title: str,
                 names: tuple[str, str], ask: Callable[..., object]) -> None:
        super().__init__()
        self.ask = ask  # the worker's (EngineBridge.ask)
        self.request, self.key, self.title_text, self.names = request, key, title, names
        self.comparison: Comparison | None = None
        self.failure: str | None = None  # the one sentence when the comparison failed
        self.pending = True  # asked, not yet answered
        self.header = Static("", id="compare-header")
        self.verdicts = Static("", id="compare-verdicts")
        self.left = Static("", id="compare-left", classes="compare-side")
        self.right = Static("", id="compare-right", classes="compare-side")
        self.figures = Static("", id="compare-figures")

    def compose(self) -> ComposeResult:
        yield self.header
        with VerticalScroll(id="compare-body"):
            yield self.verdicts
            with Container(id="compare-code"):
                yield self.left
                yield self.right
            yield self.figures
        yield Footer()

    def on_mount(self) -> None:
        # Text: a str title is read as markup, and a name may be a file's ("we[ird].py::f").
        self.left.border_title, self.right.border_title = map(Text, self.names)
        self.left.display = self.right.display = False
        what = f"comparing {self.names[0]} with {self.names[1]}"
        self._head(Text(what + "… (each side is traced and run: a few seconds)",
                        style="italic"))
        self.query_one("#compare-body").focus()
        request, key = self.request, self.key
        self.ask(key, request, key.path, what, self.answer)

    def _head(self, status: Text | None = None) -> None:
        lines: list[Text] = [Text(self.title_text, style="bold")]
        if self.comparison is not None:
            lines += [side_line(f"{self.names[0]}:", self.comparison.left),
                      side_line(f"{self.names[1]}:", self.comparison.right)]
        if status is not None:
            lines.append(status)
        self.header.update(Text("\n").join(lines))

    def answer(self, message: EngineAnswer) -> None:
        """The worker's comparison, or the sentence saying why there is none."""
        if not self.pending or self not in self.app.screen_stack:
            return  # closed meanwhile
        self.pending = False
        if message.error is not None:
            self.failure = message.error.message
            self._head(Text(f"could not compare: {self.failure}", style="bold red"))
            return
        self.show(message.value)

    def show(self, comparison: Comparison) -> None:
        """Fill the screen from ``comparison``."""
        from agexplorer.render.compare import compare_renderables

        self.comparison = comparison
        self._head()
        _heads, statements, *rest = compare_renderables(comparison)
        self.verdicts.update(statements)
        # The code diff panel repeats what the side-by-side code marks: left out here.
        self.figures.update(Group(*(part for part in rest if not isinstance(part, Panel))))
        left, right = comparison.left, comparison.right
        only_left, only_right = changed_lines(left.code or "", right.code or "")
        self.left.update(self._code(left, only_left, "-", "red"))
        self.right.update(self._code(right, only_right, "+", "green"))
        self.left.display = self.right.display = True
        differing = sum(pair.differs for pair in comparison.statements)
        note = (f"{plural(differing, 'statement')} treated differently"
                if differing else "AutoGraph treats every statement the same way on both sides")
        self._head(Text(f"{note}; lines only on one side are marked - and +",
                        style="dim"))

    @staticmethod
    def _code(side: CompareSide, changed: set[int], mark: str, style: str) -> Text:
        if side.code is not None:
            return marked_code(side.code, changed, mark, style)
        why = side.error.message if side.error is not None else (
            f"AutoGraph did not convert {side.function}: it has no converted code.")
        return Text(why, style="yellow")

    def action_back(self) -> None:
        """Esc: the explorer, exactly as it was."""
        self.dismiss(None)
