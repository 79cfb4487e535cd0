"""Two functions compared, in the terminal: sides, paired verdicts, ops, timings, code diff."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from agexplorer.model.compare import CompareSide, Comparison, verdict_text
from agexplorer.model.report import Verdict
from agexplorer.model.text import seconds_text
from agexplorer.render.badges import VERDICT_STYLE
from agexplorer.render.cells import TextTable
from agexplorer.render.terminal import display_path


def _side_head(name: str, side: CompareSide) -> Panel:
    # Folded, not cut: at 80 columns each side has half of it, and a path may be longer.
    text = Text(f"{display_path(side.file)}::{side.function}", style="bold", overflow="fold")
    call = side.call if side.call is not None else "?"
    origin = f"  [{side.call_origin}]" if side.call_origin else ""
    text.append(f"\ncall: {side.function.split('.')[-1]}({call}){origin}")
    if side.op_count is not None:
        text.append(f"\n{side.op_count} ops, traced in {seconds_text(side.trace_s)}")
    if side.error is not None:
        text.append(f"\n{side.error.message}", style="red")
    return Panel(text, title=name, title_align="left")


def _statement_cell(v: Verdict | None) -> Text:
    if v is None:
        return Text("(no such statement)", style="dim")
    text = Text(f"{v.line}  {v.header}\n")
    text.append(verdict_text(v), style=VERDICT_STYLE.get(v.verdict, ""))
    if v.graph_op:
        text.append(f" ({v.graph_op})", style="dim")
    return text


def _statements_table(comparison: Comparison) -> TextTable | Text:
    if not comparison.statements:
        return Text("Neither function has an if, for or while.", style="dim")
    table = TextTable(title="Control flow, paired by statement", title_justify="left",
                  expand=True, show_lines=True)
    table.add_column("left", ratio=1, overflow="fold")
    table.add_column("right", ratio=1, overflow="fold")
    table.add_column("change", ratio=1, overflow="fold")
    for pair in comparison.statements:
        if not pair.differs:
            change = Text("same", style="dim")
        elif pair.left is None or pair.right is None:
            change = Text("only on the " + ("right" if pair.left is None else "left"),
                          style="yellow")
        else:
            change = Text(f"{verdict_text(pair.left)} -> {verdict_text(pair.right)}",
                          style="bold yellow")
        table.add_row(_statement_cell(pair.left), _statement_cell(pair.right), change)
    return table


def _signed(n: int) -> Text:
    return Text(f"{n:+d}" if n else "0", style="green" if n < 0 else "yellow" if n else "dim")


def _ops_table(comparison: Comparison) -> TextTable:
    left, right = comparison.left, comparison.right
    table = TextTable(title="Ops by type", title_justify="left")
    table.add_column("type")
    table.add_column("left", justify="right")
    table.add_column("right", justify="right")
    table.add_column("difference", justify="right")

    def count(side: CompareSide, op_type: str) -> str:
        return "-" if side.op_count is None else str(side.ops_by_type.get(op_type, 0))

    difference = comparison.ops_difference()
    types = difference or {**left.ops_by_type, **right.ops_by_type}
    for op_type in types:
        delta = difference.get(op_type)
        table.add_row(op_type, count(left, op_type), count(right, op_type),
                      Text("-", style="dim") if delta is None else _signed(delta))
    if left.op_count is not None and right.op_count is not None:
        table.add_row(Text("all", style="bold"), str(left.op_count), str(right.op_count),
                      _signed(right.op_count - left.op_count))
    return table


def _ratio_text(ratio: float | None) -> Text:
    if ratio is None:
        return Text("-", style="dim")
    if ratio < 1:
        return Text(f"{ratio:.3g}x (right {1 / ratio:.3g}x faster)", style="green")
    if ratio > 1:
        return Text(f"{ratio:.3g}x (right {ratio:.3g}x slower)", style="yellow")
    return Text("1x")


def _timings_table(comparison: Comparison) -> TextTable:
    table = TextTable(title="Timings (trace once; each mode's median per call)",
                  title_justify="left")
    table.add_column("")
    table.add_column("left", justify="right")
    table.add_column("right", justify="right")
    table.add_column("right / left")
    names = {"trace_s": "trace", "eager": "eager", "graph": "graph", "xla": "XLA"}
    for key, row in comparison.timings().items():
        table.add_row(names.get(key, key), seconds_text(row["left"]),
                      seconds_text(row["right"]), _ratio_text(row["ratio"]))
    return table


def compare_renderables(comparison: Comparison) -> list:
    """A comparison as rich renderables (the CLI prints them; the TUI can show them)."""
    heads = Table.grid(expand=True, padding=(0, 1))
    heads.add_column(ratio=1)
    heads.add_column(ratio=1)
    heads.add_row(_side_head("left", comparison.left), _side_head("right", comparison.right))
    parts: list = [heads, _statements_table(comparison), _ops_table(comparison),
                   _timings_table(comparison)]
    if any(s.lab is None and s.error is None for s in (comparison.left, comparison.right)):
        parts.append(Text("Not run (--no-run, or no arguments to run with): trace figures "
                          "only.", style="dim"))
    if comparison.diff:
        parts.append(Panel(Syntax(comparison.diff.rstrip("\n"), "diff", theme="ansi_dark",
                                  word_wrap=True),
                           title="AutoGraph's code, left to right (tf.autograph.to_code)",
                           title_align="left"))
    elif comparison.left.code is not None and comparison.right.code is not None:
        parts.append(Text("AutoGraph's code is the same on both sides.", style="green"))
    return parts


def render_comparison(comparison: Comparison, console: Console | None = None,
                      width: int | None = None) -> None:
    """Print a comparison to ``console`` (a new one ``width`` columns wide by default)."""
    console = console or Console(width=width)
    for part in compare_renderables(comparison):
        console.print(part)
