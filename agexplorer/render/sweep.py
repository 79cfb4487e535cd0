"""An unroll-cost sweep in the terminal: the table per value, the fit in words, a bar chart of ops."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from agexplorer.model.sweep import Fit, StagedSweep, Sweep, SweepPoint
from agexplorer.model.text import seconds_text
from agexplorer.render.terminal import display_path

_BAR = 40  # the chart's widest bar, in cells
_LIMIT_WORDS = {"INEFFICIENT_UNROLL_MIN_ITERATIONS": "warns about an unrolled loop past",
                "PYTHON_MAX_ITERATIONS": "stops a Python loop past"}


def about(x: float) -> str:
    """A count as a reader takes it in: three significant figures, thousands separated."""
    if abs(x) < 1000:
        return f"{round(x):,}"
    digits = len(str(int(abs(x)))) - 3
    return f"{round(x, -digits):,.0f}"


def _ops(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _table(sweep: Sweep) -> Table:
    table = Table(title=f"One fresh trace per value of {sweep.vary}", title_justify="left")
    table.add_column(sweep.vary, justify="right")
    table.add_column("ops", justify="right")
    table.add_column("trace", justify="right")
    table.add_column("first call", justify="right")
    table.add_column("call", justify="right")
    staged = {p.value: p for p in sweep.staged.points} if sweep.staged else {}
    if staged:
        table.add_column("staged ops", justify="right", style="green")
        table.add_column("staged trace", justify="right", style="green")
    table.add_column("note", ratio=1, style="dim")
    for p in sweep.points:
        row = [f"{p.value:,}", _ops(p.op_count), seconds_text(p.trace_s),
               seconds_text(p.first_call_s), seconds_text(p.call_s)]
        s = staged.get(p.value)
        if staged:
            row += [_ops(s.op_count if s else None), seconds_text(s.trace_s if s else None)]
        table.add_row(*row, p.error or (s.error if s else None) or "")
    return table


def fit_words(fit: Fit, vary: str) -> str:
    """``each unit of n adds 2 ops and 0.63 ms of tracing (fixed: 2 ops, 7.15 ms)``; where
    tracing time's growth is within noise, it says so instead of a cost per unit."""
    ops = f"each unit of {vary} adds {fit.ops_per_unit:,.4g} op{'' if fit.ops_per_unit == 1 else 's'}"
    if fit.trace_within_noise:
        return (f"{ops} (fixed: {about(fit.ops_fixed)} ops); tracing time does not grow "
                f"measurably with {vary} (within noise: about {seconds_text(fit.trace_s_fixed)} "
                "a trace)")
    return (f"{ops} and {seconds_text(fit.trace_s_per_unit)} of tracing (fixed: "
            f"{about(fit.ops_fixed)} ops, {seconds_text(fit.trace_s_fixed)})")


def _staged_words(staged: StagedSweep, vary: str, at: int | None) -> str:
    fit = staged.fit
    head = f"staged rewrite ({staged.code}: {staged.description}): "
    if fit is None:
        return head + "not enough values traced to fit."
    if abs(fit.ops_per_unit) < 1e-9:
        traced = sorted(p.trace_s for p in staged.points if p.trace_s is not None)
        return head + (f"{about(fit.ops_fixed)} ops and about "
                       f"{seconds_text(traced[len(traced) // 2])} of tracing at every value "
                       "(flat).")
    words = fit_words(fit, vary)
    if at is not None:
        words += f"; at {at:,}: about {about(fit.ops_at(at))} ops and " \
                 f"{seconds_text(fit.trace_s_at(at))} of tracing"
    return head + words + "."


def _summary(sweep: Sweep) -> Text:
    text = Text()
    text.append(f"{display_path(sweep.file)}::{sweep.function}", style="bold")
    text.append(f"  call: {sweep.function.split('.')[-1]}({sweep.call})  varying {sweep.vary}")
    if sweep.loop_line is not None:
        text.append(f" (the loop at line {sweep.loop_line})")
    fit = sweep.fit
    if fit is not None:
        text.append("\nFit: ", style="bold")
        text.append(fit_words(fit, sweep.vary) + ".")
        if fit.at is not None:
            at = fit.at
            call = f", then about {seconds_text(at.call_s)} a call" if at.call_s else ""
            text.append(f"\nAt {sweep.vary}={at.value:,}: ", style="bold")
            text.append(f"about {about(at.ops)} ops and {seconds_text(at.trace_s)} of "
                        f"tracing{call}.")
    if sweep.staged is not None:
        text.append("\nBeside it, the ", style="green")
        text.append(_staged_words(sweep.staged, sweep.vary,
                                  fit.at.value if fit and fit.at else None), style="green")
    limits = sweep.thresholds or {}
    said = [f"{words} {limits[name]:,} iterations ({name})"
            for name, words in _LIMIT_WORDS.items() if name in limits]
    if said:
        text.append("\nAutoGraph " + "; it ".join(said) + ".", style="dim")
    if sweep.note:
        text.append(f"\n{sweep.note}", style="dim")
    return text


def _chart(sweep: Sweep) -> Text | None:
    """Ops against the value: a bar per traced value (and the extrapolation), staged beside."""
    rows: list[tuple[str, float, str]] = []
    staged = {p.value: p for p in sweep.staged.points} if sweep.staged else {}
    for p in sweep.points:
        if p.op_count is not None:
            rows.append((f"{p.value:,}", p.op_count, "cyan"))
        s: SweepPoint | None = staged.get(p.value)
        if s is not None and s.op_count is not None:
            rows.append(("staged", s.op_count, "green"))
    if sweep.fit is not None and sweep.fit.at is not None:
        rows.append((f"{sweep.fit.at.value:,}?", sweep.fit.at.ops, "yellow"))
    if len(rows) < 2:
        return None
    top = max(r[1] for r in rows) or 1
    width = max(len(r[0]) for r in rows)
    chart = Text()
    for label, ops, style in rows:
        chart.append(f"{label:>{width}} ")
        chart.append("█" * max(round(_BAR * ops / top), 1), style=style)
        chart.append(f" {ops:,}\n" if isinstance(ops, int) else f" about {about(ops)}\n")
    chart.append("(ops; '?' marks the extrapolation)", style="dim")
    return chart


def render_sweep(sweep: Sweep, console: Console | None = None, width: int | None = None) -> None:
    """Print the sweep: the summary with the fit in words, the table, the chart."""
    console = console or Console(width=width)
    console.print(Panel(_summary(sweep), title="agexplorer sweep", title_align="left"))
    console.print(_table(sweep))
    chart = _chart(sweep)
    if chart is not None:
        console.print(Panel(chart, title=f"Ops against {sweep.vary}", title_align="left"))
