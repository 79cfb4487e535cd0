"""Every step of the lesson tour at a projector's sizes (issue 25): 80x24, 100x30, 120x40 and
200x60, without TensorFlow (the worker's answers are replayed: tests/tui/answers.py).

One explorer per size walks the ten steps, doing each step's action, and at each step:
- the code keeps at least 60 columns wherever the function list shows (it folds before),
- the pane holding the step's answer is on screen, outlined, with room to read it,
- the answer shows in the tour's panel, scrolled into view,
- no table cell collapsed to "…",
and the screen is kept as an SVG snapshot (40 in all), to look at as pictures when they change.
Update with ``python -m pytest tests/tui/test_tour_snapshots.py --snapshot-update`` and look at
the SVGs; after a change of the requests, record the answers first (``AGX_RECORD_ANSWERS=1``,
TensorFlow needed)."""

from __future__ import annotations

import contextlib
import os
import re

import pytest
from pytest_textual_snapshot import SVGImageExtension

from agexplorer.cli.common import samples_dir
from agexplorer.tui.tour import results as tour_results
from agexplorer.tui.tour.steps import STEPS
from tests.tui.answers import ReplayWorker, save_recorded
from tests.tui.test_snapshots import until

SIZES = [(80, 24), (100, 30), (120, 40), (200, 60)]
# A table cell cut to nothing but its first letters: "┃ m… ┃", "│ … │".
COLLAPSED = re.compile(r"[│┃]\s?\S{0,2}…\s?[│┃]")
LESSON = "/tmp/agx-tour-snapshots/lesson"  # the samples' copies: one path, recorded and replayed


@pytest.fixture(scope="module", autouse=True)
def _save_recorded():
    yield
    save_recorded()


@pytest.fixture
def lesson(monkeypatch) -> list[str]:
    """What changes from run to run, fixed: the lesson's copies in one folder (a scratch
    session's folder is named by its pid, and the Trace tab and step 4.6's log path show
    it), and the machine's load (said when busy)."""
    # Never emptied: two sizes run at once under xdist, and a copy deleted under the other
    # one's explorer failed its step (a snapshot without its answer's marks). A copy is
    # written only where it differs, whole (a rename), so a reader sees one or the other.
    os.makedirs(LESSON, exist_ok=True)
    names = sorted(n for n in os.listdir(samples_dir()) if n.endswith(".py") and n[0] == "s")
    for name in names:
        with open(os.path.join(samples_dir(), name), "rb") as sample:
            wanted = sample.read()
        target = os.path.join(LESSON, name)
        with contextlib.suppress(OSError), open(target, "rb") as copy:
            if copy.read() == wanted:
                continue
        temporary = f"{target}.{os.getpid()}"
        with open(temporary, "wb") as out:
            out.write(wanted)
        os.replace(temporary, target)
    monkeypatch.setattr(tour_results, "machine_load", lambda: (0.1, 2))
    return [os.path.join(LESSON, n) for n in names]


def tour_app(paths: list[str]):
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.tour.opening import Opening

    return AgxApp(paths, worker=ReplayWorker(), program=Opening(scratch=True, tour=True))


def screen_text(svg: str) -> str:
    """The screen's characters, row by row, read back from its SVG."""
    from tests.render.test_user_text_escaping import _svg_text

    return _svg_text(svg)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_every_tour_step_at_each_size(size, lesson, snapshot):
    """One explorer per size walks the steps (an explorer resized between sizes would do
    it in less time, but where its panes stand after a resize depends on timing: the
    pictures would differ from run to run)."""
    from agexplorer.tui.tour.panel import TourPanel

    snapshot = snapshot.use_extension(SVGImageExtension)
    app = tour_app(lesson)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.query(TourPanel) and app.workspace_ready
                    and app.state.report is not None and app.engine_ready, "the tour")
        panel = app.query_one(TourPanel)
        tour = panel.tour
        for index, step in enumerate(STEPS):
            tour.go(index)
            await until(pilot, lambda s=step: app.state.report is not None
                        and app.state.report.function == s.function
                        and app.state.answered == app.state.generation, step.title_en)
            await pilot.press("enter")
            await until(pilot, lambda: bool(panel.result_text), f"{step.title_en}'s answer")
            await pilot.pause(0.1)  # the result scrolled into view, the layout settled
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            check(app, panel, f"step {index + 1} at {size}")
            svg = app.export_screenshot()
            collapsed = COLLAPSED.search(screen_text(svg))
            assert collapsed is None, (index + 1, size, collapsed and collapsed.group(0))
            assert snapshot(name=f"step{index + 1:02d}") == svg


def check(app, panel, where: str) -> None:
    """The code keeps 60 columns where the list shows; the answer's pane is on screen with
    room to read it; the answer is in the tour's view."""
    picker, source = app.query_one("#picker"), app.source
    if picker.display and picker.region.width:
        assert source.region.width >= 60, (where, source.region.width)
    pane = panel.tour._highlighted
    assert pane is not None and pane.is_on_screen, where
    # Room to read it: all of it, or at least 6 rows of it, 30 columns wide.
    assert pane.region.height >= min(6, pane.virtual_size.height), (where, pane.region)
    assert pane.region.width >= 30, (where, pane.region)
    shown = panel.scrollable_content_region.intersection(panel.result.region)
    assert shown.height > 0, (where, "the answer is out of the tour's view")
    # The tabs' one-sentence summaries wrap whole, never cut at their last row.
    from rich.text import Text

    for summary in app.query("#flow-summary, #calls-summary"):
        width = summary.content_region.width
        if summary.text and width > 0 and summary.region.height:
            rows = len(Text(summary.text).wrap(app.console, width))
            assert summary.content_region.height >= rows, (where, summary.id, summary.text)
