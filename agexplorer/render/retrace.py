"""The retrace explainer in the terminal: each call traced or reused and why, what ran while tracing."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from agexplorer.model.retrace import RetraceCall, RetraceReport
from agexplorer.model.text import plural, shortened, times
from agexplorer.render.terminal import display_path

TF_QUOTE = 320  # characters of TensorFlow's own message quoted (its args' reprs follow)
OUTCOME_STYLE = {"traced": "bold yellow", "reused": "green", "failed": "bold red"}


def _note(call: RetraceCall) -> Text:
    """The last column of the calls table: why it traced, what it reused, or its error."""
    if call.outcome == "failed":
        note = Text(call.error or "raised", style="red")
        if call.tf_message:  # TensorFlow's own words, quoted as raised
            note.append(f"\nTensorFlow: “{shortened(call.tf_message, TF_QUOTE)}”", style="dim")
        return note
    if call.outcome == "reused":
        return Text(call.reused_because or "reused a trace made earlier", style="dim")
    return Text(call.reason or "")


_CALL_WIDTH, _ARGUMENTS_WIDTH = 36, 30  # the wide table's call and arguments columns, at most
_WHY_WIDTH = 30  # narrower than this, the why column is stacked under the call instead


class _CallsTable:
    """The calls table, laid out for the width it is given: one column per field where the
    reason still has room beside them, else each call's text, arguments and reason stacked
    in one column (at 80 columns the reason would shrink to "…")."""

    def __init__(self, report: RetraceReport) -> None:
        self.report = report
        name = report.function.rpartition(".")[2]
        self.rows = [(call, Text(f"{name}({call.call})"),
                      Text(", ".join(f"{a.name}: {a.text}" for a in call.arguments)))
                     for call in report.calls]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        calls = [len(c.plain) for _, c, _ in self.rows] or [0]
        arguments = [len(a.plain) for _, _, a in self.rows] or [0]
        number = len(str(len(self.rows)))
        # 5 columns: a space either side of each cell, and 6 rules between and around them
        fixed = number + min(_CALL_WIDTH, max(calls)) + min(_ARGUMENTS_WIDTH, max(arguments)) \
            + len("traced") + 5 * 2 + 6
        table = self._wide() if options.max_width - fixed >= _WHY_WIDTH else self._stacked()
        yield table

    def _wide(self) -> Table:
        table = Table(title="Calls, in order", title_justify="left", expand=True)
        table.add_column("#", justify="right", style="dim")
        table.add_column("call", overflow="fold", max_width=_CALL_WIDTH)
        table.add_column("arguments", overflow="fold", max_width=_ARGUMENTS_WIDTH)
        table.add_column("trace", no_wrap=True)
        table.add_column("why", ratio=1)
        for call, text, arguments in self.rows:
            table.add_row(str(call.index), text, arguments,
                          Text(call.outcome, style=OUTCOME_STYLE[call.outcome]), _note(call))
        return table

    def _stacked(self) -> Table:
        table = Table(title="Calls, in order", title_justify="left", expand=True)
        table.add_column("#", justify="right", style="dim")
        table.add_column("trace", no_wrap=True)
        table.add_column("call, its arguments, and why", ratio=1, overflow="fold")
        for call, text, arguments in self.rows:
            cell = Text.assemble(text, "\n")
            if arguments:
                cell.append_text(Text(arguments.plain, style="dim"))
                cell.append("\n")
            cell.append_text(_note(call))
            table.add_row(str(call.index), Text(call.outcome, style=OUTCOME_STYLE[call.outcome]),
                          cell)
        return table


def _python_table(report: RetraceReport) -> Table | None:
    """What ran in Python on each call: printed text and changed state, beside traced/reused."""
    if not any(c.printed.strip() or c.effects or c.logged.strip() for c in report.calls):
        return None
    table = Table(title="What ran in Python on each call (only while tracing)",
                  title_justify="left", expand=True)
    table.add_column("#", justify="right", style="dim")
    table.add_column("trace", no_wrap=True)
    table.add_column("printed", ratio=1, overflow="fold")
    table.add_column("Python state it changed", ratio=1, overflow="fold")
    for call in report.calls:
        printed = Text(call.printed.rstrip())
        if call.logged.strip():  # tf.print writes to stderr, from the graph, on every call
            printed.append(("\n" if printed else "") + "stderr: " + call.logged.strip(),
                           style="cyan")
        if not printed:
            printed = Text("nothing", style="dim")
        effects = Text("\n".join(e.text for e in call.effects)) if call.effects \
            else Text("nothing", style="dim")
        table.add_row(str(call.index), Text(call.outcome, style=OUTCOME_STYLE[call.outcome]),
                      printed, effects)
    return table


def _replays_table(report: RetraceReport) -> Table:
    replays = [r for r in report.replays.values() if r.applied]
    table = Table(title="Replayed with other settings (the same calls, a fresh tf.function each)",
                  title_justify="left")
    table.add_column("#", justify="right", style="dim")
    table.add_column("call", overflow="fold", max_width=36)
    table.add_column("as written", no_wrap=True)
    for r in replays:
        table.add_column(r.setting, no_wrap=True)
    for i, call in enumerate(report.calls):
        cells = [Text(call.outcome, style=OUTCOME_STYLE[call.outcome])]
        for r in replays:
            rc = r.calls[i]
            cells.append(Text(rc.outcome, style=OUTCOME_STYLE[rc.outcome]))
        table.add_row(str(call.index), Text(call.call), *cells)
    table.add_section()
    table.add_row("", "", Text(f"traced {times(report.tracing_count)}", style="bold"),
                  *[Text(f"traced {times(r.tracing_count)}", style="bold") for r in replays])
    return table


def _replay_notes(report: RetraceReport) -> Group:
    """Each setting, its code, then what replaying it did, indented (a wrapped line too)."""
    parts: list[Text | Padding] = []
    for r in report.replays.values():
        head = Text(f"{r.setting}: ", style="bold")
        head.append(r.code or "", style="cyan")
        body = Text()
        if r.applied:
            body.append(r.summary)
            if r.note:
                body.append(f"\n{r.note}")
            for rc in r.calls:
                if rc.error:  # the message names its call
                    body.append(f"\n{rc.error}", style="red")
        else:
            body.append(f"not replayed: {r.note}", style="dim")
        parts += [head, Padding(body, (0, 0, 0, 2))]
    return Group(*parts)


def render_retrace(report: RetraceReport, console: Console | None = None,
                   width: int | None = None) -> None:
    """Print the retrace report to ``console`` (a new one ``width`` columns wide by default)."""
    console = console or Console(width=width)
    for part in retrace_renderables(report):
        console.print(part)


def retrace_renderables(report: RetraceReport) -> list:
    """The retrace report as rich renderables (the CLI prints them, the TUI's Trace tab shows them)."""
    parts: list = []
    head = Text()
    head.append(f"{display_path(report.file)}::{report.function}", style="bold")
    settings = report.settings.replace("tf.function()", "tf.function")
    head.append(f"  @{settings}" if report.decorated else "  plain function, "
                "called through tf.function()", style="cyan")
    n = len(report.calls)
    head.append(f"\n{plural(n, 'call')} (from {report.calls_origin}), "
                f"traced {times(report.tracing_count)}; each trace is a concrete function "
                "made for one kind of argument")
    parts.append(Panel(head, title="agexplorer retrace", title_align="left"))
    parts.append(_CallsTable(report))
    python = _python_table(report)
    if python is not None:
        parts.append(python)
    if report.findings:
        findings = Table.grid(padding=(0, 1))  # a finding's wrapped lines under its words
        findings.add_column(no_wrap=True)
        findings.add_column(ratio=1)
        for finding in report.findings:
            findings.add_row("-", Text(finding))
        parts.append(Panel(findings, title="What this shows", title_align="left",
                           style="yellow"))
    if report.signatures:
        traces = Text()
        if any("=" in s for s in report.signatures):  # the key in the body: a title is cut
            traces.append("name=value: a Python value baked into the trace\n", style="dim")
        traces.append("\n".join(f"{i}. {s}" for i, s in enumerate(report.signatures, 1)))
        parts.append(Panel(traces, title="The traces, one concrete function each",
                           title_align="left"))
    if any(r.applied for r in report.replays.values()):
        parts.append(_replays_table(report))
    if report.replays:
        parts.append(Panel(_replay_notes(report), title="What each setting would change",
                            title_align="left"))
    for note in report.notes:
        parts.append(Text(f"note: {note}", style="dim"))
    if report.load_output.strip():
        parts.append(Panel(Text(report.load_output.rstrip()), title="Printed while loading the file",
                            title_align="left", style="dim"))
    return parts
