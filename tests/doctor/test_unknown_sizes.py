"""AGX012: ``x.shape[0]`` is None where the trace does not know the size (an input_signature
with None): the trace raises on it, the verdict says it raised there, and the rewrite to
``tf.shape(x)[0]`` traces and gives the eager answers."""

from __future__ import annotations

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from conftest import fixture, import_file

CASES = fixture("unknown_sizes.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()
IF_LINE = next(i for i, t in enumerate(TEXT.splitlines(), 1) if "if x.shape[0] > 2:" in t)


def test_an_unknown_size_is_named_as_the_cause_and_its_rewrite_traces(report, tf, tmp_path):
    target = f"{CASES}::head_or_all"
    rep = report(target)
    assert rep.error is not None and "NoneType" in rep.error.raised
    [verdict] = rep.statements
    assert verdict.line == IF_LINE and verdict.verdict == "unreached"
    assert verdict.reason.startswith(f"tracing raised here, at line {IF_LINE}, evaluating its "
                                     "condition")
    assert "before Python reached" not in verdict.reason
    result = diagnose(target, report=rep)
    [finding] = result.findings
    assert (finding.code, finding.line, finding.cause) == ("AGX012", IF_LINE, True)
    assert "`tf.shape(x)[0]`" in finding.fix and "that is what made tracing fail" in \
        finding.message
    assert finding.tried is not None and finding.tried.outcome == "traced"
    made = rewrite(TEXT, finding)
    assert "    if tf.shape(x)[0] > 2:\n" in made.new_text
    path = tmp_path / "unknown_sizes_fixed.py"
    path.write_text(made.new_text, encoding="utf-8")
    module = import_file(path, "unknown_sizes_fixed")
    assert module.head_or_all(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 2.0]
    assert module.head_or_all(tf.constant([5.0])).numpy().tolist() == [5.0]


def test_a_known_size_is_no_finding(report):
    result = diagnose(f"{CASES}::head_known", report=report(f"{CASES}::head_known"))
    assert result.traced and result.findings == []


def test_a_size_rewrite_that_meets_a_growing_value_says_to_let_it_vary(report, tf):
    """``range(x.shape[0])`` with an unknown size: the tf.shape rewrite stages the loop, where
    ``out`` grows by one each step, so it fails; the fix says to let that dimension vary (a
    shape invariant), which, applied with the rewrite (``doubled_fixed``), traces and runs."""
    target = f"{CASES}::doubled"
    result = diagnose(target, report=report(target))
    [finding] = result.findings
    assert finding.code == "AGX012" and finding.tried.outcome == "fails"
    assert "set_loop_options(shape_invariants=[(out, tf.TensorShape([None]))])" in finding.fix
    assert "start `out` as a tensor" not in finding.fix
    fixed = report(f"{CASES}::doubled_fixed")
    assert fixed.error is None
    module = import_file(CASES, "unknown_sizes_module")
    assert module.doubled_fixed(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
