"""Verdicts, source maps and op inventory on functions whose answer is known."""

import pytest

from conftest import fixture

CF = fixture("control_flow.py")


def verdicts(rep):
    return [(s.kind, s.line, s.verdict) for s in rep.statements]


def by_line(rep, line):
    return next(s for s in rep.statements if s.line == line)


def test_python_for_is_unrolled_with_count_and_ops(report):
    rep = report(f"{CF}::python_for", "5")
    assert rep.error is None
    loop = by_line(rep, 8)
    assert (loop.verdict, loop.iterations, loop.graph_op) == ("python", 5, None)
    # s * 2.0 + 1.0: Mul and AddV2 plus their constants, copied once per iteration
    assert loop.ops_created == 5 * 4
    assert "range(5)" in loop.reason and "n is the Python int 5" in loop.reason
    assert "copied 5 times" in loop.reason
    assert "tf.range" in loop.hint


def test_tensor_for_is_staged_as_a_while_op(report):
    rep = report(f"{CF}::tensor_for", "tf.constant(5)")
    loop = by_line(rep, 15)
    assert (loop.verdict, loop.graph_op, loop.iterations) == ("staged", "StatelessWhile", None)
    ops = [op for op in rep.inventory.ops if op.type == "StatelessWhile"]
    assert len(ops) == 1 and ops[0].line == 15


def test_python_while_counts_the_iteration_while_stmt_runs_itself(report):
    rep = report(f"{CF}::python_while", "4")
    loop = by_line(rep, 22)
    assert (loop.verdict, loop.iterations) == ("python", 4)
    assert "`i` and `n` are Python values" in loop.hint


def test_tensor_while(report):
    rep = report(f"{CF}::tensor_while", "tf.constant(3)")
    assert by_line(rep, 28).graph_op == "StatelessWhile"


def test_if_in_unrolled_loop_is_staged_once_per_iteration(report):
    rep = report(f"{CF}::if_in_unrolled_loop", "tf.constant(3), 3")
    loop, cond = by_line(rep, 34), by_line(rep, 35)
    assert loop.verdict == "python" and loop.iterations == 3
    assert cond.verdict == "staged" and cond.times == 3 and cond.graph_op == "StatelessIf"
    assert sum(op.type == "StatelessIf" for op in rep.inventory.ops) == 3
    assert "staged 3 times" in cond.reason


def test_python_if_takes_one_branch_and_the_other_is_unreached(report):
    rep = report(f"{CF}::python_if_branches", "tf.constant(1), 5")
    cond, loop = by_line(rep, 41), by_line(rep, 44)
    assert (cond.verdict, cond.branch) == ("python", "true")
    assert loop.verdict == "unreached"
    assert "false branch of the if at line 41" in loop.reason


def test_other_branch_when_the_condition_is_false(report):
    rep = report(f"{CF}::python_if_branches", "tf.constant(1), 1")
    assert by_line(rep, 41).branch == "false"
    assert (by_line(rep, 44).verdict, by_line(rep, 44).iterations) == ("python", 3)


def test_mixed_branches_are_counted(report):
    rep = report(f"{CF}::mixed_branches", "tf.constant(0)")
    cond = by_line(rep, 51)
    assert cond.verdict == "python" and cond.branch is None and cond.times == 4
    assert "true branch 2 times and the false branch 2 times" in cond.reason


def test_python_list_loop(report):
    rep = report(f"{CF}::list_loop", "tf.constant(1.0)")
    loop = by_line(rep, 59)
    assert (loop.verdict, loop.iterations) == ("python", 3)
    assert "a Python list of 3 items" in loop.reason and "tf.stack" in loop.hint


def test_dataset_loop_is_staged(report):
    rep = report(f"{CF}::dataset_loop")
    loop = by_line(rep, 66)
    assert loop.verdict == "staged" and loop.graph_op is not None
    assert "Dataset" in loop.reason


def test_zero_iterations_leave_the_body_unreached(report):
    rep = report(f"{CF}::zero_iterations", "tf.constant(1)")
    assert (by_line(rep, 72).verdict, by_line(rep, 72).iterations) == ("python", 0)
    assert by_line(rep, 73).verdict == "unreached"
    assert "whose body never ran" in by_line(rep, 73).reason


