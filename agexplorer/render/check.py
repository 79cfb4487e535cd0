"""`agexplorer check`'s readable output: each change as its sentence, then the count."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from agexplorer.model.check import Change
from agexplorer.model.text import plural


def render_check(changes: list[Change], checked: int, golden: str,
                 shown: Callable[[str], str] = str, width: int | None = None) -> None:
    """Print every change (failures in red, information dimmed) and a closing summary line;
    lines are never wrapped, so a CI log can be searched for a sentence."""
    console = Console(width=width)
    for change in changes:
        style = "dim" if change.info else "red" if change.kind == "failed" else "yellow"
        mark = "info" if change.info else "changed" if change.kind != "failed" else "failed"
        console.print(Text.assemble((f"{mark}: ", style), change.text(shown)), soft_wrap=True)
    real = [c for c in changes if not c.info]
    if real:
        summary = Text(f"{plural(len(real), 'change')} against {golden} "
                       f"({plural(checked, 'function')} checked); if they "
                       "are intended, run again with --update and commit the golden file.",
                       style="bold red")
    else:
        summary = Text(f"{plural(checked, 'function')} checked against "
                       f"{golden}: no change.", style="bold green")
    console.print(summary, soft_wrap=True)


def github_lines(changes: list[Change], shown: Callable[[str], str] = str) -> list[str]:
    """GitHub Actions annotations: ``::error file=F,line=L::message`` (info as notices)."""
    lines = []
    for change in changes:
        level = "notice" if change.info else "error"
        file = shown(change.file).replace("%", "%25").replace(",", "%2C").replace(":", "%3A")
        where = f" file={file},line={change.line}" if change.file else ""
        message = change.text(shown).replace("%", "%25").replace("\r", "%0D") \
            .replace("\n", "%0A")
        lines.append(f"::{level}{where}::{message}")
    return lines
