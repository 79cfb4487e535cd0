"""SweepChart: an unrolled loop's cost curve, ops and trace time against N, staged line beside it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widget import Widget

from agexplorer.model.sweep import Sweep
from agexplorer.model.text import seconds_text
from agexplorer.render.sweep import about

# AutoGraph's limits on the number of iterations (a vertical line where the chart reaches
# them), in words; INEFFICIENT_UNROLL_MIN_OPS counts ops per iteration, not N: left out.
LIMITS = {"INEFFICIENT_UNROLL_MIN_ITERATIONS": "AutoGraph warns",
          "PYTHON_MAX_ITERATIONS": "AutoGraph stops"}
_TRACED, _ESTIMATED, _STAGED, _LIMIT, _LINE = "●", "◆", "━", "┊", "·"
_Y_LABEL = 8  # the y axis' labels, in cells
_WIDE_LEGEND = 100  # from this width the legend says what the staged rewrite is
_TWO_CHARTS = 60  # from this width ops and trace time get a chart each, side by side


def short(value: float) -> str:
    """An axis label: ``5``, ``1k``, ``50k``, ``1.2M``."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:.3g}"


def short_seconds(value: float) -> str:
    """A time axis label: ``6 ms``, ``1.2 s``, ``100 s``."""
    for size, unit in ((1.0, "s"), (1e-3, "ms")):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value * 1e6:.3g} µs"


def fit_sentence(sweep: Sweep) -> str:
    """``each n adds 2 ops and 0.68 ms of tracing; at n=100,000 about 200,000 ops and 68 s``."""
    fit = sweep.fit
    if fit is None:
        return sweep.note or "Not enough values were traced to fit a line."
    plural = "" if fit.ops_per_unit == 1 else "s"
    words = f"each {sweep.vary} adds {fit.ops_per_unit:,.4g} op{plural}"
    if fit.trace_within_noise:  # a slope the scatter could make: never a cost, never negative
        words += f"; tracing time does not grow measurably with {sweep.vary} (within noise)"
    else:
        words += f" and {seconds_text(fit.trace_s_per_unit)} of tracing"
    if fit.at is not None:
        words += (f"; at {sweep.vary}={fit.at.value:,} about {about(fit.at.ops)} ops and "
                  f"{seconds_text(fit.at.trace_s)} of tracing (estimated)")
    return words


@dataclass(frozen=True)
class _Series:
    """One chart: its name, how to read a y from the sweep, and its y labels."""

    name: str
    traced: list[tuple[float, float]]  # (N, y) of the traced values
    line: Callable[[float], float] | None  # the fitted line
    estimate: tuple[float, float] | None
    staged: float | None  # the staged rewrite's (flat) y
    label: Callable[[float], str]


