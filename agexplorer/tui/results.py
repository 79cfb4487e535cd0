"""The explorer's own part of an answer: the status line, the Log, the lines' colours, the
dimming, the Run tab's note on a run that did not happen.

The panes show an answer themselves: each subscribed to the explorer's state (the converted
code, the verdicts, the calls, the run, the doctor and the function list's badge react to
``ReportChanged`` and ``ReportFailed``). Results is subscribed after them, so it does its
share once they have drawn theirs."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from agexplorer.tui import textual_patches
from agexplorer.tui.code.made import Made, Provenance, answer_label

if TYPE_CHECKING:
    from agexplorer.model.errors import AgxError
    from agexplorer.tui.code.linking import Linking
    from agexplorer.tui.state import (
        CodeConverted,
        ExplorerState,
        LinesMoved,
        ReportChanged,
        ReportFailed,
        TargetChanged,
    )
    from agexplorer.tui.status import StatusReporter
    from agexplorer.tui.workspace import Workspace


def call_example(error: AgxError) -> str:
    """The example arguments the engine gave a function that needs them (one a parameter),
    taken from its advice for the command line (``--call "..."``)."""
    given = re.search(r"""--call (["'])(.*?)\1\.?$""", error.advice or "")
    return given.group(2) if given else "tf.ones([2])"


class Results:
    """Reads the report shown (``state``), speaks through ``status``, heads the Run tab
    (``provenance``), links the first answer's cursor line (``linking``) and draws into the
    panes (``panes``: None until they are mounted and as the app ends). ``later`` runs a
    callable after the next frame; ``relabel(path)`` has the function list follow a file's
    buffer; ``colorblind()`` says which line colours are wanted."""

    def __init__(self, state: ExplorerState, status: StatusReporter, provenance: Provenance,
                 linking: Linking, panes: Callable[[], Workspace | None],
                 later: Callable[..., object], relabel: Callable[[str], None],
                 colorblind: Callable[[], bool]) -> None:
        self.state, self.status, self.provenance, self.linking = state, status, provenance, linking
        self.panes, self.later, self.relabel, self.colorblind = panes, later, relabel, colorblind
        self.first = True  # the function shown has had no answer yet
        # Each line's shade in the gutters, on the buffer's lines, as last painted (None: the
        # function shown has had no answer yet)
        self._shades: dict[int, str] | None = None

    def dim(self, stale: bool = True) -> None:
        """The code and verdict panes are (or are no longer) out of date."""
        panes = self.panes()
        if panes is not None:
            for pane in panes.stale_panes:
                textual_patches.set_class(pane, stale, "stale")

    def paint_lines(self, ops_too: bool = True) -> None:
        """Give each source line its colour in both gutters and in the op tree (``ops_too``;
        the op tree names the report's lines, as the trace made them). The gutters' marks are
        on the lines of the buffer now: an edit since the report moved them with their code."""
        report, panes = self.state.report, self.panes()
        if report is None or panes is None:
            return
        from agexplorer.render.terminal import PALETTE, VIVID, line_colors
        from agexplorer.source.line_moves import moved_lines

        colors = line_colors(report, PALETTE if self.colorblind() else VIVID)
        moves = self.state.moves
        shades = colors
        if moves:
            shades = {at: color for line, color in colors.items()
                      if (at := moves.now(line)) is not None}
        panes.verdict_gutter.set_verdicts(moved_lines(report.statements, moves), shades)
        self._shades = shades
        self._paint_refs(shades)
        if not ops_too:
            return
        ops = panes.ops
        ops.shades = colors
        ops.source_file = report.file  # ops made in a helper file do not link to the source
        ops.made_from = answer_label(report) if report.call is not None else None
        ops.show(report.inventory, panes.op_filter.value)
        self.linking.sync_gutters()

    def on_report_changed(self, message: ReportChanged) -> None:
        """A report (and, after a run, its run lab) for the analysis under way."""
        from agexplorer.tui.code.verdict_table import flow_summary  # loaded with the panes

        panes = self.panes()
        if panes is None:
            return
        # A function just opened: link its cursor line, once (its first answer).
        first, self.first = self.first, False
        report, asked = message.report, message.request
        self.later(self.relabel, report.file)
        if first:
            self.later(self.linking.from_source)
        self.dim(False)
        # Named by the call the worker used (typed, AGX_CALLS, input_signature...): a
        # verdict holds for that call only.
        label = answer_label(report) if report.call is not None else None
        failed = report.error is not None
        panes.flow_summary.update(flow_summary(
            report.function, report.statements, failed, label,
            callees=sum(bool(f.statements) for f in report.reached),
            refused=report.conversion_note,
            error=report.error.message if report.error is not None else None,
            drives=report.drives))
        # The whole error where the table is empty: room for its advice.
        panes.flow_summary.set_class(failed and not report.statements, "-failed")
        self.paint_lines()
        if report.output:
            self.status.log(f"printed while tracing {report.function}:\n"
                            f"{report.output.rstrip()}")
        if report.log:
            self.status.log(report.log)
        if report.load_note:  # the file's own module-level code raised: what ran, what did not
            self.status.log(report.load_note)
            if report.error is None:
                self.status.set(report.load_note, error=True)
        if report.error is not None:
            text = report.error.message
            if report.error.kind == "needs-arguments":
                # The engine's sentence ends with the command line's --call: here, what to
                # type where comes first, so that 80 columns show it.
                text = (f"{report.error.what}: type them in the Run tab (5), e.g. "
                        f"{call_example(report.error)}, and press F5.")
            self.status.set(text, error=True)
            self.status.log(text)
            if asked is not None and not asked.no_run and message.lab is None:
                panes.run_panel.note(text)  # the run asked for: why it did not happen
        if message.lab is not None:
            if asked is not None:  # what was run: this buffer, this call
                self.provenance.set("run", Made(message.key.target, message.text,
                                                answer_label(report)))
            self.provenance.show("run")

    def _paint_refs(self, shades: dict[int, str]) -> None:
        """The converted side's source lines, for the code on screen (the report's, or the
        one sent ahead of the next report: its map, not the report's), on the lines of the
        buffer now, shaded as the verdicts shade them (``shades``)."""
        conversion, panes = self.state.conversion, self.panes()
        if conversion is None or panes is None:
            return
        moves = self.state.conversion_moves
        source_map = conversion.source_map
        if moves:
            source_map = [(converted, at) for converted, line in source_map
                          if (at := moves.now(line)) is not None]
        panes.refs.set_map(source_map, shades)

    def on_code_converted(self, _: CodeConverted) -> None:
        """AutoGraph's code came ahead of the report: the converted side's source lines are
        those of its map, in the last report's shades (the rest waits for the report: this
        runs while the function is traced, beside the worker)."""
        if self._shades is not None:
            self._paint_refs(self._shades)

    def on_lines_moved(self, _: LinesMoved) -> None:
        """An edit added or removed lines: the gutters' marks follow their code."""
        self.paint_lines(ops_too=False)

    def on_report_failed(self, message: ReportFailed) -> None:
        """The engine's one sentence; the last good results stay, dimmed."""
        error = message.error
        self.dim()
        self.status.set(error.message, error=True)
        self.status.log(error.message)
        asked, panes = self.state.asked(message.key), self.panes()
        if asked is not None and not asked.no_run and panes is not None:
            panes.run_panel.note(error.message)  # the run it was asked for
        if error.kind != "syntax-error" and self.state.target:
            self.later(self.relabel, self.state.target[0])  # e.g. renamed

    def on_target_changed(self, message: TargetChanged) -> None:
        """Another function: the last one's code and verdicts stay, dimmed, until its first
        answer replaces them (the Run, Trace, Calls and Doctor tabs and the provenance and
        the Log clear themselves: each is told too)."""
        self.first, self._shades = True, None
        if message.old is not None:
            self.dim()
