"""The small words every view writes the same way: counts, times, shapes, durations, places
and text cut to fit. Each view used to spell its own; one spelling keeps them agreeing."""

from __future__ import annotations

from collections.abc import Sequence

# What ends a cut text: one character, so a cut keeps as much of the text as fits.
ELLIPSIS = "…"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 op``, ``3 ops``; ``many``: the plural where it is not ``word + "s"``."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def times(n: int | None) -> str:
    """How often: ``once``, ``3 times``; ``-`` for unknown."""
    if n is None:
        return "-"
    return "once" if n == 1 else f"{n} times"


def shape_text(dims: Sequence[int | None] | None, compact: bool = False) -> str:
    """A shape as the views show it: ``[None, 4]`` (``[unknown rank]``); ``compact`` for an
    op's attributes, ``[?,4]`` (``[*]``)."""
    if dims is None:
        return "[*]" if compact else "[unknown rank]"
    if compact:
        return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
    return "[" + ", ".join("None" if d is None else str(d) for d in dims) + "]"


def seconds_text(x: float | None) -> str:
    """A duration as a reader takes it in: ``1.23 s``, ``4.56 ms``, ``7.8 µs``; ``-`` for none."""
    if x is None:
        return "-"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.2f} ms"
    return f"{x * 1e6:.1f} µs"


def shortened(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and ``…`` in ``limit``."""
    return text if len(text) <= limit else text[:max(limit - 1, 0)] + ELLIPSIS


def file_line(path: str, line: int | None) -> str:
    """``train.py:12``; the path alone where the line is unknown."""
    return f"{path}:{line}" if line else path
