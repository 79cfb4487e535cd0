"""The unroll cost curve: the chart widget on a hand-built sweep, and `u` in the Control flow tab."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region

from agexplorer.model.sweep import Extrapolation, Fit, StagedSweep, Sweep, SweepPoint
from agexplorer.tui.sweep.chart import SweepChart
from agexplorer.tui.sweep.view import extrapolate_to, values_for
from conftest import explorer, sample, wait_for

LIMITS = {"INEFFICIENT_UNROLL_MIN_ITERATIONS": 50_000, "INEFFICIENT_UNROLL_MIN_OPS": 1,
          "PYTHON_MAX_ITERATIONS": 100_000_000}


def hand_built(at: int | None = 100_000) -> Sweep:
    """range_loop's sweep as the worker makes it: 2 ops and 1 ms per n, a flat staged line."""
    points = tuple(SweepPoint(v, 2 * v + 2, 0.005 + 0.001 * v) for v in (10, 100, 1000))
    staged = StagedSweep("AGX004", "range(...) -> tf.range(...)",
                         tuple(SweepPoint(v, 40, 0.02) for v in (10, 100, 1000)),
                         Fit(0.0, 40.0, 0.0, 0.02, points=3))
    fit = Fit(2.0, 2.0, 0.001, 0.005, points=3,
              at=None if at is None else Extrapolation(at, 2.0 * at + 2, 0.001 * at + 0.005))
    return Sweep("loops.py", "range_loop", "n", points, fit, staged, LIMITS, loop_line=38)


class ChartApp(App):
    def compose(self) -> ComposeResult:
        yield SweepChart(id="chart")


async def shown(sweep: Sweep, size: tuple[int, int]) -> str:
    """The chart's text as it is on a screen of ``size``."""
    app = ChartApp()
    async with app.run_test(size=size) as pilot:
        chart = app.query_one(SweepChart)
        chart.show(sweep)
        await pilot.pause()
        strips = chart.render_lines(Region(0, 0, *chart.outer_size))
        return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips)


def words(text: str) -> str:
    """The chart's sentences with their wrapping undone."""
    return " ".join(text.split())


@pytest.mark.parametrize("size", [(80, 10), (160, 30)])
async def test_the_chart_labels_the_values_the_staged_line_and_autograph_s_warning(size):
    text = await shown(hand_built(), size)
    said = words(text)
    assert "each n adds 2 ops and 1.00 ms of tracing" in said
    assert "at n=100,000 about 200,000 ops and 100.00 s of tracing (estimated)" in said
    assert "staged (AGX004" in text and "━" in text  # the flat line and its name
    assert "AutoGraph warns past 50,000" in said  # in range: 10 .. 100,000
    assert "AutoGraph stops" not in text  # 100,000,000: past the estimate, not in range
    axis = [line for line in text.splitlines() if "ops└" in line]
    assert len(axis) == 1 and all(v in axis[0] for v in ("10", "100", "1k", "100k"))
    assert "●" in text and "◆" in text  # the traced values and the estimate
    # Trace time beside ops from 60 columns; the room is used at 160x30.
    assert "trace└" in text
    assert len(text.splitlines()) == size[1]
    if size == (160, 30):
        assert "range(...) -> tf.range(...)" in said and "(the loop at line 38)" in said


async def test_a_limit_out_of_range_is_not_marked_and_a_narrow_chart_keeps_the_ops():
    text = await shown(hand_built(at=None), (50, 12))
    assert "AutoGraph warns" not in text and "┊" not in text  # 50,000 is past 1,000
    assert "◆" not in text and "estimated" not in text
    assert "ops└" in text and "trace└" not in text  # one chart under 60 columns


async def test_a_sweep_without_a_fit_says_why_instead_of_a_chart():
    sweep = Sweep("loops.py", "range_loop", "n", (SweepPoint(10, 22, 0.01),), None,
                  note="No fit: fewer than two values were traced.")
    text = await shown(sweep, (80, 10))
    assert "No fit: fewer than two values were traced." in words(text) and "ops└" not in text


def test_the_estimate_and_the_values_the_view_asks_for():
    assert extrapolate_to(5) == 100_000 and extrapolate_to(20_000) == 10_000_000
    assert values_for(5) == (10, 100, 1000) and values_for(500) is None  # the worker's own


@pytest.mark.tf
async def test_u_on_an_unrolled_loop_shows_its_cost_curve(worker):
    app = explorer(sample("s6_2_bad_loop.py"), worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        chart = app.panes.sweep_chart
        assert not app.sweeps.shown
        app.panes.verdicts.focus()
        await pilot.press("u")
        assert app.sweeps.shown and app.panes.panels.active == "tab-flow"
        assert await wait_for(pilot, lambda: chart.sweep is not None, 120)
        sweep = chart.sweep
        assert sweep.vary == "n" and sweep.loop_line == 38
        assert sweep.fit is not None and round(sweep.fit.ops_per_unit) == 2
        strips = chart.render_lines(Region(0, 0, *chart.outer_size))
        text = words(" ".join("".join(seg.text for seg in strip) for strip in strips))
        assert "each n adds 2 ops" in text and "staged (AGX004" in text
        assert "Cost of n in range_loop(5) [AGX_CALLS]" in text  # the call it varied
        await pilot.press("u")  # the same key hides it
        assert not app.sweeps.shown
        await pilot.press("u")  # and shows the cached sweep again: no second request
        assert app.sweeps.shown and app.sweeps.pending is None and chart.sweep is sweep
        # An edit: the chart is marked out of date, and the next u sweeps the new buffer.
        app.source.insert("# an edit\n", (0, 0))
        assert await wait_for(pilot, lambda: chart.has_class("stale"))
        await pilot.press("escape")
        assert not app.sweeps.shown
        app.panes.verdicts.focus()
        await pilot.press("u")
        # A second sweep, of the edited buffer, at the loop's new line (the key waits for the
        # edit's verdicts when it is pressed before them: the rows' lines were the old ones).
        assert await wait_for(pilot, lambda: chart.sweep not in (None, sweep)
                              and not chart.has_class("stale"), 120), (
            str(app.status_line.render()), str(chart.message))
        assert chart.sweep.loop_line == 39 and app.sweeps.shown


@pytest.mark.tf
async def test_u_on_a_staged_loop_says_there_is_nothing_to_sweep(worker):
    app = explorer(sample("s6_2_bad_loop.py"), worker, "tf_range_loop")
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.panes.verdicts.focus()
        await pilot.press("u")
        assert not app.sweeps.shown and app.sweeps.pending is None
        assert app.status_line.text.startswith("Nothing to sweep: the for at line 47 is "
                                               "staged in the graph")


@pytest.mark.tf
async def test_u_after_an_edit_that_does_not_trace_says_so(worker):
    app = explorer(sample("s6_2_bad_loop.py"), worker, "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.source.insert("def broken(:\n", (0, 0))  # a syntax error: the analysis fails
        assert await wait_for(pilot, lambda: app.panes.verdicts.has_class("stale")
                              and app.state.analysed_text == app.source.text)
        app.panes.verdicts.focus()
        await pilot.press("u")
        assert not app.sweeps.shown and app.sweeps.waiting is None
        assert app.status_line.text.startswith("Nothing to sweep: your edit did not trace")
