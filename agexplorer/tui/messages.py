"""App-wide messages between the engine bridge and the widgets, with typed fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # annotations only: the first frame imports this module
    from agexplorer.model.errors import AgxError
    from agexplorer.model.lab import RunLab
    from agexplorer.model.report import Conversion, Report
    from agexplorer.worker.protocol import Request


@dataclass(frozen=True)
class AnalysisKey:
    """Which analysis an answer belongs to: the function, the buffer's generation (one per
    request for a report) and, for an op's attributes, the op (function, name)."""

    path: str
    qualname: str
    generation: int
    op: tuple[str, str] | None = None

    @property
    def target(self) -> tuple[str, str]:
        """(path, qualname): the function, as the app's ``target`` holds it."""
        return (self.path, self.qualname)



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


@dataclass
class EngineStatus(Message):
    """The worker's state, for the status line ("loading TensorFlow…", "ready")."""

    text: str
    ready: bool = False
    devices: list[str] | None = None
    log: str | None = None  # a line for the Log alone (whose TensorFlow answers)


@dataclass
class ConversionReady(Message):
    """AutoGraph's code and its source map for the analysis ``key``, sent ahead of its
    report (the function is being traced)."""

    key: AnalysisKey
    conversion: Conversion


@dataclass
class AnalysisReady(Message):
    """A report (and, after a run, a run lab) for the current function."""

    key: AnalysisKey
    report: Report
    lab: RunLab | None = None


@dataclass
class AnalysisFailed(Message):
    """The engine's one-sentence failure (syntax error, timeout, crash, ...)."""

    key: AnalysisKey
    error: AgxError


@dataclass
class EngineAnswer(Message):
    """The worker's answer to a request other than the report (doctor, retrace, try_fix;
    ``kind`` is the request's class): ``value``, or ``error`` when it failed. It goes to
    ``reply``, the handler of the part that asked."""

    kind: type[Request]
    key: AnalysisKey
    reply: Callable[[EngineAnswer], None]
    value: Any = None  # the reply record of ``kind`` (its type depends on the request)
    error: AgxError | None = field(default=None)
    # The asker shows the worker's own failures (died, hung) itself: the status line need not.
    tells_failures: bool = False


@dataclass
class WorkerNotice(Message):
    """One sentence to show in the status line and the Log: a worker that died between
    requests and was replaced, a recovery copy that could not be written, ..."""

    text: str
