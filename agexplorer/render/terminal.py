"""The readable terminal report: source beside converted code, verdicts, ops by line and type."""

from __future__ import annotations

import os
import textwrap
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from agexplorer.model.lab import RunLab
from agexplorer.model.report import VERDICT_WORDS, Report, Verdict, driver_words, path_text
from agexplorer.model.text import plural, seconds_text
from agexplorer.render.badges import VERDICT_STYLE, verdict_badge
from agexplorer.render.cells import TextTable
from agexplorer.render.loopvars import loop_var_text
from agexplorer.source.cells import cell_label

# Okabe-Ito, a palette that stays distinct for colour-blind readers (the report's default).
PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
# A brighter set for the explorer, where colour-blind readers can switch to PALETTE.
VIVID = ["#ff6b6b", "#4ecdc4", "#ffd93d", "#6bcB77", "#4d96ff", "#c77dff", "#ff9f1c", "#2ec4b6"]


def display_path(path: str) -> str:
    """Relative to the working folder when inside it, else absolute, with ``~`` for the
    home folder (the explorer's scratch copies live under ~/.local/state); a notebook's
    cell as IPython names it (``In[3]``)."""
    label = cell_label(path)
    if label is not None:
        return label
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        rel = ".."
    if not rel.startswith(".."):
        return rel
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path


def line_colors(report: Report, palette: list[str] = PALETTE) -> dict[int, str]:
    """One colour per source line that produced converted code, shared by its lines and ops."""
    conv = report.conversion
    lines = sorted({s for _, s in conv.source_map}) if conv else []
    return {line: palette[i % len(palette)] for i, line in enumerate(lines)}


def _highlighted(code: str, theme: str) -> list[Text]:
    text = Syntax(code, "python", theme=theme).highlight(code)
    lines = text.split("\n", allow_blank=True)
    return list(lines)


def _code_grid(*columns: str) -> Table:
    """A grid of narrow columns (right-aligned, never wrapped) then the code, which takes
    the rest of the width and wraps there: at 80 columns a long line continues on the next
    row instead of losing its end (a measured code column squeezed the others to nothing)."""
    table = Table.grid(padding=(0, 1), expand=True)
    for justify in columns:
        table.add_column(justify=justify, no_wrap=True)  # type: ignore[arg-type]
    table.add_column(ratio=1, overflow="fold")
    return table


def _source_table(report: Report, colors: dict[int, str], theme: str) -> Table:
    verdicts = {v.line: v for v in report.statements}
    counts = report.inventory.by_line() if report.inventory else {}
    badges = {line: verdict_badge(v) for line, v in verdicts.items()}
    table = _code_grid("right", "left", "right") if badges else _code_grid("right", "right")
    for offset, line in enumerate(_highlighted(textwrap.dedent(report.source), theme)):
        number = report.first_line + offset
        if offset and number > report.end_line:
            break
        v = verdicts.get(number)
        cells = [Text(f"{number:>3}", style=colors.get(number, "dim"))]
        if badges:
            cells.append(Text(badges[number], style=VERDICT_STYLE[v.verdict]) if v else Text(""))
        cells.append(Text(f"{counts[number]:>3}", style=colors.get(number, ""))
                     if counts.get(number) else Text("   "))
        cells.append(line)
        table.add_row(*cells)
    return table


def _converted_table(report: Report, colors: dict[int, str], theme: str) -> Table:
    conv = report.conversion
    table = _code_grid("right", "right")
    if conv is None:
        return table
    origin: dict[int, int] = {}
    for c, s in conv.source_map:
        origin.setdefault(c, s)
    for number, line in enumerate(_highlighted(conv.code, theme), start=1):
        src = origin.get(number)
        ref = Text(f"<{src}", style=colors.get(src, "dim")) if src else Text("    ")
        table.add_row(Text(f"{number:>3}", style="dim"), ref, line)
    return table


def _verdict_table(verdicts: Sequence[Verdict],
                   title: str = "Control flow: what AutoGraph did with each if/for/while",
                   counted: bool = True) -> Table:
    """``counted``: the trace ended, so each statement's ops are known (else "-")."""
    table = TextTable(title=title, title_justify="left", expand=True, show_lines=True)
    table.add_column("line", justify="right")
    table.add_column("statement", overflow="fold", ratio=2)
    table.add_column("verdict", no_wrap=True)
    table.add_column("ops", justify="right")
    table.add_column("why, and what to do", ratio=5)
    for v in verdicts:
        # the explorer's words (unrolled x5, took true), the op a staged one became under them
        shown = verdict_badge(v) + (f"\n{v.graph_op}" if v.graph_op else "")
        why = Text(v.reason)
        if v.hint:
            why.append("\nfix: ", style="bold cyan")
            why.append(v.hint, style="cyan")
        why.append_text(loop_var_text(v))
        table.add_row(str(v.line), v.header,
                      Text(shown, style=VERDICT_STYLE[v.verdict]),
                      str(v.ops_created) if counted else "-", why)
    return table


