"""The lesson tour: each section's sample opened, its one action done, its result highlighted;
and the explorer's opening (scratch copies, the tour open) that hands over to it."""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import Hit, Hits, Provider

from agexplorer.state.scratch import bundled_samples, scratch_copies
from agexplorer.tui import textual_patches
from agexplorer.tui.code.made import answer_label
from agexplorer.tui.functions.picker import FunctionPicker
from agexplorer.tui.layout import fit_tour
from agexplorer.tui.state import PaneAnswered, ReportChanged
from agexplorer.tui.tour.steps import STEPS, TourStep

if TYPE_CHECKING:
    from agexplorer.tui.messages import EngineAnswer
    from agexplorer.tui.parts import ExplorerApp

TABS = {"run": "tab-run", "trace": "tab-trace", "doctor": "tab-doctor", "flow": "tab-flow",
        "graph": "tab-graph"}
# The tabs whose header names the call of their own request (the others: the analysis's).
PROVENANCE = {"run": "run", "trace": "trace", "doctor": "doctor"}
SCRATCH_MARK = "scratch copies (ctrl+s saves the copy)"


class TourCommands(Provider):
    """The palette's way into the tour."""

    async def search(self, query: str) -> Hits:
        name = "tour: walk the lesson section by section, each sample live"
        score = self.matcher(query).match(name)
        if score > 0:
            yield Hit(score, self.matcher(query).highlight(name),
                      partial(self.app.call_after_refresh, start_tour, self.app),
                      help="eager vs graph, tracing, AutoGraph, the pitfalls, the homework")


CURVE_STEPS = 20  # the homework's epochs: the steps its curves are drawn over
# An Enter pressed as F8 opens the next sample is done once it is open: tried every 50 ms
# this many times, then it says why not.
OPENING_TRIES = 60
RESULT = "-tour-result"  # the screen's class while a step's answer is shown (app.tcss)
HIGHLIGHT = "tour-highlight"  # the class of the pane holding it (panel.py's CSS)


def start_tour(app: ExplorerApp) -> Tour | None:
    """Open the tour beside the explorer (or go back to it when open already)."""
    from agexplorer.tui.tour.panel import TourPanel

    tour = open_tour(app)
    if tour is not None:
        back_to_tour(app)
        return tour
    tour = Tour(app, sample_paths(app))
    panel = TourPanel(tour)
    app.query_one("#main").mount(panel)
    tour.panel = panel
    app.source.set_demo("tour", True)  # no accidental edits: read-only until ctrl+e, Tab moves on
    tour.go(0)
    app.refresh_bindings()  # F8/shift+F8 and Esc now lead to the tour (keys.py)
    app.call_after_refresh(fit_tour, app)  # the tour owns the layout while open
    return tour


def open_tour(app: ExplorerApp) -> Tour | None:
    """The tour, when its panel is open on the explorer's screen."""
    from agexplorer.tui.tour.panel import tour_panel

    panel = tour_panel(app.screen_stack[0] if app.screen_stack else None)
    return None if panel is None else panel.tour


def back_to_tour(app: ExplorerApp) -> bool:
    """Focus the tour's panel from anywhere (putting zoomed panes back first: zoom hides the
    panel); False when no tour is open."""
    from agexplorer.tui.layout import ZOOMED, unzoom

    tour = open_tour(app)
    if tour is None or tour.panel is None:
        return False
    screen = app.screen_stack[0]
    if screen.has_class(ZOOMED):
        unzoom(screen)
    app.call_after_refresh(tour.panel.focus)
    return True


def tensorboard_dir(path: str) -> str:
    """Where a step writes its TensorBoard log: ``logs/graph`` beside the sample it opened,
    where the lesson's own script writes it."""
    return os.path.join(os.path.dirname(os.path.abspath(path)), "logs", "graph")


def sample_paths(app: ExplorerApp) -> dict[str, str]:
    """Each sample's file name -> the copy the tour opens: those in the function list, else
    scratch copies added to it (never the package's own files)."""
    picker = app.query_one(FunctionPicker)
    listed = {os.path.basename(path): path for path, _ in picker.functions()}
    wanted = {step.file for step in STEPS}
    if wanted <= listed.keys():
        return listed
    copies = {os.path.basename(p): p for p in scratch_copies(bundled_samples())}
    for name in sorted(wanted):
        picker.add_file(copies[name])
    return copies


