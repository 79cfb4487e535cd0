"""What the app asks the worker about the current function, and where the answers go."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agexplorer.tui.code.made import Made, call_label
from agexplorer.tui.messages import AnalysisKey, BufferRequest, EngineAnswer
from agexplorer.tui.run.calls import Box, Calls, Target
from agexplorer.worker.protocol import ReportRequest

if TYPE_CHECKING:
    from textual.widgets import Input

    from agexplorer.tui.app import AgxApp

# Failures of the engine rather than of the user's code: shown in the status line.
ENGINE_FAILURES = {"worker-died", "worker-start", "timeout", "internal-error", "bad-request"}


class Requests:
    """Owned by the app: the report request (each one a new generation of the buffer), and
    the routing of the other answers to the tab that asked."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self.calls = Calls()  # each function's own call; the box shows the current one's

    def boxes(self) -> dict[Box, Input]:
        """The boxes that hold a call of the function shown: the Run tab's, the Trace tab's."""
        app = self.app
        return {"run": app.call_input, "trace": app.trace_tab.query_one("#trace-calls"),  # type: ignore[dict-item]
                "init": app.run_panel.init_input}

    def switch_call(self, old: Target | None, new: Target) -> None:
        """Another function: each box's text stays ``old``'s, and each box shows ``new``'s
        own (empty: its ready inputs, which the Run tab's placeholder names once known)."""
        for name, box in self.boxes().items():
            if old is not None:
                self.calls.keep(old, box.value, name)
            box.value = self.calls.of(new, name)
        self.app.run_panel.show_ready(None)
        self.app.run_panel.show_init("." in new[1])  # a method (Class.call): its instance

    def set_call(self, target: Target, text: str, box: Box = "run") -> None:
        """``text`` is now ``target``'s call in ``box`` (shown there when ``target`` is)."""
        self.calls.keep(target, text, box)
        if self.app.target == target:
            self.boxes()[box].value = self.calls.of(target, box)

    def buffer(self) -> BufferRequest | None:
        """What a tab's request is about: the current function, its own call (the Run tab's
        box always holds the call of the function shown) and the unsaved buffer."""
        app = self.app
        if app.target is None:
            return None
        source = app.source
        return BufferRequest(AnalysisKey(*app.target, app.generation),
                             app.call_input.value.strip() or None,
                             source.text if source.dirty else None, app.run_panel.init)

    def analyse(self, run: bool, call: str | None) -> None:
        """Ask for the report of the current function (and its run when ``run``)."""
        app = self.app
        if app.target is None:
            return
        if call is None:
            call = app.call_input.value.strip() or None
        path, qualname = app.target
        source = app.source
        panel = app.run_panel
        request = ReportRequest(f"{path}::{qualname}", call=call, no_run=not run, budget=0.5,
                                source=source.text if source.dirty else None,
                                device=panel.device, user_code=app.user_code,
                                init=panel.init)
        key = app.state.start(request, source.text)
        if run:
            panel.remember(call)
        what = f"running {qualname}" if run else f"tracing {qualname}"
        app.status.let_go()  # a notice is kept until the request under way is done
        app.set_status(what + "…")
        if run:
            label = call_label(qualname, call)
            if panel.init is not None:  # the instance the method is called on
                label += f" on {qualname.rpartition('.')[0]}({panel.init})"
            app.provenance.set("run", Made(app.target, source.text, label))
            panel.note(f"{what}…")
            app.provenance.show("run")
        app.bridge.analyse(key, request, path, what)

    def answered(self, message: EngineAnswer) -> None:
        """An answer other than the report goes to the part that asked."""
        app = self.app
        if message.key.target != app.target:
            return  # about the function shown before (its panels were cleared)
        error = message.error
        if error is not None and error.kind in ENGINE_FAILURES and not message.tells_failures:
            # The worker died, hung or failed while reading the trace: say so where every
            # other death is said (the panel shows it too).
            app.set_status(error.message, error=True)
            app.log_line(error.message)
        message.reply(message)
