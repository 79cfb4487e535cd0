"""AGX011: a `return` inside a loop AutoGraph staged, which TensorFlow refuses ("a return
statement cannot be placed inside this TensorFlow loop"). The fix keeps the value in a
variable and leaves the loop with `break`: the doctor's rewrite is traced while it runs and
gives the same answers; the fix text it gives where it has no rewrite is applied by hand
in the fixture (``total_or_first_big_fixed``) and traced here too."""

from __future__ import annotations

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from conftest import fixture, import_file

CASES = fixture("returns_in_loops.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()


def line_of(snippet: str, after: str = "") -> int:
    lines = TEXT.splitlines()
    start = next(i for i, t in enumerate(lines, 1) if after in t) if after else 0
    return next(i for i, t in enumerate(lines, 1) if i > start and snippet in t)


def diagnosed(report, function: str, call: str | None = None):
    target = f"{CASES}::{function}"
    return diagnose(target, call, report=report(target, call))


def load(text: str, name: str, tmp_path):
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    module = import_file(path, name)
    return module


def test_a_return_in_a_staged_loop_is_the_cause_and_its_break_rewrite_traces(report, tf,
                                                                             tmp_path):
    result = diagnosed(report, "first_negative")
    assert not result.traced and "return statement cannot be placed" in result.error.raised
    [finding] = result.findings
    assert finding.code == "AGX011" and finding.cause and finding.basis == "trace"
    assert finding.line == line_of("return i", "def first_negative")
    assert "loop at line " + str(line_of("for i in tf.range", "def first_negative")) \
        in finding.message
    assert "that is what made tracing fail" in finding.message
    assert "`result = -1` before the loop, `result = i` then `break` in place of " \
           "`return i`, and `return result` after the loop" in finding.fix
    # The rewrite was traced while the doctor ran (the function itself did not trace).
    assert finding.tried is not None and finding.tried.outcome == "traced"
    made = rewrite(TEXT, finding)
    assert made is not None and made.new_text is not None
    assert ("    result = -1\n    for i in tf.range(tf.shape(x)[0]):\n"
            "        if x[i] < 0:\n            result = i\n            break\n"
            "    return result\n") in made.new_text
    fixed = load(made.new_text, "returns_rewritten", tmp_path)
    assert int(fixed.first_negative(tf.constant([1.0, 2.0, -3.0]))) == 2
    assert int(fixed.first_negative(tf.constant([1.0, 2.0]))) == -1
    graph = fixed.first_negative.get_concrete_function(tf.TensorSpec([None])).graph
    assert any(op.type in ("While", "StatelessWhile") for op in graph.get_operations())


def test_a_result_that_depends_on_the_loop_gets_the_flag_fix_and_no_rewrite(report, tf,
                                                                          tmp_path):
    result = diagnosed(report, "total_or_first_big")
    [finding] = result.findings
    assert finding.code == "AGX011" and finding.cause and finding.rewrite is None
    for words in ("before the loop `found = False` and `result` set to a value of `v`'s "
                  "dtype and shape", "in place of `return v`: `result = v`, `found = True` "
                  "and `break`", "after the loop `if not found: result = total`, then "
                  "`return result`"):
        assert words in finding.fix
    # Applied as it says (the fixture's total_or_first_big_fixed): it traces, stages, and
    # gives what the original gives run eagerly.
    fixed = diagnosed(report, "total_or_first_big_fixed")
    assert fixed.traced and fixed.error is None and not fixed.findings
    module = load(TEXT, "returns_fixed", tmp_path)
    tf.config.run_functions_eagerly(True)
    try:
        expected = [float(module.total_or_first_big(tf.constant(v)))
                    for v in ([1.0, 2.0, 30.0, 4.0], [1.0, 2.0])]
    finally:
        tf.config.run_functions_eagerly(False)
    got = [float(module.total_or_first_big_fixed(tf.constant(v)))
           for v in ([1.0, 2.0, 30.0, 4.0], [1.0, 2.0])]
    assert got == expected == [30.0, 3.0]


def test_a_return_in_a_loop_run_in_python_is_no_finding(report):
    result = diagnosed(report, "third_or_last")
    assert result.traced
    assert [f.code for f in result.findings] == ["AGX004"]  # the unrolled range loop only

