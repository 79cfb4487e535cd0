"""Workspace: the code panes and the panels, mounted just after the first frame.

The first frame holds only the function list, the status line and the footer: that is
what a user reads first, and Textual paints it in about half the time the whole layout
takes (the editors, the tables and the tabs each add styling, layout and rendering). The
app mounts this container right after that frame (see ``AgxApp.on_ready``); importing it
also brings in the heavier widget modules (TextArea with tree-sitter, DataTable, Select).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, RichLog, Static, TabbedContent, TabPane

from agexplorer.tui.tabs.doctor_tab import DoctorTab
from agexplorer.tui.tabs.trace_tab import TraceTab
from agexplorer.tui.widgets.converted_pane import ConvertedPane
from agexplorer.tui.widgets.op_tree import OpTree
from agexplorer.tui.widgets.run_panel import RunPanel
from agexplorer.tui.widgets.source_pane import SourcePane
from agexplorer.tui.widgets.status_line import StatusLine
from agexplorer.tui.widgets.verdict_gutter import LineRefGutter, VerdictGutter
from agexplorer.tui.widgets.verdict_table import VerdictTable


class Workspace(Vertical):
    """Source beside converted code (with their gutters), and the Control flow, Doctor,
    Graph, Run, Trace and Log tabs."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="code"):
            yield VerdictGutter(id="gutter")
            # Titles set before mounting (not queried in on_mount, which a quit during
            # start-up can reach after the children are gone).
            source = SourcePane(id="source")
            source.border_title = "source"
            yield source
            yield LineRefGutter(id="refs")
            converted = ConvertedPane(id="converted")
            converted.border_title = "AutoGraph (to_code)"
            yield converted
        with TabbedContent(id="panels"):
            with TabPane("Control flow", id="tab-flow"):
                yield StatusLine("", id="flow-summary")
                yield VerdictTable(id="verdicts")
            with TabPane("Doctor", id="tab-doctor"):
                yield DoctorTab(id="doctor-panel")
            with TabPane("Graph", id="tab-graph"):
                yield Input(placeholder="filter ops by type (e.g. While, MatMul)", id="op-filter")
                yield OpTree(id="ops")
                yield Static("", id="op-detail")
            with TabPane("Run", id="tab-run"):
                yield RunPanel(id="run-panel")
            with TabPane("Trace", id="tab-trace"):
                yield TraceTab(id="trace-panel")
            with TabPane("Log", id="tab-log"):
                yield RichLog(id="log", wrap=True, markup=False)
