"""AGX017: an ``assert`` on a tensor in a tf.function ("Using a symbolic `tf.Tensor` as a
Python `bool` is not allowed": AutoGraph leaves assert statements to Python): named at the
assert as the cause; its rewrite to ``tf.debugging.Assert`` traces, gives the eager answers
where the condition holds and raises where it does not."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from conftest import fixture, import_file

CASES = fixture("asserted_tensors.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()
LINES = TEXT.splitlines()


@pytest.mark.parametrize(("function", "statement", "made", "good", "bad"), [
    ("safe_div", 'assert b != 0, "b must not be zero"',
     'tf.debugging.Assert(tf.reduce_all(b != 0), ["b must not be zero"])', (8.0, 2.0),
     (8.0, 0.0)),
    ("positive", "assert x > 0", "tf.debugging.Assert(tf.reduce_all(x > 0), ['assert x > 0'])",
     (4.0,), (-1.0,)),
    ("all_positive", 'assert tf.reduce_all(x > 0), "x must be positive"',  # reduced once
     'tf.debugging.Assert(tf.reduce_all(x > 0), ["x must be positive"])', (4.0,), (-1.0,)),
])
def test_an_assert_on_a_tensor_becomes_an_assert_op(report, tf, tmp_path, function, statement,
                                                    made, good, bad):
    target = f"{CASES}::{function}"
    rep = report(target)
    assert "as a Python `bool` is not allowed" in rep.error.raised
    [finding] = diagnose(target, report=rep).findings
    line = LINES.index(f"    {statement}") + 1
    assert (finding.code, finding.line, finding.cause) == ("AGX017", line, True)
    assert "does not apply" in finding.message and f"`{made}`" in finding.fix
    assert finding.tried is not None and finding.tried.outcome == "traced"
    path = tmp_path / "asserted_fixed.py"
    path.write_text(rewrite(TEXT, finding).new_text, encoding="utf-8")
    assert LINES[line - 1].replace(statement, made) == \
        path.read_text(encoding="utf-8").splitlines()[line - 1]
    original, fn = (getattr(import_file(p, n), function)
                    for p, n in ((CASES, "asserted_tensors"), (path, "asserted_fixed")))
    tf.config.run_functions_eagerly(True)  # the original, as Python runs it: the eager answer
    try:
        expected = original(*[tf.constant(a) for a in good]).numpy().tolist()
    finally:
        tf.config.run_functions_eagerly(False)
    assert fn(*[tf.constant(a) for a in good]).numpy().tolist() == expected
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(*[tf.constant(a) for a in bad])

