"""Promise 5 (files): only regular files are read, and only up to 10 MB; anything else is one
sentence at once (a FIFO used to block forever, /dev/zero to be read until memory ran out)."""

import os
import socket
import subprocess
import sys
import threading

import pytest

from agexplorer.core.errors import AgxError
from agexplorer.core.sourcefile import MAX_SOURCE_BYTES, read_source_file
from agexplorer.core.targets import read_source
from conftest import ROOT


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
