"""The Graph tab's op detail: the highlighted op, its line, and its attributes from the worker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agexplorer.model.inventory import OpInfo
from agexplorer.tui.code.made import Made, answer_label
from agexplorer.tui.graph.op_groups import OpGroup
from agexplorer.tui.messages import AnalysisKey, EngineAnswer
from agexplorer.worker.protocol import OpAttributesRequest

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp


class OpDetail:
    """Owned by the app, which passes on the op tree's highlights and the worker's answers."""

    def __init__(self, app: AgxApp) -> None:
        self.app = app
        self.shown: Any = None  # the op (or group) whose detail is shown

    def highlighted(self, op: Any, focused: bool) -> None:
        """An op was highlighted: its detail now, its attributes once the worker answers."""
        app = self.app
        ops = app.panes.ops
        line = ops.line_of(op)  # a helper file's line is not the source pane's
        if focused and line:
            app.linking.line(line, "ops")
        if isinstance(op, OpGroup):  # its ops' attributes are read one op at a time
            self.show(op, "-")
            return
        if op is self.shown and app.provenance.op_detail is not None:
            # A refill (the filter typed or cleared) put the cursor back on it: asked already.
            return
        self.show(op, "…")
        sent = app.last_request
        if sent is not None and app.target is not None:
            # Read from the trace in the worker: reading every op's attributes up front
            # would cost more than the whole op inventory.
            generation, made = sent
            key = AnalysisKey(*app.target, generation, op=(op.function, op.name))
            app.bridge.ask(key, OpAttributesRequest(made.target, op.function, op.name,
                                                    call=made.call, source=made.source),
                           key.path, f"reading {op.name}", self.answer)

    def answer(self, message: EngineAnswer) -> None:
        """The worker's answer for the highlighted op (ignored if another op is highlighted)."""
        node = self.app.panes.ops.cursor_node
        op = node.data if node is not None else None
        if not isinstance(op, OpInfo) or (op.function, op.name) != message.key.op:
            return
        if message.error is not None:
            self.show(op, f"({message.error.message})")
        else:
            self.show(op, ", ".join(f"{k}={v}" for k, v in message.value) or "none")

    def show(self, op: Any, attributes: str) -> None:
        """The op's description and ``attributes``, under the header naming the analysis."""
        app = self.app
        self.shown = op
        report = app.report
        if app.target is not None and report is not None:
            # The ops shown are the last good report's: made from the text it analysed.
            app.provenance.set("op", Made(app.target, app.report_text, answer_label(report)))
        app.provenance.op_detail = (f"{app.panes.ops.describe(op)}\n"
                                    f"attributes: {attributes}")
        app.provenance.show("op")
