"""The status line's progress: a quick request shows no phases, a slow one shows them."""

from __future__ import annotations

import time

import pytest

from agexplorer.tui import bridge


class PostBox:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def post_message(self, message) -> bool:
        self.texts.append(message.text)
        return True


@pytest.fixture
def started(monkeypatch):
    """A request's progress callback (delay 0.3 s) that has reported two phases at once."""
    monkeypatch.setattr(bridge, "PHASE_DELAY", 0.3)
    app = PostBox()
    phases = bridge._Phases(app)
    phases.start()  # the request is on the socket
    phases("loading f.py")
    phases("tracing f")
    return app, phases


def test_a_request_over_before_the_delay_shows_no_phase(started):
    app, phases = started
    phases.close()
    time.sleep(0.5)
    assert app.texts == []


def test_a_slow_request_shows_its_latest_phase_then_every_new_one(started):
    app, phases = started
    deadline = time.monotonic() + 5
    while not app.texts and time.monotonic() < deadline:
        time.sleep(0.01)
    assert app.texts == ["tracing f…"]
    phases("running eagerly")
    phases.close()
    phases("too late")
    assert app.texts == ["tracing f…", "running eagerly…"]


def test_ctrl_t_doubles_the_timeout_up_to_the_workers_bound_and_no_further():
    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.worker.client import Worker
    from agexplorer.worker.limits import MAX_TIMEOUT

    bridge = EngineBridge(app=None, worker=Worker(timeout=MAX_TIMEOUT * 0.75))  # never started
    assert bridge.double_timeout() == MAX_TIMEOUT
    assert bridge.double_timeout() == MAX_TIMEOUT  # an overflow was an error of agexplorer's own
    assert f"{MAX_TIMEOUT:g} s" in bridge.worker.timeout_hint


def test_the_worker_is_made_when_first_asked_for_and_a_quit_before_that_starts_none():
    from agexplorer.model.errors import AgxError
    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.worker.protocol import PingRequest

    bridge = EngineBridge(app=None, timeout=12.0)
    assert bridge._worker is None  # nothing made (nor imported) for the first frame
    worker = bridge.worker
    assert bridge.worker is worker and worker.timeout == 12.0
    assert "now 12 s" in worker.timeout_hint  # (it was set under the lock that made it: a hang)

    quitting = EngineBridge(app=None)
    quitting.close()  # the explorer quit before its first frame: no worker was made
    assert quitting._worker is None
    try:  # one asked for after that answers nothing and starts no process
        quitting.worker.request(PingRequest(), what="starting")
    except AgxError as exc:
        assert exc.kind == "worker-closed", exc
    else:
        raise AssertionError("a worker made after the quit answered")
    assert quitting.worker._proc is None


class AnsweringWorker:
    """A worker that answers each report request with its target, once ``go`` is set."""

    timeout, tf_warnings = 30.0, ()
    can_send_now = False  # (as a worker answering another request)

    def __init__(self) -> None:
        import threading

        self.go, self.sent = threading.Event(), []

    def request(self, req, **kwargs):
        self.sent.append(req.target)
        assert self.go.wait(10)
        return {"report": req.target}

    def take_notice(self) -> None:
        return None


class Inbox:
    """An app that keeps what the bridge posts (and runs no event loop)."""

    def __init__(self) -> None:
        self.messages: list = []

    def post_message(self, message) -> bool:
        self.messages.append(message)
        return True

    def reports(self) -> list[tuple[int, str]]:
        from agexplorer.tui.messages import AnalysisReady

        return [(m.key.generation, m.report) for m in self.messages
                if isinstance(m, AnalysisReady)]


def _analyse(engine, generation: int) -> None:
    from agexplorer.tui.messages import AnalysisKey
    from agexplorer.worker.protocol import ReportRequest

    engine.analyse(AnalysisKey("f.py", "f", generation), ReportRequest(f"f.py::f{generation}"),
                   "f.py", "tracing f")


def _until(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_an_edits_request_leaves_at_once_without_waiting_for_the_apps_loop():
    # The app's thread is busy (drawing a frame) when the edit's pause ends: the request
    # goes out from a thread of its own, not from a task of the app's loop.
    worker, app = AnsweringWorker(), Inbox()
    worker.go.set()
    _analyse(bridge.EngineBridge(app, worker=worker), 1)  # no event loop ever turns here
    assert _until(lambda: app.reports() == [(1, "f.py::f1")])
    assert worker.sent == ["f.py::f1"]


def test_a_later_analysis_supersedes_the_ones_before_it():
    # While the worker traces the first buffer, two more edits arrive: the middle one is
    # never sent (it waited its turn and is stale), the first one's answer is dropped.
    worker, app = AnsweringWorker(), Inbox()
    engine = bridge.EngineBridge(app, worker=worker)
    _analyse(engine, 1)
    assert _until(lambda: worker.sent == ["f.py::f1"])
    _analyse(engine, 2)
    _analyse(engine, 3)
    worker.go.set()
    assert _until(lambda: app.reports() == [(3, "f.py::f3")])
    time.sleep(0.2)  # nothing else arrives
    assert worker.sent == ["f.py::f1", "f.py::f3"] and app.reports() == [(3, "f.py::f3")]


class IdleWorker(AnsweringWorker):
    """An idle worker whose request takes a moment to be on the socket (``on_sent``)."""

    can_send_now = True

    def request(self, req, on_sent=None, **kwargs):
        time.sleep(0.005)  # the request's own work before it is sent (its pickling)
        self.sent.append(req.target)
        on_sent()
        assert self.go.wait(10)
        return {"report": req.target}


def test_the_apps_thread_lets_an_idle_workers_request_leave_before_it_goes_on():
    # The app's own work after an edit (the status line's frame) held the interpreter ~5 ms
    # before the request's thread could send: analyse() returns once it is sent.
    worker, app = IdleWorker(), Inbox()
    engine = bridge.EngineBridge(app, worker=worker)
    _analyse(engine, 1)
    assert worker.sent[-1:] == ["f.py::f1"]  # already on its way when analyse() returned
    worker.go.set()
    assert _until(lambda: app.reports() == [(1, "f.py::f1")])


def test_a_trace_that_takes_long_says_what_it_does_before_any_phase_came(monkeypatch):
    # An edit's trace no longer sets "tracing f…" at once (it flashed for ~30 ms and drew
    # a frame during the trace): it is said once the request has taken PHASE_DELAY.
    monkeypatch.setattr(bridge, "PHASE_DELAY", 0.05)
    app = PostBox()
    phases = bridge._Phases(app, "tracing f")
    phases.start()
    phases.start()  # (a second start changes nothing)
    assert _until(lambda: app.texts == ["tracing f…"])
    phases.close()


def test_the_analyses_share_one_thread_which_ends_with_the_bridge():
    import threading

    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.worker.client import Worker

    bridge = EngineBridge(app=None, worker=Worker(timeout=5))  # never started
    ran: list[tuple[str, int]] = []
    done = threading.Event()
    for n in range(3):
        bridge._in_background(lambda n=n: ran.append((threading.current_thread().name,
                                                      threading.get_ident())))
    bridge._in_background(done.set)
    assert done.wait(5)
    assert [name for name, _ in ran] == ["agx-analysis"] * 3 and len({i for _, i in ran}) == 1
    thread = next(t for t in threading.enumerate() if t.ident == ran[0][1])
    bridge.close()
    thread.join(5)
    assert not thread.is_alive()
