"""Promise 9: no output overwrites an input or a file of another kind.

`record -o prog.py prog.py` used to truncate the script to the log and run the log's first
line; `summary LOG --markdown -o LOG`, `report src.py --html -o src.py` and `--svg src.py`
replaced what they read. Every output option now refuses one of its command's inputs (by
path, through a symlink, through a hard link) and a file of another kind, in one sentence,
before any work; the files are left byte for byte as they were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types

import pytest

from agexplorer import cli
from agexplorer.model.check import FORMAT as GOLDEN_FORMAT
from agexplorer.runlog.log import FORMAT, LogWriter
from agexplorer.worker import client
from conftest import ROOT

SOURCE = b"def g(x):\n    return x\n"
LOG = (json.dumps({"type": "start", "format": FORMAT, "argv": ["prog.py"]}) + "\n"
       + json.dumps({"type": "end", "exit_code": 0, "wall_s": 0.1}) + "\n").encode()


@pytest.fixture
def no_work(monkeypatch):
    """Fails the test if a command gets past its output checks: a worker asked for, the
    recorded program run, the explorer opened for a picture."""
    def refuse(*args, **kwargs):
        pytest.fail("the command went to work")  # a BaseException: main cannot catch it

    from agexplorer.cli import record, svg
    from agexplorer.record import runner

    monkeypatch.setattr(client, "shared_worker", refuse)
    monkeypatch.setattr(runner, "run_program", refuse)
    monkeypatch.setattr(record, "_record_under", refuse)
    monkeypatch.setattr(svg, "_screenshot", refuse)


@pytest.fixture
def files(tmp_path):
    """prog.py and run.agxlog, each with a symlink and a hard link to it."""
    (tmp_path / "prog.py").write_bytes(SOURCE)
    (tmp_path / "run.agxlog").write_bytes(LOG)
    for name in ("prog.py", "run.agxlog"):
        (tmp_path / f"sym-{name}").symlink_to(tmp_path / name)
        os.link(tmp_path / name, tmp_path / f"hard-{name}")
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def unchanged(folder) -> None:
    assert (folder / "prog.py").read_bytes() == SOURCE
    assert (folder / "run.agxlog").read_bytes() == LOG
    assert not [n for n in os.listdir(folder) if n.endswith(".agx-tmp")]


# Each command with an output: (argv with {out} for the output, its input, the option).
COMMANDS = {
    "record": (["record", "-o", "{out}", "{dir}/prog.py"], "prog.py", "-o"),
    "summary": (["summary", "{dir}/run.agxlog", "--markdown", "-o", "{out}"], "run.agxlog", "-o"),
    "report-html": (["report", "{dir}/prog.py", "--html", "-o", "{out}"], "prog.py", "-o"),
    "report-svg": (["report", "{dir}/prog.py::g", "--svg", "{out}"], "prog.py", "--svg"),
    "check-golden": (["check", "{dir}/prog.py", "--golden", "{out}", "--update"], "prog.py",
                     "--golden"),
}


@pytest.mark.parametrize("via", ["", "sym-", "hard-"], ids=["same-path", "symlink", "hard-link"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_output_that_is_an_input_is_refused_before_any_work(files, capsys, no_work,
                                                               command, via):
    argv, name, option = COMMANDS[command]
    out = str(files / f"{via}{name}")
    code, stdout, err = run(capsys, *[a.format(out=out, dir=files) for a in argv])
    assert code == 2 and stdout == ""
    assert err.startswith(f"agexplorer: {option} {out} would overwrite the input ")
    assert err.endswith(f"{name}{' (the same file, through a link)' if via else ''}; "
                        "name another file for the output.\n")
    assert err.count("\n") == 1
    unchanged(files)


def test_record_refuses_an_existing_file_that_is_not_a_log(files, capsys, no_work):
    notes = files / "notes.txt"
    notes.write_text("my notes\n")
    code, _, err = run(capsys, "record", "-o", str(notes), str(files / "prog.py"))
    assert code == 2
    assert err == (f"agexplorer: -o {notes} exists and is not an agexplorer record log; record "
                   "never overwrites another file, so name a new file or an older log.\n")
    assert notes.read_text() == "my notes\n"
    unchanged(files)


def test_record_refuses_a_default_log_path_that_holds_something_else(files, capsys, no_work,
                                                                     monkeypatch):
    """No -o: the log is PROG.agxlog in the current folder, and the same rule holds."""
    monkeypatch.chdir(files)
    (files / "prog.agxlog").write_text("not a log\n")
    code, _, err = run(capsys, "record", "prog.py")
    assert code == 2
    assert f"the log {files / 'prog.agxlog'} exists and is not an agexplorer record log" in err
    assert (files / "prog.agxlog").read_text() == "not a log\n"


@pytest.mark.parametrize("command", ["summary", "report-html", "report-svg", "check-golden"])
def test_a_page_never_overwrites_a_python_file_it_did_not_read(files, capsys, no_work, command):
    """Another kind of file: a Python file (here not an input) or a recorded log."""
    other = files / "helpers.py"
    other.write_bytes(SOURCE)
    argv, _, option = COMMANDS[command]
    code, _, err = run(capsys, *[a.format(out=other, dir=files) for a in argv])
    assert code == 2
    assert f"agexplorer: {option} {other} is a Python file, not " in err
    assert err.endswith("agexplorer never overwrites another kind of file, so name a new file "
                        "for the output.\n")
    assert other.read_bytes() == SOURCE
    unchanged(files)


def test_an_svg_never_overwrites_a_recorded_log(files, capsys, no_work):
    out = files / "slide.svg"
    out.write_bytes(LOG)  # a log, whatever its name
    code, _, err = run(capsys, "report", f"{files}/prog.py::g", "--svg", str(out))
    assert code == 2 and "is an agexplorer record log, not an SVG" in err
    assert out.read_bytes() == LOG


def test_a_new_log_replaces_an_older_one_whole(tmp_path):
    """The log is written beside and renamed over the old one: a hard link to the older log
    keeps its bytes (before, the old file was truncated in place)."""
    log, kept = tmp_path / "run.agxlog", tmp_path / "kept.agxlog"
    log.write_bytes(LOG)
    os.link(log, kept)
    writer = LogWriter(str(log))
    writer.write({"type": "start", "format": FORMAT, "argv": ["new.py"]})
    writer.close()
    assert kept.read_bytes() == LOG
    assert json.loads(log.read_text())["argv"] == ["new.py"]
    assert sorted(os.listdir(tmp_path)) == ["kept.agxlog", "run.agxlog"]


# -- check --update: the way out that its message advises ----------------------------------


@pytest.fixture
def broken_target(tmp_path, monkeypatch):
    """A file that does not parse: a failed target, recorded without a worker's answer (the
    worker is a stand-in that is never asked)."""
    path = tmp_path / "broken.py"
    path.write_text("def f(:\n")
    monkeypatch.setattr(client, "shared_worker",
                        lambda *a, **k: types.SimpleNamespace(tf_version="2.x", keras_version="3.x",
                                                              keras_flavour="keras-3",
                                                              tf_warnings=()))
    return path


@pytest.mark.parametrize("damage", ['{"format": 1, "targets": [', "",
                                    '{"format": 1, "targets": [{"file": 3}]}'],
                         ids=["cut-off", "empty", "malformed-target"])
def test_check_update_repairs_a_damaged_golden_file(broken_target, tmp_path, capsys, damage):
    golden = tmp_path / "golden.json"
    golden.write_text(damage)
    code, _, err = run(capsys, "check", str(broken_target), "--golden", str(golden))
    assert code == 2 and "--update" in err  # the advice ...
    code, out, err = run(capsys, "check", str(broken_target), "--golden", str(golden), "--update")
    assert code == 0, err  # ... which now works
    assert "--update writes it anew from this run" in err and "wrote " in out
    written = json.loads(golden.read_text())
    assert written["format"] == GOLDEN_FORMAT
    assert [t["function"] for t in written["targets"]] == ["<file>"]


def test_check_update_never_overwrites_json_of_another_kind(broken_target, tmp_path, capsys):
    package = tmp_path / "package.json"
    package.write_text('{"name": "web"}\n')
    code, _, err = run(capsys, "check", str(broken_target), "--golden", str(package), "--update")
    assert code == 2
    assert err == (f"agexplorer: --golden {package} holds JSON that is not a golden file; "
                   "--update never overwrites another kind of file, so name a new file for "
                   "the golden file.\n")
    assert package.read_text() == '{"name": "web"}\n'


@pytest.mark.parametrize("update", [False, True], ids=["check", "update"])
def test_a_folder_as_the_golden_file_is_one_sentence(broken_target, tmp_path, capsys, update):
    folder = tmp_path / "goldens"
    folder.mkdir()
    code, out, err = run(capsys, "check", str(broken_target), "--golden", str(folder),
                         *(["--update"] if update else []))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err == (f"agexplorer: --golden {folder} is a folder, not a regular file; name a "
                   "regular file (or a new one) for the output.\n" if update else
                   f"agexplorer: {folder} is a folder, not a golden file; pass a JSON file, "
                   "e.g. agexplorer.golden.json inside it.\n")
    assert os.listdir(folder) == []


# -- record: the log path is fixed before the program runs ---------------------------------

CHDIR = b"""import os
import sys

import tensorflow as tf


@tf.function
def double(x):
    return x * 2


double(tf.constant(1.0))
os.chdir(sys.argv[1])
double(tf.constant([1.0, 2.0]))
"""


@pytest.mark.tf
def test_record_keeps_its_summary_when_the_program_changes_folder(tmp_path):
    """A relative -o: the log is where -o said from the folder record started in, and the
    summary at exit reads it there (before, it looked in the program's new folder)."""
    (tmp_path / "prog.py").write_bytes(CHDIR)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([sys.executable, "-m", "agexplorer", "record", "-o", "run.agxlog",
                             "prog.py", str(elsewhere)], capture_output=True, text=True,
                            timeout=240, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=ROOT))
    assert result.returncode == 0, result.stderr
    assert "double (prog.py:" in result.stderr and "no log at" not in result.stderr
    lines = (tmp_path / "run.agxlog").read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["start", "trace", "trace", "end"]
    assert os.listdir(elsewhere) == []
