"""The doctor tries each rewrite it offers (one trace, no run) and says what came of it; a
rewrite that fails to trace is not offered."""

from __future__ import annotations

import json
import textwrap

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from agexplorer.doctor.trial import pick_finding
from agexplorer.model.doctor import Tried
from agexplorer.model.errors import AgxError
from conftest import import_file

pytestmark = pytest.mark.tf

SOURCE = '''
    import keras
    import tensorflow as tf


    @tf.function
    def counted(x, n):
        for i in range(n):
            x = x * 2.0
        return x


    @tf.function
    def indexed(shards):
        acc = tf.zeros([2])
        for i in range(len(shards)):
            acc = acc + shards[i]
        return acc


    @tf.function
    def uncalled(x):
        for i in range(3):
            x = x + 1.0
        return x


    @tf.function
    def accumulated(x):
        acc = 0.0
        for i in range(3):
            acc = acc + x
        return acc


    @tf.function
    def listed(x):
        out = []
        for i in range(3):
            out.append(x * 2.0)
        return tf.stack(out)


    @tf.function
    def measured(x):
        out = []
        for i in range(3):
            out.append(x * 2.0)
        return tf.stack(out) * len(out)


    @tf.function
    def warmed(x, epoch):
        return x * (1.0 + 0.1 * epoch)


    @tf.function
    def padded(x, width):
        return x * width + tf.reduce_sum(x[:width])


    @tf.function
    def powers(x, degree):
        total = tf.zeros_like(x)
        for k in range(degree):
            total += x ** k
        return total


    BOUNDS = [0.0, 0.1]
    SCALES = [1, 2, 3]


    @tf.function
    def clipped(x):
        for lo in BOUNDS:
            x = tf.maximum(x, lo)
        return x


    @tf.function
    def biased(x):
        for b in 0.5, 1.5:
            x = x + b
        return x


    @tf.function
    def scaled(x):
        for s in SCALES:
            x = x * s
        return x


    @tf.function
    def halved(x):
        i = 0
        while i < x.shape[0]:
            x = x * 0.5
            i += 1
        return x


    @tf.function
    def doubled(x):
        while x.shape[0] < 8:
            x = tf.concat([x, x], 0)
        return x


    @tf.function
    def doubling(x):
        i = 0
        while i < 10:
            x = x * 2.0
            i += 1
        return x


    @tf.function
    def picking(x):
        weights = [0.5, 1.0, 2.0]
        i = 0
        while i < 3:
            x = x * weights[i]
            i += 1
        return x


    @tf.function
    def paired(xs, ys):
        total = tf.constant(0.0)
        for a, b in zip(xs, ys):
            total += tf.reduce_sum(a * b)
        return total


    @tf.function
    def products(xs, ys):
        out = []
        for a, b in zip(xs, ys):
            out.append(a * b)
        return tf.stack(out)


    @tf.function
    def numbered(xs):
        out = []
        for i, x in enumerate(xs):
            out.append(x * 2.0)
        return tf.stack(out)


    @tf.function
    def items(a, b):
        out = []
        for v in [a, b, a + b]:
            out.append(v + 1.0)
        return tf.stack(out)


    class Cumulate(keras.layers.Layer):
        def call(self, x):
            for i in range(x.shape[1]):
                x = x + 1.0
            return x


    AGX_CALLS = {"counted": "tf.ones([2]), 3", "accumulated": "tf.ones([2])",
                 "listed": "tf.ones([2])", "measured": "tf.ones([2])",
                 "indexed": "[tf.ones([2]), tf.ones([2]), tf.ones([2])]",
                 "Cumulate.call": "tf.ones([2, 3])", "warmed": "tf.ones([2]), 3", "padded": "tf.ones([2]), 3",
                 "powers": "tf.constant([0.5, 2.0]), 4", "clipped": "tf.ones([2])",
                 "biased": "tf.ones([2])", "scaled": "tf.ones([2])",
                 "halved": "tf.ones([4])", "doubled": "tf.ones([1])",
                 "doubling": "tf.ones([2])", "picking": "tf.ones([2])",
                 "paired": "[tf.ones([2]), tf.ones([2])], [tf.ones([2]), tf.ones([2])]",
                 "products": "[tf.ones([2]), tf.ones([2])], [tf.ones([2]), tf.ones([2])]",
                 "numbered": "[tf.ones([2]), tf.ones([2]), tf.ones([2])]",
                 "items": "tf.ones([2]), tf.ones([2])"}
'''


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    path = tmp_path_factory.mktemp("tried") / "tried_cases.py"
    path.write_text(textwrap.dedent(SOURCE))
    return path


