"""The caller's side of the worker: start it, send requests, survive its hangs, crashes and deaths."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from agexplorer.model.errors import AgxError
from agexplorer.worker import protocol, wire
from agexplorer.worker.interpreter import Interpreter, path_folder, resolve
from agexplorer.worker.limits import DEFAULT_TIMEOUT
from agexplorer.worker.process import (
    ask_for_stack,
    end_on_signals,
    end_process,
    forked,
    how_ended,
    make_folder,
    popen,
    sweep_once,
)
from agexplorer.worker.protocol import Failure, Partial, Progress, Reply, Request
from agexplorer.worker.zygote import ForkedProcess

T = TypeVar("T")

START_TIMEOUT = 180.0  # importing TensorFlow on a loaded machine; not the user's time
TIMEOUT_HINT = "raise --timeout if the function is just slow"
# Quitting waits at most this long for the worker to end on SIGTERM before SIGKILL: the
# explorer is gone within 2 s of q or a closed tab, a request in flight or not.
QUIT_GRACE = 0.5


class Worker:
    """One TensorFlow worker process, restarted on demand.

    ``request`` blocks until the answer, the timeout or the worker's death, and raises
    nothing but AgxError; the last progress message says what the worker was doing
    ("tracing f"). A worker that died between requests is replaced without a word to the
    caller but ``take_notice``. ``close(final=True)`` ends it for good: nothing starts a
    worker again, and a request waiting in another thread ends at once.
    """

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, env: dict[str, str] | None = None,
                 timeout_hint: str = TIMEOUT_HINT, python: Interpreter | None = None,
                 restart_at_once: bool = True, zygote: str | None = None) -> None:
        self.timeout = timeout
        # A worker that hung or died is replaced at once (the explorer: TensorFlow loads while
        # the user reads the error), or only by a next request (a command, which then ends).
        self.restart_at_once = restart_at_once
        self.env = env
        # Another interpreter, with its own TensorFlow (--python); None: this one.
        self.python = python
        self.executable = sys.executable if python is None else python.executable
        # The warm zygote its workers are forked from (worker/zygote.py; None: the one
        # AGX_ZYGOTE names, if any), and whether the current one was forked there.
        self.zygote = zygote
        self.forked = False
        # The worker's Python (its sys.executable), TensorFlow and Keras, from its Hello.
        self.python_executable = self.python_version = ""
        self.tf_version = ""
        self.keras_version = self.keras_flavour = ""
        self.timeout_hint = timeout_hint  # ends the timeout message, in parentheses
        self.phase = "starting"
        self.import_s: float | None = None
        self.start_s: float | None = None
        # The worker's sentences about TensorFlow names that moved (from its Hello): each says
        # which capability this TensorFlow lost.
        self.tf_warnings: tuple[str, ...] = ()
        # Called with them on every Hello that has some (a command prints them; see
        # shared_worker): a fresh worker after a crash sends them again.
        self.on_tf_warnings: Callable[[tuple[str, ...]], None] | None = None
        self.tmpdir: str | None = None  # the current worker's private temp folder
        self._proc: subprocess.Popen | ForkedProcess | None = None
        self._sock: socket.socket | None = None
        self._log: Any = None
        self._ready = False
        self._notice: str | None = None
        self._final = False  # closed for good (quitting): no worker starts again
        self._lock = threading.RLock()  # one request at a time on the socket
        self._life = threading.RLock()  # starting, and taking the process to end it

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the process (it imports TensorFlow in the background)."""
        with self._life:  # a final close from another thread waits, then sees it
            self._start()

    def _start(self) -> None:
        if self._final:
            raise self._closed()
        self.close()
        sweep_once()
        # TMPDIR is where AutoGraph writes its generated modules and engine/buffer.py its buffer
        # copies: all of it goes into a folder (mode 0700) removed when this worker ends.
        self.tmpdir = make_folder()
        ours, theirs = socket.socketpair()
        self._log = tempfile.TemporaryFile(mode="w+b")  # unlinked: nothing to leave behind
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        env.update(TMPDIR=self.tmpdir, TEMP=self.tmpdir, TMP=self.tmpdir,
                   AGX_WORKER_TMPDIR=self.tmpdir)
        if self.python is not None:  # our package on its path, and nothing else of ours
            env["PYTHONPATH"] = os.pathsep.join(
                [path_folder(self.tmpdir), *filter(None, [env.get("PYTHONPATH")])])
        self._started_at = time.perf_counter()
        try:
            # Its own session: the terminal's Ctrl-C reaches this process (which ends the
            # worker) and not the worker mid-answer; killpg ends whatever it started.
            args = [self.executable, "-c", "from agexplorer.worker.server import main; main()",
                    str(theirs.fileno()), str(os.getpid())]
            # forked from a warm zygote where one of this interpreter and environment runs
            self._proc = None if self.python is not None else \
                forked(env, theirs.fileno(), self._log.fileno(), args, self.zygote)
            self.forked = self._proc is not None
            if self._proc is None:
                self._proc = popen(args, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                   stdout=self._log, stderr=self._log, env=env,
                                   start_new_session=True)
        except OSError as exc:
            ours.close()
            self._discard(graceful=False)
            raise AgxError("worker-start", f"the TensorFlow worker could not be started "
                           f"({exc.strerror or exc})", advice="check the memory and process limits.",
                           exit_code=1) from None
        finally:
            theirs.close()
        self._sock = ours
        self._ready = False
        self.phase = "starting"

    def wait_ready(self) -> None:
        """Start the process if none runs, and wait for its Hello (AgxError when it does
        not come): its versions and ``tf_warnings`` are then known."""
        with self._lock:
            self._wait_ready()

    def _wait_ready(self) -> None:
        if self._proc is None:
            self.start()
        if self._ready:
            return
        assert self._sock is not None
        try:
            hello = wire.receive(self._sock, time.monotonic() + START_TIMEOUT)
        except TimeoutError:
            self._discard(graceful=False)
            raise AgxError("worker-start", "the TensorFlow worker did not start within "
                           f"{START_TIMEOUT:g} s", advice=f"check that `{self._python_shown} -c \"import "
                           "tensorflow\"` works.", exit_code=1) from None
        except (EOFError, OSError):
            raise self._death("starting") from None
        except Exception:  # noqa: BLE001 - a Hello this install cannot even unpickle
            self._discard(graceful=False)
            raise protocol.mismatch() from None
        try:
            hello = protocol.check_hello(hello)
        except protocol.ProtocolError:
            self._discard(graceful=False)  # it would answer in a protocol we cannot read
            raise
        self.import_s = hello.import_s
        self.tf_warnings = tuple(hello.tf_warnings)
        self.python_version, self.tf_version = hello.python, hello.tensorflow
        self.keras_version, self.keras_flavour = hello.keras, hello.keras_flavour
        self.python_executable = hello.executable or self.executable
        self.start_s = time.perf_counter() - self._started_at
        self._ready = True
        if self.tf_warnings and self.on_tf_warnings is not None:
            self.on_tf_warnings(self.tf_warnings)

    def close(self, final: bool = False) -> None:
        """End the process, if any, with everything it started, and remove its temp folder;
        the next request starts a fresh one. ``final`` (quitting): none ever starts again,
        and a request waiting for its answer in another thread ends now, with one sentence."""
        if final:
            with self._life:
                self._final = True
        self._discard(graceful=True, grace=QUIT_GRACE if final else 3.0)
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    def _closed(self) -> AgxError:
        return AgxError("worker-closed", "agexplorer is quitting: the TensorFlow worker was "
                        "ended and answers no more requests.", exit_code=1)

    def _discard(self, graceful: bool, grace: float = 3.0) -> None:
        """End the current worker and whatever it started (SIGTERM first when ``graceful``,
        else SIGKILL) and remove its folder once it can no longer write there."""
        with self._life:
            proc, sock, folder = self._proc, self._sock, self.tmpdir
            self._proc, self._sock, self.tmpdir, self._ready = None, None, None, False
        if sock is not None:
            with contextlib.suppress(OSError):
                # wakes a request blocked on its answer in another thread (close alone
                # would leave it waiting): it ends with EOF now
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()
        if proc is not None:
            end_process(proc, graceful, marker=folder and f"AGX_WORKER_TMPDIR={folder}",
                        grace=grace)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def end_leftovers(self) -> None:
        """End whatever the user code of the last request started and left running (the
        worker's descendants: its subreaper keeps the orphans below it); the worker stays."""
        from agexplorer.worker.descendants import end_descendants

        with self._life:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            end_descendants(proc.pid)

    @property
    def _python_shown(self) -> str:
        return "python" if self.python is None else self.python.executable

    @property
    def alive(self) -> bool:
        """Whether a worker process is running."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The worker process's id, if one was started."""
        return self._proc.pid if self._proc is not None else None

    def take_notice(self) -> str | None:
        """A sentence about a worker death noticed between requests (once), or None."""
        notice, self._notice = self._notice, None
        return notice

    # -- requests ----------------------------------------------------------------------
    @property
    def can_send_now(self) -> bool:
        """Started, ready and answering nothing: a request sent now goes out at once (a
        snapshot: another thread may take the worker the next moment)."""
        if not self._ready or self._final or self._proc is None or self._proc.poll() is not None:
            return False
        if not self._lock.acquire(blocking=False):  # a request is under way
            return False
        self._lock.release()
        return True

    def request(self, req: Request[T], *, timeout: float | None = None, what: str = "",
                path: str | None = None, on_progress: Any = None,
                on_sent: Callable[[], object] | None = None,
                on_partial: Callable[[Any], object] | None = None) -> T:
        """Send one request (a :mod:`~agexplorer.worker.protocol` dataclass) and return its
        reply's value; raise AgxError for its failure (and only AgxError: a broken pipe or an
        unreadable answer is worded too). ``on_sent`` is called once the request is on the
        socket, before its answer is awaited; ``on_partial`` with each part of the reply the
        worker sends ahead of it (``protocol.Partial``).

        Thread-safe: concurrent callers wait their turn.
        """
        with self._lock:
            try:
                if self._final:
                    raise self._closed()
                return self._request(req, timeout, what, path, on_progress, on_sent,
                                     on_partial)
            except AgxError:
                if self._final:  # whatever the close cut short: it was the close
                    raise self._closed() from None
                raise
            except Exception as exc:  # noqa: BLE001 - the socket is mid-message: start afresh
                self._discard(graceful=False)
                if self._final:
                    raise self._closed() from None
                raise AgxError("internal-error", f"talking to the TensorFlow worker failed "
                               f"({type(exc).__name__}: {exc})", advice=f"{self._then(False)}.",
                               exit_code=3) from None
            except BaseException:  # Ctrl-C mid-request: its answer must not be the next one's
                self._discard(graceful=False)
                raise

    def _request(self, req: Request[T], timeout: float | None, what: str, path: str | None,
                 on_progress: Any, on_sent: Callable[[], object] | None = None,
                 on_partial: Callable[[Any], object] | None = None) -> T:
        limit = self.timeout if timeout is None else timeout
        kind = req.label
        try:
            data = wire.dumps(req)
        except Exception as exc:  # noqa: BLE001 - pickling may raise anything
            raise AgxError("bad-request", f"the {kind} request could not be sent to the worker "
                           f"({type(exc).__name__}: {exc}).", exit_code=3) from None
        self._wait_ready()
        self.phase = what or kind
        died = self._send(data, limit, path)
        if died is not None:
            # It died before it had the request (idle, or as it was sent): nothing of the
            # request ran, so a fresh worker takes it.
            self._notice = f"the TensorFlow worker had {died} while idle; a fresh one was started."
            self._wait_ready()
            self.phase = what or kind
            again = self._send(data, limit, path)
            if again is not None:
                raise AgxError("worker-died", f"the TensorFlow worker {again} before it could "
                               "take the request", advice=f"check that `{self._python_shown} -c \"import "
                               "tensorflow\"` works.", exit_code=1)
        if on_sent is not None:
            on_sent()
        deadline = time.monotonic() + limit
        assert self._sock is not None
        while True:
            try:
                message = wire.receive(self._sock, deadline)
            except TimeoutError:  # also a huge answer still arriving at the deadline
                raise self._timed_out(limit, path) from None
            except (EOFError, OSError):
                raise self._death(self.phase, path) from None
            if isinstance(message, Progress):
                self.phase = message.phase
                if on_progress is not None:
                    on_progress(self.phase)
                continue
            if isinstance(message, Partial):
                if on_partial is not None:
                    on_partial(message.value)
                continue
            if isinstance(message, Reply):
                if message.busy:  # an abandoned mode would slow every later request
                    self._discard(graceful=False)
                    self._notice = ("a timed-out mode (an XLA compile or a long loop) was still "
                                    "running in the TensorFlow worker, so it was replaced by a "
                                    "fresh one.")
                return message.value
            if isinstance(message, Failure):
                raise message.error
            self._discard(graceful=False)  # what follows on the socket cannot be trusted
            raise protocol.mismatch()

    def _send(self, data: bytes, limit: float, path: str | None) -> str | None:
        """Send a request; None when sent, else how the worker had ended (it is discarded)."""
        assert self._proc is not None and self._sock is not None
        if self._proc.poll() is None:
            try:
                wire.send_bytes(self._sock, data, time.monotonic() + limit)
                return None
            except TimeoutError:  # alive but not reading
                raise self._timed_out(limit, path) from None
            except OSError:  # BrokenPipeError, ConnectionResetError: it is dying or dead
                pass
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        self._discard(graceful=False)
        return how_ended(code)

    # -- failures ----------------------------------------------------------------------
    def _log_text(self) -> str:
        if self._log is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._log.flush()
            self._log.seek(0)
            return self._log.read().decode("utf-8", "replace")
        return ""

    def _user_line(self, text: str, path: str | None) -> int | None:
        if not path:
            return None
        lines = re.findall(rf'File "{re.escape(path)}", line (\d+)', text)
        # faulthandler prints the innermost frame first
        return int(lines[0]) if lines else None

    def _timed_out(self, limit: float, path: str | None) -> AgxError:
        phase, line = self.phase, None
        if self.alive and self._proc is not None:
            line = self._user_line(ask_for_stack(self._proc.pid, self._log_text), path)
        self._discard(graceful=False)
        then = "restarted" if self._restart() else "stopped"
        where = f" at {path}:{line}" if line and path else ""
        return AgxError("timeout", f"timed out after {limit:g} s while {phase}{where}", advice="the "
                        f"TensorFlow worker was {then} ({self.timeout_hint}).", line=line,
                        exit_code=1)

    def _death(self, phase: str, path: str | None = None) -> AgxError:
        code = None
        if self._proc is not None:
            try:
                code = self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._discard(graceful=False)
        text = self._log_text()
        line = self._user_line(text, path)
        self._discard(graceful=False)
        if phase == "starting" and self.python is not None:
            return self.python.start_failure(how_ended(code), text)
        # one that cannot even start is not restarted in a loop
        restarted = phase != "starting" and self._restart()
        then = f"{self._then(restarted)}." if self.restart_at_once else None
        where = f" at {path}:{line}" if line and path else ""
        return AgxError("worker-died", f"the TensorFlow worker {how_ended(code)} while "
                        f"{phase}{where}" + ("" if then else "."), advice=then, line=line,
                        exit_code=1)

    def _restart(self) -> bool:
        """After a hang or a death, when ``restart_at_once``: a fresh worker starts importing
        TensorFlow while the user reads the error; whether one did."""
        if not self.restart_at_once or self._final:
            return False
        try:
            self.start()
        except AgxError:
            return False
        return True

    def _then(self, restarted: bool) -> str:
        """What happens next, as the end of a failure's sentence: only what will happen."""
        if restarted:
            return "a fresh one is starting"
        if self.restart_at_once:
            return "it will be restarted for the next request"
        return "it was stopped"


