"""Which background worker a command may use, and where it listens (no TensorFlow): a
different interpreter, build or TensorFlow-relevant environment never shares one; the
folder is private or refused; the idle time and the off switch are read as documented."""

from __future__ import annotations

import os

import pytest

from agexplorer.daemon import place
from agexplorer.model.errors import AgxError


@pytest.fixture
def runtime(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    return {"XDG_RUNTIME_DIR": str(folder), "HOME": "/home/u", "PATH": "/usr/bin"}


def test_the_socket_is_in_the_users_runtime_folder_made_private(runtime):
    found = place.place_for(None, runtime)
    assert found.folder == os.path.join(runtime["XDG_RUNTIME_DIR"], "agexplorer")
    assert os.stat(found.folder).st_mode & 0o777 == 0o700
    assert found.socket.endswith(".sock") and os.path.dirname(found.socket) == found.folder


def test_without_a_runtime_folder_it_is_under_the_state_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    folder = place.runtime_folder({"HOME": "/home/u"})
    assert folder == str(tmp_path / "state" / "agexplorer" / "run")
    assert os.stat(folder).st_mode & 0o777 == 0o700


def test_a_folder_open_to_others_or_a_link_is_refused(runtime, tmp_path):
    mine = os.path.join(runtime["XDG_RUNTIME_DIR"], "agexplorer")
    os.makedirs(mine)
    os.chmod(mine, 0o755)
    with pytest.raises(AgxError) as caught:
        place.runtime_folder(runtime)
    assert caught.value.kind == "daemon-folder" and "not a private folder" in caught.value.what
    os.rmdir(mine)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    os.symlink(tmp_path / "elsewhere", mine)
    with pytest.raises(AgxError):
        place.runtime_folder(runtime)


def test_another_interpreter_or_relevant_variable_gets_another_worker(runtime):
    base = place.place_for(None, runtime).key
    assert place.place_for(None, dict(runtime)).key == base
    assert place.place_for("/opt/other/bin/python", runtime).key != base
    for name, value in [("TF_USE_LEGACY_KERAS", "1"), ("CUDA_VISIBLE_DEVICES", ""),
                        ("PYTHONPATH", "/src"), ("KERAS_BACKEND", "jax"),
                        ("AGX_LOGICAL_CPUS", "2"), ("VIRTUAL_ENV", "/venv")]:
        assert place.place_for(None, {**runtime, name: value}).key != base, name
    # What only says how to reach the worker, or the terminal, changes nothing.
    for name, value in [("AGX_NO_DAEMON", "0"), ("AGX_DAEMON_IDLE", "5"), ("TERM", "xterm"),
                        ("COLUMNS", "80"), ("XDG_STATE_HOME", "/elsewhere")]:
        assert place.place_for(None, {**runtime, name: value}).key == base, name


def test_an_edited_agexplorer_is_another_build(runtime, monkeypatch):
    base = place.place_for(None, runtime).key
    monkeypatch.setattr(place, "build_stamp", lambda: "0.1.0:/src/agexplorer:1")
    assert place.place_for(None, runtime).key != base


def test_the_idle_time_from_the_option_the_variable_or_ten_minutes():
    assert place.idle_seconds(None, {}) == 600
    assert place.idle_seconds(None, {"AGX_DAEMON_IDLE": "30"}) == 30
    assert place.idle_seconds(5.0, {"AGX_DAEMON_IDLE": "30"}) == 5
    for bad in ("0", "-1", "soon", "nan", "inf"):
        with pytest.raises(AgxError) as caught:
            place.idle_seconds(None, {"AGX_DAEMON_IDLE": bad})
        assert caught.value.kind == "bad-arguments" and "AGX_DAEMON_IDLE" in caught.value.what


def test_the_off_switch():
    assert not place.disabled({})
    assert not place.disabled({"AGX_NO_DAEMON": "0"})
    assert place.disabled({"AGX_NO_DAEMON": "1"}) and place.disabled({"AGX_NO_DAEMON": "yes"})


def test_the_background_worker_itself_imports_no_tensorflow():
    import subprocess
    import sys

    code = ("import sys, agexplorer.daemon.server, agexplorer.daemon.client, agexplorer.cli.daemon;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
