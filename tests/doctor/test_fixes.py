"""Try the fix: each rewrite converts, stages what it should, keeps the result and the rest of the file."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import function_diff, rewrite
from agexplorer.doctor.trial import apply_fix, try_fix
from agexplorer.model.errors import AgxError
from conftest import fixture, sample

FIXES = fixture("fix_cases.py")


def text_of(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def sha(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def changed_lines(old: str, new: str) -> list[int]:
    """1-based lines that differ; everything else must be byte-identical."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b, strict=True), 1) if x != y]


def the_rewrite(report, target: str, code: str, call: str | None = None):
    d = diagnose(target, call, report=report(target, call))
    [finding] = [f for f in d.findings if f.code == code]
    return rewrite(text_of(target.partition("::")[0]), finding, d.call), finding


def test_range_becomes_tf_range_stages_the_loop_and_keeps_the_result(report):
    target = f"{sample('s6_2_bad_loop.py')}::range_loop"
    before = sha(sample("s6_2_bad_loop.py"))
    made, _ = the_rewrite(report, target, "AGX004")
    old = text_of(sample("s6_2_bad_loop.py"))
    assert changed_lines(old, made.new_text) == [38]
    assert made.new_text.splitlines()[37] == "    for i in tf.range(n):"
    trial = try_fix(target, "AGX004", run=False)
    [b], [a] = trial.before.verdicts, trial.after.verdicts
    assert (b.verdict, b.iterations, a.verdict) == ("python", 5, "staged")
    assert a.graph_op and "While" in a.graph_op
    assert trial.results_equal is True
    assert "-    for i in range(n):" in trial.diff and "+    for i in tf.range(n):" in trial.diff
    assert "@@ -35," in trial.diff  # hunk lines are the file's
    assert sha(sample("s6_2_bad_loop.py")) == before  # the user's file is not touched


def test_list_append_becomes_a_tensorarray_that_traces_and_runs_everywhere(tf):
    target = f"{sample('s4_7_pitfalls.py')}::build_list"
    trial = try_fix(target, "41", budget=0.01)
    old, new = text_of(sample("s4_7_pitfalls.py")), trial.rewrite.new_text
    assert changed_lines(old, new) == [39, 41, 42]
    lines = new.splitlines()
    assert lines[38] == "    l = tf.TensorArray(tf.int32, size=n)"
    # the user's comments stay, byte for byte
    assert lines[40] == ("        l = l.write(i, i)  # noqa: PERF402  this append does not take "
                         "effect inside the graph")
    assert lines[41] == "    return l.stack()  # fails when run"
    assert trial.before.error is not None and trial.after.error is None
    assert trial.after.verdicts[0].verdict == "staged"
    lab = trial.after.lab
    assert all(run.ok for run in lab.runs.values()), lab.runs
    assert lab.results_match is True  # XLA too (a dynamic-size array would come back empty)
    assert trial.before.lab.runs["graph"].ok is False
    assert trial.results_equal is True and "[0 1 2 3 4]" in trial.results_note


def test_tensorarray_over_tensor_rows_is_dynamic_and_float(report):
    made, _ = the_rewrite(report, f"{FIXES}::collect_rows", "AGX003")
    old = text_of(FIXES)
    lines = made.new_text.splitlines()
    changed = changed_lines(old, made.new_text)
    assert len(changed) == 3
    assert lines[changed[0] - 1] == ("    out = tf.TensorArray(tf.float32, size=0, "
                                     "dynamic_size=True)  # keep this comment")
    assert lines[changed[1] - 1] == "        out = out.write(out.size(), row * 2.0)"
    assert lines[changed[2] - 1] == "    return out.stack()"
    trial = try_fix(f"{FIXES}::collect_rows", "AGX003", run=False)
    assert trial.after.error is None and trial.after.verdicts[0].verdict == "staged"
    assert trial.results_equal is True