def test_trace_failure_keeps_verdicts_and_points_at_the_user_line(report):
    rep = report(f"{CF}::raises_midway", "tf.constant([1.0, 2.0])")
    assert rep.error is not None and rep.error.kind == "trace-failed"
    assert rep.error.line == 83 and "ValueError: stop here" in rep.error.message
    assert rep.error.message.startswith(f"{CF}:83:")
    assert by_line(rep, 79).branch == "true"
    assert by_line(rep, 81).iterations == 2


def test_method_of_a_class_with_tf_function(report):
    rep = report(f"{CF}::Scaler.scale", "tf.constant(2.0)")
    assert rep.error is None and rep.decorated
    cond = by_line(rep, 92)
    assert (cond.verdict, cond.branch) == ("python", "true")
    assert "def tf__scale(self, x)" in rep.conversion.code


def test_input_signature_without_call(report):
    rep = report(f"{CF}::with_signature")
    assert rep.call_origin == "input_signature"
    outputs = {op.type: op.outputs for op in rep.inventory.ops}
    assert outputs["Placeholder"] == ["float32[?,3]"]
    assert outputs["Sum"] == ["float32[?]"]


def test_source_map_points_into_the_function_and_is_many_to_one(report, tf):
    import importlib.util

    rep = report(f"{CF}::tensor_for", "tf.constant(5)")
    conv = rep.conversion
    spec = importlib.util.spec_from_file_location("cf_for_to_code", CF)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert conv.code == tf.autograph.to_code(module.tensor_for)
    assert all(13 <= s <= 17 for _, s in conv.source_map)
    loop_lines = conv.converted_lines_for(15)
    assert len(loop_lines) >= 3  # get_state, set_state, loop_body and the for_stmt call
    code_lines = conv.code.splitlines()
    assert any("ag__.for_stmt" in code_lines[c - 1] for c in loop_lines)
    assert conv.source_lines_for(1) == [13]  # def tf__tensor_for(n) <- def line


def test_ops_carry_lines_types_shapes_and_bodies(report):
    rep = report(f"{CF}::tensor_for", "tf.constant(5)")
    inv = rep.inventory
    assert inv.bodies[0].role == "outer"
    roles = {b.role for b in inv.bodies}
    assert {"body", "cond"} <= roles
    body = next(b for b in inv.bodies if b.role == "body")
    assert body.parent_op == next(op.name for op in inv.ops if op.type == "StatelessWhile")
    adds = [op for op in inv.ops if op.type == "AddV2" and op.function == body.name]
    assert any(op.line == 16 for op in adds)  # s += i, inside the loop body
    assert all(op.outputs for op in inv.ops if op.type == "AddV2")
    assert inv.by_line()[16] >= 1


@pytest.mark.parametrize("call", ["", "tf.constant(1), 2, 3"])
def test_wrong_arguments_fail_the_trace_cleanly(report, call):
    rep = report(f"{CF}::python_for", call)
    assert rep.error is not None and rep.error.kind == "trace-failed"
    assert "Traceback" not in rep.error.message


def test_same_function_text_in_two_files_maps_to_each_file(report, tmp_path):
    """AutoGraph's cache treats equal code objects as one; each file must still get its own map."""
    text = "import tensorflow as tf\n\n\ndef f(x):\n    if x > 0:\n        x = x - 1\n    return x\n"
    for name in ("first.py", "second.py"):
        (tmp_path / name).write_text(text)
    for name in ("first.py", "second.py"):
        rep = report(f"{tmp_path / name}::f", "tf.constant(1)")
        assert rep.statements[0].verdict == "staged", name
        assert rep.conversion.source_lines_for(1) == [4]


def test_inventory_walks_nested_functions_case_branches_and_dataset_bodies(report):
    rep = report(f"{fixture('nested_bodies.py')}::outer", "tf.constant(1.0), tf.constant(0)")
    roles = {(b.parent_op, b.role) for b in rep.inventory.bodies}
    assert ("PartitionedCall", "function") in roles  # the nested @tf.function
    assert {r for p, r in roles if p and "case" in p} == {"branch 0", "branch 1"}
    assert ("ReduceDataset", "function") in roles
    inner_ops = [op for op in rep.inventory.ops if op.type == "Mul"]
    # Charged to the innermost frame of the user's code: inner's own line (issue 12; it
    # was the call site in outer), and inner is a function the trace reached.
    assert inner_ops and (inner_ops[0].file, inner_ops[0].line) == (fixture("nested_bodies.py"), 6)
    assert [f.function for f in rep.reached] == ["inner"]
    assert [s.function for s in rep.reached[0].call_path] == ["outer", "inner"]
    loop = rep.statements[0]
    assert (loop.verdict, loop.graph_op) == ("staged", "ReduceDataset")


