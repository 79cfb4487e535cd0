"""AGX016: a comprehension over a tensor in a tf.function ("Iterating over a symbolic
`tf.Tensor` is not allowed": AutoGraph converts ``for`` statements, not comprehensions):
named at the comprehension as the cause. Its rewrite, ``tf.unstack``, is traced by the doctor
where the first dimension is known; where it is not, the fix's ``tf.map_fn`` form, applied in
the fixture (``doubled_fixed``), traces and gives the eager answers."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from conftest import fixture, import_file

CASES = fixture("comprehended_tensors.py")
with open(CASES, encoding="utf-8") as _fh:
    TEXT = _fh.read()
LINES = TEXT.splitlines()


def _eager(tf, fn, *args):
    tf.config.run_functions_eagerly(True)
    try:
        return fn(*args).numpy().tolist()
    finally:
        tf.config.run_functions_eagerly(False)


@pytest.mark.parametrize(("function", "comprehension", "unstacked", "args"), [
    ("squares", "[v * v for v in x]", "`tf.unstack(x)`", ([1.0, 2.0, 3.0],)),
    ("pairs", "[a * b for a, b in zip(xs, ys)]", "`zip(tf.unstack(xs), tf.unstack(ys))`",
     ([1.0, 2.0], [3.0, 4.0])),
])
def test_a_comprehension_over_a_tensor_is_the_cause_and_unstack_traces(
        report, tf, tmp_path, function, comprehension, unstacked, args):
    target = f"{CASES}::{function}"
    rep = report(target)
    assert "Iterating over a symbolic" in rep.error.raised
    [finding] = diagnose(target, report=rep).findings
    line = next(i for i, t in enumerate(LINES, 1) if comprehension in t)
    assert (finding.code, finding.line, finding.cause) == ("AGX016", line, True)
    assert f"`{comprehension}` is a comprehension" in finding.message
    assert "does not apply" in finding.message and unstacked in finding.fix
    assert finding.tried is not None and finding.tried.outcome == "traced"
    made = rewrite(TEXT, finding)
    assert unstacked.strip("`") in made.new_text.splitlines()[line - 1]
    path = tmp_path / "comprehended_fixed.py"
    path.write_text(made.new_text, encoding="utf-8")
    tensors = [tf.constant(a) for a in args]
    expected = _eager(tf, getattr(import_file(CASES, "comprehended_tensors"), function), *tensors)
    assert getattr(import_file(path, "comprehended_fixed"), function)(*tensors).numpy().tolist() \
        == expected


def test_an_unknown_first_dimension_gets_map_fn_which_traces(report, tf):
    target = f"{CASES}::doubled"
    rep = report(target)  # its input_signature: a size None when tracing
    [finding] = diagnose(target, report=rep).findings
    assert finding.code == "AGX016" and finding.cause
    assert finding.tried.outcome == "fails" and "Cannot infer argument `num`" in \
        finding.tried.error and finding.rewrite is None
    assert "`tf.map_fn(lambda v: v * 2.0, x)` gives the results stacked in one tensor" in \
        finding.fix
    fixed = report(f"{CASES}::doubled_fixed")
    assert fixed.error is None
    module = import_file(CASES, "comprehended_tensors")
    x = tf.constant([1.0, 2.5, -3.0])
    tf.config.run_functions_eagerly(True)
    try:
        expected = module.doubled(x).numpy().tolist()
    finally:
        tf.config.run_functions_eagerly(False)
    assert module.doubled_fixed(x).numpy().tolist() == expected


def test_a_comprehension_over_a_python_list_is_not_named(report):
    """The trace fails at the line, but the comprehension goes over a Python list: the
    tensor was iterated in its body (``sum(v)``), so the list is not named as the cause."""
    target = f"{CASES}::sums"
    rep = report(target)
    assert "Iterating over a symbolic" in rep.error.raised
    assert [f.code for f in diagnose(target, report=rep).findings] == []
