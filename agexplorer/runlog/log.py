"""The recording's log: JSON lines written and flushed as the run goes, read back with one sentence on damage.

A log is a ``start`` record, one ``trace`` record per trace (and ``note`` records), and an
``end`` record with the exit status. A program that crashed hard or was killed leaves a
log without ``end``, possibly with a half-written last line: both still read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, TextIO

from agexplorer.model.errors import AgxError
from agexplorer.source.files import LOG, Replacement, begin_replacement, read_bounded

FORMAT = "agexplorer-record/1"


class LogWriter:
    """Appends records to a log; each is flushed at once so a crash loses none.

    The log is written as source/files.py writes any file: into a temporary file beside it,
    renamed over the old one once the first record is on disk, so an older log (or a hard
    link to it) is replaced whole, never truncated, and a FIFO or a folder is refused.
    """

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        try:
            self._new: Replacement | None = begin_replacement(self.path)
        except AgxError as exc:
            raise AgxError(exc.kind, exc.what, advice="pass -o with a path in a folder you can "
                           "write to.", exit_code=2) from None
        self._file: TextIO | None = os.fdopen(self._new.fd, "w", encoding="utf-8")

    def write(self, record: dict) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(record, default=str) + "\n")
        self._file.flush()
        self._put_in_place()

    def _put_in_place(self) -> None:
        if self._new is not None:
            new, self._new = self._new, None
            new.commit()

    def close(self) -> None:
        if self._file is not None:
            try:
                self._put_in_place()  # a log closed before its first record: empty, but there
            finally:
                self._file.close()
                self._file = None


@dataclass
class Log:
    """A log read back: its start, traces, notes and end (None: the run did not finish)."""

    path: str
    start: dict
    traces: list[dict] = field(default_factory=list)
    end: dict | None = None
    notes: list[str] = field(default_factory=list)  # the log's own notes, and damage skipped


def read_log(path: str) -> Log:
    """Read a log; a missing, empty, foreign, special or too big file raises one sentence
    (exit 2)."""
    try:
        lines = read_bounded(path, LOG).decode("utf-8", errors="replace").split("\n")
    except AgxError as exc:
        if exc.kind != "missing-file":
            raise
        raise _bad(f"no log at {path}; record one with `agexplorer record -o {path} "
                   "SCRIPT.py`.") from None
    complete, last = lines[:-1], lines[-1]  # a log ends with a newline: ``last`` is empty
    records: list[dict] = []
    notes: list[str] = []
    for number, line in enumerate(complete, start=1):
        record = _parse(line)
        if record is None:
            if not line.strip():
                continue
            if number == len(complete) and not last:
                notes.append(f"line {number} of the log is damaged and was skipped (the run "
                             "stopped while writing it).")
                continue
            raise _bad(f"{path} line {number} is not an agexplorer record log line; pass a "
                       "log written by `agexplorer record`.")
        records.append(record)
    if last.strip():
        if _parse(last) is None:
            notes.append(f"the log's last line ({len(complete) + 1}) was cut off when the run "
                         "stopped; it was skipped.")
        else:
            records.append(_parse(last) or {})
    if not records or records[0].get("type") != "start" or records[0].get("format") != FORMAT:
        raise _bad(f"{path} is not an agexplorer record log (no start record); pass a log "
                   "written by `agexplorer record`.")
    log = Log(path, records[0], notes=notes)
    for record in records[1:]:
        kind = record.get("type")
        if kind == "trace":
            log.traces.append(record)
        elif kind == "end":
            log.end = record
        elif kind == "note":
            log.notes.append(str(record.get("text", "")))
    if log.end is None:
        log.notes.append("the run did not finish writing its log (it crashed hard or was "
                         "killed): what it traced until then is below.")
    return log


def is_log(path: str) -> bool:
    """A path ending ``.agxlog``, or a file whose first line is a log's start record."""
    return path.endswith(".agxlog") or starts_as_log(path)


def starts_as_log(path: str) -> bool:
    """Whether ``path`` is a regular file whose first line is a log's start record (a bounded
    read of its head: never waits on a FIFO, never reads a device)."""
    try:
        head = read_bounded(path, LOG, head=_HEAD)
    except AgxError:
        return False
    record = _parse(head.decode("utf-8", errors="replace").split("\n", 1)[0])
    return record is not None and record.get("type") == "start" and record.get("format") == FORMAT


_HEAD = 1024 * 1024  # a start record holds the program's argv: it can be long


def _parse(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _bad(message: str) -> AgxError:
    return AgxError("bad-log", message, exit_code=2)
