"""The app's own part of an answer: the status line, the Log, the lines' colours, the dimming.

The panes show an answer themselves: each subscribed to the explorer's state (the converted
code, the verdicts, the calls, the run, the doctor and the function list's badge react to
``ReportChanged`` and ``ReportFailed``); this part does what is the app's, after them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agexplorer.tui.code.made import Made, answer_label
from agexplorer.tui.messages import AnalysisFailed, AnalysisReady

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.state import TargetChanged


class Results:
    """Owned by the app, which hands it the answers for the current analysis (once the
    state has told the panes)."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self.first = True  # the function shown has had no answer yet

    def dim(self, stale: bool = True) -> None:
        """The code and verdict panes are (or are no longer) out of date."""
        for pane in self.app.panes.stale_panes:
            pane.set_class(stale, "stale")

    def paint_lines(self) -> None:
        """Give each source line its colour in both gutters and in the op tree."""
        app = self.app
        report = app.report
        if report is None:
            return
        from agexplorer.render.terminal import PALETTE, VIVID, line_colors

        colors = line_colors(report, PALETTE if app.colorblind else VIVID)
        app.panes.verdict_gutter.set_verdicts(report.statements, colors)
        if report.conversion is not None:
            app.panes.refs.set_map(report.conversion.source_map, colors)
        ops = app.panes.ops
        ops.shades = colors
        ops.source_file = report.file  # ops made in a helper file do not link to the source
        ops.made_from = answer_label(report) if report.call is not None else None
        ops.show(report.inventory, app.panes.op_filter.value)
        app.sync_gutter()

    def ready(self, message: AnalysisReady) -> None:
        """A report (and, after a run, its run lab) for the analysis under way."""
        from agexplorer.tui.code.verdict_table import flow_summary  # loaded with the panes

        app = self.app
        # A function just opened: link its cursor line, once (its first answer).
        first = self.first
        self.first = False
        report = message.report
        asked = app.state.asked(message.key)
        app.call_after_refresh(app.relabel_functions, report.file)
        if first:
            app.call_after_refresh(app.linking.from_source)
        self.dim(False)
        # Named by the call the worker used (typed, AGX_CALLS, input_signature...): a
        # verdict holds for that call only.
        label = answer_label(report) if report.call is not None else None
        app.panes.flow_summary.update(flow_summary(report.function, report.statements,
                                                   report.error is not None, label))
        self.paint_lines()
        if report.output:
            app.log_line(f"printed while tracing {report.function}:\n{report.output.rstrip()}")
        if report.log:
            app.log_line(report.log)
        if report.error is not None:
            text = report.error.message
            if report.error.kind == "needs-arguments":
                # The engine's sentence ends with the command line's --call: here, what to
                # type where comes first, so that 80 columns show it.
                text = (report.error.what + ": type them in the Run tab (5), e.g. "
                        "tf.zeros([8, 4]), 3, and press F5.")
            app.set_status(text, error=True)
            app.log_line(text)
            if asked is not None and not asked.no_run and message.lab is None:
                app.run_panel.note(text)  # the run asked for: why it did not happen
        if message.lab is not None:
            if asked is not None:  # what was run: this buffer, this call
                app.provenance.set("run", Made(message.key.target, app.analysed_text,
                                               answer_label(report)))
            app.provenance.show("run")

    def failed(self, message: AnalysisFailed) -> None:
        """The engine's one sentence; the last good results stay, dimmed."""
        app = self.app
        error = message.error
        self.dim()
        app.set_status(error.message, error=True)
        app.log_line(error.message)
        asked = app.state.asked(message.key)
        if asked is not None and not asked.no_run:
            app.run_panel.note(error.message)  # the run it was asked for
        if error.kind != "syntax-error" and app.target:
            app.call_after_refresh(app.relabel_functions, app.target[0])  # e.g. renamed

    def on_target_changed(self, message: TargetChanged) -> None:
        """Another function: the last one's code and verdicts stay, dimmed, until its first
        answer replaces them (the Run, Trace, Calls and Doctor tabs and the provenance and
        the Log clear themselves: each is told too)."""
        self.first = True
        if message.old is not None:
            self.dim()

