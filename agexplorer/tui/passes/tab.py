"""PassesTab: AutoGraph's conversion pass by pass, the selected step's code with its changes marked,
each line linked to the source line it came from (tui/passes/lines.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agexplorer.tui.asking import AsksWhenShown
from agexplorer.tui.messages import EngineAnswer
from agexplorer.tui.passes.lines import StepLines
from agexplorer.worker.protocol import PassesRequest, Request

if TYPE_CHECKING:
    from agexplorer.model.passes import Passes, PassStep
    from agexplorer.tui.desk import Desk


def step_label(number: int, step: PassStep) -> Text:
    """``3 return_statements``; dim when the converter changed nothing."""
    quiet = number > 0 and not step.changed
    return Text(f"{number:>2} {step.name}", style="dim" if quiet else "")


def marked_lines(step: PassStep) -> list[Text]:
    """The step's code with line numbers, a line each; the lines this pass added or changed
    marked ``+``."""
    changed = step.changed_lines()
    out = []
    for number, line in enumerate(step.code.splitlines(), 1):
        mark = number in changed
        text = Text(f"{'+' if mark else ' '}{number:>4} ", style="bold green" if mark else "dim")
        text.append(line, style="green" if mark else "")
        out.append(text)
    return out


def marked_code(step: PassStep) -> Text:
    """The step's code as one text (see :func:`marked_lines`)."""
    return Text("\n").join(marked_lines(step))


class PassesTab(AsksWhenShown, Horizontal):
    """The steps as a list; the selected one's note and code beside it. Asks the worker when
    shown and the buffer was analysed again since; ``[`` and ``]`` step back and forward; a
    line highlighted in the code moves the source pane to the line it came from."""

    # Here rather than in app.tcss: the tab's own layout, which no theme changes.
    DEFAULT_CSS = """
    PassesTab { height: 1fr; }
    PassesTab #passes-steps { width: 31; height: 1fr; }  /* " 8 conditional_expressions" on one line */
    PassesTab #passes-right { width: 1fr; height: 1fr; }
    PassesTab #passes-note { height: auto; max-height: 4; padding: 0 1; }
    PassesTab #passes-code { height: 1fr; }
    """
    BINDINGS: ClassVar = [Binding("left_square_bracket", "step(-1)", "Prev pass"),
                          Binding("right_square_bracket", "step(1)", "Next pass")]

    def __init__(self, desk: Desk, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.desk = desk
        self.passes: Passes | None = None
        self.steps = OptionList(id="passes-steps")
        self.note = Static("", id="passes-note", markup=False)  # its sentences quote errors
        self.code = OptionList(id="passes-code")
        self.step_lines: StepLines | None = None

    def compose(self) -> ComposeResult:
        yield self.steps
        with Vertical(id="passes-right"):
            yield self.note
            yield self.code

    def on_mount(self) -> None:
        self.note.update("AutoGraph's conversion, pass by pass: shown when this tab opens.")
        self.start_following()

    def request_for(self, asked: Any) -> tuple[Request, str]:
        return (PassesRequest(asked.target, source=asked.source),
                f"converting {asked.key.qualname} pass by pass")

    def waiting(self, text: str) -> None:
        self.note.update(text)

    def answer(self, message: EngineAnswer) -> None:
        """The steps, or the sentence saying why there are none."""
        if not self.is_current(message):
            return  # an older buffer's passes
        if message.error is not None:
            self.passes = None
            self.steps.clear_options()
            self.code.clear_options()
            self.note.update(Text(message.error.message, style="yellow"))
            return
        self.show(message.value)

    def show(self, passes: Passes) -> None:
        """List the steps and select the first one that changed something after the source."""
        kept = self.steps.highlighted
        self.passes = passes
        self.step_lines = None  # made when a line is first linked (the report may come later)
        self.steps.clear_options()
        self.steps.add_options([Option(step_label(n, s), id=str(n))
                                for n, s in enumerate(passes.steps)])
        self.steps.highlighted = kept if kept is not None and kept < len(passes.steps) else 0
        self._show_step(self.steps.highlighted or 0)

    @property
    def selected(self) -> int | None:
        """The number of the step shown (0: the parsed source)."""
        return self.steps.highlighted if self.passes is not None else None

    @property
    def shown_code(self) -> str:
        """The code shown, as plain text (its ``+`` marks and line numbers included)."""
        return "\n".join(str(self.code.get_option_at_index(i).prompt)
                         for i in range(self.code.option_count))

    def source_line(self, line: int) -> int | None:
        """The file's line that ``line`` (1-based) of the step shown came from."""
        report = self.desk.state.report
        if self.passes is None or self.selected is None or report is None:
            return None
        if self.step_lines is None:
            self.step_lines = StepLines([s.code for s in self.passes.steps], report.source,
                                        report.first_line)
        return self.step_lines.source_line(self.selected, line)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_list is self.steps:
            self._show_step(event.option_index)
        elif self.code.has_focus:  # the user's move, not a step shown anew
            line = self.source_line(event.option_index + 1)
            if line is not None:
                self.desk.linking.line(line, "passes")

    def action_step(self, delta: int) -> None:
        """``]``: the next pass; ``[``: the previous one."""
        if self.passes is None:
            return
        current = self.steps.highlighted or 0
        self.steps.highlighted = max(0, min(len(self.passes.steps) - 1, current + delta))

    def _show_step(self, number: int) -> None:
        if self.passes is None or not 0 <= number < len(self.passes.steps):
            return
        step = self.passes.steps[number]
        head = Text(f"{number}. {step.name}", style="bold")
        head.append(f": {step.note}")
        if number and not step.changed:
            head.append("\nnothing to do here: the code is unchanged", style="dim")
        elif number:
            head.append(f"\n{len(step.changed_lines())} lines added or changed (+)", style="green")
        self.note.update(head)
        self.code.clear_options()
        self.code.add_options(marked_lines(step))