def reported_loop(report, cases, name: str, kind: str):
    """The report's verdict of ``name``'s loop of ``kind`` with its fix tried, as
    `agexplorer report` shows it."""
    from agexplorer.doctor.verdict_fixes import tried_fixes

    target = f"{cases}::{name}"
    return next(v for v in tried_fixes(target, cases.read_text(), report(target),
                                       None).statements if v.kind == kind)


def finding(report, target: str, code: str, **options):
    doctor = diagnose(target, report=report(target), **options)
    return next(f for f in doctor.findings if f.code == code)


def test_a_rewrite_that_stages_the_loop_says_so_and_stays_offered(report, cases):
    f = finding(report, f"{cases}::counted", "AGX004")
    assert f.tried is not None and f.tried.outcome == "staged"
    assert "While" in f.tried.graph_op
    assert f.fix.endswith(f"Tried: the rewrite stages the loop as a {f.tried.graph_op} op.")
    assert f.rewrite is not None and "tf.range" in f.fix
    assert json.loads(json.dumps(f.to_dict()))["tried"]["outcome"] == "staged"


def test_a_rewrite_that_fails_to_trace_is_not_offered(report, cases):
    target = f"{cases}::indexed"
    f = finding(report, target, "AGX004")
    assert f.tried.outcome == "fails" and f.rewrite is None
    assert "list indices must be integers" in f.tried.error
    line = cases.read_text().splitlines().index("        acc = acc + shards[i]") + 1
    assert f.tried.error_line == line
    assert "tf.range" not in f.fix.split("Tried:")[0]  # the failing rewrite is no fix
    assert f"Tried: the rewrite fails to trace (line {line} raises TypeError: list indices" \
        in f.fix
    with pytest.raises(AgxError, match="no finding with a mechanical rewrite"):
        pick_finding([f], "AGX004")


def test_a_value_that_changes_shape_is_named_with_what_to_start_it_as(report, cases):
    """The tf.range rewrite fails because ``acc = 0.0`` becomes a [2] tensor: the fix says
    that, from TensorFlow's own reason, and the report's hint warned of it beforehand."""
    target = f"{cases}::accumulated"
    f = finding(report, target, "AGX004")
    assert f.tried.outcome == "fails" and f.rewrite is None
    assert f.fix.startswith("a staged loop keeps each value's shape from step to step, and "
                            "`acc` changes shape (() before the loop, (2,) after one step): "
                            "start `acc` as a tensor of shape (2,) before the loop")
    loop = next(v for v in report(target).statements if v.kind == "for")
    assert "`acc` starts as a Python number (acc = 0.0)" in loop.hint


def test_a_list_filled_in_the_loop_becomes_a_tensor_array_with_the_range(report, cases, tf):
    """tf.range alone fails there (the list holds one value of the staged body, out of its
    scope after the loop: InaccessibleTensorError): the rewrite makes the list a
    tf.TensorArray too, and that stages, answering as the original does."""
    target = f"{cases}::listed"
    f = finding(report, target, "AGX004")
    assert f.tried.outcome == "staged"
    assert f.fix.startswith("iterate over tf.range(3) and collect `out` in a tf.TensorArray "
                            "(AGX003)") and f.fix.endswith("Tried: the rewrite stages the loop "
                                                           "as a StatelessWhile op.")
    text = cases.read_text()
    made = rewrite(text, f)
    assert "out = tf.TensorArray(tf.float32, size=3)" in made.new_text
    assert "for i in tf.range(3):" in made.new_text and "return out.stack()" in made.new_text
    fixed = cases.parent / "tried_listed_fixed.py"
    fixed.write_text(made.new_text)
    got = import_file(fixed, "tried_listed_fixed").listed(tf.ones([2]))
    want = import_file(cases, "tried_cases_listed").listed(tf.ones([2]))
    assert got.numpy().tolist() == want.numpy().tolist() == [[2.0, 2.0]] * 3