def test_a_list_of_a_dataset_loop_is_told_as_one_and_its_tensorarray_traces(report):
    target = f"{FIXES}::collect_batches"
    d = diagnose(target, report=report(target))
    [f] = [f for f in d.findings if f.code == "AGX003"]
    assert "which AutoGraph staged as a dataset loop" in f.message
    assert "tf.while_loop" not in f.message
    trial = try_fix(target, "AGX003", run=False)
    assert trial.before.error is not None  # the list's one tensor, out of the loop's graph
    assert trial.after.error is None and trial.after.verdicts[0].verdict == "staged"


def test_no_rewrite_when_the_list_is_used_otherwise(report):
    target = f"{FIXES}::collect_then_len"
    d = diagnose(target, report=report(target))
    [f] = [f for f in d.findings if f.code == "AGX003"]
    assert f.rewrite is None and rewrite(text_of(FIXES), f, d.call) is None
    with pytest.raises(AgxError, match="no finding with a mechanical rewrite"):
        try_fix(target, "AGX003", run=False)


def test_print_becomes_tf_print_at_the_right_column_after_non_ascii_text(report):
    made, finding = the_rewrite(report, f"{FIXES}::greets", "AGX001")
    [line] = changed_lines(text_of(FIXES), made.new_text)
    assert made.new_text.splitlines()[line - 1] == \
        '    s = "héllo wörld"; tf.print(s)  # noqa: E702'
    assert finding.col == len('    s = "héllo wörld"; ')


def test_print_rewrite_leaves_no_python_print(report, tmp_path):
    made, _ = the_rewrite(report, f"{sample('s4_2_tracing.py')}::show_trace", "AGX001")
    assert changed_lines(text_of(sample("s4_2_tracing.py")), made.new_text) == [19]
    copy = tmp_path / "s4_2_tracing.py"
    copy.write_text(made.new_text, encoding="utf-8")
    after = diagnose(f"{copy}::show_trace")
    assert after.traced and after.error is None and after.findings == []


def test_python_int_argument_becomes_a_tensor_in_the_call(report):
    target = f"{sample('s6_2_bad_loop.py')}::bad_loop"
    made, _ = the_rewrite(report, target, "AGX009")
    assert (made.new_text, made.new_call) == (None, "tf.constant(5)")
    trial = try_fix(target, "AGX009", run=False)
    assert trial.before.verdicts[0].verdict == "python"
    assert trial.after.verdicts[0].verdict == "staged" and trial.after.call == "tf.constant(5)"
    assert trial.results_equal is True
    assert "+bad_loop(tf.constant(5))" in trial.diff
    with pytest.raises(AgxError, match="changes the call"):
        apply_fix(sample("s6_2_bad_loop.py"), made)


def test_keyword_argument_is_wrapped_in_place(report):
    target = f"{sample('s6_2_bad_loop.py')}::bad_loop"
    d = diagnose(target, "n=7", report=report(target, "n=7"))
    [f] = [f for f in d.findings if f.code == "AGX009"]
    made = rewrite(text_of(sample("s6_2_bad_loop.py")), f, "n=7")
    assert made.new_call == "n=tf.constant(7)"


def test_apply_writes_only_an_unchanged_file(report, tmp_path):
    target = f"{sample('s6_2_bad_loop.py')}::range_loop"
    made, _ = the_rewrite(report, target, "AGX004")
    copy = tmp_path / "s6_2_bad_loop.py"
    shutil.copy(sample("s6_2_bad_loop.py"), copy)
    assert apply_fix(str(copy), made) == os.path.abspath(copy)
    assert text_of(str(copy)) == made.new_text
    with pytest.raises(AgxError, match="changed on disk"):  # applying twice: it changed
        apply_fix(str(copy), made)


def test_function_diff_covers_only_the_function():
    old = "a = 1\n\ndef f():\n    return 1\n\nb = 2\n"
    new = old.replace("return 1", "return 2")
    diff = function_diff(old, new, 3, 4, "m.py")
    assert "-    return 1\n+    return 2\n" in diff and "@@ -3,2 +3,2 @@" in diff
    assert "a = 1" not in diff and "b = 2" not in diff
