"""Promise 5: hostile input is bounded. Only regular files are read, and only up to 10 MB
(a FIFO used to block forever, /dev/zero to be read until memory ran out); what user code
prints is capped; --timeout bounds the whole request."""

import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from agexplorer.engine.capture import KEEP, BoundedText, capture_output
from agexplorer.model.errors import AgxError
from agexplorer.source.files import MAX_SOURCE_BYTES, read_source_file
from agexplorer.source.targets import read_source
from agexplorer.worker import wire
from agexplorer.worker.protocol import ReportRequest
from conftest import ROOT, fixture


def refusal(path: str) -> AgxError:
    """The AgxError reading ``path`` raises; a read that blocks fails the test instead of
    hanging it (the thread is left behind, a daemon)."""
    box: list[BaseException] = []

    def read() -> None:
        try:
            read_source_file(path)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box.append(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), f"reading {path} blocked"
    assert box and isinstance(box[0], AgxError), box
    return box[0]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    err = refusal(str(fifo))
    assert err.kind == "not-a-regular-file" and err.exit_code == 2
    assert err.message == (f"{fifo} is a named pipe (FIFO), not a regular file; agexplorer "
                           "reads only regular .py files, so name one.")


def test_a_device_is_refused_without_reading_it():
    err = refusal("/dev/zero")
    assert err.kind == "not-a-regular-file" and "/dev/zero is a device" in err.message


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.py"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        err = refusal(str(path))
    assert err.kind == "not-a-regular-file" and "is a socket" in err.message


def test_a_folder_keeps_its_kind(tmp_path):
    err = refusal(str(tmp_path))
    assert err.kind == "not-python" and "is a folder" in err.message


def test_a_file_over_10_mb_is_refused(tmp_path):
    path = tmp_path / "big.py"
    path.write_bytes(b"x = 1\n" * (11 * 1024 * 1024 // 6))
    err = refusal(str(path))
    assert err.kind == "too-big"
    assert err.message == f"{path} is 11.0 MB; agexplorer reads source files up to 10 MB."


def test_a_file_of_exactly_the_limit_is_read(tmp_path):
    path = tmp_path / "edge.py"
    path.write_bytes(b"#" * (MAX_SOURCE_BYTES - 1) + b"\n")
    assert len(read_source(str(path))) == MAX_SOURCE_BYTES


def test_a_file_that_grows_after_the_check_is_still_bounded(tmp_path, monkeypatch):
    """fstat says small, the read finds more (a file being appended to): the read stops."""
    path = tmp_path / "growing.py"
    path.write_bytes(b"#" * (MAX_SOURCE_BYTES + 10))
    real_fstat = os.fstat

    class Small:
        def __init__(self, st):
            self._st = st

        def __getattr__(self, name):
            return 100 if name == "st_size" else getattr(self._st, name)

    calls = []

    def fstat(fd):
        calls.append(fd)
        return Small(real_fstat(fd)) if len(calls) == 1 else real_fstat(fd)

    monkeypatch.setattr(os, "fstat", fstat)
    with pytest.raises(AgxError) as err:
        read_source_file(str(path))
    assert err.value.kind == "too-big"


@pytest.mark.parametrize("name", ["missing.py", "sub/missing.py"])
def test_a_missing_file_keeps_its_kind(tmp_path, name):
    err = refusal(str(tmp_path / name))
    assert err.kind == "missing-file" and "no such file" in err.message


def test_report_on_a_fifo_exits_2_at_once(tmp_path):
    """End to end: `agexplorer report FIFO::f` in a fresh process says why and exits 2
    (the 20 s limit is a hang guard: before, it blocked forever)."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    result = subprocess.run([sys.executable, "-m", "agexplorer", "report", f"{fifo}::f"],
                            capture_output=True, text=True, timeout=20, cwd=ROOT)
    assert result.returncode == 2
    assert result.stderr == (f"agexplorer: {fifo} is a named pipe (FIFO), not a regular file; "
                             "agexplorer reads only regular .py files, so name one.\n")


# -- what user code prints, and the timeout -------------------------------------------

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


def test_every_line_is_counted_though_few_are_kept():
    # Python's and native stdout counted as one, native stderr apart with TensorFlow's own
    # log lines left out; a line split across writes is one line, told by its start.
    with capture_output(tally=True) as captured:
        for _ in range(50_000):
            sys.stdout.write("step " + "x" * 995 + "\n")
        os.write(1, b"native one\nnative")
        os.write(1, b" two\n")
        os.write(2, b"W0000 00:00:1796584227.839756   23756 cuda_platform.cc:52] no GPU\n"
                    b"2026-12-06 19:00:00.123456: I tensorflow/core/x.cc:1] old format\n"
                    b"\nloss 0.5\nloss 0.5\nlast without newline")
    assert captured.printed is not None and captured.native_err is not None
    assert captured.printed.lines == 50_002
    assert captured.printed.counts.most_common(3) == [
        ("step " + "x" * 195, 50_000), ("native one", 1), ("native two", 1)]
    assert captured.native_err.lines == 3
    assert captured.native_err.counts == {"loss 0.5": 2, "last without newline": 1}


def test_a_tally_tells_apart_a_bounded_number_of_lines():
    from agexplorer.engine.capture import LineTally

    tally = LineTally()
    for i in range(1000):
        tally.feed(f"step {i}\n")
    tally.feed("y" * 10_000_000)  # one line with no end: only its start is held
    tally.close()
    assert tally.lines == 1001 and len(tally.counts) == LineTally.DISTINCT
    assert sum(tally.counts.values()) == LineTally.DISTINCT


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
    answer = worker.request(ReportRequest(f"{HOSTILE}::noisy", call="5", no_run=True),
                            path=HOSTILE)
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
        worker.request(ReportRequest(f"{HOSTILE}::square", call="10**10**8", no_run=True),
                       timeout=3, path=HOSTILE)
    assert err.value.kind == "timeout"
    assert err.value.message.startswith(
        "timed out after 3 s while evaluating the call arguments (--call);")
    assert err.value.message.endswith("restarted (raise the timeout in the Run tab).")
