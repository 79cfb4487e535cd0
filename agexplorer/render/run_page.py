"""A recorded run's page as rows both the Markdown and the HTML draw: how the program ended,
retraces grouped by cause, the largest unrolled loops and how many more, the intended ones
counted. The words are runlog's (runlog/causes.py, runlog/summary.py), as the text summary's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agexplorer.model.report import intended_words as loops_words
from agexplorer.model.text import plural
from agexplorer.render.page import where
from agexplorer.runlog.causes import group_causes, group_fix, group_words, trace_numbers
from agexplorer.runlog.summary import (
    display_name,
    intended_unrolls,
    reaches_nothing,
    unrolled,
)

TOP_LOOPS = 10  # unrolled loops a page lists; the rest are counted


@dataclass(frozen=True)
class CauseRow:
    """One cause of one function's retraces: ``8 × lr: a new Python float each time``."""

    function: str
    where: str  # train.py:29
    count: int  # retraces with this cause
    what: str  # what changed, with the values it took
    traces: str  # "traces 2-9"
    fix: str | None  # what lets one trace serve them all, where one thing does


def cause_rows(summary: dict[str, Any]) -> list[CauseRow]:
    """Every function's retraces, a row per cause, the largest group of each function first;
    a library's function is named after the user's call that asked for it (``model.fit →
    one_step_on_data``), gets only the fixes a user can make, and one that reached none of
    the user's code is left out, as in the text summary."""
    rows = []
    for f in summary["functions"]:
        if reaches_nothing(f):
            continue
        groups = f.get("retrace_causes")
        if groups is None:  # a summary made before causes were grouped
            groups = group_causes(f["retraces"])
        for group in groups:
            rows.append(CauseRow(display_name(f), where(f["file"], f["line"]), group["count"],
                                 group_words(group, f.get("each_trace") or []),
                                 trace_numbers(group["traces"]),
                                 group_fix(group, user=bool(f.get("user")),
                                           each_trace=f.get("each_trace") or [])))
    return rows


def largest_loops(summary: dict[str, Any], top: int = TOP_LOOPS) -> tuple[list[dict], int]:
    """The ``top`` largest unrolled loops (runlog.summary.unrolled: the intended ones left
    out), and how many more there are."""
    loops = unrolled(summary)
    return loops[:top], max(0, len(loops) - top)


def more_loops(hidden: int) -> str:
    """The sentence under a cut list of loops."""
    return (f"... and {plural(hidden, 'more unrolled loop')}, smaller than these "
            "(`agexplorer summary LOG --all` lists them all).")


def intended_words(summary: dict[str, Any]) -> list[str]:
    """``2 loops over variables unrolled as intended``: one line per kind (model.report's
    ``intended_words``), none listed."""
    return [loops_words(over, n) for over, n in intended_unrolls(summary).items()]


def failure_words(program: dict[str, Any]) -> str | None:
    """What a program that raised died of: ``ValueError at train.py:12: the message``
    (a page says "the program failed (exit status 1)" before it); None when it did not."""
    if not (program.get("raised") or (program.get("exception") and program.get("exit_code"))):
        return None
    words = str(program.get("exception") or "an exception")
    if program.get("file"):
        words += f" at {where(program['file'], program.get('line') or 0)}"
    if program.get("message"):
        words += f": {program['message']}"
    return words