_shared: Worker | None = None


def _end_shared() -> None:
    """SIGTERM or SIGHUP: end the shared worker at once (no grace: this process is dying)."""
    if _shared is not None:
        _shared._final = True
        _shared._discard(graceful=False)


def shared_worker(timeout: float = DEFAULT_TIMEOUT, python: str | None = None) -> Worker:
    """The process-wide worker, kept warm between requests (closed at exit, and on SIGTERM
    or SIGHUP, which then end this process as they would have). It runs under ``python``
    (``--python``), else ``AGX_PYTHON``, else an active virtual environment that is not
    ours, else this interpreter; AgxError in one sentence when that one cannot host it.
    Asked for another interpreter than its own, it ends and starts under that one."""
    global _shared
    chosen = resolve(python)
    if _shared is None:  # a command: it ends after its failure, so nothing restarts early
        _shared = Worker(timeout, python=chosen, restart_at_once=False)
        atexit.register(_shared.close, final=True)
        end_on_signals(_end_shared)
    elif _shared.executable != (sys.executable if chosen is None else chosen.executable):
        _shared.close()
        _shared.python = chosen
        _shared.executable = sys.executable if chosen is None else chosen.executable
    _shared.timeout = timeout
    # A command asks for the worker once: its lost-capability sentences are told once per
    # command, on stderr (a warm worker reused in this process tells them again now).
    _shared.on_tf_warnings = TellOnce()
    if _shared._ready and _shared.tf_warnings:
        _shared.on_tf_warnings(_shared.tf_warnings)
    return _shared


class TellOnce:
    """Writes each sentence it is given to stderr once (``agexplorer: SENTENCE``): a worker
    replaced mid-command says the same again, and the user reads it once."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def __call__(self, sentences: tuple[str, ...]) -> None:
        for sentence in sentences:
            if sentence not in self.told:
                self.told.append(sentence)
                print(f"agexplorer: {sentence}", file=sys.stderr)
