"""TraceTab: the Trace panel that asks the worker why the function traced again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agexplorer.tui.code.made import Made
from agexplorer.tui.messages import EngineAnswer
from agexplorer.tui.trace.panel import TracePanel
from agexplorer.worker.protocol import RetraceRequest

if TYPE_CHECKING:
    from agexplorer.tui.desk import Desk
    from agexplorer.tui.state import TargetChanged


class TraceTab(TracePanel):
    """The retrace explainer on request (t, or the Explain button)."""

    def __init__(self, desk: Desk, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.desk = desk

    def on_target_changed(self, _: TargetChanged) -> None:
        self.clear()  # the calls typed stay

    def on_trace_panel_explain_requested(self, message: TracePanel.ExplainRequested) -> None:
        desk = self.desk
        asked = desk.buffer_request()
        if asked is None:
            return
        qualname = asked.key.qualname
        calls = tuple(message.calls) if message.calls is not None else None
        request = RetraceRequest(asked.target, calls=calls, source=asked.source)
        what = f"explaining the retraces of {qualname}"
        named = "; ".join(message.calls) if message.calls else "the file's AGX_RETRACE"
        desk.provenance.set("trace", Made(asked.key.target, desk.source().text,
                                         f"{qualname}, calls {named}"))
        self.note(what + "… (each call runs, then two replays)")
        desk.provenance.show("trace")
        desk.bridge.ask(asked.key, request, asked.key.path, what, self.answer,
                       tells_failures=True)

    def answer(self, message: EngineAnswer) -> None:
        """The explanation, or the sentence saying why there is none."""
        if message.error is not None:
            text = message.error.message
            if message.error.kind == "needs-arguments":  # the TUI's way, not --call
                text = (message.error.what + ": type the calls in the Trace tab's box, "
                        "separated by ;, e.g. tf.ones([8, 4]); tf.ones([16, 4]), and press "
                        "Enter.")
            self.note(text)
            self.desk.status.set(text, error=True)
        else:
            self.show(message.value)
            self.desk.state.pane_answered("trace", message.key)
        self.desk.provenance.show("trace")
