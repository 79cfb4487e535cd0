"""The run lab's timings table, laid out for its width: a row per mode, or a row per measure."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from agexplorer.model.lab import RunLab
from agexplorer.model.text import seconds_text

TITLE = "Timings per call (results brought to the host inside the timed region)"
MEASURES = ("first call", "median", "min", "max", "calls", "traces", "speed-up")


def _speedup(lab: RunLab, mode: str) -> str:
    speed = lab.speedup.get(mode)
    if speed:
        return f"{speed:.3g}x"
    return "1.00x" if mode == "eager" and lab.runs[mode].ok else "-"


def timing_values(lab: RunLab) -> dict[str, list[str]]:
    """Each mode's values, in the order of :data:`MEASURES`."""
    values = {}
    for mode, run in lab.runs.items():
        values[mode] = [seconds_text(run.first_call_s), seconds_text(run.median_s),
                        seconds_text(run.min_s), seconds_text(run.max_s), str(run.calls),
                        "-" if run.tracing_count is None else str(run.tracing_count),
                        _speedup(lab, mode)]
    return values


def _width(columns: list[list[str]]) -> int:
    """A table's width: each column's widest text, a space either side, and its rules."""
    return sum(max(cell_len(text) for text in column) + 2 for column in columns) \
        + len(columns) + 1


class TimingTable:
    """A row per mode and a column per measure where that fits the width; else turned a
    quarter (a row per measure, a column per mode). Values are never wrapped: at 80
    columns the eight columns split ``178.20 ms`` over two lines, or cut ``speed-up``."""

    def __init__(self, lab: RunLab) -> None:
        self.values = timing_values(lab)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # The title above the table, at the full width: the narrow table would wrap it.
        yield Text(TITLE, style="table.title")
        if self.wide_width() <= options.max_width:
            yield self.by_mode()
        elif self.narrow_width() <= options.max_width:
            yield self.by_measure()
        else:  # narrower still (the tour's panel beside a 24-row screen): never "…"
            yield self.as_lines()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.wide_width(), self.narrow_width(), self.lines_width()),
                           max(self.wide_width(), cell_len(TITLE)))

    def wide_width(self) -> int:
        """The columns a row per mode needs, its values whole."""
        columns = [["mode", *self.values]] + [
            [name, *(values[i] for values in self.values.values())]
            for i, name in enumerate(MEASURES)]
        return _width(columns)

    def narrow_width(self) -> int:
        """The columns a row per measure needs."""
        return _width([["per call", *MEASURES]] + [[mode, *values]
                                                   for mode, values in self.values.items()])

    def lines_width(self) -> int:
        """The columns the label/value lines need (their longest line)."""
        return max((cell_len(line.plain) for line in self._lines()), default=0)

    def _lines(self) -> list[Text]:
        lines = []
        for mode, values in self.values.items():
            lines.append(Text(mode, style="bold"))
            lines += [Text(f"  {name}: {value}") for name, value in zip(MEASURES, values,
                                                                      strict=True)]
        return lines

    def as_lines(self) -> Text:
        """A line per measure under each mode's name: what a panel of 30 columns holds."""
        return Text("\n").join(self._lines())

    def by_mode(self) -> Table:
        """A row per mode: ``mode, first call, median, ... speed-up``."""
        table = Table()
        table.add_column("mode", no_wrap=True)
        for name in MEASURES:
            table.add_column(name, justify="right", no_wrap=True)
        for mode, values in self.values.items():
            table.add_row(Text(mode), *values)
        return table

    def by_measure(self) -> Table:
        """A row per measure, a column per mode: what fits a narrow terminal."""
        table = Table()
        table.add_column("per call", no_wrap=True)
        for mode in self.values:
            table.add_column(Text(mode), justify="right", no_wrap=True)
        for i, name in enumerate(MEASURES):
            table.add_row(name, *(values[i] for values in self.values.values()))
        return table
