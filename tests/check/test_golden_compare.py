"""Verdict snapshots compared without TensorFlow: the sentences, the pairing, the tolerance."""

import contextlib
import io
import json

import pytest

from agexplorer.model.check import Snapshot, StatementSnap, TargetSnap, compare


def loop(line=42, header="for i in range(n)", verdict="staged", iterations=None, ops=10):
    return StatementSnap(line=line, kind="for", header=header, verdict=verdict,
                         function="step", iterations=iterations, ops=ops)


def target(*statements, ops=120, traces=3, error=None, error_kind=None, function="step"):
    return TargetSnap("train.py", function, 10, op_count=ops, traces=traces,
                      statements=tuple(statements), error=error, error_kind=error_kind)


def texts(changes, info=False):
    return [c.text() for c in changes if c.info == info]


def test_unchanged_snapshots_have_no_change():
    snap = Snapshot([target(loop())], "2.21.0")
    assert compare(snap, snap) == []


def test_a_loop_that_falls_back_to_python_is_the_issue_sentence():
    changes = compare(Snapshot([target(loop())]),
                      Snapshot([target(loop(verdict="python", iterations=200), ops=120)]))
    assert texts(changes) == ["train.py:42 `for i in range(n)`: staged -> unrolled x200"]


def test_a_moved_loop_is_information_not_a_change():
    changes = compare(Snapshot([target(loop(line=42))]), Snapshot([target(loop(line=45))]))
    assert texts(changes) == []
    assert texts(changes, info=True) == [
        "train.py:45 `for i in range(n)`: moved from line 42, verdict unchanged (staged)"]


def test_an_edited_header_pairs_by_line_then_by_order():
    staged = loop(header="for i in tf.range(n)")
    by_line = compare(Snapshot([target(staged)]),
                      Snapshot([target(loop(verdict="python", iterations=5))]))
    assert texts(by_line) == ["train.py:42 `for i in range(n)`: staged -> unrolled x5"]
    moved_too = compare(Snapshot([target(staged)]),
                        Snapshot([target(loop(line=50, verdict="python", iterations=5))]))
    assert texts(moved_too) == ["train.py:50 `for i in range(n)`: staged -> unrolled x5"]


def test_iteration_counts_are_part_of_the_verdict():
    changes = compare(Snapshot([target(loop(verdict="python", iterations=5))]),
                      Snapshot([target(loop(verdict="python", iterations=6))]))
    assert texts(changes) == ["train.py:42 `for i in range(n)`: unrolled x5 -> unrolled x6"]


def test_new_and_gone_statements():
    changes = compare(Snapshot([target(loop())]),
                      Snapshot([target(StatementSnap(7, "if", "if x > 0", "python", "step"))]))
    assert texts(changes) == ["train.py:7 `if x > 0`: new statement (python)",
                              "train.py:42 `for i in range(n)`: gone (it was staged)"]


@pytest.mark.parametrize(("tolerance", "percent", "reported"), [
    (0, False, True), (10, False, True), (11, False, False), (5, True, True),
    (10, True, False)])
def test_op_tolerance_in_ops_or_percent(tolerance, percent, reported):
    changes = compare(Snapshot([target(ops=110)]), Snapshot([target(ops=121)]),
                      tolerance, percent)
    assert texts(changes) == (["train.py::step: 110 ops -> 121 ops"] if reported else [])


def test_trace_count_change():
    # The graphs one trace made (the function's own, two per staged loop): named so, not
    # "traces", which a reader takes for retraces.
    changes = compare(Snapshot([target(traces=3)]), Snapshot([target(traces=1)]))
    assert texts(changes) == ["train.py::step: 3 function graphs -> 1 function graph"]


def test_new_gone_and_failed_targets_are_never_silent():
    golden = Snapshot([target(function="old"), target(function="breaks")])
    current = Snapshot([target(function="added"),
                        target(function="breaks", error="train.py:12: tracing breaks raised "
                               "ValueError: no", error_kind="trace-failed")])
    assert texts(compare(golden, current)) == [
        "train.py::added: new target, not in the golden file (run with --update to add it)",
        "train.py::breaks: could not be analysed: train.py:12: tracing breaks raised "
        "ValueError: no",
        "train.py::old: in the golden file but no longer found with a ready call"]


def test_a_failure_the_golden_file_records_is_told_as_information():
    failing = target(error="tracing raised ValueError: no", error_kind="trace-failed")
    changes = compare(Snapshot([failing]), Snapshot([failing]))
    assert texts(changes) == []
    assert texts(changes, info=True) == [
        "train.py::step: fails as the golden file records (tracing raised ValueError: no)"]


def test_another_tensorflow_is_information():
    changes = compare(Snapshot([target()], "2.20.0"), Snapshot([target()], "2.21.0"))
    assert texts(changes) == []
    assert texts(changes, info=True) == [
        "the golden file was made with TensorFlow 2.20.0, this is 2.21.0 (op counts may differ "
        "between releases)"]


KERAS_3 = ("2.21.0", "3.15.1", "keras-3")
TF_KERAS = ("2.21.0", "2.21.0", "tf-keras")


