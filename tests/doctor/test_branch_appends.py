"""AGX018: ``.append`` on a Python list made outside an if AutoGraph staged, in one of its
branches: the tensor is the branch graph's, and using the list after the if fails
(InaccessibleTensorError, "out of scope"). Named at each append as the cause; its fix (a
name set in each branch, appended once after the if) traces and gives the eager answer; an
if Python ran stays quiet."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from conftest import fixture, import_file

CASES = fixture("branch_appends.py")
with open(CASES, encoding="utf-8") as _fh:
    LINES = _fh.read().splitlines()

pytestmark = pytest.mark.tf


def test_an_append_in_a_staged_branch_is_the_cause_and_its_fix_traces(report, tf):
    rep = report(f"{CASES}::signed")
    assert "out of scope" in rep.error.raised
    found = [f for f in diagnose(f"{CASES}::signed", report=rep).findings
             if f.code == "AGX018"]
    lines = [i for i, line in enumerate(LINES, 1) if "out.append(" in line][:2]
    assert [(f.line, f.cause) for f in found] == [(lines[0], True), (lines[1], True)]
    assert "which AutoGraph staged as a tf.cond" in found[0].message
    assert "`value = x`" in found[0].fix and "`value = -x`" in found[1].fix
    assert "`out.append(value)`" in found[0].fix
    # The fix, as the finding says it (signed_fixed): it traces, the if staged, and it
    # gives what Python gives the original run eagerly.
    fixed = report(f"{CASES}::signed_fixed")
    assert fixed.error is None
    assert [v.verdict for v in fixed.statements if v.kind == "if"] == ["staged"]
    module = import_file(CASES, "branch_appends")
    xs = [tf.constant([1.0]), tf.constant([-2.0])]
    tf.config.run_functions_eagerly(True)
    try:
        expected = module.signed(xs).numpy().tolist()
    finally:
        tf.config.run_functions_eagerly(False)
    assert module.signed_fixed(xs).numpy().tolist() == expected == [[1.0], [2.0]]


@pytest.mark.parametrize("function", ["signed_fixed", "chosen_in_python"])
def test_an_append_after_the_if_or_under_a_python_if_is_quiet(report, function):
    target = f"{CASES}::{function}"
    assert not [f for f in diagnose(target, report=report(target)).findings
                if f.code == "AGX018"]
