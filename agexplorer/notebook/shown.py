"""What the magics show: one object per answer, HTML in Jupyter and rich text in a terminal.

IPython displays an object by the representations it has: a notebook renders
``_repr_html_``, a terminal IPython prints the plain text of ``_repr_pretty_``, which is the
same rich renderables laid out for the terminal's width (with colours where it is a
terminal). ``__rich__`` lets ``rich.print`` lay them out for its own console.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agexplorer.model.doctor import DoctorReport
    from agexplorer.model.retrace import RetraceReport

Renderables = Callable[[int], list[Any]]  # a width -> what to print at that width


def terminal_width() -> int:
    """The terminal's columns where there is one (COLUMNS first, as for any program), else
    the width a notebook's plain text reads well at."""
    return shutil.get_terminal_size((100, 24)).columns


def terminal_color() -> bool:
    """Whether plain text goes to a terminal that shows colours (a terminal IPython)."""
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError):
        return False


class Rendered:
    """Laid out when printed, for the width of the console that prints it."""

    def __init__(self, parts: Renderables) -> None:
        self._parts = parts

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from self._parts(options.max_width)


class Shown:
    """An answer to show: its rich renderables for a width, and the same as one HTML element."""

    def __init__(self, renderables: Renderables, html: Callable[[], str], summary: str,
                 record: Any = None) -> None:
        self._renderables = renderables
        self._html = html
        self._summary = summary
        self.record = record  # what was shown, for code: a DoctorReport, a RetraceReport...

    def __rich__(self) -> Rendered:
        return Rendered(self._renderables)

    def _repr_html_(self) -> str:
        return self._html()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text(terminal_width(), terminal_color()))

    def text(self, width: int, color: bool = False) -> str:
        """The answer as text ``width`` columns wide."""
        from agexplorer.render.rich_html import rich_text

        return rich_text(self._renderables(width), width, color)

    def __repr__(self) -> str:
        return f"<{self._summary}>"


def doctor_shown(report: DoctorReport) -> Shown:
    """``%agx doctor``: the findings as ``agexplorer doctor`` lists them, and as the report
    page's "Doctor's findings"."""
    from agexplorer.model.text import plural

    def parts(width: int) -> list[Any]:
        from agexplorer.render.doctor import doctor_renderables

        return doctor_renderables([report], width, commands=False)

    def html() -> str:
        from agexplorer.render.html import doctor_body, fragment

        return fragment(doctor_body(report))

    return Shown(parts, html, f"doctor: {report.function}: "
                 f"{plural(len(report.findings), 'finding')}", report)


def retrace_shown(report: RetraceReport) -> Shown:
    """``%agx retrace``: each call traced or reused and why, as ``agexplorer retrace`` shows it."""
    from agexplorer.model.text import times

    def parts(width: int) -> list[Any]:
        from agexplorer.render.retrace import retrace_renderables

        return retrace_renderables(report)

    def html() -> str:
        from agexplorer.render.rich_html import rich_html

        return rich_html(parts(110), 110)

    return Shown(parts, html, f"retrace: {report.function} traced "
                 f"{times(report.tracing_count)} over {len(report.calls)} calls", report)


def record_shown(summary: dict[str, Any]) -> Shown:
    """``%%agx record``: the recorded summary, as ``agexplorer record`` prints it at the end
    and as ``agexplorer summary --html`` pages it."""
    from agexplorer.model.text import plural

    def parts(width: int) -> list[Any]:
        from rich.text import Text

        from agexplorer.runlog.text import text_lines

        return [Text(line) for line in text_lines(summary, width=width)]

    def html() -> str:
        from agexplorer.render.html import fragment, summary_body

        return fragment(summary_body(summary))

    traces = sum(f["traces"] for f in summary["functions"])
    return Shown(parts, html, f"recorded: {plural(traces, 'trace')} of "
                 f"{plural(len(summary['functions']), 'function')}", summary)
