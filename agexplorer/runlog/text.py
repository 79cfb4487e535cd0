"""The short text summary of a recorded run: how it ended, functions, retraces by cause, unrolled loops."""

from __future__ import annotations

import shutil
import textwrap
from typing import Any

from agexplorer.model.report import intended_words, keras3_words
from agexplorer.model.text import plural
from agexplorer.runlog.causes import group_fix, group_words, trace_numbers
from agexplorer.runlog.summary import (
    asked_by,
    intended_unrolls,
    reaches_nothing,
    short_name,
    unrolled,
    untried_fixes,
)
from agexplorer.source.cells import shown_name

TOP = 5  # rows per section, unless --all
_MESSAGE = 120  # a longer first line of an exception's message is cut to its first sentence


def columns() -> int:
    """The terminal's width (80 when the output is piped), never under 40."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def text_lines(summary: dict[str, Any], *, limit: int | None = TOP, log: str | None = None,
               width: int = 80) -> list[str]:
    """The summary as lines of at most ``width`` columns (a longer word stays whole). Each
    section shows ``limit`` rows (None: all) and says how many more there are, and where
    (``log``: the log's name, for the command that lists them all)."""
    more = f"agexplorer summary {log} --all" if log else "--all"
    lines = _header(summary)
    functions = summary["functions"]
    rows: list[str] = []
    # A library's function that reached none of the user's code is left to --all.
    hidden = [f for f in functions if reaches_nothing(f)]
    for f in functions:
        if limit is not None and f in hidden:
            continue
        # Every trace failed: no graph, no op counted ("0 ops" would read as an empty graph).
        ops = "-" if len(f["errors"]) >= f["traces"] else f["op_count"]
        rows.append(f"  {f['trace_s']:8.3f} s  {plural(f['traces'], 'trace')}  "
                    f"{ops:>6} ops  {_name(f)}")
    lines += _section("functions by trace time:", rows, limit, more)
    if limit is not None and hidden:
        lines.append(f"  and {plural(len(hidden), 'library function')} that reached no def "
                     f"of yours ({more})")
    shown = functions if limit is None else [f for f in functions if f not in hidden]
    retraces = sum(len(f["retraces"]) for f in shown)
    if retraces:
        lines.append(f"retraces ({retraces}), by cause:")
        lines += _causes(shown, limit, more)
    loops = unrolled(summary)
    rows = []
    said: set[str] = set()  # functions Keras 3 runs unconverted, said once
    for row in loops:
        why = ""
        if row.get("unconverted") == "keras3" and row["function"] not in said:
            said.add(row["function"])
            why = f"\n    {keras3_words(row['function'])}"
        rows.append(f"  {_loop_place(row)} {row['kind']}: "
                    f"unrolled {row['iterations']}x, {row['ops_created']} ops "
                    f"({row['share']:.0%} of its trace's ops, about {row['share_s']:.3f} s of "
                    "its trace time)" + why
                    + (f"\n    fix: {row['hint']}" if row.get("hint") else ""))
    lines += _section("largest unrolled loops:", rows, limit, more)
    if any(row.get("hint") for row in loops):
        lines.append(f"  ({untried_fixes()}.)")
    lines += [intended_words(over, count) for over, count in intended_unrolls(summary).items()]
    errors = [(f, e) for f in functions for e in f["errors"]]
    failed = [f"  {_name(f)}, trace {e['trace']}: {_first_sentence(e['error'])}"
              + (f"\n    why, and the fix: {e['fix']}" if e.get("fix") else "")
              for f, e in errors]
    lines += _section("traces that failed:", failed, limit, more)
    if log and any(not e.get("fix") for _, e in errors):
        lines.append(f"  why, where the doctor knows the cause: agexplorer doctor {log}")
    lines.extend(f"note: {note}" for note in summary.get("notes", []))
    return [part for line in lines for part in _wrap(line, width)]


def _name(function: dict[str, Any]) -> str:
    """``train_step (train.py:12)``; a library's function after the user's line that asked
    for it: ``model.fit(x, y) (train.py:30) → one_step_on_data (trainer.py:131, library)``."""
    where = _where(function["file"], function["line"])
    if function["user"]:
        return f"{function['function']} ({where})"
    said = asked_by(function)
    if said is None:
        return f"{function['function']} ({where}) (library)"
    caller = function["called_from"]
    return (f"{said} ({_where(caller['file'], caller['line'])}) → {short_name(function)} "
            f"({where}, library)")


def _loop_place(row: dict[str, Any]) -> str:
    """``Smoother.call (k3fit.py:17)``, after the calls that led there from the traced
    function or the user's line that asked a library for the trace: ``model.fit
    (train.py:30) → Smoother.call (train.py:17)``."""
    here = f"{row['function']} ({_where(row['file'], row['line'])})"
    path = row.get("call_path") or []
    before = [f"{site.get('function')} ({_where(site.get('file') or '', site.get('line'))})"
              for site in path[:-1] if isinstance(site, dict)]
    return " → ".join([*before, here])


def _header(summary: dict[str, Any]) -> list[str]:
    """The first lines: how the program ended, then what it traced."""
    program, functions = summary["program"], summary["functions"]
    traces = sum(f["traces"] for f in functions)
    counted = f"{plural(traces, 'trace')} of {plural(len(functions), 'function')}"
    status = program.get("exit_code")
    if program.get("interrupted"):
        return [f"agexplorer record: {counted}",
                "the run was interrupted (Ctrl-C, KeyboardInterrupt): what it traced until "
                "then is below."]
    if program.get("raised") or (program.get("exception") and status):
        failed = f"agexplorer record: the program failed (exit status {status}): " \
            f"{program.get('exception') or 'an exception'}"
        if program.get("file"):
            failed += f" at {_where(program['file'], program.get('line') or 0)}"
        if program.get("message"):
            failed += f": {_first_sentence(program['message'])}"
        cause = [f"  {program['cause']}", f"  fix: {program['fix']}"] \
            if program.get("cause") and program.get("fix") else []
        return [failed, *cause, f"before it failed: {counted}" if traces else
                "before it failed: no tf.function traced"]
    if status:
        return [f"agexplorer record: the program exited with status {status}; {counted}"]
    return [f"agexplorer record: {counted}"]


def _causes(functions: list[dict[str, Any]], limit: int | None, more: str) -> list[str]:
    """Per function with retraces, one row per cause: ``8 × lr: a new Python float ...``."""
    lines: list[str] = []
    shown = hidden = 0
    for f in functions:
        groups = f.get("retrace_causes") or []
        if not groups:
            continue
        room = len(groups) if limit is None else max(0, limit - shown)
        if room:
            lines.append(f"  {_name(f)}: {plural(len(f['retraces']), 'retrace')}")
        for group in groups[:room]:
            lines.append(f"    {group['count']} × {group_words(group, f['each_trace'])}; "
                         f"{trace_numbers(group['traces'])}")
            fix = group_fix(group, user=bool(f.get("user")), each_trace=f["each_trace"])
            if fix:
                lines.append(f"      fix: {fix}")
        shown += min(room, len(groups))
        hidden += len(groups) - min(room, len(groups))
    if hidden:
        lines.append(f"  ... and {plural(hidden, 'more cause')} ({more} lists them; --json "
                     "has every trace)")
    return lines


def _section(title: str, rows: list[str], limit: int | None, more: str) -> list[str]:
    if not rows:
        return []
    kept = rows if limit is None else rows[:limit]
    lines = [title, *kept]
    if len(rows) > len(kept):
        lines.append(f"  ... and {len(rows) - len(kept)} more ({more} lists them; --json has "
                     "every trace)")
    return lines


def _wrap(line: str, width: int) -> list[str]:
    """One logical line (it may hold newlines) as lines of ``width``, continued one step in."""
    out: list[str] = []
    for part in line.split("\n"):
        indent = " " * (len(part) - len(part.lstrip(" ")) + 4)
        out += textwrap.wrap(part, width, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False) or [""]
    return out


def _first_sentence(message: str) -> str:
    if len(message) <= _MESSAGE:
        return message
    end = message.find(". ")
    return message[:end + 1] if 0 < end else message


def _where(file: str, line: int | None) -> str:
    return f"{shown_name(file)}:{line}" if file else f"line {line}"
