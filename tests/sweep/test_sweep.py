"""The sweep on the unrolled sample: fitted ops per unit equal the body's ops; the staged line is flat."""

from __future__ import annotations

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.sweep.sweep import run_sweep
from conftest import sample

pytestmark = pytest.mark.tf

SAMPLE = sample("s6_2_bad_loop.py")


@pytest.fixture(scope="module")
def auto(tf):
    """range_loop swept as `agexplorer sweep` does without --vary (its call is range_loop(5))."""
    return run_sweep(f"{SAMPLE}::range_loop", at=100_000, run=False)


def test_the_fitted_ops_per_unit_are_the_loop_body_s_op_count(auto, report, tf):
    # Counted independently: the report's verdict for the loop (its ops over its iterations),
    # and the difference between plain traces at n and n + 1.
    [loop] = [v for v in report(f"{SAMPLE}::range_loop").statements if v.kind == "for"]
    body = loop.ops_created // loop.iterations
    import importlib.util

    spec = importlib.util.spec_from_file_location("agx_sweep_sample", SAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def ops(n):
        return len(module.range_loop.get_concrete_function(n).graph.get_operations())

    assert body == ops(8) - ops(7) == 2
    assert auto.fit.ops_per_unit == body
    assert [p.op_count for p in auto.points] == [ops(p.value) for p in auto.points]


def test_without_vary_it_picks_the_argument_that_drives_the_loop(auto):
    assert auto.vary == "n"
    assert auto.loop_line == 38
    assert [p.value for p in auto.points] == [1, 2, 5]
    assert "n=5 equals the 5 iterations of the loop at line 38" in auto.note
    assert all(p.first_call_s is None and p.call_s is None for p in auto.points)  # run=False


def test_at_extrapolates_the_line(auto):
    at = auto.fit.at
    assert at.value == 100_000
    assert at.ops == 2 * 100_000 + auto.fit.ops_fixed
    assert at.trace_s == pytest.approx(auto.fit.trace_s_fixed + auto.fit.trace_s_per_unit * 100_000)


def test_the_staged_rewrite_is_a_flat_line(auto):
    staged = auto.staged
    assert staged.code == "AGX004" and "tf.range" in staged.description
    counts = {p.op_count for p in staged.points}
    assert len(counts) == 1 and None not in counts
    assert staged.fit.ops_per_unit == 0
    assert auto.thresholds["INEFFICIENT_UNROLL_MIN_ITERATIONS"] > 0


def test_a_while_on_a_python_int_sweeps_flat_and_stages_through_its_counter(tf):
    # bad_loop's body adds no ops (its result folds to a constant); the loop's own rewrite
    # comes first (AGX004: its counter started as a tensor, `i = tf.constant(0)`), before
    # the call's (AGX009: n passed as a tensor).
    sweep = run_sweep(f"{SAMPLE}::bad_loop", vary="n", values=(3, 30), run=True, budget=0.01)
    assert [p.value for p in sweep.points] == [3, 30]
    assert sweep.fit.ops_per_unit == 0
    assert all(p.call_s is not None and p.first_call_s is not None for p in sweep.points)
    assert sweep.staged.code == "AGX004"
    assert sweep.staged.fit.ops_per_unit == 0
    assert all(p.op_count is not None for p in sweep.staged.points)


def test_a_value_that_does_not_fit_the_time_box_is_not_traced(tf):
    sweep = run_sweep(f"{SAMPLE}::range_loop", vary="n", values=(1, 2, 5000), run=False,
                      timeout=1e-6, staged=False)
    last = sweep.points[-1]
    assert last.op_count is None and last.error.startswith("not traced")


@pytest.mark.parametrize(("vary", "said"), [
    ("m", "--vary m: range_loop has no parameter 'm' (its parameters: n)."),
])
def test_an_unknown_parameter_is_one_sentence(tf, vary, said):
    with pytest.raises(AgxError) as caught:
        run_sweep(f"{SAMPLE}::range_loop", vary=vary, values=(1, 2))
    assert caught.value.message == said and caught.value.exit_code == 2


def test_a_tensor_argument_cannot_be_varied(tf):
    with pytest.raises(AgxError) as caught:
        run_sweep(f"{SAMPLE}::fixed_loop", vary="n", values=(1, 2))
    assert "the call passes n a" in caught.value.message
    assert "not a Python int" in caught.value.message


def test_a_loop_without_unrolling_asks_for_vary(tf):
    with pytest.raises(AgxError) as caught:
        run_sweep(f"{SAMPLE}::tf_range_loop")
    assert caught.value.message.startswith("the trace unrolled no loop; name the Python "
                                           "argument to vary")


def test_a_rewrite_that_fails_to_trace_is_said_with_what_to_do(tf, tmp_path):
    # x ** k with k a tf.range counter: int32 meets float32. It read "the doctor has no
    # rewrite for this loop", where the doctor had one and tried it.
    path = tmp_path / "powers.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef poly(x, degree):\n"
                    "    total = tf.zeros_like(x)\n    for k in range(degree):\n"
                    "        total += x ** k\n    return total\n\n\n"
                    "AGX_CALLS = {'poly': 'tf.constant([0.5, 2.0]), 4'}\n")
    sweep = run_sweep(f"{path}::poly", vary="degree", values=(1, 2), run=False)
    assert sweep.staged is None
    assert "No staged alternative: the body does not work with a tensor counter" in sweep.note
    assert "Tried: the rewrite fails to trace (line 8 raises TypeError" in sweep.note
