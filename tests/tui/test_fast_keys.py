"""Fast `n` presses: the function shown follows every press, the worker traces only the last."""

from __future__ import annotations

import threading

import pytest
from textual import events

from agexplorer.tui.functions.navigation import ANALYSE_PAUSE
from agexplorer.worker.protocol import ReportRequest
from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

PRESSES = 21


async def test_21_quick_n_presses_end_on_the_right_function_with_one_analysis(
        flow_file, worker, monkeypatch):
    sent: list[str] = []
    release = threading.Event()
    real = worker.request

    def counting(request, **kwargs):
        # Every ReportRequest that reaches the worker is counted. The first one is held
        # until the test says so: the worker is then "busy" for as long as the keys take,
        # however slow this machine is, which makes the count below deterministic.
        if isinstance(request, ReportRequest):
            sent.append(request.target)
            if len(sent) == 1:
                release.wait(60)
        return real(request, **kwargs)

    monkeypatch.setattr(worker, "request", counting)
    app = explorer(flow_file, worker, "python_for")
    try:
        async with app.run_test(size=(150, 42)) as pilot:
            for _ in range(PRESSES):  # right after start, all at once (a fast typist)
                app.post_message(events.Key("n", "n"))
            picker = app.query_one("#picker")
            assert await wait_for(pilot, lambda: app.workspace_ready and picker.functions(), 30)
            functions = picker.functions()
            start = [name for _, name in functions].index("python_for")
            final = functions[(start + PRESSES) % len(functions)]
            wanted = f"{final[0]}::{final[1]}"
            # The function shown follows the keys while the worker is still busy.
            assert await wait_for(pilot, lambda: app.state.target == final, 30)
            # Its analysis is asked for once the keys rest; then the held request goes on.
            assert await wait_for(pilot, lambda: app.state.last_request is not None
                                  and app.state.last_request[1].target == wanted, 30)
            release.set()
            assert await wait_for(pilot, lambda: app.state.report is not None
                                  and app.state.report.function == final[1])
            # Nothing else is on its way to the worker: an analysis still due would have
            # been asked once the keys rested.
            await pilot.pause(ANALYSE_PAUSE + 0.25)
            # At most the held first one and the last one reached the worker (without the
            # debounce and the bridge's drop of superseded analyses: one per press, 21+).
            assert len(sent) <= 2 and sent[-1] == wanted, sent
            assert app.state.target == final
    finally:
        release.set()
