"""SVG snapshots of every view of the explorer, at a classroom's 80x24 and a wide 160x45,
without TensorFlow.

The worker's answers were saved once (tests/fixtures/answers.json, see tests/tui/answers.py)
and are replayed, so the screens depend neither on TensorFlow nor on the machine's speed.
Update with ``python -m pytest tests/tui/test_snapshots.py --snapshot-update`` and look at
the SVGs before committing them; when the model or the requests change, record the
answers again first (``AGX_RECORD_ANSWERS=1``, TensorFlow needed)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from conftest import ROOT, SAMPLES, fixture
from tests.tui.answers import ReplayWorker, save_recorded

TARGET = os.path.join(SAMPLES, "s6_2_bad_loop.py")
SIZES = [(80, 24), (160, 45)]


@pytest.fixture(scope="module", autouse=True)
def _save_recorded():
    yield
    save_recorded()


def make_app(function: str = "bad_loop"):
    from agexplorer.tui.app import AgxApp

    return AgxApp([TARGET], function, worker=ReplayWorker())


def program_app(tmp_path):
    """The explorer's program view of a recorded run (tests/fixtures/program.agxlog: the
    training script of tests/fixtures/record, its folder named by a placeholder)."""
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.program.actions import load_program

    log = tmp_path / "train.agxlog"
    with open(fixture("program.agxlog"), encoding="utf-8") as f:
        log.write_text(f.read().replace("$ROOT", ROOT), encoding="utf-8")
    program = load_program(str(log))
    return AgxApp(program.user_files(), None, worker=ReplayWorker(), program=program)


def tour_app(_):
    """The explorer on scratch copies of the samples, the tour open (``agexplorer tour``)."""
    from agexplorer.cli.common import samples_dir
    from agexplorer.state.scratch import scratch_copies
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.tour.opening import Opening

    return AgxApp(scratch_copies(samples_dir()), worker=ReplayWorker(),
                  program=Opening(scratch=True, tour=True))


async def until(pilot, condition: Callable[[], object], what: str) -> None:
    """Let the app run until ``condition()`` holds, then until its frame is drawn."""
    for _ in range(600):
        if condition():
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError(f"the explorer never showed {what}")
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def settle(pilot) -> None:
    app = pilot.app
    await until(pilot, lambda: app.state.report is not None and app.engine_ready
                and app.workspace_ready, "its first answer")
    # The doctor's answer too: its trials change the Control flow tab's fixes (FixesTried).
    await until(pilot, lambda: app.panes.doctor.generation == app.state.answered,
                "the doctor's answer")
    # ... as the verdict table shows them: refilled with them (again on a resize, laid out
    # at the new width). Steady: no change for 0.2 s.
    table = app.panes.verdicts
    await until(pilot, lambda: list(table.verdicts) == list(app.state.report.statements),
                "the verdict table's fill")
    seen, steady = None, 0
    for _ in range(100):
        now = (table.size, table.row_count, [table.get_row_at(i) for i in range(table.row_count)])
        steady = steady + 1 if now == seen else 0
        if steady >= 4:
            break
        seen = now
        await pilot.pause(0.05)


async def run_tab(pilot) -> None:
    await settle(pilot)
    await pilot.press("f5")
    await until(pilot, lambda: pilot.app.state.lab is not None, "the run")


async def doctor_tab(pilot) -> None:
    await settle(pilot)
    await until(pilot, lambda: pilot.app.query_one("#doctor-panel").findings, "the findings")
    await pilot.press("3")
    await until(pilot, lambda: pilot.app.panes.panels.active == "tab-doctor", "the Doctor tab")


async def graph_tab(pilot) -> None:
    await settle(pilot)
    await pilot.press("4")
    await until(pilot, lambda: pilot.app.panes.panels.active == "tab-graph", "the Graph tab")


async def trace_tab(pilot) -> None:
    await settle(pilot)
    await pilot.press("t")
    await until(pilot, lambda: pilot.app.trace_tab.report is not None, "the trace's calls")


async def passes_tab(pilot) -> None:
    await settle(pilot)
    await pilot.press("8")
    tab = pilot.app.panes.passes
    await until(pilot, lambda: tab.passes is not None, "AutoGraph's passes")


async def hlo_tab(pilot) -> None:
    await settle(pilot)
    await pilot.press("9")
    tab = pilot.app.panes.hlo
    await until(pilot, lambda: tab.hlo is not None, "the HLO")


async def help_screen(pilot) -> None:
    from agexplorer.tui.dialogs.help import HelpScreen

    await settle(pilot)
    await pilot.press("f1")
    await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")


async def cost_curve(pilot) -> None:
    app = pilot.app
    await settle(pilot)
    app.panes.verdicts.focus()
    await pilot.press("u")
    await until(pilot, lambda: app.panes.sweep_chart.sweep is not None, "the cost curve")


async def compare_disk(pilot) -> None:
    from agexplorer.tui.compare.screen import CompareScreen

    app = pilot.app
    await settle(pilot)
    row = app.source.text.splitlines().index("    i = 0", app.state.report.first_line - 1)
    app.source.replace("    i = tf.constant(0)", (row, 0), (row, 9))  # the loop stages
    await until(pilot, lambda: app.state.report is not None and app.state.generation > 1
                and app.state.answered == app.state.generation, "the edit's answer")
    app.action_compare_disk()
    await until(pilot, lambda: isinstance(app.screen, CompareScreen)
                and app.screen.comparison is not None, "the comparison")


async def program_view(pilot) -> None:
    from agexplorer.tui.program.screen import ProgramScreen

    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, ProgramScreen)
                and app.screen.statements.row_count > 0, "the recorded run")


async def tour_step(pilot) -> None:
    app = pilot.app
    await until(pilot, lambda: app.query("TourPanel") and app.state.report is not None
                and app.engine_ready, "the tour's first sample")
    panel = app.query_one("TourPanel")
    await pilot.press("enter")  # the step's action: its result highlighted
    await until(pilot, lambda: bool(panel.result_text), "the step's result")


VIEWS: dict[str, tuple[str | Callable[..., Any], Callable[..., Awaitable[None]]]] = {
    "main": ("bad_loop", settle),
    "run": ("bad_loop", run_tab),
    "doctor": ("bad_loop", doctor_tab),
    "graph": ("bad_loop", graph_tab),
    "trace": ("bad_loop", trace_tab),
    "passes": ("bad_loop", passes_tab),
    "hlo": ("bad_loop", hlo_tab),
    "help": ("bad_loop", help_screen),
    "cost_curve": ("range_loop", cost_curve),
    "compare": ("bad_loop", compare_disk),
    "program": (program_app, program_view),
    "tour": (tour_app, tour_step),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("view", list(VIEWS))
def test_each_view_at_each_size(snap_compare, view, size, tmp_path):
    opened, drive = VIEWS[view]
    app = make_app(opened) if isinstance(opened, str) else opened(tmp_path)
    assert snap_compare(app, terminal_size=size, run_before=drive)


# The screens the first snapshots held (issue 13): the list folded and the panes stacked at
# 80x24, the panels as tall as the code at 200x60; presentation mode with its larger emphasis.
def test_main_screen(snap_compare):
    assert snap_compare(make_app(), terminal_size=(150, 42), run_before=settle)


def test_run_tab(snap_compare):
    assert snap_compare(make_app(), terminal_size=(150, 42), run_before=run_tab)


def test_doctor_tab(snap_compare):
    assert snap_compare(make_app(), terminal_size=(150, 42), run_before=doctor_tab)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
def test_main_screen_at_each_size(snap_compare, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=settle)


def test_presentation_mode(snap_compare):
    async def present(pilot) -> None:
        await settle(pilot)
        await pilot.press("f12")
        await until(pilot, lambda: pilot.app.state.lab is not None, "the run")

    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=present)
