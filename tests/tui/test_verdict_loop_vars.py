"""The verdict table's "why" cell lists a loop's variables (no TensorFlow: made-up verdicts)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agexplorer.model.loopvars import LoopVar, VarState
from agexplorer.model.report import Verdict
from agexplorer.tui.code.verdict_table import VerdictTable

GROWS = LoopVar("x", VarState("float32", (1,)), VarState("float32", (2,)), True)
COUNTER = LoopVar("i", VarState(python_type="int", value="0"),
                  VarState(python_type="int", value="1"), False)


def verdict(kind: str, line: int, loop_vars: tuple) -> Verdict:
    return Verdict(kind="for", line=line, header="for i in tf.range(n):", verdict=kind,
                   graph_op=None, iterations=3 if kind == "python" else None, branch=None,
                   ops_created=0, reason="why.", hint=None, times=1, loop_vars=loop_vars)


class TableApp(App):
    def compose(self) -> ComposeResult:
        yield VerdictTable()


async def test_a_changed_loop_variable_and_its_fix_are_in_the_why_cell():
    app = TableApp()
    async with app.run_test(size=(160, 30)):
        table = app.query_one(VerdictTable)
        table.show([verdict("staged", 3, (GROWS,)), verdict("python", 9, (COUNTER,))])
        staged = str(table.get_row_at(0)[3])  # a Text: user text is never read as markup
        assert "loop variables:" in staged and "x: float32[1] -> float32[2]  changed" in staged
        assert "shape_invariants" in staged.replace("\n", "")
        # A Python loop's counter changing value is the unrolling, not news: no lines.
        assert "loop variables" not in str(table.get_row_at(1)[3])


async def test_a_refill_drawn_before_its_columns_are_measured_shows_the_measured_header():
    # (Textual's DataTable, which the table was, measured a refill's columns when idle; a
    # frame drawn between kept the header at its labels' widths above rows drawn at full
    # width. The table lays its columns out as it is given the rows.)
    app = TableApp()
    async with app.run_test(size=(160, 30)) as pilot:
        table = app.query_one(VerdictTable)
        rows = [verdict("python", 9, (COUNTER,))]
        table.show(rows)
        await pilot.pause()

        def header() -> str:
            return "".join(segment.text for segment in table.render_line(0))

        measured = header()
        table.show(rows)  # the same again (the doctor's tried fixes, a resize)
        header()  # a frame before the idle measuring
        await pilot.pause()
        assert header() == measured
        assert "statement  " in measured  # wider than its label: the measured column
