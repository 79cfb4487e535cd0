"""AGX015: zip()/enumerate() over tensors in a tf.function ("Iterating over a symbolic
`tf.Tensor` is not allowed"): named at the loop as the cause, with the index loop as the
fix; applied in the fixture (the ``_fixed`` functions), it stages and gives the answers the
Python loop gives eagerly."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from conftest import fixture, import_file

CASES = fixture("zipped_tensors.py")
with open(CASES, encoding="utf-8") as _fh:
    LINES = _fh.read().splitlines()


@pytest.mark.parametrize(("function", "loop", "fix", "args"), [
    ("dot", "for a, b in zip(xs, ys):", "`for i in tf.range(tf.shape(xs)[0]):` with `a, b = "
     "xs[i], ys[i]` first in the loop's body", ([1.0, 2.0], [3.0, 4.0])),
    ("weighted", "for i, a in enumerate(xs):", "`for i in tf.range(tf.shape(xs)[0]):` with "
     "`a = xs[i]` first in the loop's body", ([1.0, 2.0],)),
])
def test_zip_or_enumerate_over_tensors_gets_the_index_loop(report, tf, function, loop, fix,
                                                            args):
    target = f"{CASES}::{function}"
    rep = report(target)
    assert "Iterating over a symbolic" in rep.error.raised
    [finding] = diagnose(target, report=rep).findings
    line = LINES.index(f"    {loop}") + 1
    assert (finding.code, finding.line, finding.cause) == ("AGX015", line, True)
    assert "does not apply" in finding.message and fix in finding.fix
    fixed = report(f"{CASES}::{function}_fixed")
    assert fixed.error is None
    assert [v.verdict for v in fixed.statements if v.kind == "for"] == ["staged"]
    module = import_file(CASES, "zipped_tensors_module")
    tensors = [tf.constant(a) for a in args]
    tf.config.run_functions_eagerly(True)
    try:
        expected = float(getattr(module, function)(*tensors))
    finally:
        tf.config.run_functions_eagerly(False)
    assert float(getattr(module, f"{function}_fixed")(*tensors)) == expected
