"""Made: which function, call and buffer a result panel was made from (its header line)."""

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
