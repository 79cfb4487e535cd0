"""Provenance of the result panels: which function, call and buffer each was made from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rich.text import Text

from agexplorer.model.text import shortened

# Where a call came from (the report's ``call_origin``) that the label leaves unsaid: typed
# in the Run tab (the worker's "--call"), or a function without parameters (``f()``).
UNSAID_ORIGINS = frozenset({"--call", "no arguments"})
LONGEST_CALL = 60  # characters of a call a label shows: the rest is "…"


def call_label(function: str, call: str | None, origin: str | None = None) -> str:
    """A function and its call as the panels name them: ``bad_loop(5)`` (typed),
    ``range_loop(5) [AGX_CALLS]`` (its ready inputs, and where they came from), or
    ``bad_loop (its ready inputs)`` before the worker has said which."""
    if call is None:
        return f"{function} (its ready inputs)"
    label = f"{function}({short_call(call)})"
    return label if origin is None or origin in UNSAID_ORIGINS else f"{label} [{origin}]"


def answer_label(answer: Any) -> str:
    """The call a worker's answer (a Report, a DoctorReport) was made from, as labelled."""
    return call_label(answer.function, answer.call, answer.call_origin)


def traced_with(report: Any) -> str:
    """The function and the call a report's trace was made with (``step(x) [AGX_CALLS]``);
    the function alone when the worker named no call (it did not get that far)."""
    return answer_label(report) if report.call is not None else report.function


def ready_placeholder(call: str | None, origin: str | None) -> str | None:
    """What the Run tab's empty box stands for once the worker has used the function's
    ready inputs (``5 [AGX_CALLS]: its ready inputs``); None when it used none."""
    if call is None or origin is None or origin == "--call":
        return None
    if origin == "no arguments":
        return "empty: it takes no arguments"
    return f"{short_call(call) or 'no arguments'} [{origin}]: its ready inputs"


def short_call(call: str) -> str:
    """A call cut to ``LONGEST_CALL`` characters for a one-line label."""
    return shortened(call, LONGEST_CALL)


@dataclass(frozen=True)
class Made:
    """What a result panel (Run, Trace, Doctor, the Graph tab's op detail) was made from."""

    target: tuple[str, str]
    text: str  # the buffer it was made from
    label: str  # the function and its call, e.g. "bad_loop(5)"

    def header(self, what: str, current_text: str) -> tuple[str, bool]:
        """(the panel's header line, whether it is out of date)."""
        if self.text != current_text:
            return f"{what}: from {self.label}, before your last edit", True
        return f"{what}: {self.label}", False


def show_origin(panel: Any, header: str, stale: bool, origin: str, results: str) -> None:
    """Put ``header`` in a panel's origin line (hidden when empty) and dim the origin and the
    results when ``stale`` (made from a buffer edited since). Plain text: a call can hold
    anything (``"[/b]"`` included), never markup."""
    line = panel.query_one(origin)
    # A new layout of the whole screen only for a line on it: a hidden tab's (the Doctor's,
    # at each analysis) is laid out when the tab is shown (10 ms of every edit's wait).
    line.update(Text(header), layout=line.is_on_screen)
    line.display = bool(header)
    for part in (origin, results):
        panel.query_one(part).set_class(stale, "stale")


class ResultPanels(Protocol):
    """Where the headers go (the workspace: it holds the panels)."""

    def set_origin(self, panel: str, header: str, stale: bool) -> None: ...

    def show_op_detail(self, text: str | Text, stale: bool) -> None: ...


# The header of each result panel: what it shows, then what that was made from.
WHAT = {"run": "run", "trace": "retraces", "doctor": "examined", "op": "op"}


class Provenance:
    """Which result panel shows what (Run, Trace, Doctor, the Graph tab's op detail), and
    whether the buffer changed since: each panel's header line, dimmed "before your last
    edit". It reads the buffer's text (``text``) and draws on the panels (``panels``,
    asked for when drawing: they are mounted after the first frame)."""

    def __init__(self, text: Callable[[], str], panels: Callable[[], ResultPanels]) -> None:
        self.text, self.panels = text, panels
        self.made: dict[str, Made] = {}  # result panel -> what it shows was made from
        self._marked: dict[str, tuple] = {}  # result panel -> (made, stale) as last drawn
        self.op_detail: str | None = None  # the op detail's text, below its header

    def clear(self) -> None:
        """Another function: no panel shows anything yet."""
        self.made.clear()
        self._marked.clear()
        self.op_detail = None

    def on_target_changed(self, _: object) -> None:
        self.clear()
        self.show("op")  # the Graph tab's op detail empties (the tabs clear their own headers)

    def forget(self, name: str) -> None:
        """Panel ``name`` shows nothing made from a call (its header goes with ``show``)."""
        self.made.pop(name, None)

    def set(self, name: str, made: Made) -> None:
        """Panel ``name`` now shows what ``made`` names (its header is drawn by ``show``)."""
        self.made[name] = made

    def show(self, name: str) -> None:
        """Head a result panel with the function and call it describes, dimmed and marked
        "before your last edit" when the buffer has changed since."""
        made = self.made.get(name)
        text = self.text()
        self._marked[name] = (made, made is not None and made.text != text)
        panels = self.panels()
        if name != "op":
            panels.set_origin(name, *(made.header(WHAT[name], text) if made else ("", False)))
        elif made is None or self.op_detail is None:
            panels.show_op_detail("", False)
        else:
            line, stale = made.header(WHAT[name], text)
            panels.show_op_detail(Text(f"{line}\n{self.op_detail}"), stale)

    def mark(self) -> None:
        """After an edit (or its undo): which result panels are now out of date (only those
        whose state changed are redrawn: this runs at every edit pause)."""
        text = self.text()
        for name, made in list(self.made.items()):
            stale = made.text != text
            if self._marked.get(name) != (made, stale):
                self.show(name)
