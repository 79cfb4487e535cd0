"""AutoGraph's conversion pass by pass: every sample's steps in the transpiler's order, the last one
equal to to_code, the diffs where a converter must act, the worker on a buffer and the CLI."""

from __future__ import annotations

import json
import os

import pytest

from agexplorer.model.errors import AgxError
from conftest import SAMPLES, run_cli, sample

pytestmark = pytest.mark.tf

# The order TensorFlow 2.21's PyToTF.transform_ast applies them; asserts, lists and slices run only
# with optional features that to_code and tf.function leave off.
APPLIED = ["source", "functions", "directives", "break_statements", "continue_statements",
           "return_statements", "call_trees", "control_flow", "conditional_expressions",
           "logical_expressions", "variables"]


@pytest.fixture(scope="module")
def converted(tf):
    """Every sample function AutoGraph converts: target -> (Passes, to_code's text, function)."""
    from agexplorer.engine.load import load_target
    from agexplorer.engine.passes import conversion_passes
    from agexplorer.source.targets import list_functions, parse_source, read_source

    found = {}
    for name in sorted(os.listdir(SAMPLES)):
        if not name.endswith(".py"):
            continue
        path = sample(name)
        for function in list_functions(parse_source(path, read_source(path))):
            target = f"{path}::{function.qualname}"
            loaded = load_target(target, require_args=False)
            try:
                passes, to_code = conversion_passes(loaded.pyfn, path)
            except AgxError as exc:
                assert exc.kind == "conversion-failed"  # refused: not a sample that converts
                continue
            found[f"{name}::{function.qualname}"] = (passes, to_code, loaded.pyfn)
    return found


def test_every_sample_function_converts_in_the_transpilers_order(converted):
    assert len(converted) >= 20  # all the lesson's functions: none refused on this release
    for target, (passes, _, _) in converted.items():
        assert [s.name for s in passes.steps] == APPLIED, target
        assert passes.skipped == ("asserts", "lists", "slices")
        assert all(s.note for s in passes.steps)
        assert passes.steps[0].diff == ""


def test_the_last_step_is_what_to_code_prints(tf, converted):
    from agexplorer.engine import tf_internals
    from agexplorer.engine.passes import as_to_code

    for target, (passes, to_code, function) in converted.items():
        # The only normalisation: the transpiler renames f to tf__f after the last pass.
        name = f"tf__{function.__name__}"
        assert as_to_code(passes.steps[-1].code, name) + "\n" == to_code, target
        # ... and that text is what the public API prints for a fresh conversion.
        tf_internals.evict_conversion(function)
        assert tf.autograph.to_code(function) == to_code, target


def test_the_first_step_is_the_parsed_source(converted):
    passes = converted["s6_2_bad_loop.py::range_loop"][0]
    assert passes.steps[0].code == ("@tf.function\ndef range_loop(n):\n    s = tf.constant(0)\n"
                                    "    for i in range(n):\n        s += i\n    return s")


def test_control_flow_rewrites_a_for_loop_and_idle_converters_say_nothing(converted):
    steps = {s.name: s for s in converted["s6_2_bad_loop.py::range_loop"][0].steps}
    flow = steps["control_flow"]
    assert "-        for i in ag__.converted_call(range, (n,), None, fscope):" in flow.diff
    assert any(line.startswith("+") and "ag__.for_stmt(" in line for line in flow.diff.splitlines())
    assert flow.diff.startswith("--- call_trees\n+++ control_flow\n@@")
    for idle in ("directives", "break_statements", "continue_statements",
                 "conditional_expressions", "logical_expressions"):
        assert steps[idle].diff == "" and not steps[idle].changed, idle
    # The lines the pass added are the ones its diff marks with "+".
    lines = flow.code.splitlines()
    marked = [lines[n - 1] for n in sorted(flow.changed_lines())]
    assert any("ag__.for_stmt(" in line for line in marked)
    assert not any(line.strip() == "s += i" for line in marked)  # kept, only moved


def test_a_while_loop_and_a_conditional_get_their_operators(converted):
    flow = {s.name: s for s in converted["s6_2_bad_loop.py::bad_loop"][0].steps}["control_flow"]
    assert "+        ag__.while_stmt(loop_test, loop_body, get_state, set_state" in flow.diff
    steps = {s.name: s for s in converted["s4_4_autograph.py::conditional_function"][0].steps}
    assert "ag__.if_stmt(" in steps["control_flow"].diff


def test_to_dict_has_the_issues_shape(converted):
    data = converted["s6_2_bad_loop.py::bad_loop"][0].to_dict()
    assert set(data) == {"file", "function", "steps", "skipped"}
    assert [set(step) for step in data["steps"]] == [{"name", "note", "code", "diff"}] * 11
    json.dumps(data)


def test_a_moved_converter_is_one_sentence(tf, monkeypatch):
    from agexplorer.engine import tf_internals
    from agexplorer.engine.passes import require_passes

    module = dict(tf_internals.converter_modules())["control_flow"]
    monkeypatch.delattr(module, "transform")
    with pytest.raises(AgxError) as raised:
        require_passes()
    assert raised.value.kind == "tf-unsupported" and raised.value.exit_code == 2
    assert "moved tensorflow.python.autograph.converters.control_flow.transform, which " \
        "agexplorer wraps to show the code after each pass, so agexplorer passes cannot " \
        "show AutoGraph's conversion;" in raised.value.message


def test_the_converters_are_restored_after_a_conversion(converted):
    from agexplorer.engine import tf_internals

    for name, module in tf_internals.converter_modules():
        assert module.transform.__module__ == module.__name__, name


def test_the_worker_handler_reads_an_unsaved_buffer(tf):
    from agexplorer.worker.protocol import PassesRequest
    from agexplorer.worker.server import Context, LastReport, handle_passes

    path = sample("s6_2_bad_loop.py")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    buffer = text.replace("    for i in range(n):\n        s += i",
                          "    for i in range(n):\n        if i > 2:\n            break\n"
                          "        s += i")
    assert buffer != text
    passes = handle_passes(PassesRequest(f"{path}::range_loop", source=buffer),
                           Context(lambda p: None, LastReport()))
    assert passes.file == path and passes.function == "range_loop"
    steps = {s.name: s for s in passes.steps}
    assert "break" in steps["source"].code
    assert "+                break_ = True" in steps["break_statements"].diff


def test_cli_passes_json_and_a_bad_target():
    result = run_cli("passes", "samples/s6_2_bad_loop.py::range_loop", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [s["name"] for s in data["steps"]] == APPLIED
    assert data["function"] == "range_loop" and data["file"].endswith("s6_2_bad_loop.py")
    assert "ag__.for_stmt(" in data["steps"][-1]["code"]
    bad = run_cli("passes", "samples/s6_2_bad_loop.py::nope")
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"agexplorer: {sample('s6_2_bad_loop.py')} has no function 'nope'; available: "
        "bad_loop, fixed_loop, range_loop, tf_range_loop."]


def test_cli_passes_readable_output():
    result = run_cli("passes", "samples/s6_2_bad_loop.py::bad_loop", "--width", "100")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "10 AutoGraph converters, in the order they ran" in out
    assert " 7  control_flow  " in out and "nothing to do here" in out
    assert out.count("the code after this pass:") == 1  # the first and last steps' code only
