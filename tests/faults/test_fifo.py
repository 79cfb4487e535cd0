"""Promise 5, every reader: a FIFO, a device or a file over its limit is refused at once.

`agexplorer FIFO.py` (the explorer), `summary FIFO`, `check --golden FIFO` and `record -o
FIFO` used to wait forever, and `summary /dev/zero` and `check --golden /dev/zero` to read
until memory ran out. Each reader now goes through source/files.py's bounded read: one
sentence, exit 2, at once. Each command runs in a fresh process under a timeout, so a
regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.runlog.log import LogWriter, is_log
from agexplorer.source.files import GOLDEN, LOG, read_bounded
from conftest import ROOT

SOURCE = "def g(x=1):\n    return x\n"


def agexplorer(*args: str) -> subprocess.CompletedProcess[str]:
    """``agexplorer ARGS`` in a fresh process; a hang raises TimeoutExpired (the test fails)."""
    return subprocess.run([sys.executable, "-m", "agexplorer", *args], capture_output=True,
                          text=True, timeout=30, cwd=ROOT, stdin=subprocess.DEVNULL)


@pytest.fixture
def fifos(tmp_path):
    """A source file, and FIFOs named as a source, a log and a golden file."""
    (tmp_path / "prog.py").write_text(SOURCE)
    for name in ("pipe.py", "pipe.agxlog", "pipe.json"):
        os.mkfifo(tmp_path / name)
    return tmp_path


def one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("agexplorer: ") and "Traceback" not in result.stderr
    return result.stderr.strip()


LOGS_ONLY = ("not a regular file; agexplorer reads logs only from regular files, so pass one "
             "written by `agexplorer record`.")
GOLDEN_ONLY = ("not a regular file; agexplorer reads golden files only from regular files, so "
               "pass a JSON file (check --update writes one).")


@pytest.mark.parametrize("name", ["pipe.agxlog", "pipe.py"])
def test_summary_of_a_fifo(fifos, name):
    err = one_sentence(agexplorer("summary", str(fifos / name)))
    assert err == f"agexplorer: {fifos / name} is a named pipe (FIFO), {LOGS_ONLY}"


def test_summary_of_dev_zero():
    err = one_sentence(agexplorer("summary", "/dev/zero"))
    assert err == f"agexplorer: /dev/zero is a device, {LOGS_ONLY}"


@pytest.mark.parametrize("golden", ["pipe.json", "/dev/zero"])
def test_check_with_a_fifo_or_a_device_as_the_golden_file(fifos, golden):
    path = fifos / golden
    what = "named pipe (FIFO)" if golden == "pipe.json" else "device"
    err = one_sentence(agexplorer("check", str(fifos / "prog.py"), "--golden", str(path)))
    assert err == f"agexplorer: {path} is a {what}, {GOLDEN_ONLY}"


def test_record_to_a_fifo(fifos):
    log = fifos / "pipe.agxlog"
    err = one_sentence(agexplorer("record", "-o", str(log), str(fifos / "prog.py")))
    assert err == (f"agexplorer: -o {log} is a named pipe (FIFO), not a regular file; name a "
                   "regular file (or a new one) for the output.")


@pytest.mark.parametrize("name", ["pipe.py", "pipe.py::g", "pipe.agxlog"])
def test_the_explorer_refuses_a_fifo_before_its_screen_starts(fifos, name):
    """Before, telling whether the file was a log opened the FIFO and waited: a blank
    screen, then agexplorer's traceback on Ctrl-C."""
    err = one_sentence(agexplorer(str(fifos / name)))
    assert f"{fifos / name.split('::')[0]} is a named pipe (FIFO), not a regular file" in err


def test_logs_and_golden_files_over_their_limits(tmp_path):
    """Sparse files: refused by their size, nothing read."""
    log, golden = tmp_path / "big.agxlog", tmp_path / "big.json"
    (tmp_path / "prog.py").write_text(SOURCE)
    for path, size in ((log, 101), (golden, 21)):
        with open(path, "wb") as handle:
            handle.truncate(size * 1024 * 1024)
    err = one_sentence(agexplorer("summary", str(log)))
    assert err == f"agexplorer: {log} is 101.0 MB; agexplorer reads logs up to 100 MB."
    err = one_sentence(agexplorer("check", str(tmp_path / "prog.py"), "--golden", str(golden)))
    assert err == f"agexplorer: {golden} is 21.0 MB; agexplorer reads golden files up to 20 MB."


# -- in-process: the readers below the commands ---------------------------------------------


def within(seconds: float, work):
    """``work()``'s result or the exception it raised; the test fails when it blocks (the
    thread is left behind, a daemon)."""
    box: list = []

    def run() -> None:
        try:
            box.append(work())
        except Exception as exc:  # noqa: BLE001 - handed to the test
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "it blocked"
    return box[0]


def test_telling_a_log_never_opens_a_fifo_blockingly(fifos):
    assert within(10, lambda: is_log(str(fifos / "pipe.py"))) is False
    assert within(10, lambda: is_log("/dev/zero")) is False


def test_a_log_writer_refuses_a_fifo(fifos):
    err = within(10, lambda: LogWriter(str(fifos / "pipe.agxlog")))
    assert isinstance(err, AgxError) and err.exit_code == 2
    assert "is a named pipe (FIFO), not a regular file" in err.message


@pytest.mark.parametrize("kind", [LOG, GOLDEN], ids=["log", "golden"])
def test_the_one_bounded_read_serves_every_kind(tmp_path, kind):
    """The same read as for sources (test_bounded_input.py), with the kind's limit."""
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bounded(str(path), kind) == b"x" * 10
    assert read_bounded(str(path), kind, head=3) == b"xxx"
    err = within(10, lambda: read_bounded("/dev/zero", kind, head=4096))
    assert isinstance(err, AgxError) and err.kind == "not-a-regular-file"
