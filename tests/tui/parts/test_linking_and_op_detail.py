"""Linking and OpDetail alone (no app, no TensorFlow): a line chosen in one pane shows in the
others, and a highlighted op's attributes are asked once and shown for that op only."""

from __future__ import annotations

from types import SimpleNamespace

from agexplorer.model.errors import AgxError
from agexplorer.model.inventory import OpInfo
from agexplorer.model.report import Conversion, Report
from agexplorer.tui.code.linking import LINK_PAUSE, Linking
from agexplorer.tui.code.made import Provenance
from agexplorer.tui.graph.op_detail import OpDetail
from agexplorer.tui.graph.op_groups import OpGroup
from agexplorer.tui.messages import EngineAnswer
from agexplorer.tui.state import ExplorerState
from agexplorer.worker.protocol import OpAttributesRequest, ReportRequest

PATH = "/p/a.py"


def analysed() -> ExplorerState:
    """A state whose report for ``f`` answered: converted lines 4-6 came from source line 3."""
    state = ExplorerState()
    state.open((PATH, "f"))
    key = state.start(ReportRequest(f"{PATH}::f", call="tf.ones([2])", source="buffer"),
                      "buffer")
    report = Report(file=PATH, function="f", call="tf.ones([2])",
                    conversion=Conversion("...", [(4, 3), (5, 3), (6, 3), (7, 4)]))
    assert state.answer(key, report, None)
    return state


class Pane:
    """A pane's part the linking uses: what it was told, in order."""

    def __init__(self, pane_id: str = "", cursor: int = 0, focused: bool = False) -> None:
        self.id, self.cursor_location, self.has_focus = pane_id, (cursor, 0), focused
        self.scroll_y = 0.0
        self.scrollable_content_region = SimpleNamespace(height=20)
        self.told: list[tuple[str, object]] = []

    def __getattr__(self, name: str):  # goto_line, show_lines, select_line, follow
        return lambda *args: self.told.append((name, args[0] if len(args) == 1 else args))


def panes() -> SimpleNamespace:
    return SimpleNamespace(source=Pane("source", cursor=2, focused=True),
                           converted=Pane("converted", cursor=5), verdicts=Pane(),
                           ops=Pane(), verdict_gutter=Pane(), refs=Pane())


class Timers:
    def __init__(self) -> None:
        self.set: list[tuple[float, object]] = []
        self.stopped = 0

    def __call__(self, delay, callback):
        self.set.append((delay, callback))
        return SimpleNamespace(stop=self._stop)

    def _stop(self) -> None:
        self.stopped += 1


def test_a_source_line_shows_its_converted_lines_verdict_and_op_after_the_moves_rest():
    shown, timers = panes(), Timers()
    linking = Linking(analysed(), lambda: shown, timers)
    linking.selection_changed(shown.source)
    linking.selection_changed(shown.source)  # a burst of moves: one link, after the last
    assert [d for d, _ in timers.set] == [LINK_PAUSE, LINK_PAUSE] and timers.stopped == 1
    timers.set[-1][1]()
    assert shown.converted.told == [("show_lines", [4, 5, 6])]
    assert shown.verdicts.told == [("select_line", 3)] and shown.ops.told == [("select_line", 3)]
    assert shown.source.told == []  # where the move came from is left as it is


def test_a_converted_line_moves_the_source_to_the_line_it_came_from():
    shown = panes()
    shown.converted.has_focus = True
    Linking(analysed(), lambda: shown, Timers()).selection_changed(shown.converted)
    assert shown.source.told == [("goto_line", 3)] and shown.converted.told == []


def test_code_sent_ahead_of_the_report_links_by_its_own_map():
    """AutoGraph's code for the next request, drawn while its function is traced, links by
    its own source map (from the buffer it was made from), not by the last report's: a line
    typed above the function moved every line one down."""
    from agexplorer.source.line_moves import Move

    state, shown = analysed(), panes()
    state.lines_moved(Move(1, 0, 1))  # a line typed at the top
    key = state.start(ReportRequest(f"{PATH}::f", source="edited"), "edited")
    # the new code: converted lines 2-3 from source line 4 (the report's line 3), 6 from a
    # line typed since the report (line 2 now)
    assert state.converted(key, Conversion("...", [(2, 4), (3, 4), (6, 2)]))
    linking = Linking(state, lambda: shown, Timers())
    linking.line(3, "verdicts")  # the report's line 3, line 4 now
    assert shown.converted.told == [("show_lines", [2, 3])]
    shown.converted.cursor_location, shown.converted.has_focus = (1, 0), True
    linking.selection_changed(shown.converted)  # converted line 2: source line 4 now
    assert shown.source.told[-1] == ("goto_line", 4) and shown.verdicts.told[-1] == (
        "select_line", 4) and shown.ops.told[-1] == ("select_line", 3)  # the report's line
    shown.converted.cursor_location = (5, 0)
    linking.selection_changed(shown.converted)  # a line the report has not seen
    assert shown.source.told[-1] == ("goto_line", 2)