def _reached_sections(report: Report) -> list[Any]:
    """One section per other function of the user's code the trace reached."""
    parts: list[Any] = []
    if report.reached:
        parts.append(Text(f"Functions of your code reached from {report.function}: "
                          f"{len(report.reached)} (each with the call path the trace took)",
                          style="bold"))
    counted = report.inventory is not None  # a failed trace counted no op
    for f in report.reached:
        where = f"{display_path(f.file)}:{f.first_line}-{f.end_line}"
        ops = plural(f.op_count, "op") if counted else "ops not counted: the trace failed"
        title = (f"{f.function}  ({where}, {ops})"
                 f"\n  reached by {path_text(f.call_path)}")
        if f.note:
            title += f"\n  {f.note}"
        if f.statements:
            parts.append(_verdict_table(f.statements, title, counted))
        else:
            parts.append(Text(title + "\n  no if/for/while", style=""))
    return parts


def _ops_by_line(report: Report, colors: dict[int, str]) -> Table:
    inv = report.inventory
    assert inv is not None
    source: dict[int | None, str] = {report.first_line + i: s
                                      for i, s in enumerate(report.source.splitlines())}
    types: dict[int | None, Counter] = defaultdict(Counter)
    elsewhere: dict[tuple[str, int], Counter] = defaultdict(Counter)  # other files' lines
    for op in inv.ops:
        if op.file is not None and op.file != report.file and op.line is not None:
            elsewhere[(op.file, op.line)][op.type] += 1
        else:
            types[op.line][op.type] += 1
    lines: dict[str, dict[int, str]] = defaultdict(dict)
    for f in report.reached:
        lines[f.file].update(enumerate(f.source.splitlines(), start=f.first_line))
    table = TextTable(title="Ops by source line", title_justify="left", expand=True)
    table.add_column("line", justify="right")
    table.add_column("source", overflow="fold", ratio=3)  # wraps: at 80 columns, not cut
    table.add_column("ops", justify="right")
    table.add_column("types", ratio=4)
    for line in sorted(types, key=lambda x: (x is None, x or 0)):
        counter = types[line]
        label = str(line) if line is not None else "-"
        text = source.get(line, "").strip() if line is not None else \
            "(made by tf.function: inputs, outputs)"
        if line is not None and line not in source:
            text = f"{os.path.basename(report.file)}:{line} (outside the function)"
        style = colors.get(line, "") if line is not None else ""
        table.add_row(Text(label, style=style), text, str(sum(counter.values())),
                      ", ".join(f"{t} x{n}" if n > 1 else t for t, n in counter.most_common()))
    for (file, line), counter in sorted(elsewhere.items()):
        text = lines.get(file, {}).get(line, "").strip()
        table.add_row(f"{os.path.basename(file)}:{line}", text, str(sum(counter.values())),
                      ", ".join(f"{t} x{n}" if n > 1 else t for t, n in counter.most_common()))
    return table


def _bodies_tree(report: Report) -> Tree:
    inv = report.inventory
    assert inv is not None
    by_parent: dict[str | None, list] = defaultdict(list)
    for body in inv.bodies:
        by_parent[body.parent_op].append(body)
    types_in: dict[str, Counter] = defaultdict(Counter)
    op_function: dict[str, str] = {}
    for op in inv.ops:
        types_in[op.function][op.type] += 1
        op_function[op.name + "@" + op.function] = op.function
    root = inv.bodies[0]
    tree = Tree(Text.assemble((root.name, "bold"), f" ({root.op_count} ops)"))

    # A body names its op by name only, and ops of two bodies can share one (a tf.data op
    # gets no name scope: nested dataset loops are both ``ReduceDataset``): each body is
    # placed once, so the tree cannot recurse into itself.
    placed = {root.name}

    def add(node: Tree, function: str) -> None:
        for op in inv.ops:
            if op.function != function:
                continue
            for body in by_parent.get(op.name, []):
                if body.name in placed:
                    continue
                placed.add(body.name)
                child = node.add(Text.assemble(f"{op.type} ", (op.name, "bold"),
                                               f" {body.role}: {body.name} "
                                               f"({body.op_count} ops)"))
                add(child, body.name)

    add(tree, root.name)
    return tree


