"""One-page summaries as GitHub Markdown: pipe tables, fenced code, headings (no raw HTML)."""

from __future__ import annotations

import re
from typing import Any

from agexplorer.model.doctor import Finding
from agexplorer.model.report import driver_words
from agexplorer.model.text import plural
from agexplorer.render.page import (
    TIMING_HEADERS,
    VERDICT_WORDS,
    VERDICTS,
    FilePage,
    FunctionPage,
    code_spans,
    retrace_text,
    source_blocks,
    timing_rows,
    unrolled_loops,
    verdict_detail,
    where,
)
from agexplorer.render.run_page import (
    cause_rows,
    failure_words,
    intended_words,
    largest_loops,
    more_loops,
)
from agexplorer.runlog.summary import command_line, display_name, loop_path, untried_fixes


def cell(text: object) -> str:
    """Text safe in a pipe-table cell: one line, ``|`` escaped, Markdown's own marks escaped."""
    return _escape(" ".join(str(text).split())) or " "


def _escape(text: str) -> str:
    # Every mark Markdown (and GitHub's) gives a meaning, ``&`` (entities) and ``~``
    # (strikethrough) included: a backslash before any ASCII punctuation shows it as itself.
    return re.sub(r"([\\`*_\[\]<>|#&~])", r"\\\1", text)


def prose(text: object, in_table: bool = True) -> str:
    """A sentence: its `code` spans kept as code (render.page.code_spans), the rest escaped
    (``in_table``: a ``|`` in a span escaped too, as a table cell needs)."""
    flat = " ".join(str(text).split())
    return "".join(code(part, in_table) if is_code else _escape(part)
                   for part, is_code in code_spans(flat)) or " "


def code(text: object, in_table: bool = True) -> str:
    """Inline code that survives any backticks inside it (and, ``in_table``, a table's ``|``)."""
    flat = " ".join(str(text).split())
    if in_table:
        flat = flat.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}" if flat else " "


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A pipe table; cells must already be escaped (see :func:`cell` and :func:`code`)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def fenced(body: str, info: str = "text") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
    fence = "`" * (longest + 1)
    return [f"{fence}{info}", body, fence, ""]


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def _overview(page: FilePage) -> list[str]:
    rows = []
    for fp in page.functions:
        counts = fp.counts()
        loops = unrolled_loops(fp)
        graph = fp.lab.runs.get("graph") if fp.lab is not None else None
        rows.append([code(fp.function), "-" if fp.op_count is None else str(fp.op_count),
                     *[str(counts[k]) for k in VERDICTS], str(len(loops)),
                     "-" if graph is None or graph.tracing_count is None
                     else str(graph.tracing_count),
                     str(len(fp.findings)), "failed" if fp.error else "ok"])
    return table(["function", "ops", *VERDICTS, "unrolled loops", "traces", "findings",
                  "analysis"], rows)


def _findings(findings: list[Finding]) -> list[str]:
    return table(["line", "code", "finding", "fix"],
                 [[str(f.line), f"{f.code} {cell(f.title)}", prose(f.message),
                   prose(f.fix or "-")] for f in findings])


def _function(fp: FunctionPage) -> list[str]:
    out = [f"## {code(fp.function, False)}", ""]
    r = fp.report
    facts = []
    if r is not None:
        facts.append(f"{cell(where(r.file, r.first_line))}-{r.end_line}")
        facts.append("@tf.function" if r.decorated else "plain function")
        if r.drives:
            facts.append(prose(driver_words(r.function, r.drives)))
    if fp.call_text:
        facts.append(f"call {code(fp.call_text, False)}"
                     + (f" ({cell(fp.report.call_origin)})"
                        if fp.report is not None and fp.report.call_origin else ""))
    if fp.op_count is not None:
        facts.append(f"{fp.op_count} ops")
    if facts:
        out += [" · ".join(facts), ""]
    if fp.error:
        out += [f"**Not analysed:** {cell(fp.error)}", ""]  # the error as written
    if fp.load_note:
        out += [f"**Loading the file:** {cell(fp.load_note)}", ""]  # quotes the user's line
    if fp.refused:
        out += [f"**Not converted by AutoGraph:** {cell(fp.refused)}", ""]
    statements = fp.statements
    if statements:
        out += ["### Control flow", ""]
        out += table(["line", "statement", "verdict", "ops", "why, and the fix"],
                     [[cell(where(v.file, v.line)) if v.file and r and v.file != r.file
                       else str(v.line), code(v.header), cell(verdict_detail(v)),
                       str(v.ops_created) if fp.op_count is not None else "-",
                       prose(v.reason) + (f" **Fix:** {prose(v.hint)}" if v.hint else "")]
                      for v in statements])
    elif r is not None and not fp.error:
        out += ["No if/for/while.", ""]
    loops = unrolled_loops(fp)
    if loops:
        out += ["### Unrolled loops", ""]
        out += table(["where", "loop", "iterations", "ops made", "share of the function's ops"],
                     [[f"{code(row.function)} {cell(where(row.file, row.line))}",
                       code(row.header),
                       str(row.iterations), str(row.ops), _percent(row.share)] for row in loops])
    retrace = retrace_text(fp.lab)
    if retrace:
        out += ["### Retraces", "", cell(retrace), ""]
    if fp.findings:
        out += ["### Doctor's findings", "", *_findings(fp.findings)]
    elif fp.doctor_note:
        out += ["### Doctor's findings", "", prose(fp.doctor_note, False), ""]
    elif fp.doctor is not None and fp.doctor.traced:
        out += ["### Doctor's findings", "", "No pitfalls found.", ""]
    if fp.lab is not None and fp.lab.runs:
        out += [f"### Timings on {cell(fp.lab.device)}", ""]
        out += table(TIMING_HEADERS, [[code(row[0]), cell(row[1]), *row[2:]]
                                      for row in timing_rows(fp.lab)])
    for block in source_blocks(fp):
        width = max((len(line.badge) for line in block.lines), default=0)
        body = "\n".join(f"{line.number:>5}  {line.badge:<{width}}  {line.text}".rstrip()
                         for line in block.lines)
        out += [f"### Source of {code(block.function, False)} ({cell(where(block.file, None))}; "
                "line, verdict, code)", "", *fenced(body)]
    return out