def test_a_list_the_array_rewrite_cannot_take_points_to_the_tensor_array(report, cases):
    """``len(out)`` after the loop: no TensorArray rewrite, so tf.range alone is tried,
    fails, and the fix says what to do instead."""
    f = finding(report, f"{cases}::measured", "AGX004")
    assert f.tried.outcome == "fails" and "InaccessibleTensorError" in f.tried.error
    assert f.fix.startswith("the body fills a Python list, which a staged loop cannot: "
                            "collect the values in a tf.TensorArray as well (AGX003)")


def test_each_other_finding_says_it_traced(report, cases):
    f = finding(report, f"{cases}::counted", "AGX009")
    assert f.tried == Tried("traced") and f.fix.endswith("Tried: the rewrite traces.")


def test_trials_stop_when_their_time_is_spent(report, cases):
    f = finding(report, f"{cases}::counted", "AGX004", try_budget=0.0)
    assert f.tried.outcome == "not-tried" and f.tried.why_not == "budget"
    assert f.rewrite is not None
    assert f.fix.endswith("Not tried (the doctor's 0 s for trying rewrites was spent).")


def test_without_a_trace_nothing_is_tried(report, cases):
    f = finding(report, f"{cases}::uncalled", "AGX004")
    assert f.basis == "static" and f.tried == Tried("not-tried", why_not="not-traced")
    assert f.fix.endswith("Not tried (the function itself did not trace).")


def test_the_trial_can_be_left_out(report, cases):
    f = finding(report, f"{cases}::counted", "AGX004", try_budget=None)
    assert f.tried is None and "Tried" not in f.fix


def test_a_loop_over_a_python_list_of_numbers_is_tried_stacked(report, cases):
    # The verdict's fix for a list (named or written out) or a tuple of numbers is to stack
    # them and iterate over the tensor: the doctor finds the loop and tries that rewrite.
    for name, items in (("clipped", "BOUNDS"), ("biased", "(0.5, 1.5)")):
        f = finding(report, f"{cases}::{name}", "AGX004")
        assert f.fix.startswith("stack the items into one tensor"), f.fix
        assert f.tried is not None and f.tried.outcome == "staged", f.tried
        assert f.fix.endswith(f"Tried: the rewrite stages the loop as a {f.tried.graph_op} op.")
        made = rewrite(cases.read_text(), f)
        assert made is not None and f"for {'lo' if name == 'clipped' else 'b'} in " \
            f"tf.stack({items}):" in made.new_text


def test_a_stacked_list_whose_dtype_the_body_refuses_is_not_offered(report, cases):
    # int items stack into an int32 tensor, which `x * s` with a float x refuses: the report
    # shows no stacking fix, the trial's error and what to do.
    f = finding(report, f"{cases}::scaled", "AGX004")
    assert f.tried.outcome == "fails" and f.rewrite is None
    assert f.fix.startswith("the stacked items and the values the body meets them with "
                            "differ in dtype (int32 and float32)"), f.fix
    loop = reported_loop(report, cases, "scaled", "for")
    assert "tf.stack" not in loop.hint.split("Tried:")[0]
    assert "Tried: the rewrite fails to trace" in loop.hint


def test_a_while_on_a_static_size_is_tried_with_the_dynamic_one(report, cases):
    # `while i < x.shape[0]:` compares a Python int while tracing: the fix reads the size
    # when the graph runs (tf.shape(x)[0]), and the doctor's rewrite stages the loop so.
    f = finding(report, f"{cases}::halved", "AGX004")
    assert "compare with the dynamic shape (`i < tf.shape(x)[0]`)" in f.fix, f.fix
    assert f.tried is not None and f.tried.outcome == "staged", f.tried
    made = rewrite(cases.read_text(), f)
    assert made is not None and "while i < tf.shape(x)[0]:" in made.new_text


def test_a_while_whose_body_grows_its_value_says_how_to_let_the_shape_vary(report, cases):
    # `while x.shape[0] < 8: x = tf.concat([x, x], 0)`: with tf.shape the loop stages, but
    # x changes shape each step, which a staged loop refuses: the fix shown is the shape
    # invariant, with the trial's error (no "make x.shape[0] a tensor (tf.constant(...))").
    f = finding(report, f"{cases}::doubled", "AGX004")
    assert f.tried.outcome == "fails" and f.rewrite is None
    assert "shape_invariants=[(x, tf.TensorShape([None]))]" in f.fix, f.fix
    loop = reported_loop(report, cases, "doubled", "while")
    assert "tf.constant(...)" not in loop.hint and "shape_invariants" in loop.hint


