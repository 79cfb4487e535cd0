"""A loop's variables as lines under its verdict (the terminal report and the TUI's table)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from agexplorer.model.loopvars import LoopVar, loop_var_fix


def shown_loop_vars(verdict: Any) -> list[LoopVar]:
    """The variables worth a line: all of a staged loop's; of a loop run in Python only
    those whose type changed and those it created (its counters changing value is the
    unrolling, not news)."""
    loop_vars = list(getattr(verdict, "loop_vars", ()) or ())
    if verdict.verdict == "python":
        return [v for v in loop_vars if v.changed or v.defined_by_loop]
    return loop_vars


# What each line under a verdict is: the heading, a variable (one that changed stands
# out), a fix.
_STYLES = {"heading": "dim", "variable": "", "changed": "bold red", "fix": "cyan"}


def _rows(verdict: Any) -> list[tuple[str, str]]:
    """(role, line): ``loop variables:``, one line per variable, then each changed one's fix."""
    shown = shown_loop_vars(verdict)
    if not shown:
        return []
    rows = [("heading", "loop variables:")]
    rows += [("changed" if v.changed else "variable", f"  {v.text()}") for v in shown]
    rows += [("fix", f"fix {v.name}: {fix}") for v in shown if (fix := loop_var_fix(v))]
    return rows


def loop_var_lines(verdict: Any) -> list[str]:
    """``loop variables:`` then one line per variable (``x: float32[3] -> float32[None]``)
    and the fix of each changed one; nothing for a statement without them."""
    return [line for _, line in _rows(verdict)]


def loop_var_text(verdict: Any) -> Text:
    """The same lines styled: a changed variable stands out."""
    text = Text()
    for role, line in _rows(verdict):
        text.append("\n" + line, style=_STYLES[role])
    return text
