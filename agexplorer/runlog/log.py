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

FORMAT = "agexplorer-record/1"


class LogWriter:
    """Appends records to a log; each is flushed at once so a crash loses none."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        try:
            self._file: TextIO | None = open(self.path, "w", encoding="utf-8")
        except OSError as exc:
            raise AgxError("bad-argument", f"cannot write the log {path} ({exc.strerror}); "
                           "pass -o with a path in a folder you can write to.",
                           exit_code=2) from None

    def write(self, record: dict) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(record, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
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
    """Read a log; a missing, empty or foreign file raises one sentence (exit 2)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().split("\n")
    except FileNotFoundError:
        raise _bad(f"no log at {path}; record one with `agexplorer record -o {path} "
                   "SCRIPT.py`.") from None
    except (IsADirectoryError, PermissionError, OSError) as exc:
        raise _bad(f"cannot read the log {path} ({exc.strerror or exc}).") from None
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
    if path.endswith(".agxlog"):
        return True
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(4096)
    except OSError:
        return False
    record = _parse(first)
    return record is not None and record.get("type") == "start" and record.get("format") == FORMAT


def _parse(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _bad(message: str) -> AgxError:
    return AgxError("bad-log", message, exit_code=2)
