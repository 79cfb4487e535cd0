"""The doctor in the terminal: findings per function, and a tried fix side by side."""

from __future__ import annotations

import os
import shlex
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from agexplorer.model.doctor import DoctorReport, Finding, FixTrial, TrialSide
from agexplorer.model.lab import ModeRun
from agexplorer.model.report import kind_words
from agexplorer.model.text import plural, seconds_text
from agexplorer.render.badges import verdict_badge
from agexplorer.render.cells import TextTable
from agexplorer.render.terminal import display_path


def _where(f: Finding) -> Text:
    """A helper's finding: where it is and the call path that reached it."""
    text = Text(f"in {f.function} ({display_path(f.file or '')})\n", style="dim")
    text.append("reached: " + " → ".join(site.text() for site in f.call_path or ()) + "\n",
                style="dim")
    return text


def _line_cell(f: Finding) -> str:
    """The finding's line; a helper's with its file's name (the line is of that file)."""
    return f"{os.path.basename(f.file)}:{f.line}" if f.file else str(f.line)


def _finding_text(f: Finding, target: str | None) -> Text:
    text = _where(f) if f.function else Text()
    text.append(f.message)
    if f.basis == "static":
        text.append("  (from the source)", style="dim")
    text.append("\nwhy: ", style="bold")
    text.append(f.why, style="dim")
    if f.fix:
        text.append("\nfix: ", style="bold cyan")
        text.append(f.fix, style="cyan")
    if f.rewrite and target:
        text.append("\ntry: ", style="bold green")
        # Quoted as a shell needs it: a path may hold spaces, brackets or a "<".
        text.append(f"agexplorer doctor {shlex.quote(target)} --try {f.code}", style="green")
        text.append(f"  ({f.rewrite})", style="dim green")
    return text


def findings_table(findings: list[Finding], target: str | None = None, title: str = "",
                   narrow: bool = False) -> TextTable:
    """One row per finding: line, code and title, what, why, the fix and the rewrite;
    ``narrow`` (under 100 columns): the title wraps under its code, and the finding keeps
    the width."""
    table = TextTable(title=title or None, title_justify="left", expand=True, show_lines=True)
    table.add_column("line", justify="right")
    table.add_column("code", max_width=16 if narrow else None, no_wrap=not narrow)
    table.add_column("finding", ratio=1)
    for f in findings:
        table.add_row(_line_cell(f), Text(f"{f.code}\n{f.title}", style="bold yellow"),
                      _finding_text(f, target))
    return table


def render_doctor(reports: list[DoctorReport], console: Console | None = None,
                  width: int | None = None, module: list[Finding] | None = None,
                  drivers: dict[str, tuple[str, ...]] | None = None) -> None:
    """Print the doctor's findings for each function (and the module-level ones), then the
    ``drivers`` left out: plain functions that call the file's tf.functions."""
    console = console or Console(width=width)
    for part in doctor_renderables(reports, console.width, module):
        console.print(part)
    for name, calls in (drivers or {}).items():
        called = ", ".join(calls)
        console.print(Text(f"{name}: not examined: plain Python that calls the file's "
                           f"tf.function{'s' if len(calls) > 1 else ''} {called}; the program "
                           f"runs it, nothing traces it, so the checks for code run while "
                           f"tracing do not apply (name it, ::{name}, to examine what it "
                           "calls with the arguments it passes).", style="dim"))


def doctor_renderables(reports: list[DoctorReport], width: int,
                       module: list[Finding] | None = None, commands: bool = True
                       ) -> list[Any]:
    """The doctor's findings as rich renderables for ``width`` columns; ``commands`` False:
    no ``agexplorer doctor ... --try`` line (a notebook's live function has no file to
    name)."""
    parts: list[Any] = []
    for report in reports:
        target = f"{display_path(report.file)}::{report.function}"
        n = len(report.findings)
        head = Text(target, style="bold")
        # Untraced, only the source was examined: "no pitfalls found" would promise more.
        clean = ": no pitfalls found" if report.traced else \
            ": nothing found in its source (not traced, so its loops' verdicts are unknown)"
        head.append(f": {plural(n, 'finding')}" if n else clean,
                    style="bold yellow" if n else "green" if report.traced else "yellow")
        if report.note:
            head.append(f"\n  {report.note}", style="dim")
        if report.call is not None:
            head.append(f"\n  call: {report.function.split('.')[-1]}({report.call})"
                        f"  [{report.call_origin}]", style="dim")
        if report.error is not None:
            head.append(f"\n  {'not traced' if not report.traced else 'error'}: "
                        f"{report.error.message}", style="yellow")
        parts.append(head)
        if report.findings:
            parts.append(findings_table(report.findings, target if commands else None,
                                        narrow=width < 100))
        parts.append(Text())
    if module:
        parts.append(findings_table(module, None, "module level", width < 100))
    return parts


