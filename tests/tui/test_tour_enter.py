"""Enter pressed right after F8 does the new step's action once its sample is open (it said
"the tour's sample ... is not open", as if the user had edits in the way)."""

from __future__ import annotations

from agexplorer.tui.tour.steps import STEPS
from tests.tui.test_snapshots import until
from tests.tui.test_tour_snapshots import lesson, tour_app  # noqa: F401 - the fixture


async def test_enter_at_once_after_f8_answers_the_new_step(lesson):  # noqa: F811
    from agexplorer.tui.tour.panel import TourPanel

    app = tour_app(lesson)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.query(TourPanel) and app.workspace_ready
                    and app.state.report is not None and app.engine_ready, "the tour")
        panel = app.query_one(TourPanel)
        step = STEPS.index(next(s for s in STEPS if s.action == "none"))
        panel.tour.go(step - 1)
        await pilot.pause()
        # F8 and Enter in one read of the terminal: the pick is still a message when Enter
        # comes (a pilot's keys each wait for the app to be idle).
        panel.tour.go(step)
        panel.tour.act()
        await until(pilot, lambda: bool(panel.result_text), "the step's answer")
        assert panel.tour.index == step
        assert "not open" not in app.status_line.text, app.status_line.text
        assert STEPS[step].function.rpartition(".")[2] in panel.result_text
