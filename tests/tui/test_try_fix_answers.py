"""f always answers (issue 25): a finding without a mechanical rewrite says so and shows the fix
to make by hand; with no finding, f says why nothing is tried. Replayed answers: no TensorFlow."""

from __future__ import annotations

import os
from dataclasses import replace

from conftest import SAMPLES, wait_for
from tests.tui.answers import ReplayWorker

TARGET = os.path.join(SAMPLES, "s6_2_bad_loop.py")


async def test_f_on_a_finding_without_a_rewrite_says_so_and_shows_the_fix_by_hand():
    from agexplorer.tui.app import AgxApp

    app = AgxApp([TARGET], "bad_loop", worker=ReplayWorker())
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready
                              and app.doctor_tab.findings, 60)
        panel = app.doctor_tab
        tried: list = []
        app.bridge.ask = lambda *args, **kwargs: tried.append(args)  # no trial may start
        app.panes.panels.active = "tab-doctor"
        table = app.query_one("#findings")
        table.focus()
        row = next(i for i, f in enumerate(panel.findings) if f.code == "AGX004")
        # The while loop's finding as one the doctor has no rewrite for (a fix in words,
        # such as a while on another condition gets): the doctor offers its rewrite here.
        finding = panel.findings[row] = replace(panel.findings[row], rewrite=None)
        assert finding.fix
        table.move_cursor(row=row)
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        detail = str(app.query_one("#finding-detail").render())
        assert "No mechanical rewrite exists for AGX004 here" in detail
        assert "make the fix above by hand" in detail
        assert " ".join(finding.fix.split()[:4]) in " ".join(detail.split())
        assert not tried

        panel.findings = []  # none listed: f says there is nothing to try
        panel.request_try()
        await pilot.pause()
        assert "Nothing to try: no finding is listed" in str(
            app.query_one("#finding-detail").render())
