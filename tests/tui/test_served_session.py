"""A served explorer's session: a private folder for everything it keeps, copies of what it
opens, gone when it ends (the two-browser test: tests/test_serve.py)."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from agexplorer.cli.explorer import open_tui
from agexplorer.state import session as session_module
from agexplorer.state.recovery import recovery_dir
from agexplorer.state.scratch import scratch_root
from agexplorer.state.session import SESSION_PREFIX, start_served, state_home, sweep_sessions
from agexplorer.tui.app import AgxApp
from agexplorer.tui.svg import analysis_shown
from conftest import explorer, wait_for


@pytest.fixture
def temp(tmp_path, monkeypatch):
    """The temp folder served sessions are made in: the test's own."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    return folder


def test_a_served_session_keeps_everything_in_a_private_folder_it_removes(temp):
    shared = state_home()
    session = start_served()
    try:
        folder = session.folder
        assert os.path.dirname(folder) == str(temp)
        assert os.path.basename(folder).startswith(f"{SESSION_PREFIX}{os.getpid()}-")
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        assert recovery_dir() == os.path.join(folder, "recovery")
        assert scratch_root() == os.path.join(folder, "scratch")
    finally:
        session.end()
    assert not os.path.exists(folder)
    assert state_home() == shared  # the terminal explorer's folder, as before


def test_sessions_of_killed_explorers_are_swept(temp):
    proc = subprocess.Popen(["true"])
    proc.wait()
    dead = temp / f"{SESSION_PREFIX}{proc.pid}-abcd1234"
    (dead / "recovery").mkdir(parents=True)
    living = temp / f"{SESSION_PREFIX}{os.getpid()}-abcd1234"
    living.mkdir()
    assert sweep_sessions() == [str(dead)]
    assert living.is_dir()


def test_a_served_explorer_opens_its_own_copies_and_leaves_nothing(tmp_path, temp, monkeypatch):
    lesson = tmp_path / "lesson"
    lesson.mkdir()
    (lesson / "main.py").write_text("from helpers import f\n\ndef g(x):\n    return f(x)\n")
    (lesson / "helpers.py").write_text("def f(x):\n    return x\n")
    seen: dict = {}

    def run(app, *args, **kwargs):
        seen["paths"] = app.paths
        seen["served"] = session_module.served()
        folder = os.path.dirname(app.paths[0])
        seen["copies"] = {n: open(os.path.join(folder, n)).read() for n in os.listdir(folder)}

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(AgxApp, "run", run)
    assert open_tui(["--served", str(lesson / "main.py") + "::g"]) == 0
    (opened,) = seen["paths"]
    assert seen["served"] is not None and opened.startswith(seen["served"].folder)
    assert os.path.basename(opened) == "main.py"
    assert seen["copies"] == {"main.py": (lesson / "main.py").read_text(),  # its imports too
                              "helpers.py": (lesson / "helpers.py").read_text()}
    assert list(temp.iterdir()) == []  # the session's folder went when the explorer ended
    assert session_module.served() is None


@pytest.mark.tf
async def test_a_served_save_never_writes_the_servers_own_file(flow_file, worker, temp,
                                                               monkeypatch):
    """A file outside the session (a recorded run's, which is not copied): ctrl+s sends the
    buffer to the browser and leaves the file, and the buffer's unsaved state, as they were."""
    disk = flow_file.read_text()
    sent = []
    monkeypatch.setattr(AgxApp, "deliver_binary",
                        lambda app, data, **how: sent.append((data.read(), how["save_filename"])))
    session = start_served()
    try:
        app = explorer(flow_file, worker, "tensor_for")
        async with app.run_test(size=(140, 40)) as pilot:
            assert await wait_for(pilot, lambda: app.workspace_ready and app.state.target is not None)
            source = app.query_one("#source")
            source.insert("# mine\n", (1, 0))
            assert await wait_for(pilot, lambda: app.state.analysed_text == source.text
                                  and analysis_shown(app, "tensor_for"))
            source.focus()
            await pilot.press("ctrl+s")
            assert sent == [(source.text.encode(), "control_flow.py")]
            assert flow_file.read_text() == disk and source.dirty
            assert await wait_for(pilot, lambda: app.status_line.text.startswith(
                "sent control_flow.py to your browser as a download; the server's "
                "control_flow.py is not written"))
    finally:
        session.end()
