"""--python, AGX_PYTHON and VIRTUAL_ENV: the worker under another interpreter, or one sentence."""

from __future__ import annotations

import json
import os
import pickle
import site
import subprocess
import sys
from pathlib import Path

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.model.support import TESTED
from agexplorer.worker import interpreter, wire
from agexplorer.worker.protocol import ReportRequest

ROOT = Path(__file__).resolve().parents[2]
TARGET = f"{ROOT / 'samples' / 's4_4_autograph.py'}::dynamic_loop"
PY39 = "/root/.pyenv/versions/3.9.18/bin/python"
WANTED = f"Python 3.10 or newer with TensorFlow {TESTED}"


def agx(*argv: str, env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 240) -> subprocess.CompletedProcess:
    """The command line in a process of its own (its worker choice is made once per process)."""
    base = {k: v for k, v in os.environ.items() if k not in ("AGX_PYTHON", "VIRTUAL_ENV")}
    return subprocess.run([sys.executable, "-m", "agexplorer", *argv], capture_output=True,
                          text=True, env={**base, **(env or {})}, cwd=cwd or ROOT,
                          timeout=timeout, check=False)


def one_sentence(done: subprocess.CompletedProcess) -> str:
    """The only line on stderr, after checking it is one line and no traceback."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agexplorer: ") and lines[0].endswith(".")
    return lines[0]


def make_venv(folder: Path) -> Path:
    """A virtual environment without pip and without the system's site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True,
                   timeout=120)
    return folder


def site_packages(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory) -> Path:
    return make_venv(tmp_path_factory.mktemp("bare") / "venv")


@pytest.fixture(scope="module")
def old_tf_venv(tmp_path_factory) -> Path:
    """A venv whose metadata says TensorFlow 2.12.0: the probe reads metadata only."""
    venv = make_venv(tmp_path_factory.mktemp("old") / "venv")
    info = site_packages(venv) / "tensorflow-2.12.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.12.0\n")
    return venv


@pytest.fixture(scope="module")
def tf_venv(tmp_path_factory) -> Path:
    """A venv that imports this interpreter's TensorFlow (base.pth) but not agexplorer: the
    editable install's own .pth is not processed in a folder a .pth file adds."""
    venv = make_venv(tmp_path_factory.mktemp("tf") / "venv")
    (site_packages(venv) / "base.pth").write_text(site.getsitepackages()[0] + "\n")
    # A worker (it alone has AGX_WORKER_TMPDIR) started by this venv's python leaves a mark.
    (site_packages(venv) / "mark.pth").write_text(
        "import os; m = os.environ.get('AGX_TEST_MARK'); "
        "m and os.environ.get('AGX_WORKER_TMPDIR') and open(m, 'a').write('worker\\n')\n")
    return venv


def test_a_missing_interpreter_is_one_sentence():
    line = one_sentence(agx("report", "--python", "/no/such/python", TARGET, "--no-run"))
    assert line == (f"agexplorer: --python /no/such/python: no such file; pass the path of a "
                    f"Python interpreter, {WANTED}.")


def test_a_program_that_is_not_python_is_one_sentence():
    line = one_sentence(agx("devices", "--python", "/bin/true"))
    assert line.startswith("agexplorer: --python /bin/true did not answer as a Python "
                           "interpreter does")


def test_the_explorer_refuses_a_bad_interpreter_before_it_opens():
    line = one_sentence(agx("--python", "/no/such/python", TARGET))
    assert "--python /no/such/python: no such file" in line


@pytest.mark.skipif(not os.path.exists(PY39), reason="no Python 3.9 on this machine")
def test_a_python_older_than_3_10_is_refused_naming_its_version():
    line = one_sentence(agx("retrace", "--python", PY39, TARGET))
    assert line == (f"agexplorer: --python {PY39} is Python 3.9.18; agexplorer's worker needs "
                    f"C{WANTED}: pass another interpreter.")


def test_an_interpreter_without_tensorflow_is_told_what_to_install(bare_venv):
    python = bare_venv / "bin" / "python"
    line = one_sentence(agx("doctor", "--python", str(python), TARGET))
    assert line.startswith(f"agexplorer: --python {python} has no TensorFlow (it is Python "
                           f"{sys.version_info[0]}.{sys.version_info[1]}.")
    assert f"install TensorFlow {TESTED} there (`{python} -m pip install 'tensorflow>=" in line


def test_a_tensorflow_outside_the_range_is_named(old_tf_venv):
    python = old_tf_venv / "bin" / "python"
    line = one_sentence(agx("devices", "--json", "--python", str(python)))
    assert line.startswith(f"agexplorer: --python {python} has TensorFlow 2.12.0 (tensorflow); "
                           f"agexplorer supports TensorFlow {TESTED}: install one of those")


def test_the_active_virtual_environment_is_chosen(bare_venv):
    line = one_sentence(agx("devices", env={"VIRTUAL_ENV": str(bare_venv)}))
    assert line.startswith("agexplorer: the active virtual environment's "
                           f"{bare_venv / 'bin' / 'python'} has no TensorFlow")


def test_the_choice_follows_the_flag_then_agx_python_then_another_venv(tmp_path):
    ours = {"VIRTUAL_ENV": sys.prefix}  # agexplorer's own venv (CI): changes nothing
    assert interpreter.choose(None, ours) is None
    assert interpreter.choose(None, {}) is None
    venv = {"VIRTUAL_ENV": str(tmp_path)}
    assert interpreter.choose(None, venv) == (str(tmp_path / "bin" / "python"), "VIRTUAL_ENV")
    assert interpreter.choose(None, {**venv, "AGX_PYTHON": "/a/python"}) == ("/a/python",
                                                                            "AGX_PYTHON")
    assert interpreter.choose("/b/python", {**venv, "AGX_PYTHON": "/a/python"}) == (
        "/b/python", "--python")
    assert interpreter.resolve(sys.executable, {}) is None  # ours: no probe, no PYTHONPATH