def render_lab(lab: RunLab, console: Console, home: str | None = None) -> None:
    """Print the run lab (see :func:`lab_renderables`)."""
    for part in lab_renderables(lab, home):
        console.print(part)


def lab_renderables(lab: RunLab, home: str | None = None) -> list:
    """Results, timings, a bar chart of the medians and the match flag of the run lab; the HLO
    alone when no mode ran (``--no-run --hlo``), its lines of ``home`` as ``L12``."""
    from agexplorer.render.hlo import hlo_renderables
    from agexplorer.render.lab_notes import timing_notes
    from agexplorer.render.timings import TimingTable

    if not lab.runs and lab.hlo_ir is not None:
        return hlo_renderables(lab.hlo_ir, home, seconds_text)
    parts: list = []
    modes = list(lab.runs)
    loads = "a fresh module load per mode" if lab.fresh_module else "one shared module load"
    results = Table(title=f"Runs on {lab.device} ({loads})", title_justify="left", expand=True)
    results.add_column("mode")
    results.add_column("result", ratio=3, overflow="fold")
    results.add_column("ran on", ratio=1, overflow="fold")
    for mode in modes:
        run = lab.runs[mode]
        shown = Text(run.result or "") if run.ok else \
            Text(run.error or "failed", style="dim" if run.skipped else "red")
        results.add_row(mode, shown, (run.ran_on or "-").split("device:")[-1])
    parts.append(results)
    parts.append(TimingTable(lab))

    parts.extend(timing_notes(lab))
    medians = {m: r.median_s for m, r in lab.runs.items() if r.median_s}
    if medians:
        longest = max(medians.values())
        chart = Table.grid(padding=(0, 1))
        chart.add_column()
        chart.add_column()
        chart.add_column(justify="right")
        width = 50
        for mode, median in medians.items():
            bar = "█" * max(1, round(width * median / longest))
            chart.add_row(mode, Text(bar, style={"eager": "yellow", "graph": "green",
                                                 "xla": "cyan"}.get(mode, "")), seconds_text(median))
        parts.append(Panel(chart, title="Median time per call (shorter is faster)",
                            title_align="left"))
    if lab.results_match is True:
        parts.append(Text("results match across modes", style="green"))
    elif lab.results_match is False:
        from agexplorer.render.lab_mismatch import mismatch_words

        parts.append(Panel(Text(mismatch_words(lab)), title="mismatch", style="yellow",
                           title_align="left"))
    if lab.hlo_ir is not None:
        parts.extend(hlo_renderables(lab.hlo_ir, home, seconds_text))
    if lab.tensorboard_note:
        parts.append(Text(lab.tensorboard_note, style="cyan"))
    printed = printed_text(lab)
    if printed is not None:
        # The why in the body: a title is cut to one line at 80 columns.
        parts.append(Panel(printed, title="Printed while running", title_align="left"))
    return parts


def printed_text(lab: RunLab) -> Text | None:
    """What each mode printed, stdout and tf.print's stderr apart, with the count of its
    calls beside it (a Python print runs on every eager call, a tf.print on every call)."""
    said = [(m, r) for m, r in lab.runs.items() if r.printed_lines or r.stderr_lines]
    if not said:
        return None
    text = Text()
    if any(r.printed_lines for _, r in said):
        text.append("A Python print runs on every eager call, but in graph modes only while "
                    "tracing.\n", style="dim")
    if any(r.stderr_lines for _, r in said):
        text.append("tf.print is an op: it prints on every call, in every mode (to stderr).\n",
                    style="dim")
    for mode, run in said:
        for count, lines, where in ((run.printed_lines, run.printed, ""),
                                    (run.stderr_lines, run.stderr, ", stderr")):
            if not count:
                continue
            text.append(f"{mode}{where}: {plural(count, 'line')} "
                        f"over {plural(run.calls + 1, 'call')}\n", style="bold")
            for line, n in lines:
                text.append(f"  {line}" + (f"  x{n}" if n > 1 else "") + "\n")
    text.rstrip()
    return text


def _flowed(pieces: list[str], width: int) -> str:
    """``pieces`` two spaces apart, a new line where the next would pass ``width``: a piece
    (``load 149 ms``) is never split over two lines."""
    lines = [""]
    for piece in pieces:
        joined = f"{lines[-1]}  {piece}" if lines[-1] else piece
        if len(joined) > width and lines[-1]:
            lines.append(piece)
        else:
            lines[-1] = joined
    return "\n".join(lines)