def test_a_while_on_a_python_counter_is_tried_with_the_counter_a_tensor(report, cases):
    # `i = 0` / `while i < 10:` ran in Python: the fix starts `i` as a tensor, and the
    # doctor's rewrite (`i = tf.constant(0)`) is tried: it stages the loop, or, where the
    # body indexes a Python list with the counter, it fails and the fix is not offered.
    f = finding(report, f"{cases}::doubling", "AGX004")
    assert "start `i` as a tensor (`i = tf.constant(0)`)" in f.fix, f.fix
    assert f.tried is not None and f.tried.outcome == "staged", f.tried
    made = rewrite(cases.read_text(), f)
    assert made is not None and "i = tf.constant(0)\n    while i < 10:" in made.new_text
    failed = finding(report, f"{cases}::picking", "AGX004")
    assert failed.tried.outcome == "fails" and failed.rewrite is None
    assert "list indices must be integers" in failed.tried.error
    assert "tf.constant(0)" not in failed.fix.split("Tried:")[0]


def test_a_zip_of_lists_is_tried_as_the_fix_says_step_by_step(report, cases):
    # The fix: stack each list before the loop, loop over an index, read the items first in
    # the body. The rewrite writes those three steps and its trial finds the loop a line
    # lower (the stacking line above it): staged.
    from agexplorer.doctor.trial import try_fix
    from agexplorer.render.doctor import trial_renderables

    f = finding(report, f"{cases}::paired", "AGX004")
    assert "(`xs_t = tf.stack(xs); ys_t = tf.stack(ys)`)" in f.fix, f.fix
    assert f.tried is not None and f.tried.outcome == "staged", f.tried
    made = rewrite(cases.read_text(), f)
    assert made is not None and made.new_line == f.line + 1
    assert ("    xs_t = tf.stack(xs); ys_t = tf.stack(ys)\n"
            "    for i in tf.range(len(xs)):\n"
            "        a, b = xs_t[i], ys_t[i]\n"
            "        total += tf.reduce_sum(a * b)\n") in made.new_text
    trial = try_fix(f"{cases}::paired", "AGX004", run=False)
    table = next(part for part in trial_renderables(trial) if hasattr(part, "columns"))
    keys = [str(cell) for cell in table.columns[0].cells]
    # the loop before and after in one row, under its line before the rewrite
    assert f"for line {f.line}" in keys and f"for line {f.line + 1}" not in keys
    row = keys.index(f"for line {f.line}")
    assert str(list(table.columns[2].cells)[row]).startswith("staged")


def test_a_keras_3_layers_loop_gets_no_tf_range_fix_or_rewrite(report, cases):
    f = finding(report, f"{cases}::Cumulate.call", "AGX004")
    assert "tf.range" not in f.fix and "keras.ops.fori_loop" in f.fix
    assert f.rewrite is None and f.tried is None


def test_the_reports_fix_for_an_unrolled_loop_says_how_its_rewrite_went(report, cases):
    # `agexplorer report` (and the explorer's Control flow tab, once the doctor answers)
    # shows a loop's fix with its trial: kept where the rewrite stages the loop; where it
    # fails to trace, the fix is not offered: what to do instead, and the error.
    from agexplorer.doctor.verdict_fixes import tried_fixes

    text = cases.read_text()
    staged = tried_fixes(f"{cases}::counted", text, report(f"{cases}::counted"), None)
    loop = next(v for v in staged.statements if v.kind == "for")
    before = next(v for v in report(f"{cases}::counted").statements if v.kind == "for")
    assert loop.hint.startswith(before.hint) and "tf.range(n)" in loop.hint
    assert loop.hint.endswith(" op.") and "Tried: the rewrite stages the loop as a " in loop.hint
    failed = tried_fixes(f"{cases}::indexed", text, report(f"{cases}::indexed"), None)
    loop = next(v for v in failed.statements if v.kind == "for")
    line = text.splitlines().index("        acc = acc + shards[i]") + 1
    assert "tf.range" not in loop.hint.split("Tried:")[0]
    assert f"Tried: the rewrite fails to trace (line {line} raises TypeError" in loop.hint
    untraced = report(f"{cases}::uncalled")  # no inputs: nothing traced, nothing tried
    assert tried_fixes(f"{cases}::uncalled", text, untraced, None) is untraced


