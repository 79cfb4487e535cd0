"""Promise 5 (output and timeouts): what user code prints is capped, --timeout bounds it all."""

import os
import re
import socket
import struct
import sys
import time

import pytest

from agexplorer.core.capture import KEEP, BoundedText, capture_output
from agexplorer.core.errors import AgxError
from agexplorer.worker import wire
from conftest import fixture

HOSTILE = fixture("hostile.py")
DROPPED = re.compile(r"\n\[… (\d+\.\d) MB dropped …\]\n")


def test_fifty_mb_of_prints_keep_the_first_and_last_part():
    line = "x" * 999 + "\n"
    with capture_output() as captured:
        print("first line")
        for _ in range(50_000):  # 50 MB
            sys.stdout.write(line)
        print("last line")
    text = captured.stdout
    assert len(text) <= 70_000
    assert text.startswith("first line\n" + line)
    assert text.endswith(line + "last line\n")
    (dropped,) = DROPPED.findall(text)
    assert float(dropped) == pytest.approx(50.0 - 2 * KEEP / 1e6, abs=0.1)


def test_c_level_writes_are_capped_too():
    with capture_output() as captured:
        for _ in range(200):  # 20 MB to each descriptor, through the pipes' reader threads
            os.write(1, b"o" * 99_999 + b"\n")
            os.write(2, b"e" * 99_999 + b"\n")
        os.write(1, "the end: é\n".encode())
    assert len(captured.stdout) <= 70_000 and captured.stdout.endswith("the end: é\n")
    assert len(captured.log) <= 70_000 and "MB dropped" in captured.log


def test_a_short_stream_is_kept_whole():
    sink = BoundedText(keep=10)
    for piece in ("0123", "4567", "89"):
        sink.write(piece)
    assert sink.getvalue() == "0123456789"
    sink.write("abcdefghijklmnopqrst" + "UVWXYZ")
    assert sink.getvalue() == "0123456789\n[… 16 characters dropped …]\nqrstUVWXYZ"


def test_an_answer_still_arriving_at_the_deadline_times_out():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(struct.pack("!Q", 1000) + b"only part of it")  # the rest never comes
        with pytest.raises(TimeoutError):
            wire.receive(ours, time.monotonic() + 0.2)


@pytest.mark.tf
def test_a_worker_returns_a_bounded_report_of_a_noisy_function(worker):
    answer = worker.request("report", {"target": f"{HOSTILE}::noisy", "call": "5",
                                       "no_run": True}, path=HOSTILE)
    report = answer["report"]
    assert report.error is None
    # Python's prints, then what reached fd 1: each capped, each with its "dropped" line
    assert len(report.output) <= 140_000 and len(DROPPED.findall(report.output)) == 2
    assert "the end\n" in report.output and report.output.startswith("x" * 1000)
    assert len(report.log) <= 70_000 and "MB dropped" in report.log


@pytest.mark.tf
def test_a_timeout_while_evaluating_the_call_names_that_phase_and_the_callers_hint(worker):
    worker.timeout_hint = "raise the timeout in the Run tab"  # e.g. the TUI's own way
    with pytest.raises(AgxError) as err:
        worker.request("report", {"target": f"{HOSTILE}::square", "call": "10**10**8",
                                  "no_run": True}, timeout=3, path=HOSTILE)
    assert err.value.kind == "timeout"
    assert err.value.message.startswith(
        "timed out after 3 s while evaluating the call arguments (--call);")
    assert err.value.message.endswith("restarted (raise the timeout in the Run tab).")
