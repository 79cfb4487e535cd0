"""The Graph tab's op detail: the highlighted op, its line, and its attributes from the worker."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agexplorer.tui.code.made import Made, answer_label
from agexplorer.tui.messages import AnalysisKey, EngineAnswer

if TYPE_CHECKING:
    from agexplorer.tui.code.made import Provenance
    from agexplorer.tui.graph.op_tree import OpTree
    from agexplorer.tui.state import ExplorerState
    from agexplorer.worker.protocol import OpAttributesRequest

# bridge.ask: (key, request, path, what, reply)
Ask = Callable[[AnalysisKey, "OpAttributesRequest", str, str, Callable[[EngineAnswer], None]], None]


class OpDetail:
    """The app passes on the op tree's highlights. The detail reads the analysis shown
    (``state``), asks the worker for an op's attributes (``ask``, the bridge's), draws
    through ``provenance`` (its header names the analysis), reads the op tree (``ops``) and
    moves the other panes to a focused op's line (``link``)."""

    def __init__(self, state: ExplorerState, provenance: Provenance, ask: Ask,
                 ops: Callable[[], OpTree], link: Callable[[int, str], None]) -> None:
        self.state, self.provenance, self.ask = state, provenance, ask
        self.ops, self.link = ops, link
        self.shown: Any = None  # the op (or group) whose detail is shown

    def highlighted(self, op: Any, focused: bool) -> None:
        """An op was highlighted: its detail now, its attributes once the worker answers."""
        line = self.ops().line_of(op)  # a helper file's line is not the source pane's
        if focused and line:
            self.link(line, "ops")
        from agexplorer.tui.graph.op_groups import OpGroup  # (the Graph tab's: not the first frame's)

        if isinstance(op, OpGroup):  # its ops' attributes are read one op at a time
            self.show(op, "-")
            return
        if op is self.shown and self.provenance.op_detail is not None:
            # A refill (the filter typed or cleared) put the cursor back on it: asked already.
            return
        self.show(op, "…")
        sent, target = self.state.last_request, self.state.target
        if sent is not None and target is not None:
            # Read from the trace in the worker: reading every op's attributes up front
            # would cost more than the whole op inventory.
            generation, made = sent
            key = AnalysisKey(*target, generation, op=(op.function, op.name))
            from agexplorer.worker.protocol import OpAttributesRequest  # not at the first frame

            self.ask(key, OpAttributesRequest(made.target, op.function, op.name,
                                              call=made.call, source=made.source),
                     key.path, f"reading {op.name}", self.answer)

    def answer(self, message: EngineAnswer) -> None:
        """The worker's answer for the highlighted op (ignored if another op is highlighted)."""
        from agexplorer.model.inventory import OpInfo

        node = self.ops().cursor_node
        op = node.data if node is not None else None
        if not isinstance(op, OpInfo) or (op.function, op.name) != message.key.op:
            return
        if message.error is not None:
            self.show(op, f"({message.error.message})")
        else:
            self.show(op, ", ".join(f"{k}={v}" for k, v in message.value) or "none")

    def show(self, op: Any, attributes: str) -> None:
        """The op's description and ``attributes``, under the header naming the analysis."""
        state, provenance = self.state, self.provenance
        self.shown = op
        report = state.report
        if state.target is not None and report is not None:
            # The ops shown are the last good report's: made from the text it analysed.
            provenance.set("op", Made(state.target, state.report_text, answer_label(report)))
        provenance.op_detail = f"{self.ops().describe(op)}\nattributes: {attributes}"
        provenance.show("op")
