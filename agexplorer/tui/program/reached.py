"""ReachedScreen: a function the trace reached, with this trace's verdicts and its converted code."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agexplorer.model.report import ReachedFunction, Report, path_text
from agexplorer.model.text import plural
from agexplorer.tui.code.converted_pane import ConvertedPane
from agexplorer.tui.code.gutter import LineRefGutter, VerdictGutter, pane_view
from agexplorer.tui.code.made import traced_with
from agexplorer.tui.code.verdict_table import VerdictTable

if TYPE_CHECKING:
    from collections.abc import Callable


def same_function(a: ReachedFunction, b: ReachedFunction) -> bool:
    """The same function of the user's code (its lines may have moved after an edit)."""
    return (a.file, a.function) == (b.file, b.function)


class ReachedScreen(ModalScreen[None]):
    """Read-only: the function's source (line numbers of its file) with the gutter from the
    explored function's trace, its converted code, the call path and its verdict table. It
    is modal so that the explorer's keys (run, next function, apply a fix) cannot change the
    buffer behind it; Esc returns to the explorer as it was."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back to the explorer")]
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012 - Textual's own

    def __init__(self, function: ReachedFunction, root: str, made_text: str,
                 buffer: Callable[[], str], colorblind: Callable[[], bool]) -> None:
        super().__init__()
        self.function = function
        self.buffer = buffer  # the explorer's buffer now (the verdicts shown are of made_text)
        self.colorblind = colorblind  # the palette, asked at each paint (it can be toggled)
        self.root = root  # the explored function and its call, whose trace this is
        self.made_text = made_text  # the buffer that trace was made from
        self.gone: str | None = None  # why the verdicts shown are no longer current
        self.header = Static("", id="reached-header", markup=False)
        self.verdict_gutter = VerdictGutter(id="reached-gutter")
        self.source_view = ConvertedPane(id="reached-source")
        self.refs = LineRefGutter(id="reached-refs")
        self.converted = ConvertedPane(id="reached-converted")
        # The source pane starts at the function's first line.
        self.verdict_gutter.view = lambda: pane_view(self.source_view, self.function.first_line)
        self.refs.view = lambda: pane_view(self.converted)
        self.converted.border_title = "AutoGraph (to_code)"
        self.note = Static("", id="reached-note", markup=False)
        self.verdicts = VerdictTable(id="reached-verdicts")

    def compose(self) -> ComposeResult:
        yield self.header
        with Container(id="reached-code"):
            with Horizontal(id="reached-left"):
                yield self.verdict_gutter
                yield self.source_view
            with Horizontal(id="reached-right"):
                yield self.refs
                yield self.converted
                yield self.note
        yield self.verdicts
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.source_view, "scroll_y", lambda _: self.sync_gutters(), init=False)
        self.watch(self.converted, "scroll_y", lambda _: self.sync_gutters(), init=False)
        self.show(self.function)
        self.source_view.focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self.sync_gutters)

    def show(self, fn: ReachedFunction) -> None:
        """Fill every pane from ``fn`` (a record of the current trace)."""
        from agexplorer.render.terminal import PALETTE, VIVID, line_colors

        self.function = fn
        source = self.source_view
        # Text: a str title is read as markup, and a file may be named "we[ird].py".
        source.border_title = Text(f"{os.path.basename(fn.file)} :: {fn.function}")
        source.line_number_start = fn.first_line
        source.show_code(fn.source)
        colors = line_colors(fn, PALETTE if self.colorblind() else VIVID)  # type: ignore[arg-type]
        self.verdict_gutter.set_verdicts(list(fn.statements), colors)
        has_code = fn.conversion is not None
        self.converted.display = self.refs.display = has_code
        self.note.display = not has_code
        if fn.conversion is not None:
            self.converted.show_code(fn.conversion.code)
            self.refs.set_map(fn.conversion.source_map, colors)
        else:
            self.note.update(fn.note or f"AutoGraph did not convert {fn.function}: it ran as "
                             "plain Python while tracing, so it has no converted code.")
        self.verdicts.show(list(fn.statements))
        self._head()
        self.call_after_refresh(self.sync_gutters)

    def _head(self) -> None:
        fn = self.function
        ops = f"{plural(fn.op_count, 'op')}"
        lines = [f"{fn.function}  {os.path.basename(fn.file)}:{fn.first_line}-{fn.end_line}  "
                 f"{ops}  from the trace of {self.root}",
                 "reached by " + path_text(fn.call_path)]
        stale = self.gone is not None or self.made_text != self.buffer()
        if self.gone is not None:
            lines.insert(0, f"out of date: {self.gone}; these verdicts are from an earlier trace")
        elif stale:
            lines.insert(0, "out of date: from the trace before your last edit")
        self.header.update("\n".join(lines))
        for part in (self.header, self.query_one("#reached-code"), self.verdicts):
            part.set_class(stale, "stale")

    def follow(self, report: Report, made_text: str) -> None:
        """A new report: show this function's new verdicts, or say it is no longer reached."""
        fn = next((f for f in report.reached if same_function(f, self.function)), None)
        if fn is None:
            name = self.function.function
            self.gone_away(f"{name} is not reached by the latest trace of {report.function}")
            return
        self.root, self.made_text, self.gone = traced_with(report), made_text, None
        self.show(fn)

    def gone_away(self, why: str) -> None:
        """The explorer moved on: keep what is shown, marked out of date."""
        self.gone = why
        self._head()

    def sync_gutters(self) -> None:
        """The gutters follow their panes' scrolling (the source starts at its first line)."""
        self.verdict_gutter.sync()
        self.refs.sync()

    # The explorer's handlers for these events move its own panes: stop them here.
    def on_verdict_table_jump(self, message: VerdictTable.Jump) -> None:
        message.stop()
        self.source_view.move_cursor((max(message.line - self.function.first_line, 0), 0),
                                center=True)
        self.source_view.focus()

    def on_verdict_table_highlighted(self, message: VerdictTable.Highlighted) -> None:
        message.stop()

    def on_text_area_selection_changed(self, event: Any) -> None:
        event.stop()

    def action_back(self) -> None:
        """Esc: the explorer, exactly as it was."""
        self.dismiss(None)
