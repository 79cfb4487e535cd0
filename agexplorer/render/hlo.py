"""HLO text highlighted (rich has no HLO lexer), with each line's source, and its timings."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from rich.panel import Panel
from rich.text import Text

from agexplorer.model.lab import HloText

# One regex per kind, applied in order (a later style wins where two overlap): what a reader
# looks for in an instruction is its name, its op, its shapes and where it came from.
_STYLES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:pred|[subf]\d+|bf16|c64|c128|token)\[[^\]]*\](?:\{[\d,]*\})?"), "cyan"),
    (re.compile(r"%[\w.\-]+"), "yellow"),
    (re.compile(r"(?<=\s)[a-z][\w\-]*(?=\()"), "bold magenta"),
    (re.compile(r"\b(?:ROOT|ENTRY|HloModule)\b"), "bold"),
    (re.compile(r"metadata=\{.*?\}"), "dim"),
    (re.compile(r'op_name="[^"]*"'), "green"),
)
_METADATA_TAIL = re.compile(r'\s*source_file="[^"]*"\s*source_line=\d+')


def shorten(line: str) -> str:
    """The instruction without XLA's ``source_file``/``source_line`` (TensorFlow's own frame,
    never the user's: the source column says where it came from)."""
    return _METADATA_TAIL.sub("", line)


def highlight_hlo(line: str) -> Text:
    """One HLO line, styled: shapes, instruction names, opcodes, metadata."""
    text = Text(line)
    for pattern, style in _STYLES:
        for match in pattern.finditer(line):
            text.stylize(style, match.start(), match.end())
    return text


def source_label(where: tuple[str, int] | None, home: str | None = None) -> str:
    """``L48`` for a line of ``home`` (the explored file), ``other.py:12`` for another file,
    ``""`` for none."""
    if where is None:
        return ""
    file, line = where
    return f"L{line}" if home is None or file == home else f"{os.path.basename(file)}:{line}"


def timing_text(hlo: HloText, seconds: Callable[[float], str]) -> Text:
    """``XLA compile 45 ms (lowering to HLO 20 ms) · trace 85 ms``; ``seconds``: the
    formatter of durations (render.terminal.seconds_text)."""
    def said(value: float | None) -> str:
        return "-" if value is None else seconds(value)

    text = Text()
    text.append("XLA compile ", style="bold")
    text.append(said(hlo.compile_s), style="cyan")
    text.append(f" (lowering to HLO {said(hlo.lower_s)})  ·  ")
    text.append("trace ", style="bold")
    text.append(said(hlo.trace_s), style="green")
    return text


def hlo_renderables(hlo: HloText, home: str | None, seconds: Callable[[float], str]) -> list:
    """The report's HLO part: its one sentence, or the timings and the text with a source
    column."""
    if hlo.error:
        return [Text(hlo.error, style="yellow")]
    if not hlo.text:
        return []
    lines = hlo.text.rstrip().splitlines()
    labels = [source_label(w, home) for w in hlo.lines] or [""] * len(lines)
    width = max((len(label) for label in labels), default=0)
    body = Text()
    for line, label in zip(lines, labels, strict=False):
        body.append(f"{label:>{width}} " if width else "", style="green")
        body.append_text(highlight_hlo(shorten(line)))
        body.append("\n")
    body.rstrip()
    return [timing_text(hlo, seconds),
            Panel(body, title="HLO (XLA), each instruction's source line at the left",
                  title_align="left")]
