"""AgxApp: wires the picker, the code panes, the panels and the engine bridge together."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.reactive import var
from textual.timer import Timer
from textual.widget import MountError
from textual.widgets import Footer, Static

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file
from agexplorer.tui import recovery
from agexplorer.tui.bridge import EngineBridge
from agexplorer.tui.commands import ExplorerCommands
from agexplorer.tui.confirm import ConfirmQuit
from agexplorer.tui.guards import while_mounted
from agexplorer.tui.made import Made, call_label
from agexplorer.tui.messages import AnalysisFailed, AnalysisReady, EngineStatus, WorkerNotice
from agexplorer.tui.pitfalls import PitfallsWiring
from agexplorer.tui.widgets.function_picker import FunctionPicker
from agexplorer.tui.widgets.status_line import StatusLine
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import OpAttributesRequest, ReportRequest

# The code panes and panels (agexplorer.tui.widgets.workspace) are imported and mounted
# after the first frame, so their handlers below are named (on_input_changed, ...)
# rather than decorated with their classes, and queries go by id.

EDIT_PAUSE = 0.6  # seconds of quiet typing before re-converting
LINK_PAUSE = 0.15  # cursor moves are debounced before cross-highlighting
PANES = ("#converted", "#verdicts", "#ops", "#gutter", "#refs")  # dimmed when out of date


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
        Binding("ctrl+t", "double_timeout", "Timeout x2", show=False),
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
        self._mounting = False  # the workspace is being mounted (just after the first frame)
        self._deferred_exit: tuple[tuple, dict] | None = None
        self._last_request: tuple[int, ReportRequest] | None = None  # (generation, request sent)
        self._early_status: list[EngineStatus] = []
        self._status_error = False
        # (text, error): a notice shown again in place of the "ready" that ends the request
        # under way (a new request lets it go)
        self._sticky: tuple[str, bool] | None = None
        self._made: dict[str, Made] = {}  # result panel -> what it shows was made from
        self._marked: dict[str, tuple] = {}  # result panel -> (made, stale) as last drawn
        self._log_header: tuple | None = None  # the analysis the Log's last header names
        self._op_detail: str | None = None  # the op detail's text, below its header
        self._report_text = ""  # the buffer self.report was made from
        self.recovery = recovery.RecoveryKeeper(
            on_error=lambda text: self.post_message(WorkerNotice(text)))
        self._discarded = False  # "Quit without saving": the recovery copy goes too
        self._signals: list[tuple[int, object]] = []  # (signal, the handler it replaced)
        self.exit_note: str | None = None  # printed by the command line after the app ends
        self._last_resort: threading.Timer | None = None
        self._set_timeout_hint()

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
        self._catch_signals()

    def on_ready(self) -> None:
        """The first frame (the function list) is on screen: now the rest of the layout."""
        self.call_after_refresh(self._mount_workspace)

    async def _mount_workspace(self) -> None:
        from agexplorer.tui.widgets.workspace import Workspace

        if self._exiting or not self.is_running:
            return  # quit before the first frame's layout was complete
        self._mounting = True
        try:
            await self.query_one("#center", Vertical).mount(Workspace(id="workspace"))
        except (NoMatches, MountError):
            return  # torn down while mounting
        finally:
            self._mounting = False
        if self._deferred_exit is not None:  # a quit pressed during the mount: now it can go
            args, kwargs = self._deferred_exit
            super().exit(*args, **kwargs)
            return
        if self._exiting or not self.is_running:
            return
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
        """A change on disk reloads a clean buffer, or warns when the buffer has edits; a
        deleted file is announced (the buffer is then unsaved: ctrl+s writes it again)."""
        source = self.query_one("#source")
        if source.path is None:
            return
        name = os.path.basename(source.path)
        try:
            mtime = os.stat(source.path).st_mtime_ns
        except FileNotFoundError:
            if not source.missing:
                source.missing = True  # quitting now asks first; the buffer is all there is
                self._mtime = None
                self.announce(f"{name} was deleted on disk: ctrl+s writes it again")
                self.recovery.keep(source.path, source.text)
            return
        except OSError:
            return
        if source.missing:  # back on disk (restored, or written by another program)
            source.missing = False
            self._mtime = -1  # compared with the buffer below, like any change on disk
        if self._mtime is None or mtime == self._mtime:
            self._mtime = mtime
            return
        self._mtime = mtime
        try:
            read = read_source_file(source.path)
        except AgxError as exc:
            self.set_status(exc.message, error=True)
            return
        text = read.text
        source.source_file = read
        if text == source.saved_text:
            return
        if source.dirty:
            self.set_status(f"{name} changed on disk; your unsaved "
                            "edits are kept (ctrl+s overwrites the file with them)", error=True)
            source.saved_text = text  # the disk now holds this; the buffer stays dirty
            return
        source.open(source.path, text, read)
        self.set_status(f"reloaded {name}: it changed on disk")
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

    def announce(self, text: str, error: bool = True) -> None:
        """A notice that must be read (a worker replaced, edits restored, a file deleted):
        in the status line now and again in place of the next "ready", and in the Log."""
        self._sticky = (text, error)
        self.set_status(text, error=error)
        self.log_line(text)

    def log_line(self, text: str | None = None) -> None:
        """Append to the Log panel, under a header naming the function and call analysed
        (written once per analysis that logs something; ``text`` None: only the header)."""
        log = self.query_one("#log")
        sent = self._last_request
        key = (self.target, sent[0] if sent else None)
        if self.target is not None and key != self._log_header:
            self._log_header = key
            label = call_label(self.target[1], sent[1].call if sent else None)
            log.write(f"── {label} · {time.strftime('%H:%M:%S')} ──")
        if text is not None:
            log.write(text)

    @on(WorkerNotice)
    @while_mounted
    def _worker_notice(self, message: WorkerNotice) -> None:
        if self.workspace_ready:
            self.announce(message.text)

    @on(EngineStatus)
    @while_mounted
    def _engine_status(self, message: EngineStatus) -> None:
        if not self.workspace_ready:
            self._early_status.append(message)  # replayed once the panels exist
            return
        self.engine_ready = self.engine_ready or message.ready
        if message.devices:
            self.query_one("#run-panel").set_devices(message.devices)
        if message.ready and self._sticky is not None:
            text, error = self._sticky
            if not self._status_error or self.query_one("#status").text == text:
                self.set_status(text, error=error)  # said once more, then let go
            self._sticky = None
            return
        if message.ready and self._status_error:
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
        request = ReportRequest(f"{path}::{qualname}", call=call, no_run=not run, budget=0.5,
                                source=source.text if source.dirty else None,
                                device=panel.device)
        if run:
            panel.remember(call)
        what = f"running {qualname}" if run else f"tracing {qualname}"
        self._sticky = None  # a notice is kept until the request under way is done
        self.set_status(what + "…")
        if run:
            self._made["run"] = Made(self.target, source.text, call_label(qualname, call))
            panel.note(f"{what}…")
            self._show_origin("run")
        self._last_request = (self._generation, request)
        self.bridge.analyse(key, request, path, what)

    @on(AnalysisReady)
    def _analysis_ready(self, message: AnalysisReady) -> None:
        from agexplorer.tui.widgets.verdict_table import flow_summary  # loaded with the panes

        if message.key[2] != self._generation or not self.is_running:
            return
        first = self.report is None  # a function just opened: link its cursor line, once
        report, self.report = message.report, message.report
        self._report_text = self._analysed_text
        # The doctor reads the trace the worker just made, once these panes are painted.
        sent = self._last_request
        self.call_after_refresh(self.ask_doctor, message.key,
                                sent[1] if sent and sent[0] == message.key[2] else None)
        self.call_after_refresh(self._relabel_functions, report.file)
        if first:
            self.call_after_refresh(self._link_from_source)
        for pane in PANES:
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
            if sent and sent[0] == message.key[2]:  # what was run: this buffer, this call
                self._made["run"] = Made(message.key[:2], self._analysed_text,
                                         self._report_label(report))
            self._show_origin("run")

    @on(AnalysisFailed)
    def _analysis_failed(self, message: AnalysisFailed) -> None:
        if message.key[2] != self._generation or not self.is_running:
            return
        error: AgxError = message.error
        for pane in (*PANES, "#doctor-panel"):
            self.query_one(pane).add_class("stale")  # the last good results stay, dimmed
        self.set_status(error.message, error=True)
        self.log_line(error.message)
        sent = self._last_request
        if sent and sent[0] == message.key[2] and not sent[1].no_run:
            self.query_one("#run-panel").note(error.message)  # the run it was asked for
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
        restored = None
        if old is None or old[0] != new[0]:
            try:
                read = read_source_file(new[0])
                self._mtime = os.stat(new[0]).st_mtime_ns
            except (AgxError, OSError) as exc:
                self.set_status(getattr(exc, "message", str(exc)), error=True)
                return
            source.open(new[0], read.text, read)
            restored = self._restore(new[0], read.text)
        source.border_title = f"{os.path.basename(new[0])} :: {new[1]}"
        self.report = None
        if old is not None:  # the last function's code and verdicts, dimmed until replaced
            for pane in PANES:
                self.query_one(pane).add_class("stale")
        self._clear_results()
        self.analyse()
        self.log_line()  # the Log now names this function
        if restored:
            self.announce(restored)
        line = self._def_line(new)
        if line:
            # A file just loaded has no scroll size until the next refresh: centre then.
            self.call_after_refresh(source.goto_line, line)

    def _restore(self, path: str, disk_text: str) -> str | None:
        """Put a recovery copy of ``path`` into the buffer as one edit (ctrl+z goes back to
        the disk's text); returns what to tell the user, or None when there was none."""
        found = recovery.load_copy(path)
        if found is None:
            return None
        if found.text == disk_text:  # saved after all (by another program, or a later run)
            recovery.drop_copy(path)
            return None
        self.recovery.found(path, found.text)
        self.query_one("#source").replace_changed_lines(found.text)
        return (f"restored unsaved edits to {os.path.basename(path)} from {found.when} (the "
                "explorer ended without saving); ctrl+s saves them, ctrl+z drops them")

    def _clear_results(self) -> None:
        """Another function: the Run, Trace, Log, Graph detail and Doctor panels held the
        last one's results, so they start empty."""
        self._made.clear()
        self._marked.clear()
        self.query_one("#run-panel").clear()
        self.query_one("#trace-panel").clear()
        self.query_one("#log").clear()
        self._log_header = None
        self._op_detail = None
        self.query_one("#op-detail", Static).update("")
        doctor = self.query_one("#doctor-panel")
        doctor.show(None)
        doctor.remove_class("stale")
        self.query_one("#panels").get_tab("tab-doctor").label = "Doctor"

    def _show_origin(self, name: str) -> None:
        """Head a result panel with the function and call it describes, dimmed and marked
        "before your last edit" when the buffer has changed since."""
        made = self._made.get(name)
        text = self.query_one("#source").text
        self._marked[name] = (made, made is not None and made.text != text)
        if name == "run":
            header = made.header("run", text) if made else ("", False)
            self.query_one("#run-panel").set_origin(*header)
        elif name == "trace":
            header = made.header("retraces", text) if made else ("", False)
            self.query_one("#trace-panel").set_origin(*header)
        elif name == "op":
            detail = self.query_one("#op-detail", Static)
            if made is None or self._op_detail is None:
                detail.update("")
                detail.remove_class("stale")
                return
            line, stale = made.header("op", text)
            detail.update(f"{line}\n{self._op_detail}")
            detail.set_class(stale, "stale")

    def _mark_results(self) -> None:
        """After an edit (or its undo): which result panels are now out of date (only those
        whose state changed are redrawn: this runs at every edit pause)."""
        text = self.query_one("#source").text
        for name, made in list(self._made.items()):
            stale = made.text != text
            if self._marked.get(name) != (made, stale):
                self._show_origin(name)

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
        from agexplorer.source.targets import list_functions, parse_source

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
            made = sent[1]
            self.bridge.ask((*self.target, sent[0], op.function, op.name),
                            OpAttributesRequest(made.target, op.function, op.name,
                                                call=made.call, source=made.source),
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
        report = self.report
        if self.target is not None and report is not None:
            # The ops shown are the last good report's: made from the text it analysed.
            self._made["op"] = Made(self.target, self._report_text, self._report_label(report))
        self._op_detail = f"{self.query_one('#ops').describe(op)}\nattributes: {attributes}"
        self._show_origin("op")

    @staticmethod
    def _report_label(report) -> str:
        return call_label(report.function, report.call)

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
        # Loading a file passes here too; only a real edit re-converts.
        source = self.query_one("#source")
        if source.text != self._analysed_text:
            self.analyse()
        self._mark_results()
        # The safety net: the unsaved buffer goes to a recovery copy (in a thread: it ends
        # in an fsync), and goes away once the buffer is clean again.
        if source.path is not None:
            if source.dirty:
                self.recovery.keep(source.path, source.text)
            else:
                self.recovery.drop(source.path)

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
        if source.path is None:
            return
        try:
            written = source.save()  # atomic, in the file's own encoding, BOM and newlines
        except AgxError as exc:
            self.set_status(f"{exc.message.rstrip('.')}; your edits are kept in the buffer.",
                            error=True)
            return
        except OSError as exc:
            self.set_status(f"could not save {source.path}: {exc.strerror or exc}; your edits "
                            "are kept in the buffer.", error=True)
            return
        with contextlib.suppress(OSError):
            self._mtime = os.stat(source.path).st_mtime_ns
        self.recovery.drop(source.path)
        self._sticky = None
        self.set_status(f"saved {written or source.path}")

    def _timeout_hint(self) -> str:
        return f"press ctrl+t to double the timeout, now {self.bridge.worker.timeout:g} s"

    def _set_timeout_hint(self) -> None:
        """The worker's timeout message names the way this explorer offers (not --timeout)."""
        self.bridge.worker.timeout_hint = self._timeout_hint()

    def action_double_timeout(self) -> None:
        """Give the function twice as long before the worker gives up on it."""
        worker = self.bridge.worker
        worker.timeout = worker.timeout * 2
        self._set_timeout_hint()
        self.announce(f"timeout doubled: the worker now gives a request {worker.timeout:g} s "
                      "(ctrl+t doubles it again)", error=False)

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
                self._discarded = True
                if source.path is not None:
                    self.recovery.now(source.path, None)
                self.exit()

        self.push_screen(ConfirmQuit(source.path or "the buffer"), decided)

    def exit(self, *args, **kwargs) -> None:
        """Textual's exit, remembered so that racing handlers can stand down; an unsaved
        buffer (not discarded) is kept in its recovery copy."""
        self._exiting = True
        self._keep_unsaved()
        if self._mounting:
            # Textual's widgets (Select, the panels) fail when removed half-mounted: a quit in
            # the first moment waits the few frames until the workspace is in.
            self._deferred_exit = (args, kwargs)
            return
        super().exit(*args, **kwargs)

    def on_unmount(self) -> None:
        self._exiting = True
        if self._edit_timer is not None:
            self._edit_timer.cancel()
        self._keep_unsaved()  # however the app ends, an unsaved buffer is not lost
        self._release_signals()
        self.bridge.close()

    # -- the safety net ------------------------------------------------------------------
    def _keep_unsaved(self) -> str | None:
        """Write the recovery copy of an unsaved buffer now, in this thread; returns its
        file's name when there was one to keep. Never raises: it runs as the app fails."""
        try:
            if not self.workspace_ready or self._discarded:
                return None
            source = self.query_one("#source")
            if source.path is None or not source.dirty:
                return None
            self.recovery.now(source.path, source.text)
            if not self.recovery.holds(source.path, source.text):
                return None
            name = os.path.basename(source.path)
            self.exit_note = (f"your unsaved edits to {name} were kept; open {name} in "
                              "agexplorer again to get them back.")
            return name
        except Exception:  # noqa: BLE001 - the app is failing: do what can be done
            return None

    def _handle_exception(self, error: Exception) -> None:
        """Textual's path for an unexpected exception (the app ends): the unsaved buffer
        goes to its recovery copy first."""
        self._keep_unsaved()
        super()._handle_exception(error)

    def _catch_signals(self) -> None:
        """SIGTERM and SIGHUP (the terminal closed) end the app the way quitting does, with
        the unsaved buffer kept in its recovery copy."""
        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                previous = signal.getsignal(sig)
                loop.add_signal_handler(sig, self._ended_by_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError, OSError):
                continue
            self._signals.append((sig, previous))

    def _release_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig, previous in self._signals:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
                signal.signal(sig, previous)
        self._signals.clear()

    def _ended_by_signal(self, sig: int) -> None:
        self._keep_unsaved()
        self._discarded = True  # kept just now; nothing more to write on the way out
        if not self.is_headless:
            # The terminal may be gone (SIGHUP): if restoring it hangs, end anyway.
            self._last_resort = threading.Timer(5.0, os._exit, (128 + sig,))
            self._last_resort.daemon = True
            self._last_resort.start()
        self.exit(return_code=128 + sig)

    def run(self, *args, **kwargs):
        """Textual's run; a last-resort exit timer set by a signal ends with it."""
        try:
            return super().run(*args, **kwargs)
        finally:
            if self._last_resort is not None:
                self._last_resort.cancel()
