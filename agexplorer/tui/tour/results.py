"""A tour step's result read from the panes once its action has answered: one line, and the
pane that holds it (which the tour outlines)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.widget import Widget

    from agexplorer.tui.parts import ExplorerApp
    from agexplorer.tui.tour.steps import TourStep


def result_of(app: ExplorerApp, step: TourStep, before: Any) -> tuple[str, Widget] | None:
    """(the result in words, the pane holding it), or None while the answer is awaited;
    ``before`` is what the pane held when the action was asked."""
    if step.tab == "run":
        lab = app.state.lab
        return None if lab is None or lab is before else (run_result(lab), app.run_panel)
    if step.tab == "trace":
        report = app.trace_tab.report
        return None if report is None or report is before else (trace_result(report),
                                                                  app.trace_tab)
    if step.tab == "doctor":
        doctor = app.doctor_tab
        findings = doctor.findings
        if not findings or doctor.generation != app.state.generation:
            # The doctor answers after the analysis (each tour step has findings), and only
            # this analysis's findings answer for the step's own call.
            return None
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        return f"{first.code} at line {first.line}: {first.message}{more}", app.doctor_tab
    report = app.state.report
    if report is None:
        return None
    if step.tab == "graph":
        return graph_result(report.inventory.ops if report.inventory else []), app.panes.ops
    return flow_result(app, report.statements), app.panes.verdicts


def run_result(lab: Any) -> str:
    """``graph 0.06x eager (slower here), XLA 0.04x``: the speed-ups, read the lesson's way."""
    parts = []
    for mode in ("graph", "xla"):
        speed = lab.speedup.get(mode)
        if speed:
            name = "graph" if mode == "graph" else "XLA"
            parts.append(f"{name} {speed:.2g}x eager" + (" (slower here)" if speed < 1 else ""))
    failed = [m for m, run in lab.runs.items() if not run.ok]
    if failed:
        parts.append(f"{', '.join(failed)} failed")
    return "; ".join(parts) or "ran: see the Run tab"


def trace_result(report: Any) -> str:
    """``3 calls: 2 traced, 1 reused a graph, 1 failed``."""
    calls = report.calls
    counts = Counter(c.outcome for c in calls)
    words = {"traced": "traced", "reused": "reused a graph", "failed": "failed"}
    said = ", ".join(f"{counts[k]} {w}" for k, w in words.items() if counts[k])
    return f"{len(calls)} calls: {said}" if calls else "no calls made"


def graph_result(ops: list) -> str:
    """``7 ops: MatMul x2, BiasAdd x2, ...``: the most frequent op types."""
    types = Counter(op.type for op in ops)
    top = ", ".join(f"{t} x{n}" if n > 1 else t for t, n in types.most_common(5))
    return f"{len(ops)} ops: {top}" if ops else "no ops in the graph"


def flow_result(app: ExplorerApp, statements: list) -> str:
    """The first if/for/while's verdict, its row selected in the Control flow tab."""
    if not statements:
        return "no if, for or while in this function"
    first = statements[0]
    app.panes.verdicts.select_line(first.line)
    how = {"staged": f"staged as {first.graph_op or 'a graph op'}",
           "python": "run by Python while tracing"}.get(first.verdict, first.verdict)
    return f"line {first.line}: {first.kind} {how}"
