"""Talk to the TensorFlow worker from Textual thread workers, never blocking the UI."""

from __future__ import annotations

import threading
from typing import Any

from textual.app import App
from textual.worker import get_current_worker

from agexplorer.core.errors import AgxError
from agexplorer.tui.messages import AnalysisFailed, AnalysisReady, EngineAnswer, EngineStatus
from agexplorer.worker.client import Worker

# The worker's progress ("loading x.py", "tracing f") shows once a request has run this long.
# A re-trace after an edit takes ~30 ms: its phases would flicker past unread, and each new
# text costs a frame, which then holds back the frame that shows the answer (Textual draws
# at most one frame per 1/60 s).
PHASE_DELAY = 0.2


class _Phases:
    """The progress callback of one request: phases reach the status line only after
    ``PHASE_DELAY`` (the latest one then, the rest as they come), never after ``close``."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._latest: str | None = None
        self._due = False
        self._done = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(PHASE_DELAY, self._flush)
        self._timer.daemon = True
        self._timer.start()

    def __call__(self, phase: str) -> None:
        with self._lock:
            self._latest = phase
            if self._due and not self._done:
                self.app.post_message(EngineStatus(phase + "…"))

    def _flush(self) -> None:
        with self._lock:
            self._due = True
            if self._latest is not None and not self._done:
                self.app.post_message(EngineStatus(self._latest + "…"))

    def close(self) -> None:
        """The request is over: nothing more is shown."""
        with self._lock:
            self._done = True
        self._timer.cancel()


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
        if job.is_cancelled:
            return
        progress = _Phases(self.app)
        try:
            answer = self.worker.request("report", request, what=what, path=path,
                                         on_progress=progress)
        except AgxError as exc:
            answer, failure = None, exc
        else:
            failure = None
        finally:
            progress.close()  # before the answer is posted: no phase may follow "ready"
        if failure is not None:
            self.app.post_message(AnalysisFailed(key, failure))
        elif job.is_cancelled:
            return
        else:
            self.app.post_message(AnalysisReady(key, answer["report"], answer["lab"]))
        self.app.post_message(EngineStatus("ready", ready=True))

    def ask(self, kind: str, key: tuple, request: dict[str, Any], path: str, what: str) -> None:
        """Any other request (retrace, try_fix) in the background; answers ``EngineAnswer``."""
        def run() -> None:
            progress = _Phases(self.app)
            try:
                self._answer(kind, key, request, path, what, progress)
            finally:
                progress.close()
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
