"""Talk to the TensorFlow worker from Textual thread workers, never blocking the UI."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.worker import get_current_worker

from agexplorer.model.errors import AgxError
from agexplorer.tui.alarms import ALARMS, Alarm
from agexplorer.tui.messages import (
    AnalysisFailed,
    AnalysisKey,
    AnalysisReady,
    ConversionReady,
    EngineAnswer,
    EngineStatus,
    WorkerNotice,
)
from agexplorer.worker.limits import MAX_TIMEOUT

if TYPE_CHECKING:  # imported when the worker is first needed, after the first frame
    from agexplorer.worker.client import Worker
    from agexplorer.worker.protocol import ReportRequest, Request

# The worker's progress ("loading x.py", "tracing f") shows once a request has run this long.
# A re-trace after an edit takes ~30 ms: its phases would flicker past unread, and each new
# text costs a frame, which then holds back the frame that shows the answer (Textual draws
# at most one frame per 1/60 s).
PHASE_DELAY = 0.2
# At most this long the app's thread waits for an analysis to be on the socket (it takes
# ~1 ms): waiting, it lets the analysis's thread run at once, where the app's own work after
# the edit could hold the interpreter first (the send's p95 was 2.2-6.8 ms, now 1.4-1.6 ms).
# Only when the worker is idle: a busy or starting one is not waited for.
SEND_WAIT = 0.02


class _Phases:
    """The progress callback of one request: phases reach the status line only after
    ``PHASE_DELAY`` (the latest one then, the rest as they come), never after ``close``;
    ``first``: what is said then if the worker has told no phase yet."""

    def __init__(self, app: App, first: str | None = None) -> None:
        self.app = app
        self._latest: str | None = first
        self._due = False
        self._done = False
        self._lock = threading.Lock()
        self._began = time.monotonic()
        self._alarm: Alarm | None = None

    def start(self) -> None:
        """Count ``PHASE_DELAY`` from the request's start (called once it is sent, or before
        it waits for a busy worker: nothing is set up on the way to the socket); a second
        call does nothing. (One thread serves every request's alarm: tui/alarms.py.)"""
        with self._lock:
            if self._alarm is not None or self._done:
                return
            self._alarm = ALARMS.at(self._began + PHASE_DELAY, self._flush)

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
            alarm = self._alarm
        if alarm is not None:
            alarm.cancel()


class EngineBridge:
    """Owns the worker; requests run in thread workers and answer with messages."""

    def __init__(self, app: App, worker: Worker | None = None, timeout: float = 30.0,
                 python: Any = None) -> None:  # python: worker.interpreter.Interpreter | None
        self.app = app
        self._owns = worker is None
        self._python = python
        # Whose TensorFlow answers, said in the Log after the first analysis (the Log starts
        # anew when a function opens): forked from the background worker's warm zygote when
        # one runs, else loaded in a worker of the explorer's own, and why (_choose_zygote).
        self._whose: str | None = None
        self._worker, self._timeout, self._making = worker, timeout, threading.Lock()
        self._closed = False  # close() came: a worker made after it is closed at once
        self._choosing, self._chosen = threading.Lock(), False
        # One analysis at a time: one superseded while it waited (the worker busy with the
        # one before) is dropped here instead of tracing a function no longer shown.
        self._analysing = threading.Lock()
        self._latest = 0  # the newest analysis's number (set on the app's thread only)
        self._jobs: queue.SimpleQueue | None = None  # the analyses' thread's work, in order
        self._closing = threading.Lock()
        # The worker's lost-capability sentences already shown: each once per explorer
        # (a worker restarted after a crash sends them again).
        self._told: set[str] = set()
        if worker is not None:
            self._hint(worker)

    @property
    def worker(self) -> Worker:
        """The worker, made when first needed (``warm_up``, after the first frame: its
        client's imports are not the first paint's)."""
        made = self._worker
        if made is None:
            with self._making:
                if self._worker is None:
                    from agexplorer.worker.client import Worker

                    self._worker = self._hint(Worker(self._timeout, python=self._python))
                    if self._closed:  # quit before it was made: it answers nothing, starts none
                        self._worker.close(final=True)
                made = self._worker
        return made

    @staticmethod
    def _hint(worker: Worker) -> Worker:
        """The worker's timeout message names the way the explorer offers (not --timeout)."""
        worker.timeout_hint = f"press ctrl+t to double the timeout, now {worker.timeout:g} s"
        return worker

    def double_timeout(self) -> float:
        """Give a request twice as long before the worker gives up on it (up to the worker's
        MAX_TIMEOUT); the new limit."""
        worker = self.worker
        worker.timeout = min(worker.timeout * 2, MAX_TIMEOUT)
        return self._hint(worker).timeout

    def warm_up(self) -> None:
        """Start the worker so TensorFlow loads while the user reads the first screen."""
        _ = self.worker  # made here, on the app's thread
        self.app.run_worker(self._guarded(self._warm, lambda e: EngineStatus(e.message)),
                            thread=True, group="engine-start", exclusive=True)

    def _guarded(self, body: Any, failed: Any) -> Any:
        """``body`` for a thread worker, never raising: Textual ends the app (unsaved buffer
        and all) on an exception that escapes a worker; here it becomes ``failed(error)``.
        (The worker's requests raise only AgxError, a promise of ``Worker.request``; this net
        is for the rest of ``body``.)"""
        def run() -> None:
            try:
                body()
            except Exception as exc:  # noqa: BLE001 - one sentence in the status line instead
                error = exc if isinstance(exc, AgxError) else unexpected(exc)
                try:
                    self.app.post_message(failed(error))
                    self.app.post_message(EngineStatus("ready", ready=True))
                except Exception:  # noqa: BLE001 - the app is gone: nobody to tell
                    pass

        return run

    def _choose_zygote(self) -> None:
        """Before the explorer's own worker first starts (in a request's thread, not on the
        first frame): fork it from the background worker's warm zygote if one runs."""
        with self._choosing:
            if self._owns and not self._chosen:
                self._chosen = True
                from agexplorer.daemon.client import explorer_zygote

                self.worker.zygote, self._whose = explorer_zygote(self._python)

    def _warm(self) -> None:
        self._choose_zygote()
        self.app.post_message(EngineStatus("loading TensorFlow…"))
        try:
            from agexplorer.worker.protocol import DevicesRequest, PingRequest

            self.worker.request(PingRequest(), what="starting")
        except AgxError as exc:
            self.app.post_message(EngineStatus(exc.message))
            return
        try:
            devices = self.worker.request(DevicesRequest(), what="listing devices")
        except AgxError:  # the device list is optional
            devices = []
        self._notice()
        self.app.post_message(EngineStatus("ready", ready=True,
                                           devices=[d["name"] for d in devices]))

    def _notice(self) -> None:
        """Pass on what the worker noticed between requests (it died while idle, and a fresh
        one answered), and each of its sentences about a capability this TensorFlow lost:
        once, to the status line and the Log."""
        notice = self.worker.take_notice()
        if notice:
            self.app.post_message(WorkerNotice(notice))
        # Held until the panes exist: the app drops a notice that arrives before them.
        if getattr(self.app, "workspace_ready", True):
            for sentence in self.worker.tf_warnings:
                if sentence not in self._told:
                    self._told.add(sentence)
                    self.app.post_message(WorkerNotice(sentence))

    def analyse(self, key: AnalysisKey, request: ReportRequest, path: str, what: str) -> None:
        """Trace (and run, unless ``request.no_run``) in the background, on the analyses' own
        thread, now. (A Textual thread worker starts from a task of the app's loop, once the
        app's current work is done: the frame it was drawing, ~7 ms of every edit's wait.)
        A later analysis supersedes this one."""
        self._latest += 1
        job = _Analysis(self, self._latest)
        idle = self._worker is not None and self._worker.can_send_now and not self._analysing.locked()
        self._in_background(self._guarded(lambda: self._analyse(job, key, request, path, what),
                                           lambda e: AnalysisFailed(key, e)))
        if idle:
            job.sent.wait(SEND_WAIT)

    def _in_background(self, work: Callable[[], None]) -> None:
        """Run ``work`` on the analyses' thread, started with the first and then waiting for
        the next: a thread started for each took 0.1-1 ms before its request could leave, up
        to 4 ms on a busy machine, against ~0.02 ms to wake one that waits."""
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(self._jobs,), name="agx-analysis",
                             daemon=True).start()
        self._jobs.put(work)

    def _analyse(self, job: _Analysis, key: AnalysisKey, request: ReportRequest, path: str,
                 what: str) -> None:
        try:
            with self._analysing:
                if not job.is_cancelled:
                    self._analyse_now(job, key, request, path, what)
        finally:
            job.sent.set()  # sent, failed or dropped: the app's thread waits no more

    def _analyse_now(self, job: _Analysis, key: AnalysisKey, request: ReportRequest, path: str,
                     what: str) -> None:
        progress = _Phases(self.app, what)

        def sent() -> None:
            job.sent.set()
            progress.start()

        self._choose_zygote()
        if not self.worker.can_send_now:  # it waits its turn (or the worker's start) first
            progress.start()
        try:
            answer = self.worker.request(
                request, what=what, path=path, on_progress=progress, on_sent=sent,
                on_partial=lambda conversion: self.app.post_message(
                    ConversionReady(key, conversion)))
            failure = None
            if not isinstance(answer, dict) or "report" not in answer:
                raise unexpected(TypeError(f"the worker answered {type(answer).__name__}"))
        except AgxError as exc:
            answer, failure = None, exc
        finally:
            progress.close()  # before the answer is posted: no phase may follow "ready"
        if failure is not None:
            self.app.post_message(AnalysisFailed(key, failure))
        elif job.is_cancelled:
            self._notice()
            return
        elif answer is not None:
            self.app.post_message(AnalysisReady(key, answer["report"], answer.get("lab")))
        self._notice()
        self.app.post_message(EngineStatus("ready", ready=True, log=self._say_whose()))

    def _say_whose(self) -> str | None:
        """Once, for the explorer's own worker: whose TensorFlow answers (``_choose_zygote``)."""
        if self._whose is None:
            return None
        from agexplorer.daemon import warm

        why, self._whose = self._whose, None
        opened = (" This explorer opened in the background worker's warm explorer (Textual "
                  "loaded already)." if warm.opened_warm else
                  f" This explorer opened cold: the background worker's warm explorer refused "
                  f"({warm.refused_why})." if warm.refused_why else "")
        if self.worker.forked and self.worker.zygote:
            ready = f" (ready in {self.worker.start_s:.1f} s)" if self.worker.start_s else ""
            return ("TensorFlow was loaded already: this explorer's worker was forked from the "
                    f"background worker's{ready}.{opened}")
        return ("TensorFlow loads in this explorer's own worker: "
                + (why or "the background worker's runs under other settings (its environment "
                   "or interpreter), so it was not forked there") + "." + opened)

    def ask(self, key: AnalysisKey, request: Request, path: str, what: str,
            reply: Callable[[EngineAnswer], None], tells_failures: bool = False) -> None:
        """Any other request (retrace, try_fix) in the background; its ``EngineAnswer``
        (whose ``kind`` is the request's class) goes to ``reply``, through the app, which
        drops it when another function is shown by then. ``tells_failures``: ``reply``
        shows the worker's own failures itself."""
        def answer(value: Any = None, error: AgxError | None = None) -> EngineAnswer:
            return EngineAnswer(type(request), key, reply, value, error, tells_failures)

        def run() -> None:
            progress = _Phases(self.app)
            self._choose_zygote()
            progress.start()  # (nothing waits for this request to leave)
            try:
                self._answer(request, path, what, progress, answer)
            finally:
                progress.close()
            self._notice()
            self.app.post_message(EngineStatus("ready", ready=True))

        self.app.run_worker(self._guarded(run, lambda e: answer(error=e)),
                            thread=True, group=f"engine-{request.label}", exclusive=True)

    def _answer(self, request: Request, path: str, what: str, progress: Any,
                answer: Callable[..., EngineAnswer]) -> None:
        try:
            value = self.worker.request(request, what=what, path=path, on_progress=progress)
        except AgxError as exc:
            self.app.post_message(answer(error=exc))
            return
        if not get_current_worker().is_cancelled:
            self.app.post_message(answer(value))

    def close(self) -> None:
        """End the worker (when this bridge started it) for good, with whatever it started:
        the explorer is quitting, so a request in flight ends now instead of restarting a
        worker, and none waiting for its turn starts one. A second call waits for the first."""
        with self._making:
            self._closed = True
            worker = self._worker  # None: never made (the explorer quit before its first frame)
        if self._jobs is not None:
            self._jobs.put(None)  # the analyses' thread ends after the work it was given
        if self._owns and worker is not None:
            with self._closing:
                try:
                    worker.close(final=True)
                except Exception:  # noqa: BLE001 - ending anyway; the worker dies with its parent
                    pass


def _serve(jobs: queue.SimpleQueue) -> None:
    """The analyses' thread: each piece of work in turn (guarded: none raises) until None."""
    while (work := jobs.get()) is not None:
        work()


class _Analysis:
    """One analysis: cancelled once a later one was asked for."""

    def __init__(self, bridge: EngineBridge, number: int) -> None:
        self.bridge, self.number = bridge, number
        self.sent = threading.Event()  # its request is on the socket (or never will be)

    @property
    def is_cancelled(self) -> bool:
        return self.number != self.bridge._latest


def unexpected(exc: BaseException) -> AgxError:
    """An exception no request should raise, as the one sentence the status line shows."""
    return AgxError("internal-error", f"the request to the TensorFlow worker failed "
                    f"({type(exc).__name__}: {str(exc).strip() or 'no details'})", advice="your buffer "
                    "is kept, and the next edit tries again.", exit_code=3)
