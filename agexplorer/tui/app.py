"""AgxApp: wires the picker, the code panes, the panels and the engine bridge together."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import suppress
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widget import MountError
from textual.widgets import Footer

from agexplorer.tui import keys, textual_patches, textual_render, wiring
from agexplorer.tui.commands import ExplorerCommands
from agexplorer.tui.compare.actions import CompareActions
from agexplorer.tui.functions.listing import ListSkeleton, list_file
from agexplorer.tui.guards import while_mounted
from agexplorer.tui.keys import KeyActions
from agexplorer.tui.layout import LayoutApp, add_workspace_css, fit_controls, fit_tour, preset_breakpoints
from agexplorer.tui.status_line import StatusLine

if TYPE_CHECKING:
    from textual.widgets import Input, RichLog

    from agexplorer.tui.code.source_pane import SourcePane
    from agexplorer.tui.doctor.tab import DoctorTab
    from agexplorer.tui.functions.picker import FunctionPicker
    from agexplorer.tui.messages import (
        AnalysisFailed,
        AnalysisReady,
        BufferRequest,
        ConversionReady,
        EngineAnswer,
        EngineStatus,
        WorkerNotice,
    )
    from agexplorer.tui.run.panel import RunPanel
    from agexplorer.tui.trace.tab import TraceTab
    from agexplorer.tui.workspace import Workspace
    from agexplorer.worker.client import Worker
    from agexplorer.worker.interpreter import Interpreter

RELABEL_DELAY = 0.03  # seconds after an answer before the function list follows its buffer

# The code panes and panels (agexplorer.tui.workspace) are imported and mounted after the
# first frame, and the parts and messages are imported after it (wiring.py), so their
# handlers below are named (on_input_changed, on_analysis_ready, ...) rather than decorated
# with their classes, and the typed lookups import them late.


class AgxApp(KeyActions, CompareActions, LayoutApp):
    """The explorer: a function beside AutoGraph's version of it, its graph and its runs."""

    CSS_PATH = "app.tcss"
    TITLE = "agexplorer"
    COMMANDS = App.COMMANDS | {ExplorerCommands}
    BINDINGS: ClassVar[list[BindingType]] = keys.BINDINGS  # the keys and their actions: keys.py
    started: Callable[[], None] = staticmethod(lambda: None)  # the panes are in: start-up over
    # The parts, each made on first use (all of them just after the first frame): wiring.py.
    bridge = cached_property(wiring.bridge)  # the worker given, or made with --python's choice
    state = cached_property(wiring.state)  # the function shown, its analyses and their answers
    status = cached_property(wiring.status)
    safety = cached_property(wiring.safety)
    ending = cached_property(wiring.ending)
    disk = cached_property(wiring.disk)
    provenance = cached_property(wiring.provenance)
    linking = cached_property(wiring.linking)
    op_detail = cached_property(wiring.op_detail)
    results = cached_property(wiring.results)
    editing = cached_property(wiring.editing)
    requests = cached_property(wiring.requests)
    navigation = cached_property(wiring.navigation)
    desk = cached_property(wiring.desk)

    def __init__(self, paths: list[str], function: str | None = None,
                 worker: Worker | None = None, timeout: float = 30.0,
                 colorblind: bool = False, python: Interpreter | None = None,
                 user_code: tuple[str, ...] = (), program: Any = None) -> None:
        super().__init__()
        self.paths = [os.path.abspath(p) for p in paths]
        self.first_function, self.program = function, program  # opens first: Program, Opening
        self.user_code = user_code  # --user-code folders, sent with every report request
        self.worker_given, self.worker_timeout, self.worker_python = worker, timeout, python
        self.status_line = StatusLine("loading TensorFlow…", id="status")
        self.engine_ready = False
        self.colorblind = colorblind
        self.workspace_ready = False
        self.exiting = False  # racing handlers (timers, answers) stand down
        self._mounting = False  # the workspace is being mounted (just after the first frame)
        self._deferred_exit: tuple[tuple, dict] | None = None
        self._early_status: list[EngineStatus] = []
        self._workspace: Workspace | None = None  # held: found whichever screen is on top

    # -- the panes, found by type (imported with the workspace, after the first frame);
    # the desk is what the tabs ask through (the workspace hands it to them) -------------
    @property
    def panes(self) -> Workspace:
        """Every pane and panel, as typed attributes (mounted after the first frame)."""
        from agexplorer.tui.workspace import Workspace
        return self.query_one(Workspace)

    # Shorthands for the panes the parts use most.
    @property
    def source(self) -> SourcePane:
        return self.panes.source
    @property
    def run_panel(self) -> RunPanel:
        return self.panes.run_panel
    @property
    def doctor_tab(self) -> DoctorTab:
        return self.panes.doctor
    @property
    def trace_tab(self) -> TraceTab:
        return self.panes.trace

    def mounted_panes(self) -> Workspace | None:
        """The panes, or None before they are mounted (just after the first frame) and
        while the app ends: what a part given them asks for each time it draws."""
        if not self.workspace_ready or self.exiting or not self.is_running:
            return None
        try:
            return self.panes
        except NoMatches:
            return None

    def log_view(self) -> RichLog | None:
        return panes.log_view if (panes := self.mounted_panes()) is not None else None

    def picker(self) -> FunctionPicker | None:
        """The function list (None until just after the first frame, and as the app ends)."""
        from agexplorer.tui.functions.picker import FunctionPicker  # (after the first frame)
        return next(iter(self.query(FunctionPicker)), None) if self.is_running else None

    def open_first(self) -> None:
        """The workspace is in: open the first function (or the recorded run's program
        view), then replay the keys pressed meanwhile."""
        if self.program is not None:  # a recorded run opens on its program view
            return self.program.open(self)
        if self.navigation.open_first(self.first_function):
            self.replay_keys()

    def kept_buffer(self) -> SourcePane | None:
        """The source pane once mounted, also as the app ends and under a dialog or the program
        view (a query finds the top screen only): the safety net keeps its buffer then."""
        return self._workspace.source if self.workspace_ready and self._workspace else None

    def mounted_source(self) -> SourcePane | None:
        """The source pane, or None while the panes are not mounted (see mounted_panes)."""
        return None if (panes := self.mounted_panes()) is None else panes.source

    @property
    def call_input(self) -> Input:
        """The Run tab's call (its arguments)."""
        return self.run_panel.call_input

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        preset_breakpoints(self)  # before the widgets are styled: styled once, not twice
        with Horizontal(id="main"):
            # The list as lines; its Tree, then the centre, come after the frame (listing.py).
            yield ListSkeleton([list_file(path, calls=False) for path in self.paths],
                               id="skeleton", classes="function-list")
        yield self.status_line
        yield Footer()

    def on_mount(self) -> None:
        self.ending.catch()

    async def on_ready(self) -> None:
        """The first frame (the function list's lines) is on screen: now the app's parts are
        made (wiring.py), the worker starts (TensorFlow loads meanwhile), the list's Tree
        takes its lines' place, then the rest of the layout comes."""
        for part in wiring.PARTS:
            getattr(self, part)
        self.bridge.warm_up()
        from agexplorer.tui.functions.picker import in_place_of
        with suppress(NoMatches):  # (none: the app is ending)
            if (picker := await in_place_of(self.query_one(ListSkeleton))) is not None:
                self.state.subscribe(picker)  # its badges follow the answers
        self.call_after_refresh(self._mount_workspace)

    async def _mount_workspace(self) -> None:
        from agexplorer.tui.workspace import Workspace

        if self.exiting or not self.is_running:
            return  # quit before the first frame's layout was complete
        self._mounting = True
        try:
            add_workspace_css(self)
            self._workspace = Workspace(self.desk, id="workspace")
            await self.query_one("#main").mount(Vertical(self._workspace, id="center"))
        except (NoMatches, MountError):
            return  # torn down while mounting
        finally:
            self._mounting = False
        if self._deferred_exit is not None:  # a quit pressed during the mount: now it can go
            args, kwargs = self._deferred_exit
            super().exit(*args, **kwargs)
            return
        if self.exiting or not self.is_running:
            return
        self.workspace_ready = True
        fit_controls(self)
        for message in self._early_status:
            self.on_engine_status(message)
        self._early_status.clear()
        panes = self.panes
        # The panes that show an answer themselves (the Passes and HLO tabs subscribed as
        # they mounted), then the parts whose share of an answer is the app's.
        for pane in (panes.converted, panes.verdicts, panes.calls, panes.run_panel,
                     panes.doctor, panes.trace, self.results, self.provenance, self.status):
            self.state.subscribe(pane)
        source, converted = self.source, panes.converted
        source.on_edit = self.editing.edited
        source.on_moved = self.state.lines_moved  # the marks follow their code
        source.leave_first = self.back_to_tour
        self.watch(source, "scroll_y", lambda _: self.sync_gutter(), init=False)
        self.watch(converted, "scroll_y", lambda _: self.sync_gutter(), init=False)
        self.set_interval(1.0, self._check_disk)
        self.call_after_refresh(self.open_first)  # after the layout: goto_line centres
        self.started()

    def on_resize(self) -> None:
        self.call_after_refresh(self.sync_gutter)
        self.call_after_refresh(fit_tour, self)  # the tour's room, then the controls

    @while_mounted
    def sync_gutter(self) -> None:
        self.linking.sync_gutters()

    def action_toggle_palette(self) -> None:
        """Switch between the vivid and the colour-blind-safe (Okabe-Ito) line colours."""
        self.colorblind = not self.colorblind
        self.results.paint_lines()
        self.set_status("line colours: " + ("colour-blind safe (Okabe-Ito)" if self.colorblind
                                            else "vivid"))

    @while_mounted
    def _check_disk(self) -> None:
        self.disk.check(self.source)

    # -- engine ------------------------------------------------------------------------
    def set_status(self, text: str, error: bool = False) -> None:
        """The one-line status at the bottom (an error stays until the next request)."""
        self.status.set(text, error)

    def announce(self, text: str, error: bool = True) -> None:
        """A notice said now, again in place of each "ready" until the next analysis or
        save, and in the Log."""
        self.status.announce(text, error)

    def log_line(self, text: str | None = None) -> None:
        """Append to the Log panel, under a header naming the function and call analysed."""
        self.status.log(text)

    @while_mounted
    def on_worker_notice(self, message: WorkerNotice) -> None:
        if self.workspace_ready:
            self.announce(message.text)

    @while_mounted
    def on_engine_status(self, message: EngineStatus) -> None:
        if not self.workspace_ready:
            self._early_status.append(message)  # replayed once the panels exist
            return
        self.engine_ready = self.engine_ready or message.ready
        if message.devices:
            self.run_panel.set_devices(message.devices)
        self.status.engine(message)

    def buffer_request(self) -> BufferRequest | None:
        """What a tab's request is about: the current function, call and unsaved buffer."""
        return self.requests.buffer()

    @while_mounted
    def analyse(self, run: bool = False, call: str | None = None,
                tensorboard: str | None = None) -> None:
        """Ask the worker for the current function (the buffer if it has unsaved edits);
        the arguments are those typed in the Run tab, else the function's ready inputs;
        ``tensorboard``: the run also writes the graph's TensorBoard log there."""
        self.requests.analyse(run, call, tensorboard)

    def on_conversion_ready(self, message: ConversionReady) -> None:
        if self.is_running and self.state.converted(message.key, message.conversion):
            textual_render.draw_soon(self.screen)  # drawn while the function is traced

    def on_analysis_ready(self, message: AnalysisReady) -> None:
        # The panes, then Results, react to the state's ReportChanged.
        if self.is_running and self.state.answer(message.key, message.report, message.lab):
            textual_render.draw_soon(self.screen)

    def on_analysis_failed(self, message: AnalysisFailed) -> None:
        if self.is_running:
            self.state.fail(message.key, message.error)

    @while_mounted
    def on_engine_answer(self, message: EngineAnswer) -> None:
        self.requests.answered(message)

    # -- the current function ----------------------------------------------------------
    def relabel_functions(self, path: str) -> None:
        """The picker follows the analysed buffer, a moment after the answer: its parse of
        the buffer (~1-3 ms) ran in the screen's first idle after the answer, which could
        come before the answer's changed rows had told the screen, and held back their
        frame."""
        self.set_timer(RELABEL_DELAY, lambda: self._relabel(path))

    @while_mounted
    def _relabel(self, path: str) -> None:
        self.navigation.relabel(path)

    @while_mounted
    def on_function_picker_picked(self, message: FunctionPicker.Picked) -> None:
        self.navigation.picked(message)

    # -- the panes' events (the workspace's classes load late: handlers go by name) ------
    def on_text_area_selection_changed(self, event: Any) -> None:
        self.linking.selection_changed(event.text_area)

    # (The explorer's own table, told by its id: no query while the workspace is torn down.)
    def on_verdict_table_highlighted(self, message: Any) -> None:
        if message.table.id == "verdicts" and message.table.has_focus:
            self.linking.buffer_line(message.line, "verdicts")

    def on_input_changed(self, event: Any) -> None:
        from agexplorer.tui.graph.op_tree import OpFilter
        if isinstance(event.input, OpFilter):
            ops = self.panes.ops
            ops.show(ops.inventory, event.value)
        elif event.input.id == "call" and self.workspace_ready and event.input is self.call_input:
            self.state.call_changed()

    def on_verdict_table_jump(self, message: Any) -> None:
        self._edit_at(message.line)  # (the table shows each line where it is now)

    def on_doctor_panel_jump(self, message: Any) -> None:
        # A finding names a line of the report's buffer: where an edit since moved it.
        line = self.state.moves.now(message.line)
        if line is not None:
            self._edit_at(line)

    def _edit_at(self, line: int) -> None:
        source = self.source
        source.goto_line(line)
        source.focus()

    @while_mounted
    def on_tree_node_highlighted(self, event: Any) -> None:
        if event.control.id == "picker":  # the function list: opens after a pause in the moving
            self.navigation.highlighted(event.node.data)
            return
        from agexplorer.tui.graph.op_tree import OpTree
        if isinstance(event.control, OpTree) and event.node.data is not None:
            if not event.control.holds(event.node):
                # A highlight queued before the tree was filled again (another function's
                # ops): its op is gone, and its detail would stand under the new header.
                return
            self.op_detail.highlighted(event.node.data, self.panes.ops.has_focus)

    def on_run_panel_run_requested(self, message: Any) -> None:
        self.analyse(run=True, call=message.call)

    # -- ending --------------------------------------------------------------------------
    def exit(self, *args: Any, **kwargs: Any) -> None:
        """Textual's exit, remembered so that racing handlers can stand down; an unsaved
        buffer (not discarded) is kept in its recovery copy."""
        self.exiting = True
        self.safety.keep_unsaved()
        if self._mounting:
            # Textual's widgets (Select, the panels) fail when removed half-mounted: a quit in
            # the first moment waits the few frames until the workspace is in.
            self._deferred_exit = (args, kwargs)
            return
        super().exit(*args, **kwargs)

    def on_unmount(self) -> None:
        self.exiting = True
        self.editing.stop()
        self.safety.keep_unsaved()  # however the app ends, an unsaved buffer is not lost
        self.ending.release()
        self.bridge.close()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Textual's run; a last-resort exit timer set by a signal ends with it."""
        try:
            return super().run(*args, **kwargs)
        finally:
            self.ending.ended()


# Textual's path for an unexpected exception (the app ends): the unsaved buffer goes to its
# recovery copy first.
textual_patches.install_crash_hook(AgxApp, lambda app: app.safety.keep_unsaved())  # type: ignore[attr-defined]

