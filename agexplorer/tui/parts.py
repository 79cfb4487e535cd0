"""The app as its key actions see it: the parts AgxApp is made of and the few methods its
actions call, typed. Under TYPE_CHECKING this is the base of the action mixins (keys.py's
KeyActions, compare/actions.py's CompareActions), so mypy checks every action against what
the app really holds; at run time the base is ``object`` (a second App base would be a
second App). The features that drive the whole explorer (the tour, the program view's
explore, the layout keys) take this type too, never AgxApp: what they may touch is declared
here. tests/tui/test_parts.py checks that AgxApp has each name declared here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App
    from textual.widgets import Input

    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.tui.buffer.safety import SafetyNet
    from agexplorer.tui.code.editing import Editing
    from agexplorer.tui.code.linking import Linking
    from agexplorer.tui.code.made import Provenance
    from agexplorer.tui.code.source_pane import SourcePane
    from agexplorer.tui.doctor.tab import DoctorTab
    from agexplorer.tui.functions.navigation import Navigation
    from agexplorer.tui.messages import BufferRequest
    from agexplorer.tui.program.actions import Program
    from agexplorer.tui.requests import Requests
    from agexplorer.tui.run.panel import RunPanel
    from agexplorer.tui.state import ExplorerState
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
        provenance: Provenance
        linking: Linking
        program: Program | None  # the recorded run the explorer opened on (agexplorer LOG)
        workspace_ready: bool

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

        def analyse(self, run: bool = False, call: str | None = None,
                    tensorboard: str | None = None) -> None: ...

        def buffer_request(self) -> BufferRequest | None: ...

        def open_first(self) -> None: ...

        def sync_gutter(self) -> None: ...

        def action_run(self) -> None: ...

        def action_trace(self) -> None: ...
else:
    ExplorerApp = object
