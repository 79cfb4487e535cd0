"""A `break` on a tensor inside a loop Python runs makes the trace fail at the loop's
header: the verdict says so (not "added no ops", not "never reached"), the doctor names the
loop as the cause, and its rewrite (tf.range; `while tf.constant(True):`) is traced, or,
where it fails, its advice is applied in the fixture and traced."""

from __future__ import annotations

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from conftest import fixture, import_file

CASES = fixture("tensor_breaks.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()


def line_of(snippet: str) -> int:
    return next(i for i, t in enumerate(TEXT.splitlines(), 1) if snippet in t)


def applied(finding, folder, name: str):
    """The fixture with ``finding``'s rewrite applied, imported as the module ``name``."""
    path = folder / f"{name}.py"
    path.write_text(rewrite(TEXT, finding).new_text, encoding="utf-8")
    return import_file(path, name)


def doctored(report, function: str):
    target = f"{CASES}::{function}"
    return report(target), diagnose(target, report=report(target))


def test_a_for_over_range_stopped_by_a_tensor_break(report):
    rep, result = doctored(report, "first_big")
    assert "not supported in Python for loops" in rep.error.raised
    loop = next(v for v in rep.statements if v.kind == "for")
    assert loop.verdict == "python" and loop.line == line_of("for i in range(5):")
    assert f"Then tracing raised at this loop's header (line {loop.line})" in loop.reason
    assert "added no ops" not in loop.reason and "Nothing to stage" not in loop.reason
    [finding] = result.findings
    assert (finding.code, finding.cause) == ("AGX004", True)
    assert "then tracing failed on it" in finding.message and "no ops" not in finding.message
    assert finding.tried.outcome == "staged"


def test_while_true_stopped_by_a_tensor_break_gets_a_tensor_condition(report, tf, tmp_path):
    rep, result = doctored(report, "newton_sqrt")
    loop = next(v for v in rep.statements if v.kind == "while")
    # Its body ran once in Python, then its condition became a tensor (the break's).
    assert (loop.verdict, loop.iterations) == ("python", 1)
    assert f"Then tracing raised at this loop's header (line {loop.line})" in loop.reason
    [finding] = result.findings
    assert (finding.code, finding.line, finding.cause) == ("AGX004", loop.line, True)
    assert "write `while tf.constant(True):`" in finding.fix
    assert finding.tried.outcome == "staged"
    module = applied(finding, tmp_path, "tensor_breaks_fixed")
    assert abs(float(module.newton_sqrt(tf.constant(2.0))) - 2.0 ** 0.5) < 1e-5


def test_a_counter_rewrite_that_fails_gives_advice_that_works_applied(report):
    _, result = doctored(report, "count_to")
    [finding] = result.findings
    assert finding.cause and finding.tried.outcome == "fails"
    assert "TypeError" in finding.tried.error and finding.rewrite is None
    assert "tf.cast it to the dtype it meets" in finding.fix
    fixed, after = doctored(report, "count_to_fixed")
    assert fixed.error is None and after.findings == []
    loop = next(v for v in fixed.statements if v.kind == "while")
    assert loop.verdict == "staged"


def test_a_flag_the_body_makes_a_tensor_is_started_as_one_and_tried(report, tf, tmp_path):
    """`done = False` / `while not done:` / `done = <tensor>`: no break, the condition itself
    became a tensor after one step. The finding says so (not "a break or return"), its
    rewrite starts the flag as a tensor (`done = tf.constant(False)`), and the report's fix,
    which says the same, is tried although the trace failed: it is what makes it trace."""
    from agexplorer.doctor.verdict_fixes import tried_fixes

    rep, result = doctored(report, "grow_until")
    [finding] = result.findings
    assert (finding.code, finding.cause) == ("AGX004", True)
    assert "its body made the condition a tensor" in finding.message, finding.message
    assert "break" not in finding.message and "break" not in finding.fix, finding.fix
    assert "(`done = tf.constant(False)`)" in finding.fix
    assert finding.tried.outcome == "staged"
    module = applied(finding, tmp_path, "tensor_breaks_flag")
    assert float(tf.reduce_sum(module.grow_until(tf.ones([2])))) > 100.0
    loop = next(v for v in tried_fixes(f"{CASES}::grow_until", TEXT, rep, None).statements
                if v.kind == "while")
    assert "start `done` as a tensor (`done = tf.constant(False)`)" in loop.hint
    assert loop.hint.endswith("Tried: the rewrite stages the loop as a StatelessWhile op.")
