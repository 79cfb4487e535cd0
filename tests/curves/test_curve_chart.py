"""The curves as text (render/curves.py): one column per step, the y axis's extremes, the
steps under the x axis, a log scale for values that span decades, every size respected."""

from __future__ import annotations

import math

import pytest

from agexplorer.model.curves import Curves, Series
from agexplorer.render.curves import curves_chart, curves_words, number, series_chart

# The sample's own 20 epochs (rounded): the loss spans more than two decades, the rate halves.
LOSS = [50.87, 7.444, 14.09, 66.23, 57.70, 52.99, 48.00, 41.06, 31.46, 20.24, 10.87, 5.303,
        2.729, 1.599, 1.029, 0.6964, 0.4923, 0.3677, 0.2886, 0.2356]
LR = [0.1, 0.1, 0.05] + [0.025] * 17


def plot(lines: list[str]) -> list[str]:
    """The plot's rows: what is right of the y axis (after the title, before the x axis)."""
    return [line.split("┤" if "┤" in line else "│", 1)[1] for line in lines[1:-2]]


def column_rows(lines: list[str]) -> list[list[int]]:
    """For each column of the plot, the rows (0 at the top) with a point."""
    rows = plot(lines)
    width = max(len(r) for r in rows)
    return [[i for i, r in enumerate(rows) if c < len(r) and r[c] == "•"] for c in range(width)]


def test_one_column_per_step_and_a_point_at_each_steps_height():
    values = [float(v) for v in (3, 1, 4, 1, 5, 9, 2, 6)]
    lines = series_chart(Series("pi", values), width=60, height=12)  # 9 rows: 0..8 exactly
    assert len(lines) == 12 and lines[0] == "pi: 3 → 6"
    columns = column_rows(lines)
    assert len(columns) == len(values)
    # Linear: value 9 at the top row, 1 at the bottom, the others in proportion.
    assert [c for [c] in columns] == [round((9 - v) / 8 * 8) for v in values]


def test_the_y_axis_is_labelled_with_the_largest_and_smallest_value():
    lines = series_chart(Series("lr", LR), width=60, height=8)
    assert lines[1] == "  0.1 ┤••"  # the largest, at the top, right-aligned with the other
    assert lines[-3] == "0.025 ┤   " + "•" * 17  # the smallest, at the bottom (step 3: above)
    assert all(line.startswith("      │") for line in lines[2:-3])  # no label between


def test_the_steps_are_labelled_under_their_ticks():
    lines = series_chart(Series("lr", LR), width=60, height=8)
    axis, labels = lines[-2:]
    assert axis == "      └┬───┬────┬────┬────┬ step"
    assert labels == "       1   5    10   15   20"
    for label in labels.split():
        assert axis[labels.index(f" {label}") + 1] == "┬", label


def test_values_over_more_than_two_decades_are_drawn_on_a_log_scale():
    decades = [1.0, 10.0, 100.0, 1000.0]
    lines = series_chart(Series("loss", decades), width=40, height=7)  # 4 rows
    assert lines[0] == "loss: 1 → 1e+03 (log scale)"
    assert column_rows(lines) == [[3], [2], [1], [0]]  # a decade a row: a straight line
    linear = series_chart(Series("loss", decades), width=40, height=7, log=False)
    assert "log" not in linear[0]
    assert column_rows(linear) == [[3], [3], [3], [0]]  # 1, 10 and 100 all near the bottom
    # The homework's loss spans 66.2 / 0.2355 = 281: log scale on its own.
    assert series_chart(Series("loss", LOSS), 80, 12)[0] == "loss: 50.9 → 0.236 (log scale)"
    # Never a log scale with a value at or below zero, even when asked.
    assert "log" not in series_chart(Series("x", [-1.0, 1000.0]), 40, 7, log=True)[0]


def test_more_steps_than_columns_share_a_column_each_drawn_as_its_range():
    values = [0.0 if i % 2 else 9.0 for i in range(300)]
    lines = series_chart(Series("saw", values), width=50, height=8)
    assert lines[0] == "saw: 9 → 0 (7 steps a column)"
    assert all(len(line) <= 50 for line in lines)
    columns = column_rows(lines)
    assert len(columns) == math.ceil(300 / 7)
    assert columns[0] == [0, 4]  # both values, at the top and the bottom row
    assert [row[0] for row in plot(lines)] == ["•", "│", "│", "│", "•"]  # and the range between


def test_values_that_are_not_finite_are_left_out_and_counted():
    lines = series_chart(Series("loss", [2.0, math.nan, 1.0, math.inf]), 40, 6)
    assert lines[0] == "loss: 2 → inf, 2 not finite (not drawn)"
    assert [len(c) for c in column_rows(lines)] == [1, 0, 1]
    assert number(math.nan) == "nan" and number(0.02500001) == "0.025"


def homework(*series: Series) -> Curves:
    return Curves(file="/p/s7_3_homework.py", function="train_step", call="x_train, y_train",
                  call_origin="AGX_CALLS", steps=20, done=20, series=list(series),
                  elapsed_s=0.18)


@pytest.mark.parametrize("width, height", [(80, 24), (80, 12), (120, 40), (40, 12),
                                           (60, 8), (30, 5), (200, 60)])
def test_every_size_is_kept_to(width, height):
    lines = curves_chart(homework(Series("loss", LOSS), Series("lr", LR)), width, height)
    assert len(lines) <= height and all(len(line) <= width for line in lines)
    said = "\n".join(lines)
    assert "loss: 50.9" in said
    if height > 5:  # room for a line more than the fewest a chart takes: lr, or its name
        assert "lr: 0.1" in said or "not shown, for want of room: lr" in said


def test_two_charts_stand_side_by_side_when_stacked_they_would_be_too_short():
    lines = curves_chart(homework(Series("loss", LOSS), Series("lr", LR)), 80, 12)
    assert lines[0].startswith("loss: 50.9 → 0.236 (log scale)") and "lr: 0.1 → 0.025" in lines[0]
    stacked = curves_chart(homework(Series("loss", LOSS), Series("lr", LR)), 80, 25)
    assert stacked[0] == "loss: 50.9 → 0.236 (log scale)" and "" in stacked
    assert stacked[stacked.index("") + 1] == "lr: 0.1 → 0.025"


def test_the_words_say_what_was_called_what_failed_and_what_was_left_out():
    curves = Curves(file="/p/m.py", function="step", call="x", call_origin="--call",
                    steps=10, done=3, series=[Series("loss", [3.0, 2.0, 1.0])],
                    notes=["grads is a tensor of shape [4], not a scalar: left out of the "
                           "chart."], error="/p/m.py:9: step 4 of 10, step(x), raised "
                           "ValueError: no", elapsed_s=0.0123)
    assert curves_words(curves) == [
        "step(x) [--call]: 3 of 10 steps in 12.30 ms, one load of the module (its state "
        "carried from step to step).",
        "/p/m.py:9: step 4 of 10, step(x), raised ValueError: no",
        "grads is a tensor of shape [4], not a scalar: left out of the chart."]
    assert curves.failed_step == 4 and homework().failed_step is None
    assert curves_chart(homework(), 80, 24) == []  # nothing returned: nothing drawn
