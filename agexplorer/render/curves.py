"""The curves of a function called step after step, drawn as text: one column per step.

Pure functions of the record, a width and a height, returning lines (no markup), so the
command line prints them and the explorer puts them in any pane. Each chart is a title
(``loss: 50.9 → 0.235 (log scale)``), the plot with its largest and smallest value on the
y axis, and the steps under the x axis. A series whose values span more than two decades
is drawn on a log scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.console import Console

from agexplorer.model.curves import Curves, Series
from agexplorer.model.text import plural, seconds_text, shortened

MIN_HEIGHT = 5  # a chart's fewest lines: title, two rows, the axis and its steps
MIN_WIDTH = 16  # its fewest columns: the y labels, the axis and a few steps
_GAP = 3  # columns between charts side by side
_POINT, _RANGE = "•", "│"
# Steps between two labelled ticks of the x axis: the first of these whose labels fit.
_TICK_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
_CLI_HEIGHT = 12  # the command line's lines per chart


def number(value: float) -> str:
    """A value as an axis shows it: three significant figures (``66.2``, ``0.025``)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.3g}"


def wants_log(values: Sequence[float]) -> bool:
    """Whether ``values`` (their finite ones) span more than two decades, all above zero."""
    finite = [v for v in values if math.isfinite(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) > 100


def full_width(series: Series) -> int:
    """The columns ``series``'s chart takes with a column for each of its steps."""
    finite = [v for v in series.values if math.isfinite(v)] or [0.0]
    return max(len(number(max(finite))), len(number(min(finite)))) + 2 + len(series.values)


def series_chart(series: Series, width: int, height: int, log: bool | None = None) -> list[str]:
    """``series`` as ``height`` lines (at least MIN_HEIGHT) of at most ``width`` columns:
    one column per step (several steps a column when they do not fit, each column then
    drawn from its smallest to its largest value). ``log``: None decides by the values'
    span (``wants_log``); a log scale is never used with a value at or below zero."""
    height = max(height, MIN_HEIGHT)
    values = series.values
    finite = [v for v in values if math.isfinite(v)]
    log = wants_log(values) if log is None else log and bool(finite) and min(finite) > 0
    title = f"{series.name}: {number(values[0])} → {number(values[-1])}" if values \
        else f"{series.name}: no values"
    if len(finite) < len(values):
        title += f", {len(values) - len(finite)} not finite (not drawn)"
    if not finite:
        return [shortened(title + (" (log scale)" if log else ""), width)]
    rows = height - 3
    ys = [math.log10(v) if log else v for v in finite]
    lo, hi = min(ys), max(ys)
    flat = hi == lo
    top, bottom = number(max(finite)), number(min(finite))
    labels = {rows // 2: top} if flat else {0: top, rows - 1: bottom}
    label_width = max(len(text) for text in labels.values())
    room = max(width - label_width - 2, 1)
    per = math.ceil(len(values) / room)  # steps a column
    columns = math.ceil(len(values) / per)
    title += "".join(part for part, wanted in ((" (log scale)", log),
                                               (f" ({per} steps a column)", per > 1)) if wanted)

    def row_of(value: float) -> int:
        y = math.log10(value) if log else value
        return rows // 2 if flat else rows - 1 - round((y - lo) / (hi - lo) * (rows - 1))

    grid = [[" "] * columns for _ in range(rows)]
    for column in range(columns):
        taken = [row_of(v) for v in values[column * per:(column + 1) * per] if math.isfinite(v)]
        if not taken:
            continue
        for row in range(min(taken), max(taken) + 1):
            grid[row][column] = _RANGE
        for row in taken:
            grid[row][column] = _POINT
    lines = [shortened(title, width)]
    for row, cells in enumerate(grid):
        label = labels.get(row)
        axis = "┤" if label is not None else "│"
        lines.append(f"{label or '':>{label_width}} {axis}{''.join(cells)}".rstrip())
    lines += _x_axis(len(values), per, columns, label_width + 2, width)
    return [shortened(line, width) for line in lines]  # only a width under MIN_WIDTH cuts


def _x_axis(steps: int, per: int, columns: int, indent: int, width: int) -> list[str]:
    """The x axis (ticks where a step is labelled) and the labels under it, named "step"
    where it fits."""
    placed = _ticks(steps, per, indent, width)
    axis = ["─"] * columns
    for column, _ in placed:
        axis[column] = "┬"
    labels = [" "] * (indent + columns)
    for column, text in placed:
        labels[indent + column:indent + column + len(text)] = text
    line = " " * (indent - 1) + "└" + "".join(axis)
    under = "".join(labels).rstrip()
    if len(line) + len(" step") <= width:
        line += " step"
    elif len(under) + len("  step") <= width:
        under += "  step"
    return [line, under]


def _ticks(steps: int, per: int, indent: int, width: int) -> list[tuple[int, str]]:
    """(column, label) of the labelled steps: 1, the multiples of the smallest spacing whose
    labels do not run into each other, and the last step where it fits."""
    def place(candidates: list[int]) -> tuple[list[tuple[int, str]], int]:
        placed: list[tuple[int, str]] = []
        crowded = 0
        for step in candidates:
            column, text = (step - 1) // per, str(step)
            if indent + column + len(text) > width:
                continue  # past the right edge: not labelled
            if placed and column < placed[-1][0] + len(placed[-1][1]) + 1:
                crowded += 1
                continue
            placed.append((column, text))
        return placed, crowded

    for spacing in _TICK_STEPS:
        multiples = [m for m in range(spacing, steps + 1, spacing) if m != 1]
        placed, crowded = place([1, *multiples])
        # The first multiple may give way to step 1 (1 and 2, 1 and 5 are close); no other.
        if crowded <= (1 if multiples else 0) or spacing == _TICK_STEPS[-1]:
            if placed[-1][1] != str(steps):  # the last step, in place of the label before
                kept = [int(text) for _, text in placed]
                placed, crowded = place([*kept, steps])
                if crowded and len(kept) > 1:
                    placed, _ = place([*kept[:-1], steps])
            return placed
    return [(0, "1")]


def curves_chart(curves: Curves, width: int, height: int) -> list[str]:
    """Every series of ``curves`` in at most ``height`` lines (MIN_HEIGHT at the fewest) of
    ``width`` columns: stacked with a blank line between, or side by side where stacked ones
    would get too few rows (a chart of fewer than 6 lines shows little) and the width
    holds them; the series that fit in neither way are named in a last line where it fits."""
    series = curves.series
    if not series:
        return []
    count = len(series)
    stacked = (height - (count - 1)) // count
    beside = (width - _GAP * (count - 1)) // count
    roomy = beside >= 2 * MIN_WIDTH or all(full_width(s) <= beside for s in series)
    if stacked < 6 and beside >= MIN_WIDTH and roomy and height >= MIN_HEIGHT:
        charts = [series_chart(s, beside, height) for s in series]
        tall = max(len(c) for c in charts)
        return [(" " * _GAP).join(f"{(c[i] if i < len(c) else ''):<{beside}}" for c in charts)
                .rstrip() for i in range(tall)]
    if stacked >= MIN_HEIGHT:
        shown, each = series, stacked
    else:  # as many as fit at the fewest rows, and a line naming the others
        fit = max(height // (MIN_HEIGHT + 1), 1)  # each chart, a blank line, the last line
        shown, each = series[:fit], MIN_HEIGHT
    lines: list[str] = []
    for s in shown:
        if lines:
            lines.append("")
        lines += series_chart(s, width, each)
    left = [s.name for s in series[len(shown):]]
    if left and len(lines) < height:
        lines.append(shortened(f"not shown, for want of room: {', '.join(left)}", width))
    return lines


def curves_words(curves: Curves) -> list[str]:
    """What the charts are of, in sentences: the function, its call and the steps taken; the
    step that raised; the notes."""
    call = f"{curves.function}({curves.call})"
    origin = f" [{curves.call_origin}]" if curves.call and curves.call_origin else ""
    took = (f"{plural(curves.done, 'step')} in {seconds_text(curves.elapsed_s)}"
            if curves.done == curves.steps else
            f"{curves.done} of {plural(curves.steps, 'step')} in "
            f"{seconds_text(curves.elapsed_s)}")
    words = [f"{call}{origin}: {took}, one load of the module (its state carried from step "
             "to step)."]
    if curves.error is not None:
        words.append(curves.error)
    words += curves.notes
    printed = len(curves.printed.splitlines())
    if printed:
        words.append(f"The load and the steps printed {plural(printed, 'line')} (--json keeps "
                     "them).")
    return words


def render_curves(curves: Curves, console: Console | None = None, width: int | None = None,
                  height: int | None = None) -> None:
    """Print the curves: the sentences, then the charts (``height``: all of them; default
    a dozen lines each)."""
    console = console or Console(width=width, highlight=False)
    width = width or console.width
    count = max(len(curves.series), 1)
    height = height or count * _CLI_HEIGHT + count - 1
    for line in curves_words(curves):
        console.print(line, markup=False, highlight=False)
    if curves.series:
        console.print()
        for line in curves_chart(curves, width, height):
            console.print(line, markup=False, highlight=False, overflow="ignore", crop=False,
                          soft_wrap=True)