def _median(values: list[float]) -> float | None:
    values = sorted(values)
    return values[len(values) // 2] if values else None


def _series(sweep: Sweep) -> tuple[_Series, _Series]:
    fit, staged = sweep.fit, sweep.staged
    traced = [p for p in sweep.points if p.traced]
    at = fit.at if fit is not None else None
    staged_ops = _median([p.op_count for p in staged.points if p.op_count is not None]) \
        if staged else None
    staged_s = _median([p.trace_s for p in staged.points if p.trace_s is not None]) \
        if staged else None
    ops = _Series("ops", [(p.value, p.op_count or 0) for p in traced],
                  fit.ops_at if fit else None, (at.value, at.ops) if at else None,
                  staged_ops, short)
    trace = _Series("trace", [(p.value, p.trace_s or 0.0) for p in traced],
                    fit.trace_s_at if fit else None, (at.value, at.trace_s) if at else None,
                    staged_s, short_seconds)
    return ops, trace


def x_range(sweep: Sweep) -> tuple[float, float]:
    """The N axis (log): from the smallest traced value to the estimate (or the largest)."""
    values = [p.value for p in sweep.points] or [1]
    if sweep.fit is not None and sweep.fit.at is not None:
        values.append(sweep.fit.at.value)
    low, high = max(min(values), 1), max(max(values), 1)
    return low, max(high, low * 10)


def limits_in_range(sweep: Sweep) -> list[tuple[str, int]]:
    """AutoGraph's iteration limits the N axis reaches: (words, value)."""
    low, high = x_range(sweep)
    found = sweep.thresholds or {}
    return [(words, int(found[name])) for name, words in LIMITS.items()
            if isinstance(found.get(name), int) and low <= found[name] <= high]


class _Grid:
    """A character grid with log axes; later marks cover earlier ones."""

    def __init__(self, width: int, height: int, xs: tuple[float, float],
                 ys: tuple[float, float]) -> None:
        self.width, self.height = width, height
        self.lx = (math.log10(xs[0]), math.log10(xs[1]))
        self.ly = (math.log10(ys[0]), math.log10(ys[1]))
        self.cells: list[list[tuple[str, str]]] = [[(" ", "")] * width for _ in range(height)]

    def column(self, x: float) -> int:
        span = (self.lx[1] - self.lx[0]) or 1.0
        return round((math.log10(max(x, 1e-12)) - self.lx[0]) / span * (self.width - 1))

    def x_at(self, column: int) -> float:
        return 10 ** (self.lx[0] + (self.lx[1] - self.lx[0]) * column / max(self.width - 1, 1))

    def row(self, y: float) -> int:
        span = (self.ly[1] - self.ly[0]) or 1.0
        up = (math.log10(max(y, 1e-12)) - self.ly[0]) / span
        return self.height - 1 - round(min(max(up, 0.0), 1.0) * (self.height - 1))

    def put(self, column: int, row: int, char: str, style: str) -> None:
        if 0 <= column < self.width and 0 <= row < self.height:
            self.cells[row][column] = (char, style)


def _chart(series: _Series, sweep: Sweep, width: int, height: int) -> list[Text]:
    """``height`` rows of the y labels and the plot, then the N axis' labels."""
    ys = [y for _, y in series.traced]
    ys += [series.estimate[1]] if series.estimate else []
    ys += [series.staged] if series.staged else []
    ys = [y for y in ys if y > 0] or [1.0]
    top, bottom = max(ys), min(ys)
    grid = _Grid(width - _Y_LABEL, height, x_range(sweep),
                 (bottom, top if top > bottom else bottom * 10))
    last = max((x for x, _ in series.traced), default=0)
    for _, value in limits_in_range(sweep):
        for row in range(height):
            grid.put(grid.column(value), row, _LIMIT, "magenta")
    if series.staged:
        for column in range(grid.width):
            grid.put(column, grid.row(series.staged), _STAGED, "green")
    if series.line is not None:
        for column in range(grid.width):
            x = grid.x_at(column)
            grid.put(column, grid.row(series.line(x)), _LINE,
                     "cyan" if x <= last else "yellow")
    for x, y in series.traced:
        grid.put(grid.column(x), grid.row(y), _TRACED, "bold cyan")
    if series.estimate:
        grid.put(grid.column(series.estimate[0]), grid.row(series.estimate[1]), _ESTIMATED,
                 "bold yellow")
    labels = {0: series.label(top), height - 1: series.label(bottom)}
    rows: list[Text] = []
    for number, cells in enumerate(grid.cells):
        line = Text()
        line.append(f"{labels.get(number, '')[:_Y_LABEL - 1]:>{_Y_LABEL - 1}}│", style="dim")
        for char, style in cells:
            line.append(char, style=style)
        rows.append(line)
    rows.append(_x_axis(grid, sweep, series.name))
    return rows


def _x_axis(grid: _Grid, sweep: Sweep, name: str) -> Text:
    """The chart's name in the corner; under their columns the traced values, the estimate and
    the limits, in that order of need, each where it overlaps none placed before it."""
    marks = [(p.value, "cyan") for p in sweep.points]
    if sweep.fit is not None and sweep.fit.at is not None:
        marks.insert(0, (sweep.fit.at.value, "yellow"))
    marks += [(value, "magenta") for _, value in limits_in_range(sweep)]
    line = [(" ", "")] * grid.width
    taken = [False] * (grid.width + 1)
    for value, style in marks:
        label = short(value)
        start = min(max(grid.column(value) - len(label) // 2, 0), grid.width - len(label))
        if start < 0 or any(taken[max(start - 1, 0):start + len(label) + 1]):
            continue  # no room: the sentence and the legend name it
        for offset, char in enumerate(label):
            line[start + offset] = (char, style)
            taken[start + offset] = True
    text = Text()
    text.append(f"{name:>{_Y_LABEL - 1}}└", style="dim")
    for char, style in line:
        text.append(char, style=style)
    return text


def legend(sweep: Sweep, width: int = 0) -> Text:
    """What the marks mean: traced, estimated, staged, AutoGraph's limits in range; an item
    goes whole to the next line when ``width`` would cut it."""
    items = [(f"{_TRACED} traced", "cyan")]
    if sweep.fit is not None and sweep.fit.at is not None:
        items.append((f"{_ESTIMATED} estimated", "yellow"))
    wide = not width or width >= _WIDE_LEGEND
    if sweep.staged is not None:
        what = f": {sweep.staged.description}" if wide else ""
        items.append((f"{_STAGED} staged ({sweep.staged.code}{what})", "green"))
    items += [(f"{_LIMIT} {words} past {value:,}{' iterations' if wide else ''}", "magenta")
              for words, value in limits_in_range(sweep)]
    text, used = Text(), 0
    for words, style in items:
        if used and width and used + 2 + len(words) > width:
            text.append("\n")
            used = 0
        elif used:
            text.append("  ")
            used += 2
        text.append(words, style=style)
        used += len(words)
    return text


class SweepChart(Widget):
    """The sweep's sentence and legend above ops and trace time against N (log axes): side
    by side from 60 columns, ops alone below; as many rows as the widget is given."""

    DEFAULT_CSS = "SweepChart { height: 1fr; padding: 0 1; }"
    can_focus = True  # so that z zooms it and the keys reach the app while it is shown

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sweep: Sweep | None = None
        self.message: Text | None = None
        self.made_from: str | None = None  # the call swept, as labelled: bad_loop(5)

    def show(self, sweep: Sweep, made_from: str | None = None) -> None:
        """Plot ``sweep``; ``made_from`` names the function and call it varied."""
        self.sweep, self.message, self.made_from = sweep, None, made_from
        self.refresh()

    def say(self, text: str, style: str = "") -> None:
        """A sentence in place of the chart (sweeping…, or why there is nothing to plot)."""
        self.sweep, self.message = None, Text(text, style=style)
        self.refresh()

    def render(self) -> RenderableType:
        if self.sweep is None:
            return self.message or Text("")
        return self.chart(self.sweep, self.content_size.width, self.content_size.height)

    def chart(self, sweep: Sweep, width: int, height: int) -> RenderableType:
        """The sentence, the legend and the charts in ``width`` x ``height`` cells."""
        where = f" (the loop at line {sweep.loop_line})" if sweep.loop_line and height > 8 \
            else ""
        called = f" in {self.made_from}" if self.made_from else ""
        head = Text(f"Cost of {sweep.vary}{called}{where}: ", style="bold")
        head.append(fit_sentence(sweep), style="")
        key = legend(sweep, width)
        used = sum(len(t.wrap(self.app.console, max(width, 1))) for t in (head, key))
        rows = height - used - 1  # 1: the N axis
        if sweep.fit is None or rows < 2 or width < 30:
            return Group(head, key)
        ops, trace = _series(sweep)
        if width < _TWO_CHARTS:
            return Group(head, key, *_chart(ops, sweep, width, rows))
        half = (width - 2) // 2
        left, right = _chart(ops, sweep, half, rows), _chart(trace, sweep, half, rows)
        return Group(head, key, *(Text.assemble(a, "  ", b) for a, b in zip(left, right,
                                                                            strict=True)))
