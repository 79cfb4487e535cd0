"""Loop variables: what a loop carried, entering it and after one body, and the doctor's AGX010."""

import json

import pytest

from conftest import fixture

LV = fixture("loop_vars.py")

pytestmark = pytest.mark.tf


def loop(rep, line):
    return next(s for s in rep.statements if s.line == line)


def test_a_growing_staged_loop_fails_and_keeps_its_changed_variable(report):
    rep = report(f"{LV}::growing", "tf.constant(3)")
    assert rep.error is not None and "after one iteration" in rep.error.message
    stmt = loop(rep, 8)
    assert stmt.verdict == "staged"
    [x] = stmt.loop_vars
    assert x.name == "x" and x.changed and x.change == "shape"
    assert (x.before.dtype, x.before.shape) == ("float32", (1,))
    assert (x.after.dtype, x.after.shape) == ("float32", (2,))
    assert x.invariant() == (None,)
    assert x.text() == "x: float32[1] -> float32[2]  changed"


def test_the_doctor_flags_the_failing_loop_with_the_shape_invariant(report):
    from agexplorer.doctor.checks import diagnose

    target = f"{LV}::growing"
    d = diagnose(target, "tf.constant(3)", report=report(target, "tf.constant(3)"))
    [finding] = [f for f in d.findings if f.code == "AGX010"]
    assert (finding.line, finding.subject, finding.basis) == (8, "x", "trace")
    assert "float32[1] before the loop, float32[2] after one iteration" in finding.message
    assert "shape_invariants=[(x, tf.TensorShape([None]))]" in finding.fix
    assert d.error is not None  # the trace failed on it, and the doctor still saw the loop


@pytest.mark.parametrize("function, line, name", [("growing_fixed", 15, "x"),
                                                   ("growing_array", 23, "xs")])
def test_the_fixed_versions_do_not_change_and_get_no_finding(report, function, line, name):
    from agexplorer.doctor.checks import diagnose

    target = f"{LV}::{function}"
    rep = report(target, "tf.constant(3)")
    assert rep.error is None
    [var] = loop(rep, line).loop_vars
    assert var.name == name and not var.changed
    assert not [f for f in diagnose(target, "tf.constant(3)", report=rep).findings
                if f.code == "AGX010"]


def test_the_shape_invariant_shows_the_shape_it_allowed(report):
    [x] = loop(report(f"{LV}::growing_fixed", "tf.constant(3)"), 15).loop_vars
    assert (x.before.shape, x.after.shape, x.changed) == ((1,), (None,), False)


def test_a_python_loop_where_an_int_becomes_a_tensor_is_marked(report):
    rep = report(f"{LV}::int_becomes_tensor", "tf.constant([1, 2, 3])")
    stmt = loop(rep, 30)
    assert stmt.verdict == "python"
    [total] = stmt.loop_vars
    assert total.name == "total" and total.changed and total.change == "type"
    assert (total.before.python_type, total.before.value) == ("int", "0")
    assert (total.after.dtype, total.after.shape) == ("int32", ())


def test_a_staged_while_names_its_variables_as_in_the_source(report):
    stmt = loop(report(f"{LV}::staged_while", "tf.constant(3)"), 38)
    assert stmt.verdict == "staged"
    assert [(v.name, v.changed) for v in stmt.loop_vars] == [("acc", False), ("i", False)]
    # A Python int entering a staged loop becomes an int32 tensor: not a change.
    assert stmt.loop_vars[1].before.python_type == "int"
    assert stmt.loop_vars[1].after.dtype == "int32"


def test_json_keys(report):
    data = json.loads(json.dumps(report(f"{LV}::growing", "tf.constant(3)").to_dict()))
    [stmt] = data["statements"]
    assert stmt["loop_vars"] == [{"name": "x", "before": {"dtype": "float32", "shape": [1]},
                                  "after": {"dtype": "float32", "shape": [2]},
                                  "changed": True}]
    python = json.loads(json.dumps(
        report(f"{LV}::int_becomes_tensor", "tf.constant([1, 2, 3])").to_dict()))
    assert python["statements"][0]["loop_vars"][0]["before"] == {"python_type": "int",
                                                                  "value": "0"}


def test_the_terminal_report_shows_one_line_per_variable(report):
    from rich.console import Console

    from agexplorer.render.terminal import render_report

    console = Console(width=200, record=True, color_system=None)
    render_report(report(f"{LV}::growing", "tf.constant(3)"), console, width=200)
    text = console.export_text()
    assert "loop variables:" in text and "x: float32[1] -> float32[2]  changed" in text
