"""ProgramScreen: a recorded run's traced functions; per function its traces, retraces and verdicts."""

from __future__ import annotations

import os
import textwrap
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Footer, Static

from agexplorer.model.text import plural
from agexplorer.render.badges import VERDICT_STYLE, verdict_badge
from agexplorer.render.page import where
from agexplorer.runlog.summary import asked_by, command_line, reaches_nothing, short_name

if TYPE_CHECKING:
    from agexplorer.tui.program.actions import Program

NAME_WIDTH = 36  # a function's name folds past this, so its counts stay on an 80-column screen


def run_line(summary: dict[str, Any]) -> str:
    """``train.py --epochs 2 · exit 3 · 4.21 s``, and a note when the run did not finish."""
    program = summary["program"]
    argv = command_line(program) or "(no argv)"
    if program.get("finished"):
        ended = f"exit {program.get('exit_code')} · {program.get('wall_s') or 0:.2f} s"
    else:
        ended = "did not finish (crashed hard or killed): its traces until then"
    functions = summary["functions"]
    traces = sum(f["traces"] for f in functions)
    return (f"{argv} · {ended} · {plural(traces, 'trace')} of "
            f"{plural(len(functions), 'function')}")


def fold_name(name: str, width: int = NAME_WIDTH) -> str:
    """A long qualified name on lines of at most ``width``, broken after its dots (a
    library's ``Function._initialize_uninitialized_variables.<locals>.initialize_variables``
    pushed the other columns off an 80-column screen)."""
    lines = [""]
    for part in name.replace(".", ".\0").split("\0"):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


def library_name(function: dict[str, Any]) -> str:
    """A library's traced function after the user's call that asked for it:
    ``model.fit → one_step_on_data (library)``."""
    said = asked_by(function)
    if said is None:
        return f"{function['function']} (library)"
    joined = f"{said} → {short_name(function)} (library)"
    return joined if len(joined) <= NAME_WIDTH else f"{said}\n→ {short_name(function)} (library)"


def badge(row: dict[str, Any]) -> Text:
    """The verdict badge of a statement row of the summary (``unrolled x3``)."""
    mixed = row.get("mixed")
    if isinstance(mixed, dict):  # the JSON's {"staged": n, "python": m}
        mixed = (mixed.get("staged", 0), mixed.get("python", 0))
    v = SimpleNamespace(**{"times": 1, "iterations": None, "branch": None, **row,
                           "mixed": mixed})
    verdict = row.get("verdict") or "unreached"
    return Text(verdict_badge(v), style=VERDICT_STYLE.get(verdict, ""))


