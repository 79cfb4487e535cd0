"""Quitting in the explorer's first moments, while the code panes are still mounting, ends
cleanly (Textual's widgets fail when removed half-mounted: the quit waits for the mount)."""

import asyncio
import os

from agexplorer.cli import samples_dir
from conftest import no_worker


async def test_a_quit_at_any_moment_of_start_up_ends_cleanly():
    from agexplorer.tui.app import AgxApp

    folder = samples_dir()
    paths = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    for delay in (0.0, 0.02, 0.05, 0.1, 0.2):  # before, during and after the workspace mounts
        app = AgxApp(paths, worker=no_worker())
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause(delay)
            await pilot.press("ctrl+q")
            for _ in range(100):
                if not app.is_running:
                    break
                await asyncio.sleep(0.02)
            assert not app.is_running, f"still running after a quit at {delay} s"
        assert app.return_code in (0, None), f"ended with {app.return_code} after {delay} s"
