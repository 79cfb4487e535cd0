"""Capture what user code and TensorFlow print (Python's streams and the C-level ones).

TensorFlow's C++ runtime logs straight to file descriptor 2, and the user's
function may ``print`` while it traces; neither may corrupt ``--json`` output
or bury the report. What was captured is kept up to a cap per stream: the first
and the last ``KEEP`` characters, with one line in between that says how much
was dropped, so a function that prints 100 MB costs neither memory nor minutes.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import selectors
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass

KEEP = 32 * 1024  # characters kept at each end of each stream

# TensorFlow start-up chatter that says nothing about the user's function.
_NOISE = re.compile(
    r"(All log messages before absl::InitializeLog|oneDNN custom operations are on"
    r"|Could not find cuda drivers|failed call to cuInit|cpu_feature_guard"
    r"|To enable the following instructions|rebuild TensorFlow with the appropriate"
    r"|Unable to register cu(DNN|FFT|BLAS) factory|computation placer already registered"
    r"|TF-TRT Warning|This TensorFlow binary is optimized)")


# TensorFlow's native log lines (absl's "W1206 19:00:00.123456  2345 file.cc:12] ...", its
# seconds since 1970 before absl is set up, "W0000 00:00:1796584227.839756 ...", and the
# older "2026-12-06 19:00:00.123456: W tensorflow/...") and absl's note before its first one.
_NATIVE_LOG = re.compile(r"[IWEF]\d{4} \d\d:\d\d:\d+\.\d+\s+\d+ \S+:\d+\] "
                         r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] "
                         r"|WARNING: All log messages before absl::InitializeLog")


class LineTally:
    """The lines written through it: how many, and how often each (its first 200
    characters; at most ``DISTINCT`` different ones are told apart, the rest only counted).
    ``skip_logs``: TensorFlow's native log lines and blank lines are not counted."""

    DISTINCT = 256
    WIDTH = 200

    def __init__(self, skip_logs: bool = False) -> None:
        self.lines = 0
        self.counts: Counter[str] = Counter()
        self._partial = ""
        self._skip_logs = skip_logs

    def feed(self, text: str) -> None:
        """Count the lines ``text`` ends (the caller holds its sink's lock)."""
        *whole, rest = (self._partial + text).split("\n")
        for line in whole:
            self._line(line)
        self._partial = rest[:self.WIDTH + 1]  # a line is told by its start alone

    def close(self) -> None:
        """Count a last line left without its newline."""
        if self._partial:
            self._line(self._partial)
            self._partial = ""

    def _line(self, line: str) -> None:
        if self._skip_logs and (not line.strip() or _NATIVE_LOG.match(line)
                                or _NOISE.search(line)):
            return
        self.lines += 1
        line = line[:self.WIDTH]
        if line in self.counts or len(self.counts) < self.DISTINCT:
            self.counts[line] += 1

    def merged(self, other: LineTally) -> LineTally:
        """Both tallies' lines as one."""
        both = LineTally()
        both.lines = self.lines + other.lines
        both.counts = self.counts + other.counts
        return both


@dataclass
class Captured:
    """Text written while capturing: ``stdout`` (prints) and ``log`` (stderr, noise removed);
    with ``capture_output(tally=True)``, ``printed`` counts stdout's lines (Python's print and
    native code's) and ``native_err`` those native code wrote to stderr, TensorFlow's own
    log lines aside (tf.print's, by default)."""

    stdout: str = ""
    log: str = ""
    printed: LineTally | None = None
    native_err: LineTally | None = None


def without_noise(text: str) -> str:
    """Drop TensorFlow's start-up lines."""
    return "\n".join(line for line in text.splitlines() if line.strip()
                     and not _NOISE.search(line))


def _size(chars: int) -> str:
    if chars >= 1_000_000:
        return f"{chars / 1e6:.1f} MB"
    if chars >= 1_000:
        return f"{chars / 1e3:.1f} KB"
    return f"{chars} characters"


class BoundedText(io.TextIOBase):
    """A text stream that keeps the first and the last ``keep`` characters written to it."""

    def __init__(self, keep: int = KEEP, tally: LineTally | None = None) -> None:
        super().__init__()
        self.keep = keep
        self.tally = tally  # counts every line written, kept or dropped
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.dropped = 0
        self._lock = threading.Lock()  # the fd readers write from their own threads

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        n = len(text)
        with self._lock:
            if self.tally is not None:
                self.tally.feed(text)
            if self._head_len < self.keep:
                part = text[:self.keep - self._head_len]
                self._head.append(part)
                self._head_len += len(part)
                text = text[len(part):]
            if text:
                self._tail.append(text)
                self._tail_len += len(text)
                while self._tail_len - len(self._tail[0]) >= self.keep:
                    self._tail_len -= len(self._tail[0])
                    self.dropped += len(self._tail.popleft())
                extra = self._tail_len - self.keep
                if extra > 0:
                    self._tail[0] = self._tail[0][extra:]
                    self._tail_len -= extra
                    self.dropped += extra
        return n

    def getvalue(self) -> str:
        """What was kept, with a ``[… 97.3 MB dropped …]`` line where the middle was."""
        with self._lock:
            head, tail = "".join(self._head), "".join(self._tail)
            if not self.dropped:
                return head + tail
            gap = "" if head.endswith("\n") else "\n"
            return f"{head}{gap}[… {_size(self.dropped)} dropped …]\n{tail}"