def test_a_tensorflow_that_does_not_import_is_one_sentence_with_its_error(tmp_path):
    """Metadata says 2.21.0 (the probe passes) but there is no package: the worker dies
    starting, and the sentence names the interpreter and the error, not our traceback."""
    venv = make_venv(tmp_path / "venv")
    info = site_packages(venv) / "tensorflow-2.21.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.21.0\n")
    python = venv / "bin" / "python"
    done = agx("report", "--python", str(python), TARGET, "--no-run", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"agexplorer: the TensorFlow worker under --python {python} exited with status 1 while "
        "starting (ModuleNotFoundError: No module named 'tensorflow'); check that "
        f"`{python} -c \"import tensorflow\"` works (the end of its log follows).",
        "  ModuleNotFoundError: No module named 'tensorflow'"]


@pytest.mark.tf
def test_a_report_under_another_interpreter_equals_ours(tf_venv, worker, tmp_path):
    python = tf_venv / "bin" / "python"
    # Outside the checkout (whose folder `python -c` would put first on the path), and
    # without the suite's PYTHONPATH (conftest), which names it.
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    plain = subprocess.run([str(python), "-c", "import agexplorer"], cwd=tmp_path,
                           capture_output=True, text=True, check=False, env=alone)
    assert plain.returncode == 1 and "No module named 'agexplorer'" in plain.stderr
    mark = tmp_path / "mark"
    done = agx("report", "--python", str(python), TARGET, "--no-run", "--json", cwd=tmp_path,
               env={"AGX_TEST_MARK": str(mark)})
    assert done.returncode == 0, done.stderr
    # (venv's lib64 -> lib link has site read each .pth file twice)
    assert set(mark.read_text().split()) == {"worker"}  # the worker ran there
    theirs = json.loads(done.stdout)["statements"]
    ours = worker.request(ReportRequest(TARGET, no_run=True))["report"]
    assert theirs and theirs == json.loads(json.dumps(ours.to_dict()))["statements"]


@pytest.mark.tf
def test_agx_python_runs_the_worker_there_and_devices_says_so(tf_venv, tmp_path):
    python = tf_venv / "bin" / "python"
    done = agx("devices", "--json", env={"AGX_PYTHON": str(python)}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["python"] == {"executable": str(python),
                                "version": ".".join(map(str, sys.version_info[:3]))}
    from importlib import metadata

    assert answer["tensorflow"] == metadata.version("tensorflow")
    from agexplorer.worker.keras_in_use import keras_in_use

    assert answer["keras"] == dict(zip(("version", "flavour"), keras_in_use(), strict=True))
    assert answer["warnings"] == []  # this TensorFlow moved no private name
    assert any(d["type"] == "CPU" for d in answer["devices"])


OTHER_PYTHONS = [p for p in (f"/root/.pyenv/versions/{v}/bin/python"
                             for v in ("3.10.13", "3.12.1", "3.13.0")) if os.path.exists(p)]
# Run by another Python: agexplorer's worker side compiles there, and the wire's messages
# cross between its pickles and ours in both directions.
ACROSS = """
import os, pickle, sys
import agexplorer
from agexplorer.worker.protocol import Hello
root = agexplorer.__path__[0]
for part in ("model", "source", "engine", "lab", "retrace", "doctor", "worker"):
    for folder, _, names in os.walk(os.path.join(root, part)):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    compile(handle.read(), path, "exec")
request, error = pickle.loads(sys.stdin.buffer.read())
hello = Hello(version=1, pid=7, import_s=0.5, python=sys.version.split()[0],
              executable=sys.executable, tensorflow=request.target)
sys.stdout.buffer.write(pickle.dumps((hello, error.message), protocol=pickle.HIGHEST_PROTOCOL))
"""


@pytest.mark.parametrize("python", OTHER_PYTHONS)
def test_the_worker_code_and_its_messages_work_under_other_python_versions(python, tmp_path):
    sent = wire.dumps((ReportRequest("f.py::g", call="1", user_code=("/a",)),
                       AgxError("bad-call", "one sentence.", line=3)))
    done = subprocess.run([python, "-c", ACROSS], input=sent, capture_output=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
                               "PYTHONPATH": interpreter.path_folder(str(tmp_path))},
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode()
    hello, message = pickle.loads(done.stdout)
    assert (hello.executable, hello.tensorflow, message) == (python, "f.py::g", "one sentence.")
    assert hello.python.startswith(python.split("/")[-3].rsplit(".", 1)[0])


@pytest.mark.tf
def test_record_runs_the_program_under_the_chosen_interpreter(tf_venv, tmp_path):
    """`record --python`: the user's interpreter runs the program (agexplorer is not
    installed there), with its argv and exit status, and the log says which one ran it."""
    script = tmp_path / "tiny.py"
    script.write_text((ROOT / "tests" / "fixtures" / "record" / "tiny.py").read_text())
    log = tmp_path / "run.agxlog"
    python = str(tf_venv / "bin" / "python")
    done = agx("record", "--python", python, "-o", str(log), str(script), "3", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "args: ['3']" in done.stdout
    start = json.loads(log.read_text().splitlines()[0])
    assert start["executable"] == python
    assert "2 traces of 1 function" in done.stderr
