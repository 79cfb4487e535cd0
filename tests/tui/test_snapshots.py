"""SVG snapshots of the main screens, from a fixed report and fixed timings.

The engine's answer is computed once in this process and replayed by a stand-in
worker, so that the screens do not depend on the machine's speed. Update with
``python -m pytest tests/tui/test_snapshots.py --snapshot-update`` and look at
the SVGs before committing them.
"""

from __future__ import annotations

import os

import pytest

from agexplorer.model.lab import ModeRun, RunLab
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import (
    DevicesRequest,
    DoctorRequest,
    PingRequest,
    ReportRequest,
)
from conftest import SAMPLES

pytestmark = pytest.mark.tf
TARGET = os.path.join(SAMPLES, "s6_2_bad_loop.py")


class ReplayWorker(Worker):
    """Answers like the TensorFlow worker, from a prepared report and run lab."""

    def __init__(self, report, lab, doctor) -> None:
        super().__init__()
        self.answer = {"report": report, "lab": lab}
        self.doctor = doctor

    def request(self, req, **_):
        if isinstance(req, PingRequest):
            return "pong"
        if isinstance(req, DevicesRequest):
            return [{"name": "/device:CPU:0", "type": "CPU"}]
        if isinstance(req, DoctorRequest):
            return self.doctor
        assert isinstance(req, ReportRequest), req
        return {"report": self.answer["report"],
                "lab": None if req.no_run else self.answer["lab"]}

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def replay(report):
    rep = report(f"{TARGET}::bad_loop")
    rep.timings = {k: 0.01 for k in rep.timings}
    runs = {
        "eager": ModeRun(ok=True, result="5", first_call_s=4e-6, median_s=2e-7, min_s=2e-7,
                         max_s=3e-7, calls=2_000_000, ran_on=None),
        "graph": ModeRun(ok=True, result="int32[] 5", first_call_s=0.016, median_s=2.2e-4,
                         min_s=2.1e-4, max_s=2.7e-4, calls=4899, tracing_count=1,
                         ran_on="/job:localhost/replica:0/task:0/device:CPU:0"),
        "xla": ModeRun(ok=True, result="int32[] 5", first_call_s=0.013, median_s=1.6e-4,
                       min_s=1.5e-4, max_s=1.7e-4, calls=7083, tracing_count=1,
                       ran_on="/job:localhost/replica:0/task:0/device:CPU:0"),
    }
    lab = RunLab(device="/device:CPU:0", runs=runs, speedup={"graph": 0.001, "xla": 0.001},
                 results_match=True, tracing_count=1, budget_s=0.5)
    from agexplorer.doctor.checks import diagnose

    return ReplayWorker(rep, lab, diagnose(f"{TARGET}::bad_loop", report=rep))


def make_app(replay):
    from agexplorer.tui.app import AgxApp

    return AgxApp([TARGET], "bad_loop", worker=replay)


async def settle(pilot) -> None:
    app = pilot.app
    for _ in range(200):
        if app.report is not None and app.engine_ready:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


def test_main_screen(snap_compare, replay):
    assert snap_compare(make_app(replay), terminal_size=(150, 42), run_before=settle)


def test_run_tab(snap_compare, replay):
    async def run(pilot) -> None:
        await settle(pilot)
        await pilot.press("f5")
        for _ in range(100):
            if pilot.app.lab is not None:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)

    assert snap_compare(make_app(replay), terminal_size=(150, 42), run_before=run)


def test_doctor_tab(snap_compare, replay):
    async def doctor(pilot) -> None:
        await settle(pilot)
        for _ in range(100):
            if pilot.app.query_one("#doctor-panel").findings:
                break
            await pilot.pause(0.05)
        pilot.app.query_one("#panels").active = "tab-doctor"
        await pilot.pause(0.3)

    assert snap_compare(make_app(replay), terminal_size=(150, 42), run_before=doctor)


# Every terminal size (issue 13): the list folded and the panes stacked at 80x24, the
# panels as tall as the code at 200x60; presentation mode with its larger emphasis.
@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
def test_main_screen_at_each_size(snap_compare, replay, size):
    assert snap_compare(make_app(replay), terminal_size=size, run_before=settle)


def test_presentation_mode(snap_compare, replay):
    async def present(pilot) -> None:
        await settle(pilot)
        await pilot.press("f12")
        for _ in range(100):
            if pilot.app.lab is not None:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)

    assert snap_compare(make_app(replay), terminal_size=(120, 40), run_before=present)
