"""A tour step's result read from the panes once its action has answered: one line, and the
pane that holds it (which the tour outlines)."""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Any

from agexplorer.model.report import kind_words
from agexplorer.model.text import seconds_text, shortened
from agexplorer.render.curves import number

if TYPE_CHECKING:
    from textual.widget import Widget

    from agexplorer.tui.parts import ExplorerApp
    from agexplorer.tui.tour.steps import Claim, TourStep


def result_of(app: ExplorerApp, step: TourStep, before: Any) -> tuple[str, Widget] | None:
    """(the result in words, the pane holding it), or None while the answer is awaited;
    ``before`` is what the pane held when the action was asked."""
    if step.action == "curves":
        curves = app.run_panel.curves
        if curves is None or curves is before:
            return None
        report = app.state.report
        statement = report.statements[0] if report is not None and report.statements else None
        staged = (f"; line {statement.line}: {kind_words(statement.kind)} {verdict_words(statement)}"
                  if statement is not None else "")
        return curves_result(curves) + staged, app.run_panel
    if step.tab == "run":
        lab = app.state.lab
        if lab is None or lab is before:
            return None
        text = run_result(lab)
        if lab.tensorboard_note:  # the step asked for the log: where, and how to open it
            report = app.state.report
            if report is not None and report.inventory is not None:
                text += "\nthe graph: " + graph_result(report.inventory.ops)
            text += "\n" + lab.tensorboard_note
        if step.claim is not None:
            report = app.state.report
            ops = len(report.inventory.ops) if report and report.inventory else None
            text += "\n" + claim_note(lab, step.claim, ops, machine_load())
        return text, app.run_panel
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


def answer_line(app: ExplorerApp, step: TourStep) -> int | None:
    """The source line the step's answer is about (the Doctor's first finding, the first
    statement's verdict), or None (a run, a trace: the whole function)."""
    if step.tab == "doctor":
        findings = app.doctor_tab.findings
        return findings[0].line if findings else None
    report = app.state.report
    if step.tab in ("flow", "graph") and report is not None and report.statements:
        return report.statements[0].line
    return None


def curves_result(curves: Any) -> str:
    """``20 steps: loss 50.9 -> 0.236, lr 0.1 -> 0.025``: each series from first to last."""
    said = ", ".join(f"{s.name} {number(s.values[0])} → {number(s.values[-1])}"
                     for s in curves.series if s.values)
    steps = f"{curves.done} steps" + (f" of {curves.steps} (a step raised)"
                                      if curves.done < curves.steps else "")
    return f"{steps}: {said}" if said else f"{steps}: no scalar returned to chart"


def verdict_words(statement: Any) -> str:
    """``staged as cond``, ``run by Python while tracing``: a verdict as the tour says it."""
    return {"staged": f"staged as {statement.graph_op or 'a graph op'}",
            "python": "run by Python while tracing"}.get(statement.verdict, statement.verdict)


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


def machine_load() -> tuple[float, int] | None:
    """(the last minute's load average, the cores): how busy the machine was while timing."""
    try:
        return os.getloadavg()[0], os.cpu_count() or 1
    except OSError:  # not on this system
        return None


def claim_note(lab: Any, claim: Claim, ops: int | None, load: tuple[float, int] | None) -> str:
    """The measured speed-up held against the lesson's figure: the spread of the measurement
    (from the quartiles of each mode's per-call times), whether it falls inside the claim,
    what the times show where it does not, and a word when the machine was busy."""
    eager, graph = lab.runs.get("eager"), lab.runs.get("graph")
    speed = lab.speedup.get("graph")
    lesson = f"The lesson: {claim.says} (“{claim.quote_zh}”)."
    if not speed or eager is None or graph is None:
        return lesson + " Not measured here: see the Run tab."
    measured = f"Here: {speed:.2g}x"
    if eager.p25_s and eager.p75_s and graph.p25_s and graph.p75_s:
        low, high = eager.p25_s / graph.p75_s, eager.p75_s / graph.p25_s
        measured += f" ({low:.2g}-{high:.2g}x over the middle half of the calls)"
    parts = [lesson]
    if claim.low <= speed <= claim.high:
        parts.append(measured + ", within it.")
    else:
        parts.append(measured + (", above it." if speed > claim.high else ", below it."))
        if eager.median_s and graph.median_s:
            per_op = (f" for the trace's {ops} ops, about {seconds_text(eager.median_s / ops)} "
                      "each, dispatched one by one from Python" if ops else "")
            parts.append(f"Eager takes {seconds_text(eager.median_s)} a step{per_op}; the "
                         f"graph runs the step in one call, {seconds_text(graph.median_s)}. "
                         "The lesson's own words say the figure depends on the model's size "
                         "and the batch: this model and batch are small.")
    if load is not None and load[0] >= load[1]:
        parts.append(f"This machine was busy (load {load[0]:.1f} on {load[1]} cores): the "
                     "times spread more than on an idle one; enter measures again.")
    return " ".join(parts)


def trace_result(report: Any) -> str:
    """``3 calls: 2 traced, 1 reused a graph, 1 failed``, and TensorFlow's own message
    quoted where it refused a call (an input_signature)."""
    calls = report.calls
    counts = Counter(c.outcome for c in calls)
    words = {"traced": "traced", "reused": "reused a graph", "failed": "failed"}
    said = ", ".join(f"{counts[k]} {w}" for k, w in words.items() if counts[k])
    if not calls:
        return "no calls made"
    refused = next((c.tf_message for c in calls if c.tf_message), None)
    quoted = f"; TensorFlow's own message: “{shortened(refused, 200)}”" if refused else ""
    return f"{len(calls)} calls: {said}{quoted}"


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
    return f"line {first.line}: {kind_words(first.kind)} {verdict_words(first)}"
