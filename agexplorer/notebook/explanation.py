"""What ``agexplorer.explain`` returns: the report of one live call, shown where it is asked for.

One object, three faces: rich text laid out for the terminal's width (``__rich__``, and
IPython's plain-text display in a terminal), the page ``agexplorer report --html`` writes
(``_repr_html_``, for Jupyter: nothing fetched, its own colours), and the report's JSON
(``to_dict``). The fields it is read by in code (verdicts, the converted code, ops by line,
trace time, timings) are the report's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agexplorer.model.report import IN_PYTHON, Report, Verdict, verdict_badge
from agexplorer.model.text import plural
from agexplorer.notebook.shown import Rendered, terminal_color, terminal_width

if TYPE_CHECKING:
    from agexplorer.model.errors import AgxError
    from agexplorer.model.lab import RunLab


@dataclass
class Explanation:
    """The engine's report for one live call (``report``), the run lab when asked
    (``lab``), and what to know about how it was made (``notes``)."""

    report: Report
    lab: RunLab | None = None
    notes: list[str] = field(default_factory=list)

    # -- what it holds, for code ---------------------------------------------------------

    @property
    def function(self) -> str:
        """The explored function's qualified name."""
        return self.report.function

    @property
    def error(self) -> AgxError | None:
        """The user's error where the call could not be traced (its line in ``.line``)."""
        return self.report.error

    @property
    def verdicts(self) -> list[Verdict]:
        """Every if/for/while the trace reached: the function's own, then those of the
        functions of the user's code it called."""
        r = self.report
        return list(r.statements) + [v for f in r.reached for v in f.statements]

    @property
    def unrolled(self) -> list[Verdict]:
        """The loops Python ran while tracing (each iteration copied into the graph)."""
        return [v for v in self.verdicts if v.unrolled]

    @property
    def converted_code(self) -> str | None:
        """``tf.autograph.to_code`` of the function (None: AutoGraph refused it)."""
        return self.report.conversion.code if self.report.conversion else None

    @property
    def source_map(self) -> list[tuple[int, int]]:
        """(converted line, source line) pairs of :attr:`converted_code`."""
        return list(self.report.conversion.source_map) if self.report.conversion else []

    @property
    def ops_by_line(self) -> dict[int | None, int]:
        """Ops the trace made per line of the function's file (None: tf.function's own)."""
        inv = self.report.inventory
        return inv.by_line(self.report.file) if inv is not None else {}

    @property
    def trace_s(self) -> float | None:
        """Seconds the trace took."""
        return self.report.timings.get("trace_s")

    def to_dict(self) -> dict[str, Any]:
        """The ``agexplorer report --json`` object (with the run lab's keys when run), plus
        ``notes``."""
        data = self.report.to_dict()
        if self.lab is not None:
            data.update(self.lab.to_dict())
        data["notes"] = list(self.notes)
        return data

    # -- what it shows -------------------------------------------------------------------

    def renderables(self, width: int) -> list[Any]:
        """The report as ``agexplorer report`` prints it at ``width`` columns, the notes first."""
        from rich.text import Text

        from agexplorer.render.terminal import report_renderables

        notes = [Text(f"note: {note}", style="yellow") for note in self.notes]
        return notes + report_renderables(self.report, width, lab=self.lab)

    def __rich__(self) -> Rendered:
        return Rendered(self.renderables)

    def _repr_html_(self) -> str:
        from html import escape

        from agexplorer.render.html import file_body, fragment
        from agexplorer.render.page import FilePage, FunctionPage

        r = self.report
        page = FilePage(r.file, [FunctionPage(r.file, r.function, report=r, lab=self.lab,
                                              error=r.error.message if r.error else None)])
        notes = "".join(f'<p class="muted">note: {escape(n)}</p>\n' for n in self.notes)
        return fragment(notes + file_body(page))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        from agexplorer.render.rich_html import rich_text

        width = terminal_width()
        printer.text(rich_text(self.renderables(width), width, terminal_color()))

    def __repr__(self) -> str:
        r = self.report
        head = f"Explanation of {r.function.rpartition('.')[2]}({r.call or ''})"
        if r.error is not None:
            return f"<{head}: {r.error.message}>"
        shown = [verdict_badge(v) for v in self.verdicts]
        in_python = sum(1 for v in self.verdicts if v.verdict in IN_PYTHON)
        ops = len(r.inventory.ops) if r.inventory is not None else 0
        words = "no if/for/while"
        if shown:
            badges = ", ".join(shown[:4]) + (", …" if len(shown) > 4 else "")
            words = f"{plural(len(shown), 'statement')}, {in_python} in Python ({badges})"
        return f"<{head}: {words}; {plural(ops, 'op')}>"
