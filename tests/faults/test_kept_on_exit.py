"""However the explorer ends, an unsaved buffer is kept: an exit the app did not ask about, and
a crash while a dialog is on top (a query then finds only the dialog's screen). A stand-in
worker answers, so no TensorFlow is needed."""

from __future__ import annotations

import pytest

from agexplorer.state import recovery
from conftest import until_ended, wait_for
from tests.tui.test_layout import AskedWorker


def explorer(path):
    from agexplorer.tui.app import AgxApp

    return AgxApp([str(path)], "bad_loop", worker=AskedWorker())


async def test_an_exit_keeps_the_unsaved_buffer(bad_loop_file):
    app = explorer(bad_loop_file)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready and app.state.target is not None, 30)
        app.source.insert("# unsaved\n", (0, 0))  # no edit pause: no copy yet
        app.exit()
        assert await until_ended(app)
    found = recovery.load_copy(str(bad_loop_file))
    assert found is not None and found.text.startswith("# unsaved\n")
    assert "s6_2_bad_loop.py" in app.safety.note


async def test_a_crash_under_the_quit_dialog_keeps_the_unsaved_buffer(bad_loop_file):
    app = explorer(bad_loop_file)
    with pytest.raises(RuntimeError, match="a bug"):
        async with app.run_test(size=(120, 40)) as pilot:
            assert await wait_for(pilot, lambda: app.workspace_ready and app.state.target is not None,
                                  30)
            app.source.insert("# unsaved\n", (0, 0))
            await pilot.press("ctrl+q")
            assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmQuit", 5)

            def bug() -> None:
                raise RuntimeError("a bug")

            app.call_later(bug)
            assert await until_ended(app)
    found = recovery.load_copy(str(bad_loop_file))
    assert found is not None and found.text.startswith("# unsaved\n")
