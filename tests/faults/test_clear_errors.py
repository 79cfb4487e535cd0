"""Promise 7 (command line): the user's environment gets one sentence and exit 2, never
"agexplorer itself failed"; target checks that need no TensorFlow answer before a worker is
waited for; the worker is sent absolute paths.

Permission failures cannot happen for root (we run as root): they are injected in-process.
"""

import errno
import os
import subprocess
import sys

import pytest

from agexplorer import cli
from agexplorer.engine.load import resolve
from agexplorer.model.errors import AgxError
from agexplorer.source.targets import check_target, parse_source
from agexplorer.worker import client
from conftest import ROOT, sample

SIMPLE = "def f(x):\n    return x\n"


def many_functions(tmp_path, count: int):
    path = tmp_path / "many.py"
    path.write_text("".join(f"def f{i}(x):\n    return x\n\n\n" for i in range(count)))
    return path


@pytest.fixture
def no_worker(monkeypatch):
    """Fails the test if the command line asks for a TensorFlow worker."""
    def refuse(*args, **kwargs):
        raise AssertionError("a worker was asked for")

    monkeypatch.setattr(client, "shared_worker", refuse)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_unreadable_file_is_one_sentence_and_exit_2(tmp_path, monkeypatch, capsys, no_worker):
    """No read permission (injected: os.open raises PermissionError for this file)."""
    path = tmp_path / "secret.py"
    path.write_text(SIMPLE)
    real_open = os.open

    def denied(name, *args, **kwargs):
        if os.fspath(name) == str(path):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    for argv in (["list", str(path)], ["report", f"{path}::f"]):
        code, _, err = run(capsys, *argv)
        assert code == 2
        assert err == (f"agexplorer: {path} cannot be read (permission denied); give yourself "
                       "read permission (chmod u+r) or copy the file.\n")
    code, out, _ = run(capsys, "list", str(path), "--json")
    assert code == 2 and '"kind": "unreadable"' in out


