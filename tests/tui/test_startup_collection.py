"""The explorer's start-up holds Python's cyclic garbage collector (it walked the start-up's
~80,000 long-lived objects ~100 times before the first frame) and resumes it once the panes
have mounted, with those objects frozen; a collector the process had turned off stays off."""

import gc
import os

import pytest

from agexplorer.cli import samples_dir
from agexplorer.cli.explorer import deferred_collection
from conftest import no_worker


@pytest.fixture
def collector_restored():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_held_until_resumed_once(collector_restored):
    gc.enable()
    resume = deferred_collection()
    assert not gc.isenabled()
    garbage = []
    garbage.append(garbage)  # a cycle: only the collector frees it
    del garbage
    frozen = gc.get_freeze_count()
    resume()
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen  # the start-up's objects, out of the generations
    gc.disable()
    resume()  # a second call (the command's own, as it ends) changes nothing
    assert not gc.isenabled()


def test_a_collector_turned_off_stays_off(collector_restored):
    gc.disable()
    resume = deferred_collection()
    resume()
    assert not gc.isenabled()


async def test_the_app_says_when_its_start_up_is_over():
    from agexplorer.tui.app import AgxApp

    folder = samples_dir()
    paths = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    told = []
    app = AgxApp(paths, worker=no_worker())
    app.started = lambda: told.append(app.workspace_ready)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            if told:
                break
            await pilot.pause(0.05)
        assert told == [True]  # once, with the panes mounted
