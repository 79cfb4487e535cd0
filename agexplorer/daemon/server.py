"""The background worker: a small process (no TensorFlow of its own) that keeps a TensorFlow
worker warm and relays each command's request to it.

It is started by the first command that wants it (``python -m agexplorer.daemon.server``),
in its own session, and listens on its Unix socket (mode 0600 in a 0700 folder). Each
connection carries one question (daemon/messages.py). A request goes to an idle TensorFlow
worker (worker/client.py's ``Worker``, with its timeouts, hang and death handling), or to a
new one while every worker is busy, up to ``MAX_WORKERS``; past that the command is told to
start its own. A command that goes away mid-request (Ctrl-C, a closed terminal) ends the
worker running it, as its own worker would have ended. After ``idle`` seconds without a
request, on ``agexplorer daemon stop``, on SIGTERM, or when its socket is removed or taken
over, it stops its workers and ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

from agexplorer.daemon.messages import Ask, Busy, Status, StatusAsk, StopAsk, Stopping, Taken
from agexplorer.daemon.place import Place, listen_unix
from agexplorer.daemon.warm import WarmExplorer
from agexplorer.model.errors import AgxError
from agexplorer.worker import wire
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import Failure, InFolder, Progress, Reply
from agexplorer.worker.zygote import ENV_VAR as ZYGOTE_VAR
from agexplorer.worker.zygote import Zygote

MAX_WORKERS = 3  # TensorFlow workers at once (each holds its own TensorFlow in memory)
QUESTION_TIMEOUT = 10.0  # seconds a connection has to say what it wants
TICK = 0.5  # seconds between checks of the idle time and of the socket file


class Pool:
    """The TensorFlow workers: the first kept warm for good, others made while it is busy
    and ended once idle again (one idle worker is enough to answer the next command)."""

    def __init__(self, python: Any, zygote: str | None = None) -> None:
        self.python = python
        self.zygote = zygote
        self.lock = threading.Lock()
        self.idle: list[Worker] = []
        self.busy: list[Worker] = []

    def warm(self) -> None:
        """Start the first worker now: TensorFlow loads before the first request arrives."""
        worker = self._new()
        worker.start()
        with self.lock:
            self.idle.append(worker)

    def _new(self) -> Worker:
        return Worker(python=self.python, restart_at_once=True, zygote=self.zygote)

    def take(self) -> Worker | None:
        """An idle worker (a new one if none is), or None when ``MAX_WORKERS`` are busy."""
        with self.lock:
            if self.idle:
                worker = self.idle.pop(0)
            elif len(self.busy) < MAX_WORKERS:
                worker = self._new()
            else:
                return None
            self.busy.append(worker)
            return worker

    def give_back(self, worker: Worker) -> None:
        with self.lock:
            if worker in self.busy:
                self.busy.remove(worker)
            spare = bool(self.idle)
            if not spare:
                self.idle.append(worker)
        if spare:
            worker.close()

    def close(self) -> None:
        with self.lock:
            workers, self.idle, self.busy = self.idle + self.busy, [], []
        for worker in workers:
            worker.close(final=True)

    def describe(self) -> list[dict[str, Any]]:
        with self.lock:
            return ([{"pid": w.pid, "busy": False, "alive": w.alive} for w in self.idle]
                    + [{"pid": w.pid, "busy": True, "alive": w.alive} for w in self.busy])


class Server:
    """The socket's listener and the state of the background worker."""

    def __init__(self, place: Place, python: Any, idle: float) -> None:
        self.place, self.idle_limit = place, idle
        # A warm zygote (worker/zygote.py) for this interpreter: its workers, and an
        # explorer's, are forked there with TensorFlow loaded. One this process inherited
        # (AGX_ZYGOTE: a test run's) serves as it is; else it starts its own, which ends
        # with it. Another interpreter's (--python) workers start the usual way.
        self.own_zygote: Zygote | None = None
        zygote = os.environ.get(ZYGOTE_VAR) if python is None else None
        if python is None and zygote is None:
            try:
                self.own_zygote = Zygote()
                zygote = self.own_zygote.path
            except OSError as exc:
                print(f"agexplorer daemon: no warm zygote ({exc}); workers start the usual "
                      "way", file=sys.stderr, flush=True)
        self.zygote = zygote
        self.pool = Pool(python, zygote)
        self.executable = sys.executable if python is None else python.executable
        self.started = time.time()
        self.answered = 0
        self.active = 0
        self.last_end = time.monotonic()
        self.count_lock = threading.Lock()
        self.stopping = threading.Event()
        self.listener: socket.socket | None = None
        self.inode: int | None = None
        self.warm_explorer: WarmExplorer | None = None

    # -- the loop ----------------------------------------------------------------------
    def bind(self) -> None:
        listener, self.inode = listen_unix(self.place.socket)  # in its folder (main)
        listener.settimeout(TICK)
        self.listener = listener
        if self.pool.python is None:  # agexplorer's own interpreter: `agexplorer FILE` opens warm
            try:
                self.warm_explorer = WarmExplorer(self.place)
            except OSError as exc:
                print(f"agexplorer daemon: no warm explorer ({exc}); the explorer opens cold",
                      file=sys.stderr, flush=True)

    def run(self) -> None:
        assert self.listener is not None
        while not self.stopping.is_set() and not self._should_end():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()
        self.end()

    def _should_end(self) -> bool:
        try:
            if os.stat(self.place.socket).st_ino != self.inode:
                return True  # taken over, or its folder was emptied
        except OSError:
            return True
        with self.count_lock:
            return self.active == 0 and time.monotonic() - self.last_end > self.idle_limit

    def end(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.close()
        with contextlib.suppress(OSError):
            if os.stat(self.place.socket).st_ino == self.inode:
                os.unlink(self.place.socket)
        self.pool.close()
        if self.warm_explorer is not None:
            self.warm_explorer.close()
        if self.own_zygote is not None:
            self.own_zygote.close()

    # -- one connection ----------------------------------------------------------------
    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                question = wire.receive(conn, time.monotonic() + QUESTION_TIMEOUT)
            except Exception:  # noqa: BLE001 - a client that said nothing readable
                return
            with contextlib.suppress(OSError):
                if isinstance(question, StatusAsk):
                    wire.send(conn, self.status())
                elif isinstance(question, StopAsk):
                    wire.send(conn, Stopping(os.getpid()))
                    self.stopping.set()
                elif isinstance(question, Ask):
                    self._relay(conn, question)

    def status(self) -> Status:
        with self.count_lock:
            idle_for = 0.0 if self.active else time.monotonic() - self.last_end
            answered = self.answered
        return Status(os.getpid(), self.executable, self.started, self.idle_limit, idle_for,
                      answered, self.pool.describe(), self.zygote,
                      self.warm_explorer.path if self.warm_explorer is not None else None)

    def _relay(self, conn: socket.socket, ask: Ask) -> None:
        worker = self.pool.take()
        if worker is None:
            wire.send(conn, Busy(MAX_WORKERS))
            return
        with self.count_lock:
            self.active += 1
        running = threading.Event()  # set while the worker runs this command's request
        try:
            worker.timeout = ask.timeout
            try:
                worker.wait_ready()
            except AgxError as exc:
                wire.send(conn, Failure(exc))
                return
            wire.send(conn, Taken(worker.pid or 0, worker.python_executable,
                                  worker.python_version, worker.tf_version,
                                  worker.keras_version, worker.keras_flavour,
                                  tuple(worker.tf_warnings)))
            running.set()
            threading.Thread(target=self._watch, args=(conn, worker, running),
                             daemon=True).start()

            def progress(phase: str) -> None:
                with contextlib.suppress(OSError):
                    wire.send(conn, Progress(phase))

            request = ask.request if ask.folder is None else InFolder(ask.folder, ask.request)
            reply: Reply | Failure
            try:
                reply = Reply(worker.request(request, timeout=ask.timeout,
                                             what=ask.what or ask.request.label, path=ask.path,
                                             on_progress=progress))
            except AgxError as exc:
                reply = Failure(exc)
            running.clear()
            # What the user code started ends with the command, as with its own worker;
            # then the answer (the status a command asks next counts it).
            worker.end_leftovers()
            with self.count_lock:
                self.answered += 1
            wire.send(conn, reply)
        finally:
            running.clear()
            self.pool.give_back(worker)
            with self.count_lock:
                self.active -= 1
                self.last_end = time.monotonic()

    def _watch(self, conn: socket.socket, worker: Worker, running: threading.Event) -> None:
        """The command went away while its request ran: end the worker running it (its user
        code stops, as with the command's own worker); the pool starts a fresh one."""
        while True:
            try:
                conn.recv(1)  # the command sends nothing more: this returns when it closes
            except TimeoutError:  # a timeout left on the socket is not a hang-up
                if running.is_set():
                    continue
            except OSError:
                pass
            break
        if running.is_set():
            worker.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m agexplorer.daemon.server FOLDER KEY IDLE [PYTHON]``."""
    folder, key, idle, *python = sys.argv[1:] if argv is None else argv
    place = Place(folder, key)
    lock = open(place.lock, "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another one runs for this key: the command reaches that one
    chosen = None
    if python:
        from agexplorer.worker.interpreter import probe

        try:
            chosen = probe(python[0])
        except AgxError as exc:
            print(f"agexplorer daemon: {exc.message}", file=sys.stderr)
            return 1
    os.chdir(place.folder)
    server = Server(place, chosen, float(idle))
    signal.signal(signal.SIGTERM, lambda *_: server.stopping.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the terminal that started it may close
    server.bind()
    print(f"agexplorer daemon {os.getpid()} listening on {place.socket}", file=sys.stderr,
          flush=True)
    server.pool.warm()
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