def test_the_report_request_tries_the_fixes_of_an_unsaved_buffer(worker, cases):
    from agexplorer.worker.protocol import ReportRequest

    text = cases.read_text()
    edited = text.replace("acc = acc + shards[i]", "acc = acc + shards[i] * 1.0")
    answer = worker.request(ReportRequest(f"{cases}::indexed", no_run=True, source=edited,
                                          try_fixes=True))
    report = answer["report"]
    loop = next(v for v in report.statements if v.kind == "for")
    assert report.file == str(cases) and "Tried: the rewrite fails to trace" in loop.hint
    assert "agx-buffer-" not in loop.hint  # the copy's path is nowhere
    plain = worker.request(ReportRequest(f"{cases}::indexed", no_run=True, source=edited))
    assert "Tried" not in next(v for v in plain["report"].statements if v.kind == "for").hint


def test_an_int_argument_that_meets_floats_is_passed_as_a_float_tensor(report, cases):
    """``epoch`` (a Python int) multiplies a float: the rewrite's tf.constant(3) is an int32
    tensor and fails; the fix names the float32 tensor, which traces (applied here)."""
    f = finding(report, f"{cases}::warmed", "AGX009")
    assert f.tried.outcome == "fails" and "Expected int32" in f.tried.error
    assert f.fix.startswith("pass `epoch` as a float tensor, tf.constant(..., tf.float32)")
    assert f.fix.endswith("; with tf.float32, it traces.")  # the float tensor tried as well
    applied = report(f"{cases}::warmed", "tf.ones([2]), tf.constant(3, tf.float32)")
    assert applied.error is None


def test_an_int_that_meets_floats_and_ends_a_slice_is_not_told_to_be_a_float_tensor(report,
                                                                                    cases):
    """``width`` multiplies a float (the int32 tensor fails) and ends a slice (a float32
    one fails there): the float tensor is tried and, failing too, not offered."""
    f = finding(report, f"{cases}::padded", "AGX009")
    assert f.tried.outcome == "fails" and "does not match type float32" in f.tried.error
    assert "float tensor" not in f.fix and f.fix.endswith("; with tf.float32, it fails too.")
    assert f.fix.startswith("the function needs a Python value here (a shape, a count)")
    floated = report(f"{cases}::padded", "tf.ones([2]), tf.constant(3, tf.float32)")
    assert floated.error is not None  # what the trial found


def test_an_int_that_bounds_a_range_is_not_told_to_be_a_float_tensor(report, cases, tf):
    """``degree`` bounds range(degree): as an int32 tensor the counter meets a float (the
    trial fails), and a float32 tensor would trace but raise eagerly (range() of it), so the
    general advice stands, not the float tensor's."""
    f = finding(report, f"{cases}::powers", "AGX009")
    assert f.tried.outcome == "fails" and "does not match type float32" in f.tried.error
    assert "float tensor" not in f.fix
    assert f.fix.startswith("the function needs a Python value here (a shape, a count)")
    module = import_file(str(cases), "tried_cases_eager")
    with pytest.raises((TypeError, AttributeError)):  # a float tensor, eagerly: what the
        # advice would break (range() asks it for __index__)
        module.powers.python_function(tf.constant([0.5, 2.0]), tf.constant(4.0))


@pytest.mark.parametrize("name", ["products", "numbered", "items"])
def test_a_container_loop_that_fills_a_list_is_staged_with_the_list_made_an_array(
        report, cases, name):
    # A zip, an enumerate or a list of stackable items, whose body appends to a list: the
    # loop's rewrite makes the list a tf.TensorArray too (a staged body's value cannot go
    # into a Python list), so the fix shown applies: its trial stages the loop. The list
    # gets its own finding (AGX003), whose rewrite traces too.
    f = finding(report, f"{cases}::{name}", "AGX004")
    assert f.tried is not None and f.tried.outcome == "staged", f.tried
    # the verdict's fix says all the rewrite does (a user doing only the loop's part fails)
    said = "Collect `out` in a tf.TensorArray as well: a staged loop cannot fill a Python list."
    assert said in f.fix, f.fix
    assert said in reported_loop(report, cases, name, "for").hint
    made = rewrite(cases.read_text(), f)
    assert made is not None and "out -> tf.TensorArray" in made.description
    assert "out.append" not in made.new_text.split(f"def {name}")[1].split("@tf.function")[0]
    listed = finding(report, f"{cases}::{name}", "AGX003")
    assert "unrolled x" in listed.message and listed.tried.outcome == "traced"