def test_another_keras_is_named_as_the_likely_cause_of_the_op_count_changes():
    golden = Snapshot([target(), target(function="predict")], *KERAS_3)
    current = Snapshot([target(ops=116), target(function="predict")], *TF_KERAS)
    changes = compare(golden, current)
    assert texts(changes) == ["train.py::step: 120 ops -> 116 ops"]  # still a change
    assert texts(changes, info=True) == [
        "the golden file was made with Keras 3 (keras 3.15.1), this is Keras 2 (tf-keras "
        "2.21.0): Keras is the likely cause of the changed op or trace counts of step"]
    note = changes[0].to_dict()
    assert note["explains"] == ["train.py::step"] and note["kind"] == "keras"
    # the same Keras change without a count change: said, blaming nothing
    quiet = compare(golden, Snapshot([target(), target(function="predict")], *TF_KERAS))
    assert texts(quiet, info=True) == [
        "the golden file was made with Keras 3 (keras 3.15.1), this is Keras 2 (tf-keras "
        "2.21.0) (the op counts of Keras code may differ)"]


def test_a_target_whose_code_changed_is_not_put_down_to_keras():
    golden = Snapshot([target(loop())], *KERAS_3)
    edited = compare(golden, Snapshot([target(loop(verdict="python", iterations=5), ops=40)],
                                      *TF_KERAS))
    assert len(texts(edited)) == 2  # the verdict and the op count
    assert texts(edited, info=True)[0].endswith("(the op counts of Keras code may differ)")


def test_keras_is_blamed_before_tensorflow_and_tensorflow_when_keras_is_the_same():
    golden = Snapshot([target()], *KERAS_3)
    both = compare(golden, Snapshot([target(ops=147)], "2.15.1", "2.15.0", "keras-2"))
    assert texts(both, info=True) == [
        "the golden file was made with TensorFlow 2.21.0, this is 2.15.1 (op counts may differ "
        "between releases)",
        "the golden file was made with Keras 3 (keras 3.15.1), this is Keras 2 (keras 2.15.0): "
        "Keras is the likely cause of the changed op or trace counts of step"]
    tf_only = compare(golden, Snapshot([target(ops=121, traces=4)], "2.20.0", "3.15.1",
                                       "keras-3"))
    assert texts(tf_only, info=True) == [
        "the golden file was made with TensorFlow 2.21.0, this is 2.20.0: the TensorFlow "
        "release is the likely cause of the changed op or trace counts of step"]


def test_a_golden_file_from_before_keras_was_recorded_reads_and_blames_nothing():
    old = json.loads(Snapshot([target()], "2.21.0").dumps())
    del old["keras"], old["keras_flavour"]
    golden = Snapshot.from_dict(old)
    assert (golden.keras, golden.keras_flavour) == ("", "")
    changes = compare(golden, Snapshot([target(ops=116)], *TF_KERAS))
    assert texts(changes) == ["train.py::step: 120 ops -> 116 ops"]
    assert texts(changes, info=True) == []


def test_a_note_about_the_whole_check_has_no_file_in_any_format():
    from agexplorer.render.check import github_lines, render_check

    changes = compare(Snapshot([target()], *KERAS_3), Snapshot([target()], *TF_KERAS))
    [note] = changes
    assert github_lines(changes) == [f"::notice::{note.text()}"]
    data = note.to_dict()
    assert (data["file"], data["line"], data["function"]) == (None, None, None)
    with io.StringIO() as out, contextlib.redirect_stdout(out):
        render_check(changes, 1, "golden.json", width=300)
        printed = out.getvalue()
    assert printed.splitlines()[0] == f"info: {note.text()}"


def test_golden_text_is_stable_sorted_and_round_trips():
    snap = Snapshot([target(loop(line=50), loop(line=42, header="for j in range(m)"),
                            function="z"), target(loop())], *KERAS_3)
    text = snap.dumps()
    again = Snapshot.from_dict(json.loads(text))
    assert again.dumps() == text
    assert (again.tensorflow, again.keras, again.keras_flavour) == KERAS_3
    assert text.index('"function": "step"') < text.index('"function": "z"')
    statement_lines = [line for line in text.splitlines() if '"kind": "for"' in line]
    assert len(statement_lines) == 3  # one statement a line: a review diff shows just it
    assert compare(snap, again) == []


def test_a_file_that_is_not_a_golden_file_is_refused():
    with pytest.raises(ValueError, match="not an agexplorer check golden file"):
        Snapshot.from_dict({"targets": []})
    with pytest.raises(ValueError, match="malformed"):
        Snapshot.from_dict({"format": 1, "targets": [{"file": "a.py"}]})


def test_a_golden_file_from_before_conditional_expressions_were_judged_is_read():
    """Format 1 holds no conditional expressions: one found now is told, not failed on; a
    golden file of format 2 that lacks one fails as any new statement does."""
    ternary = StatementSnap(line=44, kind="ifexp", header="x * 2.0 if training else x",
                            verdict="python", function="step")
    old = Snapshot.from_dict({**Snapshot([target(loop())]).to_dict(), "format": 1})
    assert old.format == 1
    now = Snapshot([target(loop(), ternary)])
    changes = compare(old, now)
    assert texts(changes) == []
    assert texts(changes, info=True) == [
        "train.py:44 `x * 2.0 if training else x`: a conditional expression (python), "
        "judged since the golden file was written (run with --update to record it)"]
    written = Snapshot.from_dict(json.loads(Snapshot([target(loop())]).dumps()))
    assert written.format == 2
    assert texts(compare(written, now)) == [
        "train.py:44 `x * 2.0 if training else x`: new statement (python)"]