def test_moves_the_linking_made_and_moves_before_the_panes_or_a_report_go_no_further():
    shown = panes()
    shown.source.has_focus = False  # moved by the linking itself
    timers = Timers()
    Linking(analysed(), lambda: shown, timers).selection_changed(shown.source)
    assert timers.set == []
    Linking(ExplorerState(), lambda: shown, timers).line(3, "verdicts")  # no report yet
    Linking(analysed(), lambda: None, timers).line(3, "verdicts")  # no panes yet
    assert all(p.told == [] for p in vars(shown).values())


class OpTree:
    def __init__(self) -> None:
        self.cursor_node: SimpleNamespace | None = None

    def line_of(self, op) -> int | None:
        return getattr(op, "line", None)

    def describe(self, op) -> str:
        return f"{op.name} ({op.type})" if isinstance(op, OpInfo) else "a group"


class Panels:
    def __init__(self) -> None:
        self.op: str | None = None

    def set_origin(self, panel: str, header: str, stale: bool) -> None:
        pass

    def show_op_detail(self, text, stale: bool) -> None:
        self.op = str(text)


def op_detail():
    state, tree, panels, asked, linked = analysed(), OpTree(), Panels(), [], []
    provenance = Provenance(lambda: "buffer", lambda: panels)
    detail = OpDetail(state, provenance, lambda *a: asked.append(a), lambda: tree,
                      lambda line, origin: linked.append((line, origin)))
    return detail, tree, panels, asked, linked


ADD = OpInfo("while/add", "AddV2", 3, "f_while_body", "CPU:0", ["int32[]"], file=PATH)
MUL = OpInfo("mul", "Mul", 4, "f", "CPU:0", ["int32[]"], file=PATH)


def test_a_highlighted_op_asks_its_attributes_once_and_shows_them_for_that_op_only():
    detail, tree, panels, asked, linked = op_detail()
    tree.cursor_node = SimpleNamespace(data=ADD)
    detail.highlighted(ADD, focused=True)
    assert linked == [(3, "ops")]
    assert panels.op == "op: f(tf.ones([2]))\nwhile/add (AddV2)\nattributes: …"
    [(key, request, path, _, reply)] = asked
    assert request == OpAttributesRequest(f"{PATH}::f", "f_while_body", "while/add",
                                          call="tf.ones([2])", source="buffer")
    assert key.op == ("f_while_body", "while/add") and path == PATH
    detail.highlighted(ADD, focused=False)  # the tree refilled: asked already
    assert len(asked) == 1 and linked == [(3, "ops")]
    reply(EngineAnswer(OpAttributesRequest, key, reply, [("T", "DT_INT32")]))
    assert panels.op.endswith("attributes: T=DT_INT32")
    tree.cursor_node = SimpleNamespace(data=MUL)  # moved on before the next answer came
    reply(EngineAnswer(OpAttributesRequest, key, reply, [("T", "DT_FLOAT")]))
    assert panels.op.endswith("attributes: T=DT_INT32")


def test_a_group_asks_nothing_and_a_failed_read_is_its_sentence():
    detail, tree, panels, asked, _ = op_detail()
    detail.highlighted(OpGroup("AddV2", PATH, 3, "f_while_body", [ADD]), focused=False)
    assert asked == [] and panels.op.endswith("attributes: -")
    tree.cursor_node = SimpleNamespace(data=MUL)
    detail.highlighted(MUL, focused=False)
    key, _, _, _, reply = asked[0]
    reply(EngineAnswer(OpAttributesRequest, key, reply,
                       error=AgxError("worker-died", "the worker ended")))
    assert panels.op.endswith("attributes: (the worker ended)")
