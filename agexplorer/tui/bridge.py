"""Talk to the TensorFlow worker from Textual thread workers, never blocking the UI."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.worker import get_current_worker

from agexplorer.core.errors import AgxError
from agexplorer.tui.messages import AnalysisFailed, AnalysisReady, EngineAnswer, EngineStatus
from agexplorer.worker.client import Worker


class EngineBridge:
    """Owns the worker; requests run in thread workers and answer with messages."""

    def __init__(self, app: App, worker: Worker | None = None, timeout: float = 30.0) -> None:
        self.app = app
        self.worker = worker or Worker(timeout)
        self._owns = worker is None

    def warm_up(self) -> None:
        """Start the worker so TensorFlow loads while the user reads the first screen."""
        self.app.run_worker(self._warm, thread=True, group="engine-start", exclusive=True)

    def _warm(self) -> None:
        self.app.post_message(EngineStatus("loading TensorFlow…"))
        try:
            self.worker.request("ping", what="starting")
        except AgxError as exc:
            self.app.post_message(EngineStatus(exc.message))
            return
        try:
            devices = self.worker.request("devices", what="listing devices")
        except AgxError:
            devices = []
        self.app.post_message(EngineStatus("ready", ready=True,
                                           devices=[d["name"] for d in devices]))

    def analyse(self, key: tuple, request: dict[str, Any], path: str, what: str) -> None:
        """Trace (and run, unless ``request['no_run']``) in the background."""
        self.app.run_worker(lambda: self._analyse(key, request, path, what), thread=True,
                            group="engine", exclusive=True)

    def _analyse(self, key: tuple, request: dict[str, Any], path: str, what: str) -> None:
        job = get_current_worker()

        def progress(phase: str) -> None:
            self.app.post_message(EngineStatus(phase + "…"))

        if job.is_cancelled:
            return
        try:
            answer = self.worker.request("report", request, what=what, path=path,
                                         on_progress=progress)
        except AgxError as exc:
            self.app.post_message(AnalysisFailed(key, exc))
            self.app.post_message(EngineStatus("ready", ready=True))
            return
        if job.is_cancelled:
            return
        self.app.post_message(AnalysisReady(key, answer["report"], answer["lab"]))
        self.app.post_message(EngineStatus("ready", ready=True))

    def ask(self, kind: str, key: tuple, request: dict[str, Any], path: str, what: str) -> None:
        """Any other request (retrace, try_fix) in the background; answers ``EngineAnswer``."""
        def run() -> None:
            self._answer(kind, key, request, path, what,
                         lambda phase: self.app.post_message(EngineStatus(phase + "…")))
            self.app.post_message(EngineStatus("ready", ready=True))

        self.app.run_worker(run, thread=True, group=f"engine-{kind}", exclusive=True)

    def _answer(self, kind: str, key: tuple, request: dict[str, Any], path: str, what: str,
                progress: Any) -> None:
        try:
            value = self.worker.request(kind, request, what=what, path=path, on_progress=progress)
        except AgxError as exc:
            self.app.post_message(EngineAnswer(kind, key, error=exc))
            return
        if not get_current_worker().is_cancelled:
            self.app.post_message(EngineAnswer(kind, key, value))

    def close(self) -> None:
        """End the worker (when this bridge started it)."""
        if self._owns:
            self.worker.close()
