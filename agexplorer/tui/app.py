"""AgxApp: wires the picker, the code panes, the panels and the engine bridge together."""

from __future__ import annotations

import asyncio
import os
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Footer, Static

from agexplorer.core.errors import AgxError
from agexplorer.core.targets import read_source
from agexplorer.tui.bridge import EngineBridge
from agexplorer.tui.commands import ExplorerCommands
from agexplorer.tui.confirm import ConfirmQuit
from agexplorer.tui.guards import while_mounted
from agexplorer.tui.messages import AnalysisFailed, AnalysisReady, EngineStatus
from agexplorer.tui.pitfalls import PitfallsWiring
from agexplorer.tui.widgets.function_picker import FunctionPicker
from agexplorer.tui.widgets.status_line import StatusLine
from agexplorer.worker.client import Worker

# The code panes and panels (agexplorer.tui.widgets.workspace) are imported and mounted
# after the first frame, so their handlers below are named (on_input_changed, ...)
# rather than decorated with their classes, and queries go by id.




EDIT_PAUSE = 0.6  # seconds of quiet typing before re-converting
LINK_PAUSE = 0.15  # cursor moves are debounced before cross-highlighting


class AgxApp(PitfallsWiring, App):
    """The explorer: a function beside AutoGraph's version of it, its graph and its runs."""

    CSS_PATH = "app.tcss"
    TITLE = "agexplorer"
    COMMANDS = App.COMMANDS | {ExplorerCommands}
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("f5", "run", "Run"),
        Binding("r", "run", "Run", show=False),
        Binding("ctrl+s", "save", "Save"),
        Binding("alt+down", "next_function", "Next fn"),
        Binding("alt+up", "previous_function", "Prev fn"),
        Binding("n", "next_function", "Next fn", show=False),
        Binding("p", "previous_function", "Prev fn", show=False),
        Binding("t", "trace", "Trace"),
        Binding("f", "try_fix", "Try fix"),
        Binding("a", "apply_fix", "Apply fix", show=False),
        Binding("q", "quit_app", "Quit", show=False),
        Binding("ctrl+q", "quit_app", "Quit", priority=True),
    ]

    target: var[tuple[str, str] | None] = var(None)

    def __init__(self, paths: list[str], function: str | None = None,
                 worker: Worker | None = None, timeout: float = 30.0,
                 colorblind: bool = False) -> None:
        super().__init__()
        self.paths = [os.path.abspath(p) for p in paths]
        self.first_function = function
        self.bridge = EngineBridge(self, worker, timeout)
        self.report = None
        self.lab = None
        self.engine_ready = False
        self._edit_timer: asyncio.TimerHandle | None = None
        self._link_timer: Timer | None = None
        self._generation = 0
        self._analysed_text = ""
        self._relabelled: dict[str, str] = {}  # path -> the text the picker's lines are from
        self._mtime: int | None = None
        self._exiting = False
        self.colorblind = colorblind
        self.workspace_ready = False
        self._last_request: tuple[int, dict] | None = None  # (generation, request sent)
        self._early_status: list[EngineStatus] = []

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield FunctionPicker(self.paths, id="picker")
            yield Vertical(id="center")  # the Workspace goes here after the first frame
        yield StatusLine("loading TensorFlow…", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#picker", FunctionPicker).border_title = "functions"
        self.bridge.warm_up()  # TensorFlow starts loading in the worker now

    def on_ready(self) -> None:
        """The first frame (the function list) is on screen: now the rest of the layout."""
        self.call_after_refresh(self._mount_workspace)

    async def _mount_workspace(self) -> None:
        from agexplorer.tui.widgets.workspace import Workspace

        await self.query_one("#center", Vertical).mount(Workspace(id="workspace"))
        self.workspace_ready = True
        for message in self._early_status:
            self._engine_status(message)
        self._early_status.clear()
        source, converted = self.query_one("#source"), self.query_one("#converted")
        source.on_edit = self._edited
        self.watch(source, "scroll_y", lambda _: self._sync_gutter(), init=False)
        self.watch(converted, "scroll_y", lambda _: self._sync_gutter(), init=False)
        self.set_interval(1.0, self._check_disk)
        self.call_after_refresh(self._open_first)  # after the layout: goto_line centres

    def on_resize(self) -> None:
        self.call_after_refresh(self._sync_gutter)

    @while_mounted
    def _sync_gutter(self) -> None:
        source = self.query_one("#source")
        rows = source.scrollable_content_region.height
        self.query_one("#gutter").follow(int(source.scroll_y) + 1, rows)
        converted = self.query_one("#converted")
        self.query_one("#refs").follow(
            int(converted.scroll_y) + 1, converted.scrollable_content_region.height)

    def _paint_lines(self) -> None:
        """Give each source line its colour in both gutters and in the op tree."""
        report = self.report
        if report is None:
            return
        from agexplorer.render.terminal import PALETTE, VIVID, line_colors

        colors = line_colors(report, PALETTE if self.colorblind else VIVID)
        self.query_one("#gutter").set_verdicts(report.statements, colors)
        if report.conversion is not None:
            self.query_one("#refs").set_map(report.conversion.source_map, colors)
        ops = self.query_one("#ops")
        ops.shades = colors
        ops.show(report.inventory, self.query_one("#op-filter").value)
        self._sync_gutter()

    def action_toggle_palette(self) -> None:
        """Switch between the vivid and the colour-blind-safe (Okabe-Ito) line colours."""
        self.colorblind = not self.colorblind
        self._paint_lines()
        self.set_status("line colours: " + ("colour-blind safe (Okabe-Ito)" if self.colorblind
                                            else "vivid"))

    @while_mounted
    def _check_disk(self) -> None:
        """A change on disk reloads a clean buffer, or warns when the buffer has edits."""
        source = self.query_one("#source")
        if source.path is None:
            return
        try:
            mtime = os.stat(source.path).st_mtime_ns
        except OSError:
            return
        if self._mtime is None or mtime == self._mtime:
            self._mtime = mtime
            return
        self._mtime = mtime
        try:
            text = read_source(source.path)
        except AgxError as exc:
            self.set_status(exc.message, error=True)
            return
        if text == source.saved_text:
            return
        if source.dirty:
            self.set_status(f"{os.path.basename(source.path)} changed on disk; your unsaved "
                            "edits are kept (ctrl+s overwrites the file with them)", error=True)
            source.saved_text = text  # the disk now holds this; the buffer stays dirty
            return
        source.open(source.path, text)
        self.set_status(f"reloaded {os.path.basename(source.path)}: it changed on disk")
        self.analyse()

    def _open_first(self) -> None:
        picker = self.query_one("#picker", FunctionPicker)
        functions = picker.functions()
        if not functions:
            self.set_status("no functions found in " + ", ".join(self.paths), error=True)
            return
        wanted = next((f for f in functions if f[1] == self.first_function), functions[0])
        picker.select_function(*wanted)
        self.target = wanted

    # -- engine ------------------------------------------------------------------------
    def set_status(self, text: str, error: bool = False) -> None:
        """The one-line status at the bottom (an error stays until the next request)."""
        self._status_error = error
        status = self.query_one("#status", StatusLine)
        status.update(text)
        status.set_class(error, "error")

    def log_line(self, text: str) -> None:
        """Append to the Log panel."""
        self.query_one("#log").write(text)

    @on(EngineStatus)
    @while_mounted
    def _engine_status(self, message: EngineStatus) -> None:
        if not self.workspace_ready:
            self._early_status.append(message)  # replayed once the panels exist
            return
        self.engine_ready = self.engine_ready or message.ready
        if message.devices:
            self.query_one("#run-panel").set_devices(message.devices)
        if message.ready and getattr(self, "_status_error", False):
            return  # keep the error on screen; "ready" is implied
        self.set_status(message.text)
        if message.text not in ("ready",) and not message.text.endswith("…"):
            self.log_line(message.text)

    @while_mounted
    def analyse(self, run: bool = False, call: str | None = None) -> None:
        """Ask the worker for the current function (the buffer if it has unsaved edits).

        The arguments are those typed in the Run tab, else the function's ready inputs.
        """
        if self.target is None:
            return
        if call is None:
            call = self.query_one("#run-panel").query_one("#call").value.strip() or None
        path, qualname = self.target
        source = self.query_one("#source")
        self._analysed_text = source.text
        self._generation += 1
        key = (path, qualname, self._generation)
        panel = self.query_one("#run-panel")
        request = {"target": f"{path}::{qualname}", "call": call, "no_run": not run,
                   "budget": 0.5, "source": source.text if source.dirty else None,
                   "device": panel.device}
        if run:
            panel.remember(call)
        what = f"running {qualname}" if run else f"tracing {qualname}"
        self.set_status(what + "…")
        if run:
            self.query_one("#run-panel").note(f"{what}…")
        self._last_request = (self._generation, request)
        self.bridge.analyse(key, request, path, what)

    @on(AnalysisReady)
    def _analysis_ready(self, message: AnalysisReady) -> None:
        from agexplorer.tui.widgets.verdict_table import flow_summary  # loaded with the panes

        if message.key[2] != self._generation or not self.is_running:
            return
        first = self.report is None  # a function just opened: link its cursor line, once
        report, self.report = message.report, message.report
        # The doctor reads the trace the worker just made, once these panes are painted.
        sent = self._last_request
        self.call_after_refresh(self.ask_doctor, message.key,
                                sent[1] if sent and sent[0] == message.key[2] else None)
        self.call_after_refresh(self._relabel_functions, report.file)
        if first:
            self.call_after_refresh(self._link_from_source)
        for pane in ("#converted", "#verdicts", "#ops", "#gutter", "#refs"):
            self.query_one(pane).remove_class("stale")
        converted = self.query_one("#converted")
        converted.show_code(report.conversion.code if report.conversion else "")
        self.query_one("#verdicts").show(report.statements)
        self.query_one("#flow-summary", StatusLine).update(
            flow_summary(report.function, report.statements, report.error is not None))
        self._paint_lines()
        picker = self.query_one("#picker", FunctionPicker)
        picker.set_badge(report.file, report.function, self._badge(report))
        if report.output:
            self.log_line(f"printed while tracing {report.function}:\n{report.output.rstrip()}")
        if report.log:
            self.log_line(report.log)
        if report.error is not None:
            text = report.error.message
            if report.error.kind == "needs-arguments":
                text += " Type them in the Run tab and press F5."
            self.set_status(text, error=True)
            self.log_line(text)
        if message.lab is not None:
            self.lab = message.lab
            self.query_one("#run-panel").show(message.lab)

    @on(AnalysisFailed)
    def _analysis_failed(self, message: AnalysisFailed) -> None:
        if message.key[2] != self._generation or not self.is_running:
            return
        error: AgxError = message.error
        for pane in ("#converted", "#verdicts", "#ops", "#gutter", "#refs"):
            self.query_one(pane).add_class("stale")  # the last good results stay, dimmed
        self.set_status(error.message, error=True)
        self.log_line(error.message)
        self.query_one("#run-panel").note(error.message)
        if error.kind != "syntax-error" and self.target:
            self.query_one("#picker", FunctionPicker).set_badge(*self.target, "[red]failed[/]")
            self.call_after_refresh(self._relabel_functions, self.target[0])  # e.g. renamed

    @staticmethod
    def _badge(report) -> str:
        if report.error is not None:
            return "[red]failed[/]"
        unrolled = [v for v in report.statements if v.verdict == "python" and v.kind != "if"]
        if unrolled:
            return f"[yellow]unrolled x{max(v.iterations or 0 for v in unrolled)}[/]"
        if any(v.verdict == "staged" for v in report.statements):
            return "[green]staged[/]"
        return ""

    # -- the current function ----------------------------------------------------------
    def watch_target(self, old: tuple[str, str] | None, new: tuple[str, str] | None) -> None:
        if new is None:
            return
        source = self.query_one("#source")
        if old is None or old[0] != new[0]:
            try:
                source.open(new[0], read_source(new[0]))
                self._mtime = os.stat(new[0]).st_mtime_ns
            except (AgxError, OSError) as exc:
                self.set_status(getattr(exc, "message", str(exc)), error=True)
                return
        source.border_title = f"{os.path.basename(new[0])} :: {new[1]}"
        self.report = None
        self.analyse()
        line = self._def_line(new)
        if line:
            # A file just loaded has no scroll size until the next refresh: centre then.
            self.call_after_refresh(source.goto_line, line)

    @while_mounted
    def _relabel_functions(self, path: str) -> None:
        """The picker follows the analysed buffer: line numbers, functions added or renamed
        (run after the answer's frame)."""
        text = self._analysed_text
        if self.target is None or self.target[0] != path or text == self._relabelled.get(path):
            return
        self._relabelled[path] = text
        functions = self._functions_in(path, text)
        if functions is None:
            return
        picker = self.query_one("#picker", FunctionPicker)
        if picker.update_functions(path, functions) and self.target in picker.functions():
            self.call_after_refresh(picker.select_function, *self.target)  # once laid out

    @staticmethod
    def _functions_in(path: str, text: str) -> list | None:
        """The functions of ``text`` (the buffer of ``path``); None when it does not parse."""
        from agexplorer.core.targets import list_functions, parse_source

        try:
            return list_functions(parse_source(path, text))
        except AgxError:
            return None

    def _def_line(self, target: tuple[str, str]) -> int | None:
        functions = self._functions_in(target[0], self.query_one("#source").text) or []
        return next((f.line for f in functions if f.qualname == target[1]), None)

    @on(FunctionPicker.Picked)
    @while_mounted
    def _picked(self, message: FunctionPicker.Picked) -> None:
        if self.target and self.target[0] != message.path:
            source = self.query_one("#source")
            if source.dirty:
                self.set_status(f"save or undo the edits to {os.path.basename(self.target[0])} "
                                "before opening another file (ctrl+s saves)", error=True)
                return
        self.target = (message.path, message.qualname)

    # -- linking -------------------------------------------------------------------------
    # A cursor the user moves (its pane has the focus) highlights the same source line
    # everywhere else: the source's cursor line, the converted lines it produced, its
    # verdict row and its first op, each scrolled into view. Moves made by the linking
    # itself land in unfocused panes and go no further.
    def on_text_area_selection_changed(self, event) -> None:
        if not event.text_area.has_focus:
            return
        if event.text_area.id == "source":
            self._source_cursor()
        elif event.text_area.id == "converted":
            self._converted_cursor()

    def _source_cursor(self) -> None:
        if self._link_timer is not None:
            self._link_timer.stop()
        self._link_timer = self.set_timer(LINK_PAUSE, self._link_from_source)

    @while_mounted
    def _link_from_source(self) -> None:
        self._link_line(self.query_one("#source").cursor_location[0] + 1, "source")

    @while_mounted
    def _converted_cursor(self) -> None:
        report = self.report
        converted = self.query_one("#converted")
        if report is None or report.conversion is None:
            return
        lines = report.conversion.source_lines_for(converted.cursor_location[0] + 1)
        if lines:
            self._link_line(lines[0], "converted")

    def _link_line(self, line: int, origin: str) -> None:
        """Highlight source ``line``'s counterparts in every pane but ``origin``."""
        report = self.report
        if report is None:
            return
        if origin != "source":
            self.query_one("#source").goto_line(line)  # its cursor line shows, focused or not
        if origin != "converted" and report.conversion is not None:
            self.query_one("#converted").show_lines(report.conversion.converted_lines_for(line))
        if origin != "verdicts":
            self.query_one("#verdicts").select_line(line)
        if origin != "ops":
            self.query_one("#ops").select_line(line)

    def on_data_table_row_highlighted(self, event) -> None:
        if event.data_table.id == "verdicts" and event.data_table.has_focus:
            self._link_line(int(event.row_key.value), "verdicts")

    def on_input_changed(self, event) -> None:
        if event.input.id != "op-filter":
            return
        ops = self.query_one("#ops")
        ops.show(ops.inventory, event.value)

    def on_verdict_table_jump(self, message) -> None:
        source = self.query_one("#source")
        source.goto_line(message.line)
        source.focus()

    @while_mounted
    def on_tree_node_highlighted(self, event) -> None:
        if event.control.id != "ops" or event.node.data is None:
            return
        ops, op = self.query_one("#ops"), event.node.data
        self._show_op_detail(op, "…")
        if ops.has_focus and op.line:
            self._link_line(op.line, "ops")
        sent = self._last_request
        if sent is not None and self.target is not None:
            # Read from the trace in the worker: reading every op's attributes up front
            # would cost more than the whole op inventory.
            request = {k: sent[1][k] for k in ("target", "call", "source")}
            self.bridge.ask("op_attributes", (*self.target, sent[0], op.function, op.name),
                            {**request, "function": op.function, "name": op.name},
                            self.target[0], f"reading {op.name}")

    def show_op_attributes(self, message) -> None:
        """The worker's answer for the highlighted op (ignored if another op is highlighted)."""
        node = self.query_one("#ops").cursor_node
        op = node.data if node is not None else None
        if op is None or (op.function, op.name) != message.key[3:]:
            return
        if message.error is not None:
            self._show_op_detail(op, f"({message.error.message})")
        else:
            self._show_op_detail(op, ", ".join(f"{k}={v}" for k, v in message.value) or "none")

    def _show_op_detail(self, op, attributes: str) -> None:
        self.query_one("#op-detail", Static).update(
            f"{self.query_one('#ops').describe(op)}\nattributes: {attributes}")

    # -- editing -------------------------------------------------------------------------
    def _edited(self) -> None:
        if self._edit_timer is not None:
            self._edit_timer.cancel()
        # The event loop's own timer calls back on time; a Textual timer posts a message
        # that waits behind the edit's repaint (measured ~15 ms late).
        self._edit_timer = asyncio.get_running_loop().call_later(
            EDIT_PAUSE, self._reanalyse_if_changed)

    @while_mounted
    def _reanalyse_if_changed(self) -> None:
        # Loading a file fires Changed too; only a real edit re-converts.
        if self.query_one("#source").text != self._analysed_text:
            self.analyse()

    # -- actions -------------------------------------------------------------------------
    @while_mounted
    def action_run(self) -> None:
        self.query_one("#panels").active = "tab-run"
        self.analyse(run=True)

    def on_run_panel_run_requested(self, message) -> None:
        self.analyse(run=True, call=message.call)

    @while_mounted
    def action_save(self) -> None:
        source = self.query_one("#source")
        try:
            source.save()
            self._mtime = os.stat(source.path).st_mtime_ns if source.path else None
        except OSError as exc:
            self.set_status(f"could not save {source.path}: {exc.strerror}; the buffer is kept.",
                            error=True)
            return
        self.set_status(f"saved {source.path}")

    @while_mounted
    def _step_function(self, step: int) -> None:
        picker = self.query_one("#picker", FunctionPicker)
        functions = picker.functions()
        if not functions or self.target is None:
            return
        index = functions.index(self.target) if self.target in functions else -1
        path, qualname = functions[(index + step) % len(functions)]
        picker.select_function(path, qualname)
        self.post_message(FunctionPicker.Picked(path, qualname))

    def action_next_function(self) -> None:
        self._step_function(1)

    def action_previous_function(self) -> None:
        self._step_function(-1)

    def action_quit_app(self) -> None:
        if not self.workspace_ready:
            self.exit()  # nothing to lose yet
            return
        source = self.query_one("#source")
        if not source.dirty:
            self.exit()
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                self.action_save()
                if not source.dirty:
                    self.exit()
            elif choice == "discard":
                self.exit()

        self.push_screen(ConfirmQuit(source.path or "the buffer"), decided)

    def exit(self, *args, **kwargs) -> None:
        """Textual's exit, remembered so that racing handlers can stand down."""
        self._exiting = True
        super().exit(*args, **kwargs)

    def on_unmount(self) -> None:
        self._exiting = True
        if self._edit_timer is not None:
            self._edit_timer.cancel()
        self.bridge.close()
