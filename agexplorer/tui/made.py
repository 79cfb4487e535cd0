"""Provenance of the result panels: which function, call and buffer each was made from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def call_label(function: str, call: str | None) -> str:
    """A function and its call as the panels name them: ``bad_loop(5)``."""
    return f"{function}({call})" if call else f"{function} (its ready inputs)"


@dataclass(frozen=True)
class Made:
    """What a result panel (Run, Trace, the Graph tab's op detail) was made from."""

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
    results when ``stale`` (made from a buffer edited since)."""
    line = panel.query_one(origin)
    line.update(header)
    line.display = bool(header)
    for part in (origin, results):
        panel.query_one(part).set_class(stale, "stale")


class Provenance:
    """Which result panel shows what (Run, Trace, the Graph tab's op detail), and whether the
    buffer changed since: each panel's header line, dimmed "before your last edit"."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.made: dict[str, Made] = {}  # result panel -> what it shows was made from
        self._marked: dict[str, tuple] = {}  # result panel -> (made, stale) as last drawn
        self.op_detail: str | None = None  # the op detail's text, below its header

    def clear(self) -> None:
        """Another function: no panel shows anything yet."""
        self.made.clear()
        self._marked.clear()
        self.op_detail = None

    def set(self, name: str, made: Made) -> None:
        """Panel ``name`` now shows what ``made`` names (its header is drawn by ``show``)."""
        self.made[name] = made

    def show(self, name: str) -> None:
        """Head a result panel with the function and call it describes, dimmed and marked
        "before your last edit" when the buffer has changed since."""
        app = self.app
        made = self.made.get(name)
        text = app.source.text
        self._marked[name] = (made, made is not None and made.text != text)
        if name == "run":
            header = made.header("run", text) if made else ("", False)
            app.panes.run_panel.set_origin(*header)
        elif name == "trace":
            header = made.header("retraces", text) if made else ("", False)
            app.panes.trace.set_origin(*header)
        elif name == "op":
            detail = app.panes.op_detail
            if made is None or self.op_detail is None:
                detail.update("")
                detail.remove_class("stale")
                return
            line, stale = made.header("op", text)
            detail.update(f"{line}\n{self.op_detail}")
            detail.set_class(stale, "stale")

    def mark(self) -> None:
        """After an edit (or its undo): which result panels are now out of date (only those
        whose state changed are redrawn: this runs at every edit pause)."""
        text = self.app.source.text
        for name, made in list(self.made.items()):
            stale = made.text != text
            if self._marked.get(name) != (made, stale):
                self.show(name)