def test_report_and_errors_survive_pickling(report):
    """Reports cross the worker's process boundary."""
    import pickle

    rep = report(f"{CF}::raises_midway", "tf.constant([1.0, 2.0])")
    back = pickle.loads(pickle.dumps(rep))
    assert back.error.kind == "trace-failed" and back.error.line == 83
    assert back.to_dict() == rep.to_dict()


def test_an_ops_attributes_are_read_from_the_trace_and_never_pickled(report):
    import pickle

    rep = report(f"{CF}::tensor_for", "tf.constant(5)")
    inv = rep.inventory
    loop = next(op for op in inv.ops if op.type == "StatelessWhile")
    attrs = dict(inv.op_attributes(loop.function, loop.name))
    body = next(b.name for b in inv.bodies if b.parent_op == loop.name and b.role == "body")
    assert attrs["body"] == body  # a function attribute shows as its name
    assert attrs["T"].startswith("[int32")  # a list of dtypes, by name
    assert attrs["output_shapes"].startswith("[[]")  # shapes as the outputs show them
    const = next(op for op in inv.ops if op.type == "Const" and op.line == 14)
    assert dict(inv.op_attributes(const.function, const.name))["value"] == "int32[] 0"
    copy = pickle.loads(pickle.dumps(inv))
    assert copy.ops == inv.ops
    with pytest.raises(LookupError):
        copy.op_attributes(loop.function, loop.name)


def test_verdicts_carry_the_kinds_the_recorder_saw(report):
    """The doctor reads kinds, not words; the JSON keeps its words only."""
    rep = report(f"{CF}::list_loop", "tf.constant(1.0)")
    loop = by_line(rep, 59)
    assert loop.value_kind == "list" and "value_kind" not in loop.to_dict()
    with pytest.raises(AttributeError):  # built whole, never mutated into shape
        loop.verdict = "staged"  # type: ignore[misc]
    staged = by_line(report(f"{CF}::dataset_loop"), 66)
    assert staged.value_kind == "dataset"


def test_a_trace_failure_says_its_cause_as_a_kind():
    import pickle

    from agexplorer.engine.pipeline import trace_cause
    from agexplorer.model.errors import AgxError

    class Symbolic:
        pass

    try:
        Symbolic().numpy()  # type: ignore[attr-defined]
    except AttributeError as exc:
        assert trace_cause(exc) == "numpy-in-graph"
    assert trace_cause(ValueError("tf.function only supports singleton tf.Variables")) == \
        "variable-created"
    # A path or a function name with the word in it is no cause: only the error's own line is read.
    assert trace_cause(ValueError('File "numpy_demo.py", line 3\nValueError: shapes differ')) is None
    error = pickle.loads(pickle.dumps(AgxError("trace-failed", "x", cause="numpy-in-graph")))
    assert error.cause == "numpy-in-graph" and "cause" not in error.to_dict()


def test_each_load_imports_the_users_helpers_afresh_from_its_own_folder(tmp_path):
    """A helper imported by name is the one beside the file loaded now, as edited now: not a
    same-named helper of a file loaded before (the worker serves many files), nor its old text."""
    import os

    from agexplorer.engine.load import load_module

    def project(name: str, value: int) -> str:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "helpers.py").write_text(f"VALUE = {value}\n")
        (folder / "train.py").write_text("import helpers\nVALUE = helpers.VALUE\n")
        return str(folder / "train.py")

    def load(path: str) -> int:
        with open(path) as fh:
            return load_module(path, fh.read()).VALUE

    first, second = project("a", 1), project("b", 2)
    assert (load(first), load(second)) == (1, 2)
    helpers = os.path.join(os.path.dirname(first), "helpers.py")
    with open(helpers, "w") as fh:
        fh.write("VALUE = 11  # edited\n")
    os.utime(helpers, (0, 10**9))  # a new mtime even within the file system's resolution
    assert load(first) == 11


def test_a_function_called_with_nothing_is_shown_a_call_with_one_argument_per_parameter(
        report, tmp_path):
    """The advice's example call fits the function (it gave one argument to (x, y))."""
    path = tmp_path / "pair.py"
    path.write_text("def pair(x, y, scale=2.0):\n    return (x + y) * scale\n")
    rep = report(f"{path}::pair")
    assert rep.error is not None and rep.error.kind == "needs-arguments"
    assert 'e.g. --call "tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])"' in str(rep.error)