class Tour:
    """The tour's state: the current step, and the answer it waits for."""

    def __init__(self, app: ExplorerApp, paths: dict[str, str]) -> None:
        self.app = app
        self.paths = paths
        self.index = 0
        self.panel: Any = None  # the TourPanel, once mounted
        self.results: dict[int, str] = {}  # step -> its result, once answered
        self._waiting = False  # for the answer to the step's action
        self._pending = 0  # tries of an Enter that came before the step's sample opened
        self._before: Any = None  # the pane's state before the action: a change is the answer
        self._highlighted: Any = None

    @property
    def step(self) -> TourStep:
        return STEPS[min(self.index, len(STEPS) - 1)]

    @property
    def ended(self) -> bool:
        """Past the last section: the panel shows what was covered and where to go next."""
        return self.index >= len(STEPS)

    def target(self, step: TourStep) -> tuple[str, str]:
        return (self.paths[step.file], step.function)

    def go(self, index: int) -> None:
        """Show section ``index`` (clamped) and open its sample beside it; past the last
        section, the end of the tour."""
        app = self.app
        self.index = max(0, min(index, len(STEPS)))
        self._stop()
        back_to_tour(app)  # the tour's keys work from any pane: the panel shows again
        if self.ended:
            self.panel.show_end(STEPS, self.results)
            return
        self.panel.show_step(self.step, self.index, len(STEPS))
        wanted = self.target(self.step)
        # The step's own calls, never ones typed before: its call (None: its ready inputs),
        # and in the Trace tab the file's AGX_RETRACE.
        own = self.step.call or ""
        if app.state.target != wanted:
            requests = app.requests  # the boxes show them once the function opens
            requests.set_call(wanted, own)
            requests.set_call(wanted, "", "trace")
            app.query_one(FunctionPicker).select_function(*wanted)
            # A dirty buffer is kept (one sentence); a step is a jump: analysed at once.
            app.post_message(FunctionPicker.Picked(*wanted, at_once=True))
        elif app.workspace_ready:
            app.requests.set_call(wanted, "", "trace")
            if app.call_input.value.strip() != own:  # analysed with another call: again
                app.requests.set_call(wanted, own)
                app.analyse()
        if app.workspace_ready:
            app.panes.panels.active = TABS[self.step.tab]

    def act(self) -> None:
        """Do the step's one action, then wait for its answer and highlight it."""
        app, step = self.app, self.step
        if self.ended:  # the end: enter starts again
            self.go(0)
            return
        if app.state.target != self.target(step):
            # Enter right after F8: the step's sample is on its way (the pick is a message
            # not yet handled), unless an edited buffer keeps it out.
            if not app.source.dirty and self._pending < OPENING_TRIES:
                self._pending += 1
                app.set_timer(0.05, self.act)
                return
            self._pending = 0
            app.set_status(f"the tour's sample {step.target} is not open: save or undo the "
                           "edits to the open file first", error=True)
            return
        self._pending = 0
        self._stop()
        self.panel.show_result(None)
        self._before = self._state(step)
        if step.action == "run" and step.tensorboard:
            app.panes.panels.active = TABS["run"]
            app.analyse(run=True, tensorboard=tensorboard_dir(self.target(step)[0]))
        elif step.action == "run":
            app.action_run()
        elif step.action == "curves":
            self._ask_curves()
        elif step.action == "trace":
            app.action_trace()
        else:
            app.panes.panels.active = TABS[step.tab]
        self._waiting = True
        app.state.subscribe(self)
        self._look()

    def _ask_curves(self) -> None:
        """Call the step's function CURVE_STEPS times in one load and chart what it returns
        in the Run tab (the homework's loss and learning rate)."""
        from agexplorer.worker.protocol import CurvesRequest

        app = self.app
        asked = app.buffer_request()
        if asked is None:
            return
        app.panes.panels.active = TABS["run"]
        what = f"calling {asked.key.qualname} {CURVE_STEPS} times"
        app.run_panel.note(what + "…")
        app.bridge.ask(asked.key, CurvesRequest(asked.target, call=asked.call,
                                                steps=CURVE_STEPS, source=asked.source,
                                                init=asked.init),
                       asked.key.path, what, self._curves_answered)

    def _curves_answered(self, message: EngineAnswer) -> None:
        if message.error is not None:
            self.app.run_panel.note(message.error.message)
            return
        self.app.run_panel.show_curves(message.value)
        if self._waiting:
            self.app.call_after_refresh(self._look)

    def close(self) -> None:
        """Close the tour; the explorer stays on the last sample."""
        self._stop()
        if self.panel is not None:
            self.panel.remove()
            self.panel = None
            self.app.call_after_refresh(fit_tour, self.app)  # the screen's own width again
        self.app.source.set_demo("tour", False)
        self.app.source.focus()
        self.app.call_after_refresh(self.app.refresh_bindings)  # F8 leaves the footer

    # An answer may be in: looked for once it is painted.
    def on_report_changed(self, _: ReportChanged) -> None:
        if self._waiting:
            self.app.call_after_refresh(self._look)

    def on_pane_answered(self, _: PaneAnswered) -> None:
        if self._waiting:
            self.app.call_after_refresh(self._look)

    def _stop(self) -> None:
        self._waiting = False
        if self._highlighted is not None:
            textual_patches.set_class(self._highlighted, False, HIGHLIGHT)
            self._highlighted = None
        if self.app.screen_stack:
            textual_patches.set_class(self.app.screen_stack[0], False, RESULT)

    def _state(self, step: TourStep) -> Any:
        """What changes when the step's answer arrives."""
        app = self.app
        if step.action == "run":
            return app.state.lab
        if step.action == "trace":
            return app.trace_tab.report
        if step.action == "curves":
            return app.run_panel.curves
        return None

    def _look(self) -> None:
        from agexplorer.tui.tour.results import answer_line, result_of

        app, step = self.app, self.step
        if self.panel is None or app.state.target != self.target(step):
            return self._stop()
        report = app.state.report
        if (report is None or report.function != step.function
                or app.state.answered != app.state.generation):
            return None  # the analysis of the opened function (with its call) has not answered
        found = result_of(app, step, self._before)
        if found is None:
            return None
        text, pane = found
        self._stop()
        self.results[self.index] = text
        made = app.provenance.made.get(PROVENANCE.get(step.tab, ""))
        self.panel.show_result(text, made.label if made else answer_label(report))
        textual_patches.set_class(pane, True, HIGHLIGHT)
        self._highlighted = pane
        # On a short screen, the tab gets the room.
        textual_patches.set_class(app.screen_stack[0], True, RESULT)
        # The code shows the answer's line, once the panes have their new sizes (a code pane
        # two rows high showed the blank lines above the function).
        line = answer_line(app, step)
        if line is not None:
            app.call_after_refresh(app.linking.line, line, "tour")
        else:
            app.call_after_refresh(app.source.scroll_cursor_visible, True)
        return None
