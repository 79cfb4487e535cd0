"""The Doctor tab's x key: fix trials with or without XLA, said in the footer and the status."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from agexplorer.worker.protocol import TryFixRequest
from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


def _footer(app) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey)]


async def test_x_toggles_xla_in_the_next_fix_trial_and_the_footer_says_so(
        bad_loop_file, worker, monkeypatch):
    app = explorer(bad_loop_file, worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready)
        panel = app.doctor_tab
        assert await wait_for(pilot, lambda: panel.findings)
        tried: list[TryFixRequest] = []
        real_ask = app.bridge.ask

        def ask(key, request, path, what, *args, **kwargs):  # trials recorded, not run (XLA)
            if isinstance(request, TryFixRequest):
                tried.append(request)
            else:
                real_ask(key, request, path, what, *args, **kwargs)

        monkeypatch.setattr(app.bridge, "ask", ask)
        app.panes.panels.active = "tab-doctor"
        app.query_one("#findings").focus()
        await pilot.pause()
        assert panel.skip_xla is False
        assert "Trials: skip XLA" in _footer(app) and "Trials: use XLA" not in _footer(app)
        await pilot.press("f")
        assert await wait_for(pilot, lambda: len(tried) == 1, 10)
        assert tried[0].skip_xla is False

        await pilot.press("x")
        await pilot.pause()
        assert panel.skip_xla is True
        assert "skip XLA" in app.status_line.text
        assert app.screen.active_bindings["x"].binding.description == "Trials: use XLA"
        assert "Trials: use XLA" in _footer(app) and "Trials: skip XLA" not in _footer(app)
        await pilot.press("f")
        assert await wait_for(pilot, lambda: len(tried) == 2, 10)
        assert tried[1].skip_xla is True and tried[1].fix == tried[0].fix

        await pilot.press("x")  # and back
        await pilot.pause()
        assert panel.skip_xla is False and "run XLA too" in app.status_line.text
        assert "Trials: skip XLA" in _footer(app)
        await pilot.press("f")
        assert await wait_for(pilot, lambda: len(tried) == 3, 10)
        assert tried[2].skip_xla is False
