"""The explorer on scratch copies (a save writes the copy) and the lesson tour, start to end,
against a real worker."""

from __future__ import annotations

import os

import pytest

from agexplorer.cli import samples_dir
from agexplorer.state.scratch import scratch_copies
from agexplorer.tui.app import AgxApp
from agexplorer.tui.tour.steps import STEPS
from agexplorer.tui.tour.tour import Opening
from conftest import SAMPLES, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


def status(app) -> str:
    return str(app.query_one("#status").render())


async def test_a_save_writes_the_scratch_copy_and_says_so(worker):
    paths = scratch_copies(samples_dir())
    original = open(os.path.join(SAMPLES, "s4_1_eager_vs_graph.py")).read()
    app = AgxApp(paths, worker=worker, program=Opening(scratch=True))
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        assert app.query_one("#picker").border_subtitle == "scratch copies (ctrl+s saves the copy)"
        app.source.insert("# my note\n", (0, 0))
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "saved the scratch copy" in status(app), 10)
    assert open(paths[0]).read() == "# my note\n" + original
    assert open(os.path.join(SAMPLES, "s4_1_eager_vs_graph.py")).read() == original


def tour_app(worker) -> AgxApp:
    """The explorer on scratch copies of the samples, the tour open (``agexplorer tour``)."""
    return AgxApp(scratch_copies(samples_dir()), worker=worker,
                  program=Opening(scratch=True, tour=True))


async def tour_panel(app: AgxApp, pilot):
    """The tour's panel once it is there and has the focus (its keys are live)."""
    assert await wait_for(pilot, lambda: bool(app.query("TourPanel")))
    panel = app.query_one("TourPanel")
    assert await wait_for(pilot, lambda: panel.has_focus, 10)
    return panel


async def test_the_tour_runs_start_to_end(worker):
    app = tour_app(worker)
    async with app.run_test(size=(200, 50)) as pilot:
        panel = await tour_panel(app, pilot)
        tour = panel.tour
        for index, step in enumerate(STEPS):
            assert tour.index == index
            assert step.heading_zh in str(panel.heading.render())
            assert await wait_for(pilot, lambda s=step: app.state.report is not None
                                  and app.state.report.function == s.function
                                  and app.state.target[1] == s.function, 120), step.target
            assert os.path.dirname(app.state.target[0]) != SAMPLES  # the copy, not the lesson's file
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: bool(panel.result_text), 240), step.target
            assert app.panes.panels.active == f"tab-{step.tab}"
            assert tour._highlighted is not None and tour._highlighted.has_class(
                "tour-highlight")
            await pilot.press("right")
        results = tour.results
        assert sorted(results) == list(range(len(STEPS)))
        assert "eager" in results[0]  # matmul: graph against eager
        assert "calls:" in results[1] and "traced" in results[1]
        assert results[3].startswith("line ") and "staged" in results[3]  # the for: a while op
        assert "MatMul" in results[5]  # the Keras model's Dense layers
        assert results[6].startswith("AGX")  # the doctor's finding on the global counter
        assert tour.index == len(STEPS) - 1  # right at the last step stays there
        await pilot.press("escape")
        assert not app.query("TourPanel")


async def test_at_80x24_the_answer_gets_the_room_and_the_next_section_gives_it_back(worker):
    app = tour_app(worker)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await tour_panel(app, pilot)
        assert await wait_for(pilot, lambda: app.state.report is not None
                              and app.state.report.function == STEPS[0].function, 120)
        code, panels = app.query_one("#code"), app.panes.panels
        assert code.size.height > panels.size.height  # the code first, as everywhere
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: bool(panel.result_text), 240)
        # The Run tab's answer shows.
        assert await wait_for(pilot, lambda: app.screen.has_class("-tour-result")
                              and panels.size.height >= 2 * code.size.height, 10)
        await pilot.press("right")
        assert await wait_for(pilot, lambda: not app.screen.has_class("-tour-result")
                              and code.size.height > panels.size.height, 10)