def file_markdown(page: FilePage) -> str:
    """The whole page for a file (or one function of it)."""
    n = len(page.functions)
    out = [f"# agexplorer report: {code(page.name, False)}", "",
           f"{plural(n, 'function')} analysed; verdicts count each if/for/while "
           "(its own and those of your code it called).", ""]
    if page.functions:
        out += _overview(page)
    if page.skipped:
        out += ["Not analysed (no ready call: add an `AGX_CALLS` entry or an input_signature): "
                + ", ".join(code(name, False) for name in page.skipped) + ".", ""]
    out += ["Verdicts: " + "; ".join(cell(VERDICT_WORDS[k]) for k in VERDICTS) + ".", ""]
    for fp in page.functions:
        out += _function(fp)
    if page.module_findings:
        out += ["## Module-level findings", "", *_findings(page.module_findings)]
    return "\n".join(out).rstrip() + "\n"


def summary_markdown(summary: dict[str, Any]) -> str:
    """A recorded run's page (``summarise(read_log(path))``)."""
    program, functions = summary["program"], summary["functions"]
    argv = command_line(program)
    traces = sum(f["traces"] for f in functions)
    out = ["# agexplorer run summary", "",
           f"Program: {code(argv or '?', False)} · exit code {program.get('exit_code', '-')} · "
           f"{program.get('wall_s') or 0:.2f} s · TensorFlow {cell(program.get('tensorflow') or '?')}"
           + ("" if program.get("finished") else " · **did not finish**")
           + (" · **interrupted** (Ctrl-C)" if program.get("interrupted") else ""), ""]
    failed = failure_words(program)
    if failed:
        out += [f"**The program failed** (exit status {program.get('exit_code')}): "
                f"{cell(failed)}", ""]
    out += [f"{plural(traces, 'trace')} of "
            f"{plural(len(functions), 'function')}.", ""]
    if functions:
        out += ["## Functions by trace time", ""]
        out += table(["function", "where", "traces", "trace time", "ops", "your code"],
                     [[code(display_name(f)), cell(where(f["file"], f["line"])), str(f["traces"]),
                       f"{f['trace_s']:.3f} s", str(f["op_count"]), "yes" if f["user"] else "no"]
                      for f in functions])
    out += _retraces(summary)
    out += _loops(summary)
    errors = [(f, e) for f in functions for e in f["errors"]]
    if errors:
        out += ["## Traces that failed", ""]
        out += [f"- {code(f['function'], False)}, trace {e['trace']}: {cell(e['error'])}"
                for f, e in errors] + [""]
    if summary.get("notes"):
        out += ["## Notes", ""] + [f"- {cell(note)}" for note in summary["notes"]] + [""]
    return "\n".join(out).rstrip() + "\n"


def _retraces(summary: dict[str, Any]) -> list[str]:
    """Every function's retraces grouped by what changed, with the fix for each group."""
    rows = cause_rows(summary)
    if not rows:
        return []
    n = sum(r.count for r in rows)
    return ["## Retraces", "", f"{plural(n, 'retrace')}, grouped by what changed.", "",
            *table(["function", "where", "retraces", "what changed", "traces", "fix"],
                   [[code(row.function), cell(row.where), str(row.count), cell(row.what),
                     cell(row.traces), cell(row.fix or "-")] for row in rows])]


def _loops(summary: dict[str, Any]) -> list[str]:
    """The largest unrolled loops (and how many more), the intended ones counted, the fixes."""
    loops, hidden = largest_loops(summary)
    intended = intended_words(summary)
    if not loops and not intended:
        return []
    out = ["## Largest unrolled loops", ""]
    if loops:
        out += table(["function", "where", "loop", "iterations", "ops made",
                      "share of its trace's ops", "about"],
                     [[code(loop_path(row)), cell(where(row["file"], row["line"])),
                       code(row.get("header") or row["kind"]), str(row["iterations"]),
                       str(row["ops_created"]), f"{row['share']:.0%}",
                       f"{row['share_s']:.3f} s"] for row in loops])
    if hidden:
        out += [prose(more_loops(hidden), False), ""]
    for words in intended:
        out += [f"{cell(words)}.", ""]
    fixes = [(row, row["hint"]) for row in loops if row.get("hint")]
    if fixes:
        out += ["## Fixes", ""]
        out += [f"- {code(row['function'], False)} ({cell(where(row['file'], row['line']))}): "
                f"{prose(hint, False)}" for row, hint in fixes] + [""]
        out += [f"{prose(untried_fixes(), False)}.", ""]
    return out