def test_a_zip_or_enumerate_rewrite_sizes_its_array_by_the_count_for_xla(report, cases):
    # XLA returns a tf.TensorArray of dynamic_size=True empty: where the rewrite's loop has
    # a count read before it (len of a list the function never assigns), the array is of
    # that size, written at the loop's index.
    for name, index in (("products", "i"), ("numbered", "i")):
        made = rewrite(cases.read_text(), finding(report, f"{cases}::{name}", "AGX004"))
        body = made.new_text.split(f"def {name}")[1].split("@tf.function")[0]
        assert "out = tf.TensorArray(tf.float32, size=len(xs))" in body, body
        assert f"out = out.write({index}, " in body and "out.stack()" in body
    made = rewrite(cases.read_text(), finding(report, f"{cases}::items", "AGX004"))
    assert "dynamic_size=True" in made.new_text.split("def items")[1]  # no index to write at


def test_a_trial_whose_modes_disagree_says_so_beside_its_same_result():
    from agexplorer.model.doctor import Finding, FixTrial, Rewrite, TrialSide
    from agexplorer.model.lab import ModeRun, RunLab

    def side(match, xla):
        lab = RunLab(device="CPU", runs={"eager": ModeRun(ok=True, result="float32[2] [1. 2.]"),
                                         "graph": ModeRun(ok=True, result="float32[2] [1. 2.]"),
                                         "xla": ModeRun(ok=True, result=xla)},
                     results_match=match)
        return TrialSide(file="f.py", call="x", verdicts=[], op_count=3, trace_s=0.01, lab=lab)

    found = Finding(code="AGX003", line=3, message="", why="", fix=None)
    made = Rewrite(code="AGX003", line=3, description="d", new_text="t", new_call=None,
                   old_sha="0")
    trial = FixTrial(file="f.py", function="f", finding=found, rewrite=made,
                     diff="+    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)",
                     before=side(True, "float32[2] [1. 2.]"), after=side(False, "float32[0] []"),
                     results_equal=True, results_note="same")
    note = trial.modes_note()
    assert note is not None and "xla float32[0] []" in note and "dynamic_size=True" in note
    assert trial.to_dict()["modes_note"] == note
    agreeing = FixTrial(file="f.py", function="f", finding=found, rewrite=made, diff="",
                        before=side(True, "float32[2] [1. 2.]"),
                        after=side(True, "float32[2] [1. 2.]"), results_equal=True)
    assert agreeing.modes_note() is None


def test_an_array_is_sized_by_the_count_only_where_every_step_writes():
    # `continue` skips a step's write: an array of the count would keep a hole, which
    # stack() refuses; that loop's array grows instead. A break in a loop inside the body
    # stops that inner loop only.
    from agexplorer.model.doctor import Finding

    text = textwrap.dedent("""
        import tensorflow as tf


        def f(x, n):
            out = []
            for i in range(n):
                if i == 1:
                    continue
                out.append(x)
            return tf.stack(out)


        def g(x, n):
            out = []
            for i in range(n):
                for j in range(3):
                    break
                out.append(x)
            return tf.stack(out)
        """)
    lines = text.splitlines()
    made = {}
    for name in ("f", "g"):
        start = lines.index(f"def {name}(x, n):")
        line = next(i for i, t in enumerate(lines, 1) if i > start and "out.append" in t)
        found = Finding(code="AGX003", line=line, message="", why="", fix=None, col=8,
                        subject="out")
        made[name] = rewrite(text, found).new_text
    assert "size=0, dynamic_size=True" in made["f"].split("def g")[0]
    assert "tf.TensorArray(tf.float32, size=n)" in made["g"].split("def g")[1]
