"""The unroll cost curve in the Control flow tab: sweep the selected loop, cache it, show or hide it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from agexplorer.model.report import IN_PYTHON, LOOPS, kind_words
from agexplorer.tui.code.made import call_label
from agexplorer.tui.guards import while_mounted
from agexplorer.tui.state import (
    BufferEdited,
    CallChanged,
    ReportChanged,
    ReportFailed,
    TargetChanged,
)
from agexplorer.worker.protocol import SweepRequest

if TYPE_CHECKING:
    from agexplorer.model.sweep import Sweep
    from agexplorer.tui.messages import AnalysisKey, EngineAnswer
    from agexplorer.tui.sweep.chart import SweepChart

# What a sweep is about: the function, the call typed in the Run tab, the buffer's text.
CacheKey = tuple[tuple[str, str], "str | None", str]

# The sweep's own time box is this share of the worker's timeout (as the CLI's): it answers,
# with what it traced, before the client gives up on it.
SWEEP_SHARE = 0.8
SHORT_LOOP = 100  # iterations: below it the sweep traces 10, 100 and 1,000 (values_for)


def extrapolate_to(iterations: int | None) -> int:
    """The value the fit is read at: a round number two orders of magnitude past the traced
    count, and at least 100,000 (past AutoGraph's 50,000-iteration warning)."""
    return 10 ** max(5, len(str(max(iterations or 1, 1))) + 2)


def values_for(iterations: int | None) -> tuple[int, ...] | None:
    """The values to trace: the worker's own (two orders of magnitude up to the call's), but
    for a short loop 10, 100 and 1,000: tracing 1, 2 and 5 iterations takes milliseconds
    that noise swamps, and the fitted trace time per unit came out two to five times too
    large. (The worker skips a value whose predicted trace would not fit its time box.)"""
    return None if iterations and iterations >= SHORT_LOOP else (10, 100, 1000)


def nothing_to_sweep(verdict: Any) -> str | None:
    """The one sentence when ``verdict``'s statement is no loop unrolled in Python; else None."""
    if verdict is None:
        return "Nothing to sweep: the Control flow tab lists no statement for this function."
    if verdict.kind in LOOPS and verdict.verdict in IN_PYTHON:
        return None
    what = {"staged": f"staged in the graph{f' ({verdict.graph_op})' if verdict.graph_op else ''}",
            "unreached": "never reached by the trace",
            "python": "run in Python", "mixed": "run in Python on some runs"}[verdict.verdict]
    if verdict.kind in LOOPS:
        why = "its cost does not grow with the count" if verdict.verdict == "staged" else \
            "it did not unroll"
    else:
        why = "only a loop unrolled in Python grows with its count"
    return f"Nothing to sweep: the {kind_words(verdict.kind)} at line {verdict.line} is {what}; {why}."


class SweepView:
    """Owned by the app (``app.sweeps``): ``u`` on an unrolled loop's row sweeps it in the
    worker (once per function, call and buffer) and shows the chart under the table; ``u``
    or Esc hides it."""


    def __init__(self, app: Any) -> None:
        self.app = app
        # The latest sweep per function and loop line.
        self.cache: dict[tuple[tuple[str, str], int], tuple[CacheKey, Sweep]] = {}
        self.pending: tuple[AnalysisKey, CacheKey, int] | None = None
        self.shown_key: CacheKey | None = None
        # The function whose u waits for the verdicts of an edit (its rows' lines were the
        # buffer's before the edit: the loop may have moved).
        self.waiting: tuple[str, str] | None = None
        app.state.subscribe(self)

    @property
    def chart(self) -> SweepChart:
        return self.app.panes.sweep_chart

    @property
    def shown(self) -> bool:
        """Is the chart on screen? (Asked by the keys' checks, the app being torn down too.)"""
        try:
            return bool(self.app.workspace_ready and self.chart.has_class("-shown"))
        except NoMatches:
            return False

    def current_key(self) -> CacheKey | None:
        asked = self.app.buffer_request()
        if asked is None:
            return None
        return (self.app.state.target, asked.call, self.app.source.text)

    def toggle(self) -> None:
        """Show the selected loop's curve, or hide the one shown."""
        if self.shown:
            self.hide()
        else:
            self.show_selected()

    @while_mounted
    def hide(self) -> None:
        """Put the table back in the chart's place."""
        panes = self.app.panes
        self.chart.remove_class("-shown")
        panes.verdicts.remove_class("-curve")
        panes.flow_summary.remove_class("-curve")
        self.shown_key = None
        self.waiting = None
        if self.chart.has_focus or self.app.focused is None:
            panes.verdicts.focus()

    @while_mounted
    def show_selected(self) -> None:
        """Sweep the selected row's loop (or show its cached sweep); one sentence if none.
        While the verdicts are older than the buffer, it waits for the edit's verdicts."""
        app = self.app
        if app.state.report is not None and app.state.report_text != app.source.text:
            if app.source.text == app.state.analysed_text and app.panes.verdicts.has_class("stale"):
                # Said as a notice: a background request's progress must not wipe it.
                app.announce("Nothing to sweep: your edit did not trace (the Log says why); "
                             "the verdicts shown are from before it.")
                return
            self.waiting = app.state.target
            if app.source.text != app.state.analysed_text:
                app.analyse()  # the typing pause has not come yet: trace the edit now
            app.set_status("u: tracing your edit first; its loop's cost curve follows.")
            return
        self.waiting = None
        panes = app.panes
        table = panes.verdicts
        rows = table.verdicts
        verdict = rows[table.cursor_row] if rows and 0 <= table.cursor_row < len(rows) else None
        why = nothing_to_sweep(verdict)
        key = self.current_key()
        if why is not None or key is None or verdict is None:
            app.announce(why or "Nothing to sweep: no function is open.")
            return
        panes.panels.active = "tab-flow"
        self.chart.add_class("-shown")
        table.add_class("-curve")  # under 110 columns the chart takes the table's place
        panes.flow_summary.add_class("-curve")
        self.chart.focus()
        self.shown_key = key
        cached = self.cache.get((key[0], verdict.line))
        if cached is not None and cached[0] == key:
            self._show(cached[1], verdict.line)
            return
        if self.pending is not None and self.pending[1:] == (key, verdict.line):
            return  # asked already: the chart says so
        self._ask(key, verdict)

    def analysed(self) -> None:
        """The verdicts of the buffer are in: a u that waited for them goes on."""
        app = self.app
        if self.waiting is not None and self.waiting == app.state.target \
                and app.state.report_text == app.source.text:
            self.show_selected()

    def _ask(self, key: CacheKey, verdict: Any) -> None:
        app = self.app
        asked = app.buffer_request()
        what = f"sweeping the loop at line {verdict.line} of {asked.key.qualname}"
        request = SweepRequest(asked.target, values=values_for(verdict.iterations),
                               at=extrapolate_to(verdict.iterations),
                               call=asked.call, source=asked.source, no_run=True,
                               timeout=app.bridge.worker.timeout * SWEEP_SHARE,
                               line=verdict.line)
        self.pending = (asked.key, key, verdict.line)
        self.chart.say(f"{what}: one fresh trace per value of the argument that drives it…",
                       style="dim")
        app.bridge.ask(asked.key, request, asked.key.path, what, self.answer)

    def answer(self, message: EngineAnswer) -> None:
        """The sweep (cached for its buffer), or the sentence saying why there is none."""
        if self.pending is None or message.key != self.pending[0]:
            return  # an earlier request's
        _, key, line = self.pending
        self.pending = None
        if message.error is not None:
            if self.shown_key == key:
                self.chart.say(message.error.message, style="yellow")
                self.app.set_status(message.error.message, error=True)
            return
        sweep: Sweep = message.value
        self.cache[(key[0], line)] = (key, sweep)
        if self.shown_key == key:
            self._show(sweep, line)

    def made_from(self, sweep: Sweep) -> str:
        """The function and call the sweep varied (``range_loop(5) [AGX_CALLS]``): typed in
        the Run tab, else the function's ready inputs, from where the analysis said."""
        app = self.app
        typed = self.shown_key is not None and self.shown_key[1] is not None
        report = app.state.report
        origin = "--call" if typed else (report.call_origin if report is not None
                                         and report.function == sweep.function else None)
        return call_label(sweep.function, sweep.call, origin)

    def _show(self, sweep: Sweep, line: int | None) -> None:
        self.chart.remove_class("stale")
        self.chart.border_title = "unroll cost curve (u or Esc: hide, z: zoom)"
        self.chart.show(sweep, self.made_from(sweep))
        if line is not None and sweep.loop_line not in (None, line):
            self.app.set_status(f"The sweep varies {sweep.vary}, which drives the largest "
                                f"unrolled loop: the one at line {sweep.loop_line}.")

    # Another function, an edit or another call: the chart shown is followed once the change
    # is done (an edit is told as it starts, before the buffer holds it).
    def on_target_changed(self, _: TargetChanged) -> None:
        self.app.call_later(self._follow)

    def on_buffer_edited(self, _: BufferEdited) -> None:
        self.app.call_later(self._follow)

    def on_call_changed(self, _: CallChanged) -> None:
        self.app.call_later(self._follow)

    def on_report_changed(self, _: ReportChanged) -> None:
        self.app.call_after_refresh(self.analysed)  # a u pressed while this was traced

    def on_report_failed(self, _: ReportFailed) -> None:
        self.waiting = None  # a u that waited for this analysis: its sentence is said

    @while_mounted
    def _follow(self) -> None:
        """Another function: the chart goes; an edit: the chart is marked out of date."""
        if not self.shown or self.shown_key is None:
            return
        key = self.current_key()
        if key is None or key[0] != self.shown_key[0]:
            self.hide()
        elif key != self.shown_key and not self.chart.has_class("stale"):
            self.chart.add_class("stale")
            self.chart.border_title = "out of date: the buffer changed (u hides, u again sweeps it)"
