"""TracePanel: call the function several times and see which calls traced anew, and why."""

from __future__ import annotations

from rich.console import Group
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Static

from agexplorer.tui.code.made import show_origin

SEPARATOR = ";"  # between calls: a Python argument list has no bare semicolon


def split_calls(text: str) -> list[str] | None:
    """``"2; 3; tf.constant(4)"`` -> ``["2", "3", "tf.constant(4)"]``; empty -> None."""
    calls = [c.strip() for c in text.split(SEPARATOR)]
    calls = [c for c in calls if c]
    return calls or None


class TracePanel(VerticalScroll):
    """A sequence of calls and the retrace explainer's answer for it."""

    class ExplainRequested(Message):
        """Explain the retraces of ``calls`` (None: the file's AGX_RETRACE, else its ready call)."""

        def __init__(self, calls: list[str] | None) -> None:
            super().__init__()
            self.calls = calls

    def compose(self) -> ComposeResult:
        with Horizontal(id="trace-controls"):
            yield Input(placeholder="calls separated by ;  e.g. tf.constant(1); tf.constant(2); "
                        "tf.constant(1.0)   (empty: the file's AGX_RETRACE)", id="trace-calls")
            yield Button("Explain  t", id="explain", variant="primary")
        # Not markup: the header quotes the calls typed, a note the error (user text).
        yield Static("", id="trace-origin", classes="origin", markup=False)
        yield Static(self.PROMPT, id="trace-results", markup=False)

    PROMPT = ("Which calls trace anew, and why: press t (outside the editor) or Explain. "
              "The calls run in the worker on a fresh tf.function, then again with "
              "reduce_retracing=True and with an input_signature.")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.request_explain()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.request_explain()

    def request_explain(self) -> None:
        """Ask the app to explain the calls typed here."""
        self.post_message(self.ExplainRequested(split_calls(self.query_one("#trace-calls", Input).value)))

    report = None  # the RetraceReport shown

    def show(self, report) -> None:
        """Show a RetraceReport."""
        from agexplorer.render.retrace import retrace_renderables

        self.report = report
        self.query_one("#trace-results", Static).update(Group(*retrace_renderables(report)))

    def note(self, text: str) -> None:
        """Show a one-line state (explaining…, failed)."""
        self.query_one("#trace-results", Static).update(text)

    def set_origin(self, header: str, stale: bool = False) -> None:
        """Name the function and calls the answer is for; ``stale``: made from a buffer
        edited since (the answer is dimmed)."""
        show_origin(self, header, stale, "#trace-origin", "#trace-results")

    def clear(self) -> None:
        """Another function: no answer yet (the calls typed stay)."""
        self.report = None
        self.set_origin("")
        self.note(self.PROMPT)