def render_report(report: Report, console: Console | None = None, width: int | None = None,
                  theme: str = "monokai", lab: RunLab | None = None) -> None:
    """Print the whole report (and the run lab, when there is one) to ``console``."""
    console = console or Console(width=width)
    for part in report_renderables(report, console.width, theme, lab):
        console.print(part)


def report_renderables(report: Report, width: int, theme: str = "monokai",
                       lab: RunLab | None = None) -> list[Any]:
    """The whole report as rich renderables laid out for ``width`` columns (the command
    prints them; a notebook's ``agexplorer.explain`` shows them)."""
    parts: list[Any] = []
    colors = line_colors(report)
    inv = report.inventory
    counts = Counter(v.verdict for v in report.statements)
    summary = Text()
    summary.append(f"{display_path(report.file)}::{report.function}", style="bold")
    summary.append("  @tf.function" if report.decorated else "  plain function", style="cyan")
    if report.drives:
        summary.append(f"\n{driver_words(report.function, report.drives)}", style="yellow")
    call = report.call if report.call is not None else "?"
    origin = f"  [{report.call_origin}]" if report.call_origin else ""  # none: no call made
    summary.append(f"\ncall: {report.function.split('.')[-1]}({call}){origin}")
    if report.instance:
        summary.append(f"\ninstance: {report.instance}")
    if inv:
        bodies = len(inv.bodies)
        summary.append(f"\n{len(inv.ops)} ops in {bodies} function bod{'ies' if bodies != 1 else 'y'};  ")
    else:
        summary.append("\n")
    # Untraced (no call, or it failed), its if/for/while have no verdicts: not "none"
    said = ", ".join(f"{n} {VERDICT_WORDS[k]}" for k, n in counts.items())
    if said and report.error is not None and not inv:  # what ran before tracing raised
        said = f"tracing failed (the error below); before it: {said}"
    summary.append(said or ("no if/for/while" if inv else "not traced: no verdicts"
                            + (" (the error below says why)" if report.error else "")))
    parts.append(Panel(summary, title="agexplorer report", title_align="left"))
    if report.load_note:  # the file's own module-level code raised: what ran, what did not
        parts.append(Panel(Text(report.load_note), title="Loading the file", style="yellow",
                           title_align="left"))

    side_by_side = width >= 150
    source = _source_table(report, colors, theme)
    converted: Any = _converted_table(report, colors, theme)
    if report.conversion_note:  # AutoGraph refused it: why
        converted = Text(report.conversion_note, style="yellow")
    elif report.conversion is not None and report.conversion.wrapped_by is not None:
        converted = Group(Text(report.conversion.wrapper_note(report.function) or "",
                               style="dim"), converted)
    left = Panel(source, title=f"Source, lines {report.first_line}-{report.end_line}  "
                 "(line, verdict, ops made)",
                 title_align="left")
    right = Panel(converted, title="AutoGraph: tf.autograph.to_code  (<N: source line)",
                  title_align="left")
    if side_by_side:
        grid = Table.grid(expand=True)
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        grid.add_row(left, right)
        parts.append(grid)
    else:
        parts += [left, right]

    if report.statements:
        parts.append(_verdict_table(report.statements, counted=inv is not None))
    parts += _reached_sections(report)
    if inv:
        parts.append(_ops_by_line(report, colors))
        by_type = TextTable(title="Ops by type", title_justify="left")
        by_type.add_column("type")
        by_type.add_column("count", justify="right")
        for op_type, n in inv.by_type().items():
            by_type.add_row(op_type, str(n))
        parts.append(Group(by_type, Panel(_bodies_tree(report), title="Function bodies",
                                          title_align="left")))
    if report.output.strip():
        # The why in the body: a title is cut to one line at 80 columns.
        printed = Text("Python print runs only here, never on later calls.\n", style="dim")
        printed.append(report.output.rstrip())
        parts.append(Panel(printed, title="Printed while loading and tracing",
                           title_align="left", style="yellow"))
    if lab is not None:
        parts += lab_renderables(lab, report.file)
    pieces = [f"{k[:-2]} {v * 1000:.0f} ms" for k, v in report.timings.items()]
    if pieces:
        pieces[0] = f"engine timings: {pieces[0]}"
        parts.append(Text(_flowed(pieces, width), style="dim"))
    if report.error is not None:
        parts.append(Panel(Text(report.error.message), title="error", style="red",
                           title_align="left"))
    return parts
