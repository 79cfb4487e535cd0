"""The sweep's arithmetic and argument parsing, without TensorFlow: exact lines, predictions, --vary."""

from __future__ import annotations

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.model.sweep import SweepPoint
from agexplorer.sweep.fit import fit_points, line, predicted_trace_s
from agexplorer.sweep.vary import parse_vary, spread


def points(ops_per: int, fixed: int, values=(10, 100, 1000), trace_per=0.001, trace_fixed=0.02):
    return [SweepPoint(v, fixed + ops_per * v, trace_fixed + trace_per * v, call_s=1e-4 * v)
            for v in values]


def test_an_exact_line_is_fitted_exactly():
    fit = fit_points(points(4, 3), at=100_000)
    assert (fit.ops_per_unit, fit.ops_fixed) == (4.0, 3.0)
    assert fit.trace_s_per_unit == pytest.approx(0.001)
    assert fit.trace_s_fixed == pytest.approx(0.02)
    assert fit.call_s_per_unit == pytest.approx(1e-4)
    assert fit.at.value == 100_000
    assert fit.at.ops == 400_003
    assert fit.at.trace_s == pytest.approx(100.02)
    assert fit.points == 3


def test_least_squares_on_scattered_points():
    slope, intercept = line([0, 1, 2, 3], [1, 3, 2, 4])
    assert (slope, intercept) == (pytest.approx(0.8), pytest.approx(1.3))
    with pytest.raises(ValueError):
        line([5, 5], [1, 2])


def test_a_flat_line_and_too_few_points():
    flat = fit_points(points(0, 40))
    assert (flat.ops_per_unit, flat.ops_fixed) == (0.0, 40.0)
    assert fit_points([SweepPoint(10, 22, 0.1)]) is None
    skipped = [SweepPoint(10, 22, 0.1), SweepPoint(100, None, None, error="not traced")]
    assert fit_points(skipped) is None


def test_a_trace_is_predicted_from_the_values_before_it():
    assert predicted_trace_s([], 10) is None
    assert predicted_trace_s([SweepPoint(10, 22, 0.5)], 100) == pytest.approx(5.0)
    two = [SweepPoint(10, 22, 0.03), SweepPoint(100, 202, 0.12)]
    assert predicted_trace_s(two, 20_000) == pytest.approx(0.02 + 0.001 * 20_000)


def test_values_spread_over_two_orders_of_magnitude():
    assert spread(20_000) == (200, 2000, 20_000)
    assert spread(5) == (1, 2, 5)
    assert spread(1) == (1,)


@pytest.mark.parametrize(("text", "said"), [
    ("n", "--vary takes a parameter name and its values, NAME=V1,V2,..."),
    ("=1,2", "--vary takes a parameter name and its values"),
    ("n=1,two", "--vary n= takes whole numbers separated by commas"),
    ("n=", "--vary n= names no values"),
    ("n=-3,4", "--vary n= takes counts of 0 or more, not -3."),
])
def test_bad_vary_is_one_sentence(text, said):
    with pytest.raises(AgxError) as caught:
        parse_vary(text)
    assert said in caught.value.message
    assert caught.value.exit_code == 2
    assert "\n" not in caught.value.message and caught.value.message.endswith(".")


def test_vary_values_are_sorted_and_distinct():
    assert parse_vary("n=1000, 10,100,10") == ("n", (10, 100, 1000))


def test_the_command_line_refuses_a_bad_vary_before_any_worker(capsys):
    from agexplorer.cli import main

    code = main(["sweep", "samples/s6_2_bad_loop.py::range_loop", "--vary", "n=ten"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("agexplorer: --vary n= takes whole numbers")
    assert "Traceback" not in err


def test_pick_takes_the_loop_at_the_line_asked_for_not_the_largest():
    import inspect
    from types import SimpleNamespace

    import pytest

    from agexplorer.model.errors import AgxError
    from agexplorer.model.report import is_unrolled
    from agexplorer.sweep.vary import pick

    def fn(n, m):
        return n, m

    def loop(line, iterations, name):
        return SimpleNamespace(kind="for", verdict="python", iterations=iterations, line=line,
                               names=[SimpleNamespace(name=name)],
                               unrolled=is_unrolled("for", "python", iterations))

    loops = [loop(3, 50, "n"), loop(7, 4, "m")]
    bound = inspect.signature(fn).bind(50, 4)
    assert pick(loops, bound, fn)[:3] == ("n", 50, 3)  # the largest by default
    assert pick(loops, bound, fn, line=7)[:3] == ("m", 4, 7)
    with pytest.raises(AgxError, match="no loop at line 5"):
        pick(loops, bound, fn, line=5)


# -- a tracing time within noise is never a cost (issue 22) ------------------------------------

def _timed(traces, values=(1, 2, 5)):
    return [SweepPoint(v, 10 + 2 * v, t) for v, t in zip(values, traces, strict=True)]


def test_a_falling_trace_time_is_flat_within_noise_never_a_negative_cost():
    from agexplorer.render.sweep import fit_words

    fit = fit_points(_timed([5.2e-3, 5.1e-3, 4.85e-3]), at=100_000)
    assert fit.trace_s_measured_per_unit < 0  # what the least squares made of the scatter
    assert fit.trace_within_noise and fit.trace_s_per_unit == 0.0
    assert fit.trace_s_fixed == pytest.approx(5.05e-3)  # the mean trace
    assert fit.at.trace_s == pytest.approx(5.05e-3)  # the extrapolation stays flat too
    assert fit.ops_per_unit == 2  # ops are counted, not timed: exact as ever
    words = fit_words(fit, "n")
    assert words == ("each unit of n adds 2 ops (fixed: 10 ops); tracing time does not grow "
                     "measurably with n (within noise: about 5.05 ms a trace)")
    assert "-" not in words
    assert fit.to_dict()["trace_within_noise"] is True


def test_a_rising_slope_whose_interval_includes_zero_is_within_noise():
    fit = fit_points(_timed([5.0e-3, 5.4e-3, 5.2e-3]))
    assert fit.trace_s_measured_per_unit > 0 and fit.trace_s_per_unit_se > 0
    assert fit.trace_within_noise and fit.trace_s_per_unit == 0.0


def test_real_growth_with_scatter_is_measured():
    # 0.1 ms per unit over 200..20,000, each trace 2% off the line.
    traces = [(0.005 + 1e-4 * v) * (1 + e) for v, e in zip((200, 2000, 20_000), (0.02, -0.02, 0.02),
                                                          strict=True)]
    fit = fit_points(_timed(traces, (200, 2000, 20_000)))
    assert not fit.trace_within_noise
    assert fit.trace_s_per_unit == pytest.approx(1e-4, rel=0.05)


def test_two_values_grow_only_past_a_traces_jitter():
    flat = fit_points(_timed([5.0e-3, 5.2e-3], (10, 20)))
    assert flat.trace_within_noise and flat.trace_s_per_unit_se is None
    grows = fit_points(_timed([5.0e-3, 5.0e-2], (10, 100)))
    assert not grows.trace_within_noise and grows.trace_s_per_unit == pytest.approx(5e-4)


def test_the_explorers_sentence_says_within_noise_too():
    from agexplorer.model.sweep import Sweep
    from agexplorer.tui.sweep.chart import fit_sentence

    points = tuple(_timed([5.2e-3, 5.1e-3, 4.85e-3]))
    sentence = fit_sentence(Sweep("f.py", "range_loop", "n", points, fit_points(points)))
    assert sentence == "each n adds 2 ops; tracing time does not grow measurably with n " \
                       "(within noise)"