def test_broken_pipe_on_stdout_is_quiet_and_exits_2(tmp_path):
    """`agexplorer list F --json | head -1`: a real pipe, closed after one line (the output,
    3,000 functions, is far larger than the pipe's buffer)."""
    path = many_functions(tmp_path, 3000)
    proc = subprocess.Popen([sys.executable, "-m", "agexplorer", "list", str(path), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout.readline() == b"{\n"
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 2
    assert stderr == b""


def small_log(tmp_path):
    path = tmp_path / "run.agxlog"
    path.write_text('{"type": "start", "format": "agexplorer-record/1", "argv": ["t.py"]}\n'
                    '{"type": "trace", "trace": 1, "file": "/p/t.py", "function": "f", '
                    '"line": 3, "user": true, "kind": "first", "trace_s": 0.5}\n')
    return path


@pytest.mark.parametrize("argv", [
    ["list", "{many}"], ["list", "{many}", "--json"], ["summary", "{log}"],
    ["summary", "{log}", "--json"], ["samples"],
    pytest.param(["report", sample("s6_2_bad_loop.py") + "::bad_loop", "--no-run"],
                 marks=pytest.mark.tf),  # rendered by rich, which exits 1 on a closed pipe
])
def test_a_pipe_closed_before_any_output_is_quiet_and_exits_2(tmp_path, argv):
    """`agexplorer report F::f | head -1` where head is gone before the first write: the
    reader's end of a real pipe is closed at once. A small output meets it only when the
    interpreter flushes stdout at exit (which used to say "Exception ignored", exit 120)."""
    names = {"many": many_functions(tmp_path, 3), "log": small_log(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "agexplorer",
                             *[word.format(**names) for word in argv]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=240) == 2
    assert stderr == b""


def test_an_unknown_name_in_a_big_file_shows_20_names(tmp_path, capsys, no_worker):
    path = many_functions(tmp_path, 5000)
    code, _, err = run(capsys, "report", f"{path}::nope")
    assert code == 2
    names = ", ".join(f"f{i}" for i in range(20))
    assert err == (f"agexplorer: {path} has no function 'nope'; available: {names} and 4980 "
                   f"more: agexplorer list {path}.\n")


def test_every_list_of_names_is_cut_at_20(tmp_path):
    """resolve (in the worker) and load_target's "name a function" list the same way."""
    from types import ModuleType

    from agexplorer.engine.load import load_target
    from agexplorer.source.targets import list_functions

    path = many_functions(tmp_path, 30)
    functions = list_functions(parse_source(str(path), path.read_text()))
    module = ModuleType("m")
    module.__file__ = str(path)
    with pytest.raises(AgxError) as err:
        resolve(module, "nope", functions)
    assert err.value.message.endswith(f"f19 and 10 more: agexplorer list {path}.")
    with pytest.raises(AgxError) as err:
        load_target(str(path))
    assert err.value.kind == "no-function"
    assert err.value.message.endswith(f"f19 and 10 more: agexplorer list {path}).")


@pytest.mark.parametrize("command", ["report", "retrace", "doctor", "tui"])
def test_static_target_errors_answer_before_a_worker(tmp_path, capsys, no_worker, monkeypatch,
                                                     command):
    """`file.py::` and a certainly unknown name: no worker is asked for (nor the TUI opened)."""
    from agexplorer.tui import app

    def no_tui(self, *args, **kwargs):
        raise AssertionError("the TUI was opened")

    monkeypatch.setattr(app.AgxApp, "run", no_tui)
    path = tmp_path / "m.py"
    path.write_text(SIMPLE)
    prefix = [] if command == "tui" else [command]
    code, _, err = run(capsys, *prefix, f"{path}::")
    assert code == 2
    assert err == (f"agexplorer: '{path}::' names no function after '::': write "
                   f"{path}::FUNCTION (available: f).\n")
    code, _, err = run(capsys, *prefix, f"{path}::nope")
    assert code == 2
    assert err == f"agexplorer: {path} has no function 'nope'; available: f.\n"


@pytest.mark.parametrize(("source", "name"), [
    ("import tensorflow as tf\n\ndef f(x):\n    return x\n\nf2 = tf.function(f)\n", "f2"),
    ("class Model:\n    def call(self, x):\n        return x\n", "Model.call"),
    ("class Model:\n    pass\n", "Model.later"),  # attributes may be set at run time
    ("def f(x):\n    return x\n\nglobals()['g'] = f\n", "g"),
    ("def f(x):\n    return x\n\nexec('g = f')\n", "g"),
    ("import sys\ndef f(x):\n    return x\n\nsetattr(sys.modules[__name__], 'g', f)\n", "g"),
    ("def f(x):\n    return x\n\nvars()['g'] = f\n", "g"),
    ("from os.path import *\n", "join"),
    ("def __getattr__(name):\n    return len\n", "g"),
    ("def make():\n    global g\n    g = len\n\nmake()\n", "g"),
    ("for g in [len]:\n    pass\n", "g"),
    ("with open(__file__) as g:\n    pass\n", "g"),
    ("import os.path\n", "os.path.join"),
    ("try:\n    pass\nexcept Exception as g:\n    pass\n", "g"),
    ("x: int = 1\ny = 0\ny += 1\n", "y"),
    ("def f():\n    pass\n", "__name__"),
    ("def outer():\n    def inner():\n        pass\n", "outer.inner"),  # on the path
    ("def outer():\n    pass\n\nouter.extra = len\n", "outer.extra"),
    ("import functools\n\n@functools.lru_cache\ndef outer():\n    pass\n", "outer.cache_info"),
    ("def outer():\n    pass\n\nouter = type('T', (), {'m': len})\n", "outer.m"),
    ("def outer():\n    pass\n", "outer.__wrapped__"),
])
def test_names_that_may_exist_at_run_time_are_left_to_the_worker(tmp_path, source, name):
    path = tmp_path / "m.py"
    check_target(f"{path}::{name}", parse_source(str(path), source))  # raises nothing


COMMANDS_WITH_A_TARGET = [
    ["report"], ["retrace"], ["doctor"], ["passes"], ["sweep"], ["curves"],
    ["compare", "{path}::f"], [],
]


@pytest.mark.parametrize("command", COMMANDS_WITH_A_TARGET)
def test_an_attribute_no_plain_function_has_answers_before_a_worker(tmp_path, capsys, no_worker,
                                                              monkeypatch, command):
    """`::outer.inner` where outer is a plain def and nothing defines inner: a function
    object has no such attribute, so no worker is waited for (nor the explorer opened)."""
    from agexplorer.tui import app

    monkeypatch.setattr(app.AgxApp, "run", lambda *a, **k: pytest.fail("the TUI was opened"))
    path = tmp_path / "m.py"
    path.write_text(SIMPLE)
    prefix = [word.format(path=path) for word in command]
    code, _, err = run(capsys, *prefix, f"{path}::f.inner")
    assert code == 2
    assert err == f"agexplorer: {path} has no function 'f.inner'; available: f.\n"


@pytest.mark.parametrize(("argv", "option"), [
    (["report", "{path}::f", "--call"], "--call"),
    (["report", "{path}::f", "--markdown", "--call"], "--call"),
    (["doctor", "{path}::f", "--call"], "--call"),
    (["retrace", "{path}::f", "--call", "1", "--call"], "--call"),
    (["compare", "{path}::f", "{path}::f", "--call"], "--call"),
    (["compare", "{path}::f", "{path}::f", "--call-right"], "--call-right"),
    (["sweep", "{path}::f", "--call"], "--call"),
    (["curves", "{path}::f", "--call"], "--call"),
    (["check", "{path}::f", "--call"], "--call"),
])
def test_a_call_that_is_not_python_answers_before_a_worker(tmp_path, capsys, no_worker, argv,
                                                           option):
    path = tmp_path / "m.py"
    path.write_text(SIMPLE)
    code, _, err = run(capsys, *[word.format(path=path) for word in argv], "tf.constant(1")
    assert code == 2
    assert err == (f'agexplorer: {option} "tf.constant(1" is not a valid Python argument list '
                   "('(' was never closed); write it as inside f(...), e.g. "
                   '--call "tf.constant([1, 2]), n=3".\n')


def test_infinite_recursion_is_collapsed_as_python_does():
    """AutoGraph lists every user frame of a RecursionError (hundreds of the same line):
    three are shown, then "[Previous line repeated N more times]", as Python's traceback."""
    from agexplorer.model.errors import user_code_error

    path = "/p/rec.py"
    frame = f'    File "{path}", line 5, in down  *\n        return down(n + 1)\n'
    text = (f'in user code:\n\n    File "{path}", line 10, in f  *\n        return down(x)\n'
            + frame * 990 + "\n    RecursionError: maximum recursion depth exceeded\n")
    error = user_code_error(RecursionError(text), path, "tracing f")
    down = f'File "{path}", line 5, in down'
    assert error.details == [f'File "{path}", line 10, in f', down, down, down,
                             "[Previous line repeated 987 more times]"]
    assert error.message == (f"{path}:5: tracing f raised RecursionError: maximum recursion "
                             "depth exceeded")
    once_more = user_code_error(RecursionError(text.replace(frame * 990, frame * 4)), path, "x")
    assert once_more.details[-1] == "[Previous line repeated 1 more time]"


def test_the_cli_sends_the_worker_absolute_paths(tmp_path, monkeypatch, capsys):
    """A relative PATH::FUNC reaches the worker absolute (a function that os.chdir's, or a
    worker started elsewhere, cannot break it)."""
    sent = []

    class Recorder:
        def request(self, req, **kwargs):
            sent.append(req.target)
            raise AgxError("stop", "recorded.")

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: Recorder())
    (tmp_path / "rel.py").write_text(SIMPLE)
    monkeypatch.chdir(tmp_path)
    for argv in (["report", "rel.py::f"], ["retrace", "rel.py::f"], ["doctor", "rel.py::f"],
                 ["doctor", "rel.py::f", "--try", "AGX004"], ["doctor", "rel.py"]):
        run(capsys, *argv)
    assert sent == [f"{tmp_path}/rel.py::f"] * 5


@pytest.mark.tf
def test_an_immutable_file_on_apply_is_one_sentence_and_exit_2(worker, tmp_path, monkeypatch,
                                                                capsys):
    """chattr +i: the rename over the file fails with EPERM (injected in-process)."""
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    path = tmp_path / "loops.py"
    path.write_bytes(open(sample("s6_2_bad_loop.py"), "rb").read())
    original = path.read_bytes()

    def immutable(a, b):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(os, "replace", immutable)
    code, _, err = run(capsys, "doctor", f"{path}::range_loop", "--try", "AGX004", "--apply",
                       "--budget", "0.05")
    assert code == 2
    assert err == (f"agexplorer: could not replace {path}: Operation not permitted (the file or "
                   "its folder may be immutable: see lsattr); the file is unchanged.\n")
    assert path.read_bytes() == original


@pytest.mark.tf
def test_a_function_that_changes_folder_does_not_break_a_relative_report(worker, tmp_path,
                                                                          monkeypatch, capsys):
    """The worker gets an absolute path, so user code that os.chdir's while tracing cannot make
    the file unfindable afterwards."""
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    (tmp_path / "wander.py").write_text(
        "import os\nimport tensorflow as tf\n\n\n@tf.function\ndef f():\n"
        "    os.chdir('/')\n    for i in range(2):\n        pass\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "report", "wander.py::f", "--no-run", "--json")
    assert code == 0, err
    assert '"line": 8' in out