def _median_cell(run: ModeRun, box: float | None) -> str:
    """A mode's median, or what it measured before its time box ran out, or why none."""
    if run.skipped:
        return "skipped"
    limit = f" after {box:g} s" if box else ""
    if not run.ok:
        return f"timed out{limit}" if run.timed_out else "failed"
    if run.median_s is None:
        return f"first call {seconds_text(run.first_call_s)}, then timed out{limit}"
    return seconds_text(run.median_s) + (f" (timed out{limit})" if run.timed_out else "")


def _side_cells(side: TrialSide, moved: dict[int, int] | None = None) -> dict[str, str]:
    """The side's rows; ``moved``: a statement's line in this side's text -> its line in the
    other's (the rewritten loop, which lines inserted above it moved), so both sit in one
    row."""
    lab = side.lab
    moved = moved or {}
    cells = {"call": f"({side.call})" if side.call is not None else "-",
             "traced": "yes" if side.op_count is not None else "no",
             "ops": "-" if side.op_count is None else str(side.op_count),
             "trace time": seconds_text(side.trace_s)}
    for v in side.verdicts:
        cells[f"{kind_words(v.kind)} line {moved.get(v.line, v.line)}"] = verdict_badge(v) + \
            (f" ({v.graph_op})" if v.graph_op else "")
    for mode in ("eager", "graph", "xla"):
        run = lab.runs.get(mode) if lab is not None else None
        cells[f"{mode} median"] = "-" if run is None else _median_cell(run, lab.mode_timeout_s)
    graph = lab.runs.get("graph") if lab is not None else None
    cells["graph traces"] = str(graph.tracing_count) if graph and graph.tracing_count else "-"
    cells["graph result"] = (graph.result or "") if graph and graph.ok else \
        (graph.error or "failed") if graph else "-"
    if lab is not None:
        cells["modes agree"] = {True: "yes", False: "no", None: "-"}[lab.results_match]
    if side.error is not None:
        cells["error"] = side.error.message
    return cells


def render_trial(trial: FixTrial, console: Console | None = None, width: int | None = None,
                 applied: bool = False) -> None:
    """Print a tried fix: the diff of the function, then before and after side by side."""
    console = console or Console(width=width)
    for part in trial_renderables(trial, applied):
        console.print(part)


def trial_renderables(trial: FixTrial, applied: bool = False) -> list:
    """A tried fix as rich renderables (the CLI prints them, the TUI's Doctor tab shows them)."""
    parts: list = []
    f = trial.finding
    parts.append(Text(f"{f.code} at line {f.line}: {trial.rewrite.description}", style="bold"))
    parts.append(Panel(Syntax(trial.diff, "diff", theme="ansi_dark", word_wrap=True),
                       title="the rewrite (written to your file)" if applied else
                       "the rewrite (your file is not changed)", title_align="left"))
    new_line = trial.rewrite.new_line
    before = _side_cells(trial.before)
    after = _side_cells(trial.after, {new_line: trial.rewrite.line} if new_line else None)
    table = TextTable(title="before and after", title_justify="left", expand=True)
    table.add_column("")
    table.add_column("before", ratio=1, overflow="fold")
    table.add_column("after", ratio=1, overflow="fold")
    for key in dict.fromkeys([*before, *after]):
        old, new = before.get(key, "-"), after.get(key, "-")
        table.add_row(key, old, Text(new, style="bold" if new != old else ""))
    parts.append(table)
    if trial.results_equal is True:
        parts.append(Text(f"same result: {trial.results_note}", style="green"))
    elif trial.results_equal is False:
        parts.append(Text(f"the results differ: {trial.results_note}", style="yellow"))
    else:
        parts.append(Text(trial.results_note, style="yellow"))
    modes = trial.modes_note()
    if modes is not None:
        parts.append(Text(modes, style="yellow"))
    return parts
