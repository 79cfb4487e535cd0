"""Loop variables: what a loop carried, entering it and after one body, and the doctor's AGX010."""

import json

import pytest

from agexplorer.model.loopvars import loop_var_fix
from agexplorer.render.loopvars import shown_loop_vars
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


def test_a_python_loop_where_an_int_becomes_a_float_tensor_is_marked(report):
    # Staged (tf.range), AutoGraph makes the 0 an int32 tensor and the float32 sum fails.
    rep = report(f"{LV}::int_becomes_tensor", "tf.constant([1.0, 2.0, 3.0])")
    stmt = loop(rep, 30)
    assert stmt.verdict == "python"
    [total] = stmt.loop_vars
    assert total.name == "total" and total.changed and total.change == "type"
    assert (total.before.python_type, total.before.value) == ("int", "0")
    assert (total.after.dtype, total.after.shape) == ("float32", ())
    assert "tf.constant(0, tf.float32)" in loop_var_fix(total)


def test_a_python_loop_where_an_int_becomes_an_int32_scalar_is_not_marked(report):
    # Staged, the loop would carry the same: AutoGraph makes the 0 an int32 tensor first.
    stmt = loop(report(f"{LV}::int_becomes_tensor", "tf.constant([1, 2, 3])"), 30)
    [total] = stmt.loop_vars
    assert (total.before.python_type, total.after.dtype, total.changed) == ("int", "int32",
                                                                            False)
    assert shown_loop_vars(stmt) == []


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


# -- loops whose body creates a name ----------------------------------------------------------
# AutoGraph carries such a name into the loop as its ``Undefined``, which answers every
# attribute with itself: read as a tensor, it reached the worker's reply and failed it
# ("'Undefined' object is not callable", exit 3).

def through_worker(worker, function, call):
    """The report as the CLI and the explorer get it: from the worker, across its pipe."""
    from agexplorer.worker.protocol import ReportRequest

    return worker.request(ReportRequest(f"{LV}::{function}", call=call, no_run=True))["report"]


def texts(stmt):
    return [v.text() for v in stmt.loop_vars]


@pytest.mark.parametrize("function, line, call, verdict, shown", [
    ("for_creates", 47, "3", "python", ["last: int 0  defined by the loop"]),
    ("for_creates", 47, "tf.constant(3)", "staged", ["last: int32[]  defined by the loop"]),
    ("while_creates", 54, "3", "python", ["i: int 0 -> int 1", "made: int 0  defined by the loop"]),
    ("while_creates", 54, "tf.constant(3)", "staged",
     ["i: int 0 -> int32[]", "made: int32[]  defined by the loop"]),
])
def test_a_loop_that_creates_a_name_reports_it_as_defined_by_the_loop(worker, function, line,
                                                                       call, verdict, shown):
    rep = through_worker(worker, function, call)
    assert rep.error is None, rep.error.message
    stmt = loop(rep, line)
    assert stmt.verdict == verdict and texts(stmt) == shown
    created = stmt.loop_vars[-1]
    assert created.defined_by_loop and not created.changed
    assert created.before.undefined and created.before.to_dict()["python_type"] == "undefined"
    if verdict == "python":
        assert stmt.iterations == 3
    else:  # a loop like any other staged one: its op, and the ops of its body
        assert stmt.graph_op == "StatelessWhile" and stmt.ops_created > 0


def test_nested_loops_that_create_names_staged_outside_python_inside(worker):
    rep = through_worker(worker, "nested_creates", "tf.constant(3)")
    assert rep.error is None, rep.error.message
    outer, inner = loop(rep, 61), loop(rep, 62)
    assert (outer.verdict, inner.verdict, inner.iterations) == ("staged", "python", 2)
    assert texts(outer) == ["inner: int32[]  defined by the loop",
                            "outer: int32[]  defined by the loop"]
    python = through_worker(worker, "nested_creates", "3")
    assert (loop(python, 61).iterations, loop(python, 62).iterations) == (3, 6)
    assert texts(loop(python, 62)) == ["inner: int 0  defined by the loop"]


def test_a_name_created_in_one_branch_is_defined_by_the_python_loop(worker):
    # The first iteration (k == 0) does not define it; the third does: that value is kept.
    rep = through_worker(worker, "creates_in_one_branch", "3")
    assert rep.error is None, rep.error.message
    assert texts(loop(rep, 69)) == ["late: int 2  defined by the loop"]
    # Staged, TensorFlow refuses it (tf.function too): the user's error, the loop still there.
    staged = through_worker(worker, "creates_in_one_branch", "tf.constant(3)")
    assert staged.error is not None and staged.error.kind == "trace-failed"
    assert "'late' must be defined before the loop" in staged.error.message
    assert loop(staged, 69).verdict == "staged"


@pytest.mark.parametrize("function, call, line, verdict, shown", [
    ("creates_with_break", "4", 76, "python", ["last: int 0  defined by the loop"]),
    ("creates_with_break", "tf.constant(4)", 76, "staged", ["last: int32[]  defined by the loop"]),
    ("creates_with_continue", "4", 85, "python", ["seen: int 0  defined by the loop"]),
    ("creates_with_continue", "tf.constant(4)", 85, "staged",
     ["seen: int32[]  defined by the loop", "total: int 0 -> int32[]"]),
    ("returns_from_loop", "3", 94, "python", []),
    ("users_break_", "tf.constant(4)", 103, "staged", ["break_: int 0 -> int32[]"]),
])
def test_break_continue_and_return_in_such_loops_hide_autographs_own_variables(
        worker, function, call, line, verdict, shown):
    """AutoGraph's break_, continue_, do_return and retval_ are not the user's variables (a
    variable the user named so is, and AutoGraph's own then has a suffix)."""
    from agexplorer.render.loopvars import shown_loop_vars

    rep = through_worker(worker, function, call)
    assert rep.error is None, rep.error.message
    stmt = loop(rep, line)
    assert stmt.verdict == verdict
    assert [v.text() for v in shown_loop_vars(stmt)] == shown
    names = {v.name for v in stmt.loop_vars} - {v.name for v in shown_loop_vars(stmt)}
    assert not [n for n in names if n.startswith(("break_", "continue_", "do_return", "retval_"))]


def test_the_terminal_report_says_defined_by_the_loop(report):
    from rich.console import Console

    from agexplorer.render.terminal import render_report

    console = Console(width=200, record=True, color_system=None)
    render_report(report(f"{LV}::for_creates", "3"), console, width=200)
    text = console.export_text()
    assert "loop variables:" in text and "last: int 0  defined by the loop" in text


def test_a_dataset_loop_s_python_counter_is_carried_not_changed(report):
    """``n = 0`` then ``n += 1`` over a tf.data.Dataset: the loop starts n as an int32 tensor
    and keeps it one, as TensorFlow's own loops do (a dataset's loop traces its body with no
    mark of the path, which once read as a Python loop turning an int into a tensor, with a
    fix to make it a tensor first)."""
    from agexplorer.doctor.checks import diagnose

    target = f"{LV}::counted_batches"
    call = "tf.data.Dataset.range(10).batch(3)"
    rep = report(target, call)
    assert rep.error is None
    stmt = next(s for s in rep.statements if s.kind == "for")
    assert stmt.verdict == "staged"
    [n] = stmt.loop_vars
    assert (n.before.python_type, n.after.dtype, n.changed) == ("int", "int32", False)
    assert n.text() == "n: int 0 -> int32[]"
    assert [f.code for f in diagnose(target, call, report=rep).findings] == []
