"""AGX014 at a tf.cond written by hand whose branches give different results: TensorFlow's
message, with what each branch gave, names the call as the cause; where each gave one tensor
of another dtype, the rewrite casts the false branch, traces, and gives the eager answers."""

from __future__ import annotations

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from agexplorer.model.errors import raised_line
from conftest import fixture, import_file

CASES = fixture("cond_calls.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()


def test_tensorflow_s_words_keep_what_each_branch_gave():
    error = TypeError("true_fn and false_fn arguments to tf.cond must have the same number, "
                      "type, and overall structure of return values.\n\ntrue_fn output: "
                      'Tensor("cond/Identity:0", shape=(2, 3), dtype=float32)\nfalse_fn '
                      'output: Tensor("cond/Identity:0", shape=(), dtype=int32)\n')
    assert raised_line(error).endswith("return values. (the true branch gives float32[2, 3], "
                                       "the false branch int32[])")


def test_a_dtype_mismatch_gets_a_cast_that_traces_and_answers_as_eagerly(report, tf, tmp_path):
    target = f"{CASES}::pick"
    rep = report(target)
    [finding] = diagnose(target, report=rep).findings
    assert (finding.code, finding.line, finding.cause) == ("AGX014", 8, True)
    assert "(the true branch float32[], the false branch int32[])" in finding.message
    assert "`lambda: tf.cast(tf.constant(0), tf.float32)`" in finding.fix
    assert finding.tried is not None and finding.tried.outcome == "traced"
    path = tmp_path / "cond_fixed.py"
    path.write_text(rewrite(TEXT, finding).new_text, encoding="utf-8")
    assert "lambda: tf.cast(tf.constant(0), tf.float32))" in path.read_text(encoding="utf-8")
    modules = [import_file(CASES, "cond_calls"), import_file(path, "cond_fixed")]
    for x in (1.5, -2.0):
        tf.config.run_functions_eagerly(True)
        try:
            expected = float(modules[0].pick(tf.constant(x)))
        finally:
            tf.config.run_functions_eagerly(False)
        assert float(modules[1].pick(tf.constant(x))) == expected


def test_a_structure_mismatch_gets_the_fix_in_words(report):
    target = f"{CASES}::list_or_tuple"
    [finding] = diagnose(target, report=report(target)).findings
    assert finding.code == "AGX014" and finding.cause and finding.rewrite is None
    assert "(the true branch [float32[], float32[]], the false branch (float32[], " \
        "float32[])): a tf.cond returns one result" in finding.message
    assert finding.fix.startswith("return the same from both branches")