class ProgramScreen(ModalScreen[None]):
    """The program view of ``agexplorer LOG``. Modal so that the explorer's keys (run, next
    function) cannot act on the hidden buffer; Esc returns to the explorer once a function
    was explored, P from the explorer comes back here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "explore", "Explore this call"),
        Binding("escape", "back", "Explorer"),
        Binding("q", "app.quit_app", "Quit"),
    ]

    def __init__(self, program: Program) -> None:
        super().__init__()
        self.program = program
        self.header = Static(run_line(program.summary), id="program-header", markup=False)
        self.functions: DataTable[Text | str] = DataTable(id="program-functions",
                                                          cursor_type="row")
        self.traces: DataTable[Text | str] = DataTable(id="program-traces", cursor_type="row")
        self.statements: DataTable[Text | str] = DataTable(id="program-statements",
                                                           cursor_type="row")
        self.detail = Static("", id="program-detail", markup=False)
        self.function: dict[str, Any] | None = None
        self.trace: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.functions
        yield self.traces
        with Horizontal(id="program-actions"):
            yield Button("Explore this call (e)", id="program-explore", compact=True)
            yield self.detail
        yield self.statements
        yield Footer()

    def on_mount(self) -> None:
        self.functions.border_title = "traced functions, by trace time"
        self.traces.border_title = "traces: signature, ops, why it traced again"
        self.statements.border_title = "if / for / while in the trace, across the call tree"
        self.functions.add_columns("function", "where", "traces", "trace s", "ops", "retraces")
        self.traces.add_columns("#", "signature", "ops", "trace s", "why it traced")
        self.statements.add_columns("where", "statement", "verdict", "why, and what to do")
        for i, f in enumerate(self.program.functions):
            if reaches_nothing(f):
                continue  # a library's function that reached none of the user's code
            name = f["function"] if f.get("user") else library_name(f)
            # Text cells: DataTable reads a str as markup, and names and files are the user's.
            folded = "\n".join(fold_name(part) for part in name.split("\n"))
            self.functions.add_row(Text(folded), Text(where(f["file"], f["line"])),
                                   str(f["traces"]), f"{f['trace_s']:.3f}", str(f["op_count"]),
                                   str(len(f["retraces"])), key=str(i), height=None)
        notes = list(self.program.summary.get("notes") or [])
        hidden = sum(1 for f in self.program.functions if reaches_nothing(f))
        if hidden:
            notes.append(f"{plural(hidden, 'library function')} that reached no "
                         f"def of yours not listed (agexplorer summary "
                         f"{os.path.basename(self.program.path)} --all)")
        if notes:
            self.header.update(run_line(self.program.summary) + "\nnote: " + "; ".join(notes))
        if not self.program.functions:
            self.detail.update("the run traced no tf.function")
        self.functions.focus()

    # -- selection: a function -> its traces -> one trace's statements ------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        index = int(event.row_key.value or 0)
        if event.data_table is self.functions:
            self.show_function(self.program.functions[index])
        elif event.data_table is self.traces and self.function is not None:
            self.show_trace(self.function["each_trace"][index])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table is self.functions:
            self.traces.focus()
        elif event.data_table is self.traces:
            self.action_explore()

    def on_resize(self) -> None:
        if self.function is not None:
            self.show_function(self.function, self.trace)

    def _wrap(self, text: str, table: DataTable, cells: list[list[str]]) -> str:
        """``text`` wrapped to the room the other columns (``cells``, by column) leave."""
        used = sum(max(len(line) for c in column for line in c.split("\n")) + 2
                   for column in cells if column)
        width = max(20, (table.size.width or self.size.width or 80) - used - 6)
        return "\n".join(textwrap.wrap(text, width)) if text else ""

    def show_function(self, function: dict[str, Any], trace: dict[str, Any] | None = None) -> None:
        """Fill the traces of ``function`` and show one (``trace``, else its first)."""
        self.function = function
        self.traces.clear()
        traces = function.get("each_trace") or []
        signatures = function.get("signatures") or []
        rows = []
        for i, t in enumerate(traces):
            why = t.get("reason") or ("first trace" if t.get("kind") == "first" else "")
            if t.get("error"):
                why = f"failed: {t['error']}" + (f"; {why}" if why else "")
            signature = signatures[i] if i < len(signatures) else ""
            if len(signature) > 40:
                signature = "\n".join(textwrap.wrap(signature, 40))
            rows.append([str(t.get("trace")), signature, str(t.get("op_count") or 0),
                         f"{t.get('trace_s') or 0:.3f}", why])
        columns = [[row[c] for row in rows] for c in range(4)]
        for i, row in enumerate(rows):
            self.traces.add_row(*map(Text, row[:4]),
                                Text(self._wrap(row[4], self.traces, columns)), key=str(i),
                                height=None)
        if traces:
            chosen = trace if trace is not None and trace in traces else traces[0]
            self.traces.move_cursor(row=traces.index(chosen))
            self.show_trace(chosen)

    def show_trace(self, trace: dict[str, Any]) -> None:
        """The statements of one trace, its ops by function reached, and the call to explore."""
        function = self.function
        if function is None:
            return
        self.trace = trace
        self.statements.clear()
        rows = [s for s in function["statements"] if s.get("trace") == trace.get("trace")]
        cells = [[Text(where(r.get("file") or "", r.get("line"))),
                  Text(r.get("header") or r.get("kind") or ""), badge(r)] for r in rows]
        columns = [[str(c[n]) for c in cells] for n in range(3)]
        for i, (row, cell) in enumerate(zip(rows, cells, strict=True)):
            why = (row.get("reason") or "") + (f"\nfix: {row['hint']}" if row.get("hint") else "")
            text = "\n".join(self._wrap(part, self.statements, columns) for part in why.split("\n"))
            self.statements.add_row(*cell, Text(text), key=str(i), height=None)
        if not rows:
            self.statements.add_row("", "no if, for or while ran in this trace", "", "")
        self.detail.update(self._detail(function, trace))

    def _detail(self, function: dict[str, Any], trace: dict[str, Any]) -> str:
        reached = ", ".join(f"{r.get('function')} {r.get('op_count')}"
                            for r in trace.get("reached") or [] if r.get("op_count"))
        ops = f"trace {trace.get('trace')}: {trace.get('op_count') or 0} ops" + (
            f" (in {reached})" if reached else "")
        call = self.program.rebuilt(function, trace)
        if call.text is None:
            return f"{ops} · {call.problem}"
        name = call.target[1] if call.target else function["function"]
        made = f" on {name.partition('.')[0]}({call.init})" if call.init else ""
        return f"{ops} · {name}({call.text}){made}"

    # -- actions -------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_explore()

    def action_explore(self) -> None:
        """Open the selected function in the explorer with the selected trace's call."""
        if self.function is None or self.trace is None:
            self.notify("pick a traced function first.", severity="warning")
            return
        problem = self.program.explore(self.function, self.trace)
        if problem:
            self.detail.update(problem)
            self.notify(problem, severity="error", markup=False)  # it quotes the user's code

    def action_back(self) -> None:
        if not self.program.explored:
            self.notify("pick a function and press e to explore it (q quits).")
            return
        self.dismiss()
