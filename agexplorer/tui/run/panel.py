"""RunPanel: call arguments, run eager/graph/XLA, and the results, timings and bar chart."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Select, Static

from agexplorer.tui.code.made import show_origin

if TYPE_CHECKING:
    from agexplorer.tui.state import ReportChanged, TargetChanged


class RunPanel(VerticalScroll):
    """Arguments and the latest run lab."""

    class RunRequested(Message):
        """Run with ``call`` (None: the function's ready inputs)."""

        def __init__(self, call: str | None) -> None:
            super().__init__()
            self.call = call

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.history: list[str] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-controls"):
            # Short enough for the room it has at 80 columns; the prompt below says the rest.
            yield Input(placeholder=self.EXAMPLE, id="call")
            yield Select([], prompt="device: default", id="device", allow_blank=True)
            yield Button("Run  F5", id="run", variant="primary")
        # A method's instance: its class's constructor arguments (shown for methods only).
        init = Input(placeholder=self.INIT_EXAMPLE, id="init")
        init.display = False
        yield init
        # Not markup: the header quotes the call typed, a note the error (user text).
        yield Static("", id="run-origin", classes="origin", markup=False)
        yield Static(self.PROMPT, id="run-results", markup=False)

    EXAMPLE = "arguments, e.g. tf.ones([8, 4]), 3"
    INIT_EXAMPLE = "init: constructor arguments, e.g. steps=6 (empty: module's instance or defaults)"
    PROMPT = ("Press F5 (or r outside the editor) to run eagerly, as a graph and with XLA, "
              "with the arguments typed above (left empty: the function's ready inputs). "
              "5 again, or Tab, goes into the box; Esc leaves it.")
    # The same, while the box has the keys (a function that waits for its arguments puts
    # them there at once: 5 again would type a 5).
    TYPING = ("Type the arguments as inside f(...) and press F5 to run eagerly, as a graph "
              "and with XLA (left empty: the function's ready inputs). Esc leaves the box.")
    _prompting = True  # a prompt shows (not results): it follows the focus

    def on_target_changed(self, _: TargetChanged) -> None:
        self.clear()

    def on_report_changed(self, message: ReportChanged) -> None:
        from agexplorer.tui.code.made import ready_placeholder

        report = message.report
        if not self.call_input.value.strip():  # the box is empty: say what that stood for
            self.show_ready(ready_placeholder(report.call, report.call_origin))
        if message.lab is not None:
            self.show(message.lab)

    def show_ready(self, placeholder: str | None) -> None:
        """What the empty box stands for: the function's ready inputs once the worker has
        named them, else (None) an example of what to type."""
        self.call_input.placeholder = placeholder or self.EXAMPLE

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.request_run()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.request_run()

    @property
    def call_input(self) -> Input:
        """The call (its arguments) typed here."""
        return self.query_one("#call", Input)

    @property
    def init_input(self) -> Input:
        """A method's instance: the constructor arguments typed here (``--init``)."""
        return self.query_one("#init", Input)

    @property
    def init(self) -> str | None:
        """The constructor arguments typed for a method (None: none typed, or not a method)."""
        box = self.init_input
        return (box.value.strip() or None) if box.display else None

    def show_init(self, method: bool) -> None:
        """The init box is for methods only."""
        self.init_input.display = method

    def on_key(self, event: events.Key) -> None:
        """Tab from the call box goes to the init box below it when shown (the focus order
        went to the device and Run beside the call first, and "k=4" typed then was keys:
        the 4 showed the Graph tab); shift+tab comes back."""
        init, call = self.init_input, self.call_input
        if not init.display:
            return
        if event.key == "tab" and call.has_focus:
            init.focus()
        elif event.key == "shift+tab" and init.has_focus:
            call.focus()
        else:
            return
        event.stop()
        event.prevent_default()

    def request_run(self) -> None:
        """Ask the app to run with the arguments typed here."""
        text = self.call_input.value.strip()
        self.post_message(self.RunRequested(text or None))

    def remember(self, call: str | None) -> None:
        """Keep ``call`` in the history the input suggests from (most recent first)."""
        if call:
            self.history = [call, *[c for c in self.history if c != call][:19]]
            self.query_one("#call", Input).suggester = SuggestFromList(self.history)

    def set_devices(self, names: list[str]) -> None:
        """Offer TensorFlow's logical devices."""
        self.query_one("#device", Select).set_options(
            [(n.split("device:")[-1], n) for n in names])

    @property
    def device(self) -> str | None:
        """The chosen device, or None for the default (first GPU, else CPU:0)."""
        value = self.query_one("#device", Select).value
        return value if isinstance(value, str) else None

    curves = None  # the Curves shown (what N steps returned), None when a run lab shows

    def show_curves(self, curves) -> None:
        """What the function returned over N steps, charted (the lesson tour's homework
        step): the charts fill the panel's width."""
        from agexplorer.render.curves import curves_chart, curves_words

        self.curves, self._prompting = curves, False
        width = max(30, self.size.width - 2)
        lines = [*curves_words(curves), "", *curves_chart(curves, width, 12 * len(curves.series))]
        self.query_one("#run-results", Static).update("\n".join(lines))

    def on_resize(self) -> None:
        if self.curves is not None:  # the charts drawn again to the new width
            self.show_curves(self.curves)

    def show(self, lab) -> None:
        """Show a run lab."""
        self.curves, self._prompting = None, False
        from agexplorer.render.terminal import lab_renderables  # rich tables: only when shown

        self.query_one("#run-results", Static).update(Group(*lab_renderables(lab)))

    def note(self, text: str) -> None:
        """Show a one-line state (running…, failed)."""
        self._prompting = text in (self.PROMPT, self.TYPING)
        if self._prompting:  # the prompt for where the keys go now
            text = self.TYPING if self.call_input.has_focus else self.PROMPT
        self.query_one("#run-results", Static).update(text)

    def on_descendant_focus(self, _: object) -> None:
        if self._prompting:
            self.note(self.PROMPT)

    def on_descendant_blur(self, _: object) -> None:
        if self._prompting:
            self.note(self.PROMPT)

    def set_origin(self, header: str, stale: bool = False) -> None:
        """Name the function and call the results are from; ``stale``: made from a buffer
        edited since (the results are dimmed)."""
        show_origin(self, header, stale, "#run-origin", "#run-results")

    def clear(self) -> None:
        """Another function: no results yet (the call history stays)."""
        self.set_origin("")
        self.note(self.PROMPT)
