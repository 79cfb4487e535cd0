"""TourPanel: the lesson tour beside the explorer, one section at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from agexplorer.tui.tour.steps import TourStep
    from agexplorer.tui.tour.tour import Tour

DOES = {"run": "enter runs it: eager, graph and XLA",
        "trace": "enter traces it: which calls traced anew, and why",
        "doctor": "enter opens the Doctor on it",
        "curves": "enter calls it 20 times and charts what it returns",
        "none": "enter shows the result of its analysis"}


def tour_panel(screen: Widget | None) -> TourPanel | None:
    """The tour's panel on ``screen`` (the explorer's), or None: looked up by id as a child of
    ``#main``, where the tour mounts it. The keys ask on every footer refresh (each binding's
    check), and a query for the class walked the whole screen each time: ~6% of a tab
    switch's time."""
    if screen is None:
        return None
    try:
        panel = screen.get_child_by_id("main").get_child_by_id("tour")
    except NoMatches:
        return None
    return panel if isinstance(panel, TourPanel) else None


class TourPanel(VerticalScroll, can_focus=True):
    """The current section: the lesson's heading, a short explanation, the action that shows
    the point, and its result once the worker has answered."""

    # Not scoped: the pane that holds a step's result is outlined while the step shows.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    /* Its width by the screen's (layout.TOUR_WIDTHS, set by layout.fit_tour). */
    TourPanel { width: 44; min-width: 30; border: round $accent; padding: 0 1; }
    TourPanel:focus { border: double $accent; }
    TourPanel > .tour-heading { text-style: bold; color: $accent; margin-bottom: 1; }
    TourPanel > .tour-text { margin-bottom: 1; }
    TourPanel > .tour-action { color: $text-muted; margin-bottom: 1; }
    TourPanel > #tour-result { background: $warning 20%; text-style: bold; display: none; }
    TourPanel > #tour-result.shown { display: block; }
    /* A border, not an outline: an outline is drawn over the pane's first and last rows
       (a table's header, the last line of the answer). */
    .tour-highlight { border: heavy $warning; }
    """
    # F8/shift+F8 work from every pane too (keys.py); here the arrows do as well.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,f8", "step(1)", "Next section", key_display="→"),
        Binding("left,p,shift+f8", "step(-1)", "Previous section", key_display="←"),
        Binding("enter,space", "act", "Do it"),
        Binding("escape", "close", "Close tour"),
    ]

    def __init__(self, tour: Tour, *, id: str | None = "tour") -> None:
        super().__init__(id=id)
        self.tour = tour
        self.border_title = "lesson tour"
        self.heading = Static("", classes="tour-heading")
        self.text = Static("", classes="tour-text")
        self.action_line = Static("", classes="tour-action")
        self.look = Static("", classes="tour-text")
        self.result = Static("", id="tour-result")
        self.made_from: str | None = None  # the call the result shown was made from

    def compose(self) -> ComposeResult:
        yield self.heading
        yield self.text
        yield self.action_line
        yield self.look
        yield self.result

    def show_step(self, step: TourStep, index: int, count: int) -> None:
        """Section ``index`` of ``count``: its words, no result yet."""
        self.border_subtitle = f"{index + 1} of {count} · ←/→ or F8/shift+F8 · enter · esc"
        self.heading.update(Text(f"{step.heading_zh}\n{step.title_en}"))
        self.text.update(Text(step.text))
        called = ("its calls: the file's AGX_RETRACE" if step.action == "trace" else
                  f"called with {step.call or 'its ready inputs'}")
        self.action_line.update(Text(f"{step.target}\n{called}\n{DOES[step.action]}"))
        self.look.update(Text(f"Look at: {step.look}"))
        self.show_result(None)

    def show_end(self, steps: tuple[TourStep, ...], results: dict[int, str]) -> None:
        """Past the last section: what each section showed (its result, where it was asked
        for) and where to go next."""
        self.border_subtitle = "the end · ← back · enter starts again · esc closes"
        self.heading.update(Text("End of the tour\n课程结束"))
        covered = Text("Covered:")
        for number, step in enumerate(steps):
            covered.append(f"\n{step.heading_zh.split()[0]} {step.title_en}")
            if number in results:
                covered.append(f": {results[number]}", style="dim")
        self.text.update(covered)
        self.action_line.update(Text(
            "Where next:\n"
            "agexplorer FILE: your own code, the same panes\n"
            "agexplorer report FILE: every verdict as text\n"
            "agexplorer doctor FILE: the findings and their fixes\n"
            "agexplorer record SCRIPT: a training script's fit() and dataset.map()\n"
            "F1: every key of the pane you are in"))
        self.look.update("")
        self.show_result(None)

    def show_result(self, text: str | None, made_from: str | None = None) -> None:
        """The action's answer, highlighted, and the call it was made from (None: not asked
        yet)."""
        shown = Text(text or "")
        if text and made_from:
            shown.append(f"\nfrom {made_from}", style="not bold dim")
        self.result.update(shown)
        self.result.set_class(bool(text), "shown")
        if text:  # below the section's words on a short screen: brought into view
            self._keep_result()
        self.made_from = made_from if text else None

    def on_resize(self) -> None:
        self._keep_result()

    def watch_virtual_size(self) -> None:
        """The same when only the words' height changed: Textual sends no Resize for that
        in a full layout (the panes beside the panel changing their width rewrapped them)."""
        self._keep_result()

    def _keep_result(self) -> None:
        """The answer stays in view at the new size: it is the panel's last part, so the
        panel scrolls to its end (after the layout: at the new height)."""
        if self.result.has_class("shown"):
            self.scroll_end(animate=False)

    @property
    def result_text(self) -> str:
        """The result shown, as plain text ("" before the action has answered)."""
        return str(self.result.render()) if self.result.has_class("shown") else ""

    def action_step(self, step: int) -> None:
        self.tour.go(self.tour.index + step)

    def action_act(self) -> None:
        self.tour.act()

    def action_close(self) -> None:
        self.tour.close()
