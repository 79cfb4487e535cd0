"""Workspace: the code panes and the panels, mounted just after the first frame.

The first frame holds only the function list, the status line and the footer: that is
what a user reads first, and Textual paints it in about half the time the whole layout
takes (the editors, the tables and the tabs each add styling, layout and rendering). The
app mounts this container right after that frame (see ``AgxApp.on_ready``); importing it
also brings in the heavier widget modules (TextArea with tree-sitter, DataTable, Select).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import RichLog, Static, TabbedContent, TabPane

from agexplorer.tui import textual_patches, textual_render
from agexplorer.tui.calltree.tab import CallTreeTab
from agexplorer.tui.code.converted_pane import ConvertedPane
from agexplorer.tui.code.gutter import LineRefGutter, VerdictGutter, pane_view
from agexplorer.tui.code.source_pane import SourcePane
from agexplorer.tui.code.verdict_table import VerdictTable
from agexplorer.tui.doctor.tab import DoctorTab
from agexplorer.tui.graph.op_tree import OpFilter, OpTree
from agexplorer.tui.hlo.tab import HloTab
from agexplorer.tui.passes.tab import PassesTab
from agexplorer.tui.run.panel import RunPanel
from agexplorer.tui.status_line import StatusLine
from agexplorer.tui.sweep.chart import SweepChart
from agexplorer.tui.trace.tab import TraceTab

if TYPE_CHECKING:
    from agexplorer.tui.desk import Desk

# A late focus message no longer shows an older tab (textual_patches): installed here, with
# the panels' tabs, not for the first frame (Textual's tabs take ~5 ms to import).
textual_patches.install_tab_focus()
# A partial update renders the widgets under its dirty regions (textual_render).
textual_render.install_partial_render()
textual_render.install_hidden_refresh()
textual_render.install_soon_frames()
textual_render.install_frame_styles()


class Workspace(Vertical):
    """Source beside converted code (with their gutters), and the Control flow, Calls,
    Doctor, Graph, Run, Trace and Log tabs. The app's parts reach each pane through the typed
    attributes below (made once, here), never by an id string; the tabs that ask the worker
    get the app's ``desk``."""

    def __init__(self, desk: Desk, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.verdict_gutter = VerdictGutter(id="gutter")
        # Titles set before mounting (not queried in on_mount, which a quit during
        # start-up can reach after the children are gone).
        self.source = SourcePane(id="source")
        self.source.border_title = "source"
        self.refs = LineRefGutter(id="refs")
        self.converted = ConvertedPane(id="converted")
        self.converted.border_title = "AutoGraph (to_code)"
        self.verdict_gutter.view = lambda: pane_view(self.source)
        self.refs.view = lambda: pane_view(self.converted)
        self.panels = TabbedContent(id="panels")
        self.flow_summary = StatusLine("", wrap=True, id="flow-summary")
        self.verdicts = VerdictTable(id="verdicts")
        self.sweep_chart = SweepChart(id="sweep-chart")  # the unroll cost curve (u)
        self.doctor = DoctorTab(desk, self._device, self._doctor_label, id="doctor-panel")
        self.op_filter = OpFilter(placeholder="filter ops by type (e.g. While, MatMul)",
                                  id="op-filter")
        self.ops = OpTree(id="ops")
        # Not markup: an op's attributes hold the user's values (a Const's b'[/b]').
        self.op_detail = Static("", id="op-detail", markup=False)
        self.run_panel = RunPanel(id="run-panel")
        self.trace = TraceTab(desk, id="trace-panel")
        self.calls = CallTreeTab(desk, id="calls-panel")
        self.log_view = RichLog(id="log", wrap=True, markup=False)
        self.passes = PassesTab(desk, id="passes-panel")
        self.hlo = HloTab(desk, self._device, id="hlo-panel")

    def _device(self) -> str | None:
        return self.run_panel.device

    def _doctor_label(self, text: str) -> None:
        self.panels.get_tab("tab-doctor").label = text
        self.call_after_refresh(self.show_active_tab)  # the labels' widths changed

    def compose(self) -> ComposeResult:
        with Horizontal(id="code"):
            yield self.verdict_gutter
            yield self.source
            yield self.refs
            yield self.converted
        with self.panels:
            with TabPane("Control flow", id="tab-flow"):
                yield self.flow_summary
                yield self.verdicts
                yield self.sweep_chart
            with TabPane("Calls", id="tab-calls"):
                yield self.calls
            with TabPane("Doctor", id="tab-doctor"):
                yield self.doctor
            with TabPane("Graph", id="tab-graph"):
                yield self.op_filter
                yield self.ops
                yield self.op_detail
            with TabPane("Run", id="tab-run"):
                yield self.run_panel
            with TabPane("Trace", id="tab-trace"):
                yield self.trace
            with TabPane("Log", id="tab-log"):
                yield self.log_view
            with TabPane("Passes", id="tab-passes"):
                yield self.passes
            with TabPane("HLO", id="tab-hlo"):
                yield self.hlo

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The tabs that fill or ask only when shown are told so after the next refresh as
        well as by Show: Textual posts Show when a reflow finds a widget new on screen, and a
        layout query between the tab's switch and that reflow (the compositor rebuilding its
        map lazily) makes it not new, so no Show comes and the tab would wait for good.
        Each ``shown`` does nothing the second time."""
        for tab in (self.passes, self.hlo, self.ops, self.calls):
            if event.pane in tab.ancestors:
                self.call_after_refresh(tab.shown)
        self.call_after_refresh(self.show_active_tab)

    def show_active_tab(self) -> None:
        """The tab bar scrolled to the open tab's label (at 80 columns the labels overflow:
        a tab opened by a key, or the bar after a resize, could stay scrolled away)."""
        from textual.widgets import Tabs

        for tabs in self.panels.query(Tabs):
            if tabs.active_tab is not None:
                # Centred: the same place whatever the bar's scroll was before.
                tabs.scroll_to_widget(tabs.active_tab, animate=False, center=True)

    def set_origin(self, panel: str, header: str, stale: bool) -> None:
        """Head result panel ``panel`` ("run", "trace", "doctor") with what it was made
        from (see agexplorer.tui.code.made.Provenance)."""
        panels: dict[str, RunPanel | TraceTab | DoctorTab] = {
            "run": self.run_panel, "trace": self.trace, "doctor": self.doctor}
        panels[panel].set_origin(header, stale)

    def show_op_detail(self, text: str | Text, stale: bool) -> None:
        """The Graph tab's op detail: its header line and the op's attributes."""
        self.op_detail.update(text)
        self.op_detail.set_class(stale, "stale")

    @property
    def stale_panes(self) -> tuple:
        """The code and verdict panes, dimmed while out of date."""
        return (self.converted, self.verdicts, self.ops, self.verdict_gutter, self.refs,
                self.calls)
