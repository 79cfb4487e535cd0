"""Promise 8: every result the explorer shows belongs to the function and buffer it is shown with.

Pilot against the module's real worker (undo and redo re-analyse; panels say what they are
from; badges and errors follow the current text; the gutter never cuts a number; a deleted
file is announced and written again; saves keep the file's encoding; the quit dialog; the
timeout key).
"""

from __future__ import annotations

import errno
import os
import shutil

import pytest

from agexplorer.tui.functions.listing import GUIDE
from agexplorer.tui.messages import EngineStatus
from conftest import explorer, fixture, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


def status(app) -> str:
    return app.query_one("#status").text


def shown(app, widget_id: str) -> str:
    return str(app.query_one(widget_id).render())


def badge(app, path, function) -> str:
    return app.query_one("#picker").label(str(path), function)


async def test_undo_and_redo_re_analyse_like_any_edit(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")  # line 8: for i in range(n), called with 3
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        gutter, source, doctor = app.query_one("#gutter"), app.query_one("#source"), \
            app.query_one("#doctor-panel")
        assert await wait_for(pilot, lambda: doctor.findings, 30)
        findings_before = [f.message for f in doctor.findings]
        assert gutter.mark_at(8) == "unrolled x3"
        source.focus()
        source.replace("range(n + 2)", (7, 13), (7, 21))
        assert await wait_for(pilot, lambda: gutter.mark_at(8) == "unrolled x5")
        assert await wait_for(pilot, lambda: "unrolled x5" in badge(app, flow_file, "python_for"))
        assert await wait_for(pilot, lambda: [f.message for f in doctor.findings]
                              != findings_before, 30)
        await pilot.press("ctrl+z")
        assert "range(n)" in source.text
        assert await wait_for(pilot, lambda: gutter.mark_at(8) == "unrolled x3")
        assert "unrolled x3" in badge(app, flow_file, "python_for")
        assert "unrolled x3" in str(app.query_one("#verdicts").get_row_at(0)[2])
        assert await wait_for(pilot, lambda: [f.message for f in doctor.findings]
                              == findings_before, 30)
        await pilot.press("ctrl+y")
        assert await wait_for(pilot, lambda: gutter.mark_at(8) == "unrolled x5")
        assert "unrolled x5" in str(app.query_one("#verdicts").get_row_at(0)[2])


async def test_result_panels_name_their_function_and_follow_edits_and_switches(flow_file, worker):
    app = explorer(flow_file, worker, "tensor_for")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.query_one("#call").value = "tf.constant(4)"
        await pilot.press("f5")
        assert await wait_for(pilot, lambda: app.state.lab is not None, 60)
        assert shown(app, "#run-origin") == "run: tensor_for(tf.constant(4))"
        app.query_one("#trace-calls").value = "tf.constant(1); tf.constant(2)"
        app.query_one("#trace-panel").request_explain()
        trace = app.query_one("#trace-panel")
        assert await wait_for(pilot, lambda: trace.report is not None, 60)
        assert shown(app, "#trace-origin") == "retraces: tensor_for, calls tf.constant(1); " \
                                              "tf.constant(2)"
        app.query_one("#panels").active = "tab-graph"
        ops = app.query_one("#ops")
        assert await wait_for(pilot, lambda: 14 in ops._by_line)
        ops.move_cursor(ops._by_line[14][0])
        assert await wait_for(pilot, lambda: shown(app, "#op-detail").startswith(
            "op: tensor_for(tf.constant(4))\n"))
        app.query_one("#panels").active = "tab-log"
        log = app.query_one("#log")
        assert await wait_for(pilot, lambda: any(line.text.startswith("── tensor_for")
                                                 for line in log.lines))

        source = app.query_one("#source")
        source.focus()
        source.insert("(((", (0, 0))  # does not parse: no new results
        for part, what in (("#run-origin", "run"), ("#trace-origin", "retraces")):
            assert await wait_for(pilot, lambda p=part: "before your last edit" in shown(app, p))
            assert shown(app, part).startswith(f"{what}: from tensor_for")
        assert "before your last edit" in shown(app, "#op-detail")
        assert await wait_for(pilot, lambda: app.query_one("#converted").has_class("stale"))
        for part in ("#run-results", "#trace-results", "#op-detail"):
            assert app.query_one(part).has_class("stale"), part
        await pilot.press("ctrl+z")  # the results match the buffer again
        assert await wait_for(pilot, lambda: shown(app, "#run-origin")
                              == "run: tensor_for(tf.constant(4))")
        assert not app.query_one("#run-results").has_class("stale")
        assert not app.query_one("#op-detail").has_class("stale")

        await pilot.press("alt+down")  # python_while
        assert await wait_for(pilot, lambda: app.state.target[1] == "python_while")
        assert not app.query_one("#run-origin").display
        assert shown(app, "#run-results").startswith("Press F5")
        assert shown(app, "#trace-results").startswith("Which calls trace anew")
        assert shown(app, "#op-detail") == ""
        assert not any("tensor_for" in line.text for line in log.lines)
        assert all(20 <= f.line <= 24 for f in app.query_one("#doctor-panel").findings)


async def test_a_timeout_badge_and_message_leave_once_the_code_is_undone(flow_file, worker):
    """Also the TUI's own way to a longer timeout (ctrl+t), named in the timeout message."""
    worker.timeout = 3
    try:
        app = explorer(flow_file, worker, "python_for")
        async with app.run_test(size=(140, 40)) as pilot:
            assert await wait_for(pilot, lambda: app.state.report is not None)
            assert worker.timeout_hint == "press ctrl+t to double the timeout, now 3 s"
            source = app.query_one("#source")
            source.focus()
            source.insert("    while True:\n        pass\n", (6, 0))  # in python_for
            assert await wait_for(pilot, lambda: "timed out after 3 s" in status(app), 60)
            assert status(app).endswith("(press ctrl+t to double the timeout, now 3 s).")
            assert "failed" in badge(app, flow_file, "python_for")
            await pilot.press("ctrl+t")
            assert worker.timeout == 6
            assert worker.timeout_hint == "press ctrl+t to double the timeout, now 6 s"
            assert "6 s" in status(app)
            await pilot.press("ctrl+z")
            assert await wait_for(pilot, lambda: "unrolled x3" in badge(
                app, flow_file, "python_for"), 120), status(app)
            assert await wait_for(pilot, lambda: status(app) == "ready", 10), status(app)
            assert not app.query_one("#status").has_class("error")
    finally:
        worker.timeout = 60


async def test_the_gutter_shows_every_digit_of_an_unrolled_count(tmp_path, worker):
    path = tmp_path / "tui_faults.py"
    shutil.copy(fixture("tui_faults.py"), path)
    line = path.read_text().splitlines().index("    for i in range(n):") + 1
    app = explorer(path, worker, "unrolled")  # called with 200
    # From 180 columns the gutter draws whole badges ("unrolled x200"); narrower, "x200".
    async with app.run_test(size=(190, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready)
        gutter, source = app.query_one("#gutter"), app.query_one("#source")
        for count in (200, 1000):
            if count != 200:
                app.query_one("#call").value = str(count)
                app.analyse()
            assert await wait_for(pilot, lambda c=count: gutter.mark_at(line) == f"unrolled x{c}",
                                  120), status(app)
            # Drawn whole on the line's row, once scrolled there.
            assert await wait_for(pilot, lambda c=count: gutter.line_text(
                line - (int(source.scroll_y) + 1)) == f"▌unrolled x{c}", 10)
            label, picker = badge(app, path, "unrolled"), app.query_one("#picker")
            assert label.endswith(f"unrolled x{count}")  # whole, and inside the list:
            assert len(label) <= picker.scrollable_content_region.width - GUIDE


async def test_a_deleted_file_is_announced_and_ctrl_s_writes_it_again(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        source = app.query_one("#source")
        os.remove(flow_file)
        assert await wait_for(pilot, lambda: status(app) == (
            "control_flow.py was deleted on disk: ctrl+s writes it again"), 10)
        assert source.dirty  # quitting now asks first
        await pilot.press("ctrl+s")
        assert flow_file.read_text() == source.text and not source.dirty
        assert status(app).startswith("saved ")
        # A request still under way (the doctor's) says "ready" as it ends: the save's
        # note stays (it was wiped a moment after the save, before it could be read).
        app.post_message(EngineStatus("ready", ready=True))
        await pilot.pause()
        assert status(app).startswith("saved ")


async def test_save_keeps_the_bom_line_endings_and_coding(tmp_path, worker):
    bom = tmp_path / "bom_crlf.py"
    bom.write_bytes(b"\xef\xbb\xbf# caf\xc3\xa9\r\ndef plain(n):\r\n    return n + 1\r\n")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\ndef plain(n):\n    return n + 1\n")
    for path in (bom, latin):
        app = explorer(path, worker, "plain")
        async with app.run_test(size=(140, 40)) as pilot:
            # the first analysis is in: its "ready" cannot land on the save's status line
            assert await wait_for(pilot, lambda a=app: a.state.report is not None)
            source = app.query_one("#source")
            assert "café" in source.text
            source.insert("# mine\n", (2, 0))
            await pilot.press("ctrl+s")
            assert not source.dirty, status(app)  # saved: the buffer matches the file
    assert bom.read_bytes() == (b"\xef\xbb\xbf# caf\xc3\xa9\r\ndef plain(n):\r\n# mine\r\n"
                                b"    return n + 1\r\n")
    assert latin.read_bytes() == (b"# -*- coding: latin-1 -*-\n# caf\xe9\n# mine\ndef plain(n):\n"
                                  b"    return n + 1\n")


async def test_a_failed_save_keeps_the_buffer_and_the_file(flow_file, worker, monkeypatch):
    """A full disk, injected: os.fsync raises ENOSPC (as root, permissions cannot fail)."""
    app = explorer(flow_file, worker, "python_for")
    before = flow_file.read_bytes()
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready and app.state.target is not None)
        source = app.query_one("#source")
        source.insert("# mine\n", (0, 0))
        # The edit pause: its recovery copy is written.
        from agexplorer.state import recovery

        assert await wait_for(pilot, lambda: recovery.load_copy(str(flow_file)) is not None, 10)
        app.safety.recovery.wait()

        def full(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "fsync", full)
        await pilot.press("ctrl+s")
        monkeypatch.undo()
        # Said, and said again in place of the "ready" of a request under way (the doctor's).
        assert await wait_for(pilot, lambda: "No space left on device" in status(app)
                              and app.status_line.has_class("error"), 30), status(app)
        assert "kept" in status(app)
        assert status(app).count("; ") <= 2 and "Traceback" not in status(app)
        assert flow_file.read_bytes() == before
        assert source.dirty and source.text.startswith("# mine\n")
        assert not [n for n in os.listdir(flow_file.parent) if n.endswith(".agx-tmp")]
        await pilot.press("ctrl+s")
        assert flow_file.read_text().startswith("# mine\n")


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_quit_dialog_shows_its_three_buttons_and_esc_stays(flow_file, worker, size):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=size) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready and app.state.target is not None)
        source = app.query_one("#source")
        source.insert("# mine\n", (0, 0))
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmQuit", 5)
        dialog = app.screen
        assert type(dialog).__name__ == "ConfirmQuit"
        screen = dialog.region
        labels = []
        for button in dialog.query("Button"):
            labels.append(str(button.label))
            assert button.content_region.height >= 1, button.id
            assert screen.contains_region(button.region), (button.id, button.region)
            assert button.content_region.width >= len(str(button.label)), button.id
        assert labels == ["Save and quit", "Quit without saving", "Stay"]
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ != "ConfirmQuit", 5)
        assert app.is_running
        assert source.dirty and source.text.startswith("# mine\n")


def test_the_explorer_takes_a_timeout_and_a_palette_command_doubles_it(capsys):
    from agexplorer.cli import _tui_timeout, main
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.commands import ExplorerCommands

    assert _tui_timeout(["--timeout", "5", "f.py"]) == (5.0, ["f.py"])
    assert _tui_timeout(["f.py::g", "--timeout=7.5"]) == (7.5, ["f.py::g"])
    assert _tui_timeout([]) == (30.0, [])
    with pytest.raises(SystemExit) as ended:  # as every command's parser says a bad argument
        main(["--timeout", "soon", "f.py"])
    assert ended.value.code == 2
    assert "--timeout: 'soon' is not a number of seconds" in capsys.readouterr().err
    app = AgxApp([fixture("control_flow.py")], timeout=5)
    assert app.bridge.worker.timeout == 5
    assert app.bridge.worker.timeout_hint == "press ctrl+t to double the timeout, now 5 s"
    assert callable(app.action_double_timeout)
    assert ("Double the worker's timeout", "double_timeout") in ExplorerCommands.COMMANDS
