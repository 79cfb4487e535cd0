"""The explorer on scratch copies (a save writes the copy) and the lesson tour, start to end,
against a real worker."""

from __future__ import annotations

import os

import pytest

from agexplorer.cli import samples_dir
from agexplorer.state.scratch import scratch_copies
from agexplorer.tui.app import AgxApp
from agexplorer.tui.tour.opening import Opening
from agexplorer.tui.tour.steps import STEPS
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
    app.animation_level = "full"  # as a user has it (the suite turns animations off)
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
        # The TensorBoard log written beside the scratch copy, and the command that opens it.
        logdir = os.path.join(os.path.dirname(tour.paths[STEPS[5].file]), "logs", "graph")
        assert f"run: tensorboard --logdir {logdir}" in results[5]
        assert any(name.startswith("events.") for _, _, names in os.walk(logdir)
                   for name in names)
        assert "TensorFlow's own message: “TypeError: Binding inputs" in results[2]
        assert "The lesson: graph mode typically 1.5-3x faster" in results[7]
        # The homework: 20 steps charted in the Run tab, lr halved from 0.1 where the loss rose.
        assert results[9].startswith("20 steps: loss ") and "lr 0.1 → 0.025" in results[9]
        assert "if staged as" in results[9]
        assert "lr" in str(app.query_one("#run-results").render())
        assert results[6].startswith("AGX")  # the doctor's finding on the global counter
        # Right at the last step: the end of the tour, each section with what it showed.
        assert tour.ended
        end = str(panel.heading.render()) + str(panel.text.render())
        assert "End of the tour" in end
        for index, step in enumerate(STEPS):
            assert f"{step.title_en}: {results[index]}" in end
        assert "agexplorer report FILE" in str(panel.action_line.render())
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


async def test_the_tours_keys_work_from_any_pane_and_esc_leads_back_to_it(worker):
    """F8/shift+F8 step the tour from the editor or a tab (the arrows only in its panel); Esc from
    an input or a zoomed pane comes back to the tour; past the last section, the end, from
    which left goes back and enter starts again."""
    app = tour_app(worker)
    async with app.run_test(size=(160, 45)) as pilot:
        panel = await tour_panel(app, pilot)
        tour = panel.tour
        app.source.focus()
        await pilot.pause()
        assert "f8" in app.screen.active_bindings  # the footer says which key steps the tour
        await pilot.press("f8")
        assert tour.index == 1 and "Tracing" in str(panel.heading.render())
        assert await wait_for(pilot, lambda: panel.has_focus, 10)
        app.call_input.focus()  # typing in the Run tab's call box
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: panel.has_focus, 10)
        app.source.focus()
        await pilot.press("f11")  # the source zoomed: the tour's panel is hidden
        assert app.screen.has_class("-zoomed") and panel.has_class("-zoom-hidden")
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: panel.has_focus and panel.is_on_screen, 10)
        assert not app.screen.has_class("-zoomed")
        app.source.focus()
        await pilot.press("shift+f8")
        assert tour.index == 0
        tour.go(len(STEPS) - 1)
        await pilot.press("right")
        assert tour.ended and "End of the tour" in str(panel.heading.render())
        await pilot.press("left")
        assert tour.index == len(STEPS) - 1 and not tour.ended
        await pilot.press("right", "enter")  # the end: enter starts again
        assert tour.index == 0
        await pilot.press("escape")
        assert not app.query("TourPanel")
        await pilot.pause()
        assert "f8" not in app.screen.active_bindings  # no tour, no tour keys
