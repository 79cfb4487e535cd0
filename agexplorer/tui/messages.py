"""App-wide messages between the engine bridge and the widgets."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from agexplorer.worker.protocol import Request


class EngineStatus(Message):
    """The worker's state, for the status line ("loading TensorFlow…", "ready")."""

    def __init__(self, text: str, ready: bool = False, devices: list[str] | None = None) -> None:
        super().__init__()
        self.text = text
        self.ready = ready
        self.devices = devices


class AnalysisReady(Message):
    """A report (and, after a run, a run lab) for the current function."""

    def __init__(self, key: tuple, report: Any, lab: Any) -> None:
        super().__init__()
        self.key = key
        self.report = report
        self.lab = lab


class AnalysisFailed(Message):
    """The engine's one-sentence failure (syntax error, timeout, crash, ...)."""

    def __init__(self, key: tuple, error: Any) -> None:
        super().__init__()
        self.key = key
        self.error = error


class EngineAnswer(Message):
    """The worker's answer to a request other than the report (doctor, retrace, try_fix;
    ``kind`` is the request's class): ``value``, or ``error`` (an AgxError) when it failed."""

    def __init__(self, kind: type[Request], key: tuple, value: Any = None,
                 error: Any = None) -> None:
        super().__init__()
        self.kind = kind
        self.key = key
        self.value = value
        self.error = error


class WorkerNotice(Message):
    """One sentence to show in the status line and the Log: a worker that died between
    requests and was replaced, a recovery copy that could not be written, ..."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
