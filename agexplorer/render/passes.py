"""AutoGraph's passes in the terminal: each step's name, note and diff, the code around them."""

from __future__ import annotations

from rich.console import Console
from rich.syntax import Syntax
from rich.text import Text

from agexplorer.model.passes import Passes, PassStep
from agexplorer.render.terminal import display_path


def _highlighted(code: str, lexer: str) -> Text:
    # Text, not a Syntax panel: a Syntax pads every line to the width with spaces.
    text = Syntax(code, lexer, theme="ansi_dark").highlight(code)
    text.rstrip()
    return text


def step_heading(number: int, step: PassStep) -> Text:
    """``3  return_statements  every return sets do_return...``; a step that changed nothing
    says so."""
    text = Text(f"{number:>2}  ", style="bold")
    text.append(step.name, style="bold cyan" if step.changed or number == 0 else "dim cyan")
    text.append(f"  {step.note}", style="dim" if not step.changed and number else "")
    return text


def _print_indented(console: Console, part: Text, indent: int = 4) -> None:
    """A part under its heading, ``indent`` columns in; a long line wraps to the same indent
    (and no line is padded with spaces to the width)."""
    room = max(console.width - indent, 20)
    for line in part.split("\n"):
        for piece in line.wrap(console, room, overflow="fold") or [Text("")]:
            piece.rstrip()
            console.print(Text(" " * indent) + piece, no_wrap=True, crop=False)


def render_passes(passes: Passes, console: Console | None = None, width: int | None = None,
                  full: bool = False) -> None:
    """Print every step: its diff from the previous one, and the code of the first and last
    steps (``full``: of every step)."""
    console = console or Console(width=width)
    head = Text(f"{display_path(passes.file)}::{passes.function}", style="bold")
    converters = len(passes.steps) - 1
    head.append(f": {converters} AutoGraph converters, in the order they ran")
    if passes.skipped:
        head.append(f"\n  not applied (optional features off): {', '.join(passes.skipped)}",
                    style="dim")
    console.print(head)
    last = len(passes.steps) - 1
    for number, step in enumerate(passes.steps):
        console.print()
        heading = step_heading(number, step)
        first = heading.wrap(console, console.width)[0].plain.rstrip()
        console.print(heading[:len(first)], no_wrap=True, crop=False)
        rest = heading[len(first):]  # the note's end, under the code's indent
        rest = rest[len(rest.plain) - len(rest.plain.lstrip()):]
        parts: list[Text] = [rest] if rest.plain else []
        if number and not step.changed:
            parts.append(Text("nothing to do here: the code is unchanged", style="dim"))
        elif step.diff:
            parts.append(_highlighted(step.diff, "diff"))
        if full or number in (0, last):
            if number:
                parts.append(Text("the code after this pass:", style="bold"))
            parts.append(_highlighted(step.code, "python"))
        for part in parts:
            _print_indented(console, part)
