"""The Doctor and Trace tabs: self-contained, they ask the worker and show its answers."""

from __future__ import annotations

from dataclasses import dataclass

from agexplorer.tui.messages import AnalysisKey


@dataclass(frozen=True)
class BufferRequest:
    """What a tab's request is about: the current function, the Run tab's call and the
    unsaved buffer (None when the file on disk is the same)."""

    key: AnalysisKey
    call: str | None
    source: str | None
    init: str | None = None  # a method's constructor arguments (the Run tab's init box)

    @property
    def target(self) -> str:
        """The worker's ``path::qualname``."""
        return f"{self.key.path}::{self.key.qualname}"
