"""AGX014: a staged if whose branches do not match (a value set in one branch only, a return
on one path only, a dtype that differs): named at the if as the cause, from TensorFlow's
words there; each fix, applied in the fixture (the ``_fixed`` functions), traces and runs."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from conftest import fixture, import_file

CASES = fixture("branch_cases.py")
with open(CASES, encoding="utf-8") as _fh:
    LINES = _fh.read().splitlines()


def if_line(function: str) -> int:
    start = LINES.index(f"def {function}(x):")
    return next(i for i, t in enumerate(LINES, 1) if i > start and t.strip().startswith("if "))


@pytest.mark.parametrize(("function", "said", "fix"), [
    ("doubled_if_positive", "`y` is set in one branch of the if at line",
     "give `y` a value in the else (false) branch too, or before the if"),
    ("returns_once", "returns (`return x * 2.0`) in one branch only",
     "return a value on the other path too"),
    ("counts", "`n` is int32 in the if (true) branch of the if at line",
     "give `n` one dtype in both branches: tf.cast it (to float32 or int32)"),
])
def test_unmatched_branches_are_the_cause_with_what_the_other_branch_needs(
        report, tf, tmp_path, function, said, fix):
    target = f"{CASES}::{function}"
    rep = report(target)
    assert rep.error is not None and rep.error.line == if_line(function)
    [finding] = diagnose(target, report=rep).findings
    assert (finding.code, finding.line, finding.cause) == ("AGX014", if_line(function), True)
    assert said in finding.message and "that is what made tracing fail" in finding.message
    assert finding.fix.startswith(fix)
    # The fix applied: it traces, and runs.
    fixed = report(f"{CASES}::{function}_fixed")
    assert fixed.error is None
    assert not diagnose(f"{CASES}::{function}_fixed", report=fixed).findings
    module = import_file(CASES, "branch_cases_module")
    getattr(module, f"{function}_fixed")(tf.constant([1.0, 2.0]))
    getattr(module, f"{function}_fixed")(tf.constant([-1.0, -2.0]))
