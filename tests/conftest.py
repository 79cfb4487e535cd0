"""Shared test set-up: paths, and one TensorFlow-loaded process for every test that needs it."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# Textual's animations (a tab's underline sliding for 0.3 s, a smooth scroll) end on the frame
# they would show at once, and the tests wait for that frame (wait_for_scheduled_animations):
# off, the suite spends no time waiting them out (the pictures are the same; the tour ran
# 0.64x as long). test_the_tour_runs_start_to_end keeps them on, as a user has them.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
# Each command starts a worker of its own, as with --no-daemon: a test's command must not
# leave a background worker running, nor answer from one another test warmed (the tests of
# the background worker, tests/daemon/, turn it on in a runtime folder of their own).
os.environ.setdefault("AGX_NO_DAEMON", "1")
# Every command a test runs imports this checkout's agexplorer, also from another folder,
# where `python -m agexplorer` would find the installed one (another checkout's, when the
# suite runs from a copy of the project); set before the run's zygote starts, whose key
# holds it.
if ROOT not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
# Bytecode for the run's few hundred Python processes (commands, workers, recorded programs):
# where the environment forbids writing it (PYTHONDONTWRITEBYTECODE, as on this project's
# machines), each one compiled every agexplorer module it imported, again. The run lets
# Python write it, into the __pycache__ folders git ignores (a fresh clone has none: a clean
# run still compiles each module once). Installed packages (TensorFlow) came compiled.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False


def fixture(name: str) -> str:
    """Absolute path of a file in tests/fixtures."""
    return os.path.join(FIXTURES, name)


def no_worker():
    """A Worker that never starts and answers nothing: an explorer test that needs no
    TensorFlow."""
    from agexplorer.model.errors import AgxError
    from agexplorer.worker.client import Worker

    class NoWorker(Worker):
        def start(self) -> None:
            pass

        def request(self, *args, **kwargs):
            raise AgxError("worker-start", "no worker in this test")

        def close(self) -> None:
            pass

    return NoWorker()


def import_file(path: str, name: str):
    """The Python file ``path`` run as a fresh module named ``name`` (a fixture, or its copy
    with a doctor's fix applied), outside sys.modules."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sample(name: str) -> str:
    """Absolute path of a bundled sample."""
    return os.path.join(SAMPLES, name)


def run_cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """Run ``python -m agexplorer ARGS`` in a fresh process (for exit codes and streams)."""
    return subprocess.run([sys.executable, "-m", "agexplorer", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def explorer(path, worker, function: str | None = None):
    """The explorer (AgxApp) on one file, talking to ``worker`` (run it with ``run_test``)."""
    from agexplorer.tui.app import AgxApp

    return AgxApp([str(path)], function, worker=worker)


def recorded_once(tmp_path_factory, script: str) -> tuple[int, str, str]:
    """``agexplorer record SCRIPT`` (from the checkout's root), recorded once for the whole
    run and shared by the test processes that ask for it (the Keras ``fit()`` program takes
    ~10 s to record): (its exit status, its stderr, the log's path). Read the log, never
    write beside it."""
    import fcntl
    import hashlib
    import json

    base = tmp_path_factory.getbasetemp()
    # Under xdist each process has its own folder under one of the run's; alone, the run's.
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "recorded"
    folder.mkdir(exist_ok=True)
    name = f"{os.path.basename(script)}-{hashlib.sha1(script.encode()).hexdigest()[:8]}"
    log, done = folder / f"{name}.agxlog", folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first process records, the others wait for it
        if not done.exists():
            proc = subprocess.run([sys.executable, "-m", "agexplorer", "record", "-o", str(log),
                                   script], capture_output=True, text=True, timeout=300,
                                  cwd=ROOT)
            done.write_text(json.dumps([proc.returncode, proc.stderr]))
    code, stderr = json.loads(done.read_text())
    return code, stderr, str(log)


@pytest.fixture
def flow_file(tmp_path):
    """A copy of tests/fixtures/control_flow.py to edit."""
    path = tmp_path / "control_flow.py"
    shutil.copy(fixture("control_flow.py"), path)
    return path


@pytest.fixture
def bad_loop_file(tmp_path):
    """A copy of the lesson's samples/s6_2_bad_loop.py to edit."""
    path = tmp_path / "s6_2_bad_loop.py"
    shutil.copy(sample("s6_2_bad_loop.py"), path)
    return path


def answered_panes(app) -> list[tuple[str, int]]:
    """The panes (``"doctor"``, ``"trace"``) that answered from now on, in order, each with
    the generation of the analysis it answered for."""
    from types import SimpleNamespace

    panes: list[tuple[str, int]] = []
    app.state.subscribe(SimpleNamespace(
        on_pane_answered=lambda m: panes.append((m.pane, m.key.generation))))
    return panes


def palette_offers(app, text: str) -> bool:
    """Whether the command palette is open with a command holding the words of ``text``
    highlighted (its search, run in the background, has answered what was typed and ended)."""
    from textual.command import CommandPalette
    from textual.widgets import OptionList
    from textual.worker import WorkerState

    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return False
    # Its search has ended (hits arrive in batches: a first one highlighted may not stay).
    if any(worker.node is screen and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
           for worker in app.workers):
        return False
    options = screen.query_one(OptionList)
    if options.highlighted is None:
        return False
    prompt = options.get_option_at_index(options.highlighted).prompt
    shown = str(getattr(prompt, "plain", prompt)).lower()
    return all(word in shown for word in text.lower().split())


async def until_ended(app, seconds: float = 10.0) -> bool:
    """Until the app (quit, or failed) stops running; False after ``seconds``."""
    import asyncio

    for _ in range(int(seconds / 0.05)):
        if not app.is_running:
            return True
        await asyncio.sleep(0.05)
    return False


async def wait_for(pilot, condition, seconds: float = 60.0) -> bool:
    """Let a Textual app run (``pilot``) until ``condition()`` holds; False after ``seconds``.

    The app runs, draws and answers on its own meanwhile: the polls sleep, and once the
    condition holds after one, a pilot's pause lets the app finish what it was doing (its
    messages handled, a frame drawn) and the condition is asked again. (A pilot's pause at
    every poll sends a message to every widget and waits for them all, about 25 ms of CPU a
    poll in the explorer: a fifth of the TUI tests' time went to waiting.)"""
    import asyncio

    polls = int(seconds / 0.1)
    for poll in range(polls + 1):
        if condition():
            if not poll:
                return True
            await pilot.pause()
            if condition():  # (as the pilot's pauses had it: it holds once the app settled)
                return True
        if poll < polls:
            await asyncio.sleep(0.1)
    return False


@pytest.fixture(autouse=True)
def _private_state_home(tmp_path_factory, monkeypatch):
    """The explorer's recovery copies of unsaved buffers go to a folder of the test's own,
    never to the user's ~/.local/state."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture(scope="session")
def tf():
    """TensorFlow, imported once for the whole session."""
    from agexplorer.engine.tfenv import import_tf

    return import_tf()


# The longest test files (about 20-70 s each on 2 cores), run first: the files are shared out
# over the test processes one at a time in this order, and a long one taken last would keep
# one process busy while the others have finished (a run's --durations shows them).
LONGEST_FIRST = ("tests/tui/test_tour_snapshots.py", "tests/record/test_framework_traces.py",
                 "tests/tui/test_snapshots.py", "tests/faults/test_leak.py",
                 "tests/tui/test_app.py", "tests/tui/test_tour.py",
                 "tests/tui/test_compare_screen.py", "tests/worker/test_worker.py",
                 "tests/tui/test_keys.py", "tests/daemon/test_daemon.py",
                 "tests/faults/test_honest_tui.py", "tests/faults/test_quit_in_flight.py",
                 "tests/test_serve.py")


def pytest_collection_modifyitems(items):
    """Tests that use TensorFlow (through the ``tf`` or ``report`` fixtures) carry the tf mark;
    the longest files go first (``LONGEST_FIRST``)."""
    for item in items:
        if {"tf", "report"} & set(getattr(item, "fixturenames", ())):
            item.add_marker("tf")
    rank = {os.path.join(ROOT, path): i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(str(item.path), len(rank)))


_frozen: set[str] = set()  # what was imported when the long-lived objects were last frozen


def pytest_runtest_setup(item):
    """Once the test modules are imported, and again once TensorFlow is (a test imported it),
    the objects alive then are frozen out of the garbage collector's full passes, which walked
    them all each time (three TUI test files spent 13.6 s in the collector, 9.6 s with this).
    Collected first, so that no garbage is kept for good."""
    stage = "tensorflow" if "tensorflow" in sys.modules else "modules"
    if stage not in _frozen:
        _frozen.update((stage, "modules"))
        gc.collect()
        gc.freeze()


def pytest_xdist_auto_num_workers(config):
    """One test process more than the cores (``-n auto``): a test spends part of its time
    waiting (on a worker's answer, an app's timer, a browser), and the extra process fills
    those gaps: on 2 cores the fast lane took 0.85x the time of 2 processes."""
    return (os.cpu_count() or 1) + 1


def pytest_configure(config):
    """One warm zygote for the whole run (agexplorer.worker.zygote), started by the process
    that runs pytest before its test processes, which inherit ``AGX_ZYGOTE``: the workers of
    every test process, and of the commands they run, are forked from it, ready in about
    0.4 s instead of 5 s of TensorFlow's import. ``cold_start`` turns it off for a module or a
    test; AGX_TEST_ZYGOTE=0 for the whole run. A run of the tests without TensorFlow
    (``-m "not tf"``) starts none."""
    from agexplorer.worker.zygote import ENV_VAR, Zygote

    if hasattr(config, "workerinput") or ENV_VAR in os.environ:  # a test process: inherited
        return
    if os.environ.get("AGX_TEST_ZYGOTE", "1") == "0" or \
            (config.option.markexpr or "").replace(" ", "") == "nottf":
        return
    config._agx_zygote = Zygote()
    os.environ[ENV_VAR] = config._agx_zygote.path


def pytest_unconfigure(config):
    from agexplorer.worker.zygote import ENV_VAR

    zygote = getattr(config, "_agx_zygote", None)
    if zygote is not None:
        os.environ.pop(ENV_VAR, None)
        zygote.close()


@pytest.fixture(scope="session")
def zygote_path() -> str | None:
    """The socket of the run's zygote (None: this run has none)."""
    from agexplorer.worker.zygote import ENV_VAR

    return os.environ.get(ENV_VAR)


@pytest.fixture
def cold_start(monkeypatch):
    """Workers started the way users' are (a new interpreter that imports TensorFlow), not
    forked from the test process's zygote: for the tests of a worker's start and life."""
    from agexplorer.worker.zygote import ENV_VAR

    monkeypatch.delenv(ENV_VAR, raising=False)


@pytest.fixture(scope="session")
def _session_worker():
    from agexplorer.worker.client import Worker

    w = Worker(timeout=60)
    w.start()
    yield w
    w.close()


@pytest.fixture(scope="module")
def worker(_session_worker):
    """A TensorFlow worker process shared by every test module (importing TensorFlow costs
    about 5 s a start): a module that kills or closes it gets a fresh one on its next request;
    its timeout is put back after each module."""
    yield _session_worker
    _session_worker.timeout = 60


@pytest.fixture(scope="session")
def report(tf):
    """``report(TARGET, call)``: build_report, cached per target and call for the session."""
    from agexplorer.engine.pipeline import build_report

    cache = {}

    def get(target: str, call: str | None = None):
        key = (target, call)
        if key not in cache:
            cache[key] = build_report(target, call)
        return cache[key]

    return get
