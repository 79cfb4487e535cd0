"""AGX010 for a staged loop's variable started as a Python number of another dtype than its
body gives it (``total = 0`` before adding float32 values: AutoGraph makes the start an int32
tensor, and tracing raises TypeError at the body's line): named at the loop as the cause,
its start rewritten to the body's dtype, traced by the doctor and answering as the original
does eagerly; a float start in an int body and a loop that traces get no finding."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from conftest import fixture, import_file

CASES = fixture("loop_dtypes.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()
LINES = TEXT.splitlines()


@pytest.mark.parametrize(("function", "start", "made", "args"), [
    ("average", "total = 0", "total = 0.0", (([1.0, 2.0, 4.0], "float32"),)),
    ("wide_sum", "acc = 1", "acc = tf.constant(1.0, tf.float64)",
     (([1.5, 2.0], "float64"),)),
])
def test_a_number_started_loop_variable_takes_the_bodys_dtype(report, tf, tmp_path, function,
                                                              start, made, args):
    call = ", ".join(f"tf.constant({values}, tf.{dtype})" for values, dtype in args)
    target = f"{CASES}::{function}"
    rep = report(target, call)
    assert "that does not match type" in rep.error.raised
    [finding] = diagnose(target, call, report=rep).findings
    loop = next(i for i, t in enumerate(LINES, 1) if t.strip().startswith("for ")
                and i > LINES.index(f"def {function}(xs):"))
    assert (finding.code, finding.line, finding.cause) == ("AGX010", loop, True)
    assert f"`{start.split()[0]}` starts as the Python int" in finding.message
    assert f"`{made}`" in finding.fix
    assert finding.tried is not None and finding.tried.outcome == "traced"
    path = tmp_path / "loop_dtypes_fixed.py"
    path.write_text(rewrite(TEXT, finding).new_text, encoding="utf-8")
    fixed_lines = path.read_text(encoding="utf-8").splitlines()
    at = LINES.index(f"    {start}")
    assert fixed_lines[at] == f"    {made}"
    assert fixed_lines[:at] + fixed_lines[at + 1:] == LINES[:at] + LINES[at + 1:]
    original, fn = (getattr(import_file(p, n), function)
                    for p, n in ((CASES, "loop_dtypes"), (path, "loop_dtypes_fixed")))
    values = [tf.constant(v, getattr(tf, d)) for v, d in args]
    tf.config.run_functions_eagerly(True)  # the original, as Python runs it: the eager answer
    try:
        expected = original(*values)
    finally:
        tf.config.run_functions_eagerly(False)
    got = fn(*values)
    assert got.dtype == expected.dtype  # one float32 ulp apart, eager against the graph:
    assert got.numpy().tolist() == pytest.approx(expected.numpy().tolist(), rel=1e-6)


@pytest.mark.parametrize("function", ["float_counter", "steps"])
def test_no_dtype_finding_where_the_start_is_not_the_cause(report, function):
    """``s = 0.0`` summing int32 values fails eagerly too (a float start is no int one, and
    the body's value may be the one meant to change): no finding, rather than a wrong fix;
    ``steps`` traces."""
    target = f"{CASES}::{function}"
    rep = report(target, "tf.constant(3)")
    assert (rep.error is not None) == (function == "float_counter")
    assert [f.code for f in diagnose(target, "tf.constant(3)", report=rep).findings
            if f.code == "AGX010"] == []
