"""DoctorPanel: the pitfalls of the current function, why they bite, and fixes to try first."""

from __future__ import annotations

import os
import textwrap

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Static

from agexplorer.model.doctor import Finding, FixTrial
from agexplorer.model.errors import ARGUMENT_ERRORS
from agexplorer.tui.code.made import show_origin


class DoctorPanel(Horizontal):
    """Findings (line, code, message) beside the selected one's why, fix and tried rewrite."""

    class Jump(Message):
        """Go to ``line`` of the source."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    class TryFix(Message):
        """Try the mechanical rewrite of ``finding`` before and after."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    class ApplyFix(Message):
        """Put the tried rewrite into the buffer (the file is only written by ctrl+s)."""

        def __init__(self, trial: FixTrial) -> None:
            super().__init__()
            self.trial = trial

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.findings: list[Finding] = []
        self.trial: FixTrial | None = None
        self._trial_for = None  # the finding the trial was made for

    def compose(self) -> ComposeResult:
        # Columns set here, not in on_mount: a quit during start-up can remove the children
        # before this panel's Mount is handled, and a query there would crash the exit.
        table: DataTable[str | Text] = DataTable(id="findings", cursor_type="row")
        table.add_columns("line", "code", "finding")
        yield table
        with VerticalScroll(id="finding-side"):
            with Horizontal(id="fix-buttons"):
                yield Button("Try fix  f", id="try-fix", disabled=True)
                yield Button("Apply  a", id="apply-fix", disabled=True)
            # Not markup: the call examined, the findings' sentences quote the user's code.
            origin = Static("", id="doctor-origin", classes="origin", markup=False)
            origin.display = False
            yield origin
            yield Static("The doctor reads the function once it has been traced.",
                         id="finding-detail", markup=False)

    def show(self, doctor) -> None:
        """Fill the table from a DoctorReport (None: no answer, e.g. a syntax error)."""
        self.findings = list(doctor.findings) if doctor is not None else []
        self.trial = None
        self._fill()
        if not self.findings:
            detail = ("No pitfalls found: nothing in this function runs only while tracing, "
                      "and no loop was unrolled." if doctor is not None else
                      "No findings yet.")
            if doctor is not None and doctor.note:  # a plain function driving tf.functions
                detail = f"{doctor.note}: no pitfalls found in them."
            if doctor is not None and doctor.error is not None and not doctor.traced:
                if doctor.error.kind in ARGUMENT_ERRORS:
                    # Nothing was examined: say so first, and the explorer's way to a call.
                    detail = ("Nothing examined yet: the function did not trace ("
                              + doctor.error.what + "). Type its "
                              "arguments in the Run tab (5) and press F5; the doctor reads "
                              "that trace.")
                else:
                    detail = (f"No pitfalls found in the source; it did not trace, so nothing "
                              f"was confirmed by a trace: {doctor.error.message}")
            self._detail(detail)
        else:
            self._describe(0)

    def set_origin(self, header: str, stale: bool = False) -> None:
        """Name the function and call the findings are from; ``stale``: made from a buffer
        edited since (the findings are dimmed)."""
        show_origin(self, header, stale, "#doctor-origin", "#findings")

    def _fill(self) -> None:
        """The findings, wrapped to the table's width (DataTable clips long cells)."""
        table = self.query_one("#findings", DataTable)
        row = table.cursor_row
        table.clear()
        # 18: the line and code columns, the cells' padding and the scrollbar. Narrow (80x24
        # puts the table in half the width) the message wraps shorter rather than being cut.
        # A helper's finding names its file in the line column (``decoder_steps.py:8``).
        wider = max((len(_where(f)) for f in self.findings), default=4) - 4
        width = max(16, (table.size.width or 80) - 18 - max(wider, 0))
        for i, f in enumerate(self.findings):
            # The message quotes the user's code: Text, never markup.
            table.add_row(Text(_where(f)), Text(f.code, style="bold yellow"),
                          Text("\n".join(textwrap.wrap(f.message, width))), key=str(i),
                          height=None)
        if 0 < row < len(self.findings):
            table.move_cursor(row=row)

    def on_resize(self) -> None:
        if self.findings:
            self._fill()

    @property
    def selected(self):
        """The highlighted finding, or None."""
        row = self.query_one("#findings", DataTable).cursor_row
        return self.findings[row] if 0 <= row < len(self.findings) else None

    def _detail(self, renderable) -> None:
        self.query_one("#finding-detail", Static).update(renderable)
        finding = self.selected
        self.query_one("#try-fix", Button).disabled = finding is None or not finding.rewrite
        self.query_one("#apply-fix", Button).disabled = self.trial is None

    def _describe(self, row: int) -> None:
        if 0 <= row < len(self.findings):
            self._detail(self._description(self.findings[row]))

    @staticmethod
    def _description(f: Finding) -> Text:
        """A finding's title, place, message, why and fix, and its rewrite when one exists."""
        text = Text()
        text.append(f"{f.code} {f.title}", style="bold yellow")
        text.append(f"  {'line ' if not f.file else ''}{_where(f)}"
                    + ("" if f.basis == "trace" else ", from the code alone"), style="dim")
        if f.file and f.call_path:
            text.append("\nin a function the trace reached: "
                        + " -> ".join(site.text() for site in f.call_path), style="dim")
        text.append(f"\n{f.message}\n\nwhy: ", style="")
        text.append(f.why)
        if f.fix:
            text.append("\nfix: ", style="bold")
            text.append(f.fix)
        if f.rewrite:
            text.append(f"\n\nf tries it on a copy: {f.rewrite}", style="cyan")
        return text

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if self.trial is None or self.selected is not self._trial_for:
            self.trial = None
            self._describe(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        finding = self.selected
        if finding is not None and not finding.file:  # a helper's line is in another file
            self.post_message(self.Jump(finding.line))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "try-fix":
            self.request_try()
        elif event.button.id == "apply-fix" and self.trial is not None:
            self.post_message(self.ApplyFix(self.trial))

    def request_try(self) -> None:
        """Ask the app to try the highlighted finding's rewrite; where none exists (or no
        finding is there to try), say so, with the fix to make by hand: f always answers."""
        finding = self.selected
        if finding is not None and finding.rewrite:
            self._detail(Text(f"trying the {finding.code} rewrite on a copy of the buffer…"))
            self.post_message(self.TryFix(finding))
            return
        if finding is None:
            self._detail(Text("Nothing to try: no finding is listed for this function."
                              if not self.findings else
                              "Select a finding first (↑/↓), then f tries its fix.",
                              style="yellow"))
            return
        text = self._description(finding)
        text.append(f"\n\nNo mechanical rewrite exists for {finding.code} here: ",
                    style="bold yellow")
        text.append("make the fix above by hand in the editor (Esc or alt+2 goes there)."
                    if finding.fix else "no fix is known; see why above.", style="yellow")
        self._detail(text)

    def show_trial(self, trial, error=None) -> None:
        """Show a FixTrial (the diff, then before and after), or why it could not be tried."""
        if error is not None:
            self.trial = None
            self._detail(Text(error.message, style="red"))
            return
        from agexplorer.render.doctor import trial_renderables

        self._trial_for, self.trial = self.selected, trial
        hint = Text("Apply puts the rewrite into the buffer (ctrl+z undoes it; ctrl+s saves)."
                    if trial.rewrite.new_text is not None else
                    f"Apply puts the call {trial.rewrite.new_call} into the Run tab.", style="dim")
        self._detail(Group(*trial_renderables(trial), hint))


def _where(finding) -> str:
    """A finding's line: ``18``, or ``helpers.py:8`` for one in a function the trace reached."""
    if finding.file:
        return f"{os.path.basename(finding.file)}:{finding.line}"
    return str(finding.line)
