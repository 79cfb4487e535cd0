"""What the app asks the worker about the current function, and where the answers go."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agexplorer.tui.code.made import Made, call_label
from agexplorer.tui.messages import AnalysisKey, BufferRequest, EngineAnswer
from agexplorer.tui.run.calls import Box, Calls, Target

if TYPE_CHECKING:
    from textual.widgets import Input

    from agexplorer.tui.code.made import Provenance
    from agexplorer.tui.state import ExplorerState
    from agexplorer.tui.status import StatusReporter
    from agexplorer.tui.workspace import Workspace
    from agexplorer.worker.protocol import ReportRequest

# Failures of the engine rather than of the user's code: shown in the status line.
ENGINE_FAILURES = {"worker-died", "worker-start", "timeout", "internal-error", "bad-request"}

# The bridge's ``analyse(key, request, path, what)``: trace (and run) in the background.
Analyse = Callable[[AnalysisKey, "ReportRequest", str, str], None]


class Requests:
    """The report request (each one a new generation of the buffer, started on ``state``
    and sent through ``analyse``), the calls each function keeps in its boxes, and the
    routing of the other answers to the tab that asked. It speaks through ``status``, heads
    the Run tab (``provenance``) and reads the boxes and the buffer from ``panes`` (None
    until they are mounted and as the app ends); ``user_code`` goes with every request."""

    def __init__(self, state: ExplorerState, analyse: Analyse, status: StatusReporter,
                 provenance: Provenance, panes: Callable[[], Workspace | None],
                 user_code: tuple[str, ...] = ()) -> None:
        self.state, self.send, self.status, self.provenance = state, analyse, status, provenance
        self.panes, self.user_code = panes, user_code
        self.calls = Calls()  # each function's own call; the box shows the current one's

    def boxes(self) -> dict[Box, Input]:
        """The boxes that hold a call of the function shown: the Run tab's, the Trace tab's
        (none before the panes are mounted)."""
        panes = self.panes()
        if panes is None:
            return {}
        return {"run": panes.run_panel.call_input,
                "trace": panes.trace.query_one("#trace-calls"),  # type: ignore[dict-item]
                "init": panes.run_panel.init_input}

    def switch_call(self, old: Target | None, new: Target) -> None:
        """Another function: each box's text stays ``old``'s, and each box shows ``new``'s
        own (empty: its ready inputs, which the Run tab's placeholder names once known)."""
        for name, box in self.boxes().items():
            if old is not None:
                self.calls.keep(old, box.value, name)
            box.value = self.calls.of(new, name)
        panes = self.panes()
        if panes is not None:
            panes.run_panel.show_ready(None)
            panes.run_panel.show_init("." in new[1])  # a method (Class.call): its instance

    def set_call(self, target: Target, text: str, box: Box = "run") -> None:
        """``text`` is now ``target``'s call in ``box`` (shown there when ``target`` is)."""
        self.calls.keep(target, text, box)
        shown = self.boxes().get(box) if self.state.target == target else None
        if shown is not None:
            shown.value = self.calls.of(target, box)

    def buffer(self) -> BufferRequest | None:
        """What a tab's request is about: the current function, its own call (the Run tab's
        box always holds the call of the function shown) and the unsaved buffer."""
        state, panes = self.state, self.panes()
        if state.target is None or panes is None:
            return None
        source, run = panes.source, panes.run_panel
        return BufferRequest(AnalysisKey(*state.target, state.generation),
                             run.call_input.value.strip() or None,
                             source.text if source.dirty else None, run.init)

    def analyse(self, run: bool, call: str | None, tensorboard: str | None = None) -> None:
        """Ask for the report of the current function (and its run when ``run``, writing
        the graph's TensorBoard log to ``tensorboard`` when given)."""
        target, panes = self.state.target, self.panes()
        if target is None or panes is None:
            return
        panel, source = panes.run_panel, panes.source
        if call is None:
            call = panel.call_input.value.strip() or None
        from agexplorer.worker.protocol import ReportRequest  # after the first frame

        path, qualname = target
        text = source.text
        request = ReportRequest(f"{path}::{qualname}", call=call, no_run=not run, budget=0.5,
                                source=text if source.dirty else None,
                                device=panel.device, user_code=self.user_code,
                                init=panel.init, tensorboard=tensorboard if run else None,
                                send_conversion=True)
        what = f"running {qualname}" if run else f"tracing {qualname}"
        # On its way first: the panes and the status line are told while the worker works.
        self.state.start(request, text, lambda key: self.send(key, request, path, what))
        if run:
            panel.remember(call)
        self.status.let_go()  # a notice is kept until the request under way is done
        self.status.begin(what + "…", at_once=run)
        if run:
            label = call_label(qualname, call)
            if panel.init is not None:  # the instance the method is called on
                label += f" on {qualname.rpartition('.')[0]}({panel.init})"
            self.provenance.set("run", Made(target, text, label))
            panel.note(f"{what}…")
            self.provenance.show("run")

    def answered(self, message: EngineAnswer) -> None:
        """An answer other than the report goes to the part that asked."""
        if message.key.target != self.state.target:
            return  # about the function shown before (its panels were cleared)
        error = message.error
        if error is not None and error.kind in ENGINE_FAILURES and not message.tells_failures:
            # The worker died, hung or failed while reading the trace: say so where every
            # other death is said (the panel shows it too).
            self.status.set(error.message, error=True)
            self.status.log(error.message)
        message.reply(message)
