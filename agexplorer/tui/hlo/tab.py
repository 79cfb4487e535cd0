"""HloTab: the HLO XLA compiles, highlighted, each instruction beside its source line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agexplorer.model.text import seconds_text
from agexplorer.render.hlo import highlight_hlo, shorten, source_label, timing_text
from agexplorer.tui.asking import AsksWhenShown
from agexplorer.tui.code.made import answer_label
from agexplorer.tui.messages import EngineAnswer
from agexplorer.worker.protocol import ReportRequest, Request

if TYPE_CHECKING:
    from collections.abc import Callable

    from agexplorer.model.lab import HloText
    from agexplorer.tui.desk import Desk

MAX_LINES = 20_000  # past this the list is cut (a big model's HLO); the CLI prints it all


def hlo_option(line: str, where: tuple[str, int] | None, home: str, width: int) -> Text:
    """``L48 │ %add.1 = s32[] add(...)``: the source column, then the instruction."""
    text = Text(f"{source_label(where, home):>{width}} ", style="green", no_wrap=True,
                overflow="ellipsis")
    text.append_text(highlight_hlo(shorten(line)))
    return text


class HloTab(AsksWhenShown, Vertical):
    """The HLO of the current function with the Run tab's call, asked when shown and the buffer
    was analysed again since; highlighting a line moves the source pane to its line."""

    DEFAULT_CSS = """
    HloTab { height: 1fr; }
    HloTab #hlo-head { height: auto; max-height: 4; padding: 0 1; }
    HloTab #hlo-lines { height: 1fr; }
    """
    WITH_CALL = True  # the HLO is compiled for the Run tab's call

    def __init__(self, desk: Desk, device: Callable[[], str | None], *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.desk, self.device = desk, device  # device: the Run tab's choice
        self.hlo: HloText | None = None
        self.home: str | None = None  # the file whose lines the source pane shows
        self.head = Static("", id="hlo-head", markup=False)  # its sentences quote errors
        self.lines = OptionList(id="hlo-lines")

    def compose(self) -> ComposeResult:
        yield self.head
        yield self.lines

    def on_mount(self) -> None:
        self.head.update("The HLO XLA compiles for this function: shown when this tab opens.")
        self.start_following()

    def request_for(self, asked: Any) -> tuple[Request, str]:
        desk = self.desk
        return (ReportRequest(asked.target, call=asked.call, source=asked.source, no_run=True,
                              init=asked.init,
                              hlo=True, device=self.device(), user_code=desk.user_code),
                f"compiling {asked.key.qualname} with XLA")

    def waiting(self, text: str) -> None:
        self.head.update(text)

    def answer(self, message: EngineAnswer) -> None:
        """The HLO, or the one sentence saying why there is none."""
        if not self.is_current(message):
            return  # an older buffer's HLO
        error, made_from = message.error, None
        if error is None:
            report, lab = message.value["report"], message.value["lab"]
            # The call the worker compiled for (typed, AGX_CALLS, ...): the HLO is that call's.
            made_from = answer_label(report) if report.call is not None else None
            if report.error is not None:
                error = report.error
            elif lab is None or lab.hlo_ir is None:
                self._say("no HLO: the function needs arguments to compile (the Run tab's call).")
                return
            else:
                self.show(lab.hlo_ir, report.file, made_from)
                return
        self._say(error.message, made_from)

    def _say(self, sentence: str, made_from: str | None = None) -> None:
        self.hlo = None
        self.lines.clear_options()
        head = Text(sentence, style="yellow")
        if made_from:
            head = Text(f"{made_from}: ", style="bold").append_text(head)
        self.head.update(head)

    def show(self, hlo: HloText, home: str, made_from: str | None = None) -> None:
        """The call it was compiled for, the timings at the top, the lines below; XLA's
        refusal as its one sentence."""
        if hlo.error or not hlo.text:
            self._say(hlo.error or "XLA gave no HLO for this function.", made_from)
            return
        self.hlo, self.home = hlo, home
        lines = hlo.text.rstrip().splitlines()
        sources = list(hlo.lines) + [None] * (len(lines) - len(hlo.lines))
        width = max((len(source_label(w, home)) for w in sources), default=0)
        head = Text(f"HLO of {made_from}\n", style="bold") if made_from else Text()
        head.append_text(timing_text(hlo, seconds_text))
        known = sum(1 for w in sources if w is not None)
        head.append(f"\n{len(lines)} lines, {known} from your code (left); "
                    "a highlighted line shows its source line", style="dim")
        if len(lines) > MAX_LINES:
            head.append(f"; the first {MAX_LINES} shown (`report --hlo` prints them all)",
                        style="dim")
        self.head.update(head)
        kept = self.lines.highlighted
        self.lines.clear_options()
        self.lines.add_options([Option(hlo_option(line, where, home, width))
                                for line, where in zip(lines[:MAX_LINES], sources,
                                                       strict=False)])
        if kept is not None and kept < self.lines.option_count:
            self.lines.highlighted = kept

    def source_of(self, index: int) -> tuple[str, int] | None:
        """The source (file, line) of HLO line ``index`` (0-based), None where unknown."""
        if self.hlo is None or not 0 <= index < len(self.hlo.lines):
            return None
        return self.hlo.lines[index]

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        where = self.source_of(event.option_index)
        if where is None or not self.lines.has_focus:
            return
        if where[0] == self.home:
            self.desk.linking.line(where[1], "hlo")
        else:
            self.desk.status.set(f"this instruction came from {where[0]}:{where[1]}")
