"""The app as its key actions see it: the parts AgxApp is made of and the few methods its
actions call, typed. Under TYPE_CHECKING this is the base of the action mixins (keys.py's
KeyActions, compare/actions.py's CompareActions), so mypy checks every action against what
the app really holds; at run time the base is ``object`` (a second App base would be a
second App). tests/tui/test_parts.py checks that AgxApp has each name declared here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App
    from textual.widgets import Input

    from agexplorer.model.report import Report
    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.tui.buffer.safety import SafetyNet
    from agexplorer.tui.code.editing import Editing
    from agexplorer.tui.code.source_pane import SourcePane
    from agexplorer.tui.doctor.tab import DoctorTab
    from agexplorer.tui.functions.navigation import Navigation
    from agexplorer.tui.requests import Requests
    from agexplorer.tui.run.panel import RunPanel
    from agexplorer.tui.state import ExplorerState, Target
    from agexplorer.tui.trace.tab import TraceTab
    from agexplorer.tui.workspace import Workspace

    class ExplorerApp(App[None]):
        """AgxApp's parts and the methods its actions call."""

        bridge: EngineBridge
        state: ExplorerState
        safety: SafetyNet
        navigation: Navigation
        editing: Editing
        requests: Requests
        workspace_ready: bool

        @property
        def target(self) -> Target | None: ...

        @property
        def generation(self) -> int: ...

        @property
        def report(self) -> Report | None: ...

        @property
        def panes(self) -> Workspace: ...

        @property
        def source(self) -> SourcePane: ...

        @property
        def run_panel(self) -> RunPanel: ...

        @property
        def doctor_tab(self) -> DoctorTab: ...

        @property
        def trace_tab(self) -> TraceTab: ...

        @property
        def call_input(self) -> Input: ...

        def set_status(self, text: str, error: bool = False) -> None: ...

        def announce(self, text: str, error: bool = True) -> None: ...

        def analyse(self, run: bool = False, call: str | None = None) -> None: ...
else:
    ExplorerApp = object