class _Reader:
    """One thread per process that empties the capture pipes into their BoundedTexts.

    A thread per capture would cost its start-up (about a millisecond on a busy machine)
    on every capture, and the retrace explainer captures each call.
    """

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._pending: list[tuple[int, BoundedText, threading.Event]] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._run, name="agx-capture", daemon=True).start()

    def add(self, read_end: int, sink: BoundedText) -> threading.Event:
        """Read ``read_end`` into ``sink`` until EOF, then close it and set the event."""
        done = threading.Event()
        with self._lock:
            self._pending.append((read_end, sink, done))
        os.write(self._wake_w, b"x")
        return done

    def _run(self) -> None:
        while True:
            for key, _ in self._selector.select():
                if key.fd == self._wake_r:
                    os.read(self._wake_r, 4096)
                    with self._lock:
                        pending, self._pending = self._pending, []
                    for read_end, sink, done in pending:
                        decoder = codecs.getincrementaldecoder("utf-8")("replace")
                        self._selector.register(read_end, selectors.EVENT_READ,
                                                (sink, decoder, done))
                    continue
                sink, decoder, done = key.data
                try:
                    data = os.read(key.fd, 1 << 16)
                except OSError:  # read as the end: this thread must outlive any one pipe
                    data = b""
                if data:
                    sink.write(decoder.decode(data))
                    continue
                sink.write(decoder.decode(b"", final=True))
                self._selector.unregister(key.fd)
                os.close(key.fd)
                done.set()


_reader: _Reader | None = None
_reader_lock = threading.Lock()


def _the_reader() -> _Reader:
    global _reader
    with _reader_lock:
        if _reader is None:
            _reader = _Reader()
        return _reader


def _forget_reader() -> None:
    global _reader, _reader_lock
    _reader, _reader_lock = None, threading.Lock()  # a forked child has neither thread nor lock


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_reader)


class _Drain:
    """File descriptors redirected into pipes that the reader thread empties into
    BoundedTexts (a temporary file would grow as long as the user's code prints)."""

    def __init__(self, fds: tuple[int, ...], tallies: dict[int, LineTally] | None = None
                 ) -> None:
        self.sinks: dict[int, BoundedText] = {}
        self._saved: dict[int, int] = {}
        self._done: list[threading.Event] = []
        reader = _the_reader()
        for fd in fds:
            try:
                saved = os.dup(fd)
            except OSError:  # no such descriptor (a daemon without streams)
                continue
            try:
                read_end, write_end = os.pipe()
            except OSError:  # out of descriptors: this stream goes where it went
                os.close(saved)
                continue
            # A larger pipe lets native code that holds the GIL write more before it waits on
            # the reader (which needs the GIL); the request's timeout ends a worker stuck so.
            with contextlib.suppress(OSError, AttributeError, ImportError):
                import fcntl

                fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 1 << 20)
            os.dup2(write_end, fd)
            os.close(write_end)
            self._saved[fd] = saved
            self.sinks[fd] = BoundedText(tally=(tallies or {}).get(fd))
            self._done.append(reader.add(read_end, self.sinks[fd]))

    def close(self) -> dict[int, str]:
        """Put the descriptors back; what was written to each."""
        for fd, saved in self._saved.items():
            os.dup2(saved, fd)
            os.close(saved)
        # EOF comes at once, unless a process the user's code started still holds a pipe:
        # then what came so far is the answer, and the pipe is read until that process ends.
        deadline = time.monotonic() + 1.0
        for done in self._done:
            done.wait(timeout=max(deadline - time.monotonic(), 0))
        return {fd: sink.getvalue() for fd, sink in self.sinks.items()}


@contextlib.contextmanager
def capture_output(tally: bool = False) -> Iterator[Captured]:
    """Redirect fds 1 and 2 and ``sys.stdout``/``sys.stderr`` into a :class:`Captured`;
    ``tally``: count the lines printed too (:class:`Captured`)."""
    result = Captured()
    tallies = {1: LineTally(), 2: LineTally(skip_logs=True)} if tally else {}
    py_printed = LineTally() if tally else None
    py_out, py_err = BoundedText(tally=py_printed), BoundedText()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    drain: _Drain | None = None
    c_text: dict[int, str] = {}
    try:
        drain = _Drain((1, 2), tallies)
        with contextlib.redirect_stdout(py_out), contextlib.redirect_stderr(py_err):
            yield result
    finally:
        if drain is not None:
            c_text = drain.close()
        result.stdout = py_out.getvalue() + c_text.get(1, "")
        result.log = without_noise(py_err.getvalue() + "\n" + c_text.get(2, ""))
        if py_printed is not None:
            for counted in (py_printed, *tallies.values()):
                counted.close()
            result.printed = py_printed.merged(tallies[1])
            result.native_err = tallies[2]
