"""Engine corrections found by external checks: AutoGraph's own guards are not the user's
statements, a function AutoGraph refuses is traced as tf.function really traces it, and a
statement staged on some executions and run in Python on others is `mixed`."""

from __future__ import annotations

import pytest

from agexplorer.worker.protocol import ReportRequest
from conftest import fixture

pytestmark = pytest.mark.tf
PATH = fixture("corrections.py")


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(open(PATH).read().splitlines(), start=1) if text in line)


def report(worker, function: str):
    return worker.request(ReportRequest(f"{PATH}::{function}", no_run=True))["report"]


def test_an_if_before_an_early_return_ran_once(worker):
    rep = report(worker, "early")
    (check,) = rep.statements
    assert (check.line, check.verdict, check.branch, check.times) == (line_of("if c:"), "python",
                                                                     "true", 1)


def test_a_break_guard_is_not_the_users_if(worker):
    rep = report(worker, "breaker")
    loop, check = rep.statements
    assert (loop.verdict, loop.iterations) == ("python", 3)
    assert (check.line, check.times, check.branch) == (line_of("if i == 2:"), 3, None)
    assert "true branch 1 time and the false branch 2 times" in check.reason


def test_a_function_autograph_refuses_is_traced_as_written(worker):
    rep = report(worker, "forelse")
    assert rep.error is None and rep.conversion is None
    assert "for/else statement not yet supported" in rep.conversion_note
    assert "traces forelse as written" in rep.conversion_note
    loop, check = rep.statements
    assert (loop.verdict, loop.iterations, loop.times) == ("python", 3, 1)
    assert "could not convert forelse" in loop.reason and "without its `else:`" in loop.hint
    assert (check.verdict, check.branch, check.times) == ("python", "false", 3)
    assert rep.to_dict()["converted"]["note"] == rep.conversion_note
    # Its own fix, not "or mark the function with do_not_convert": as written, a loop over a
    # tensor would raise.
    assert rep.conversion_note.split("; ", 1)[1].startswith(
        "rewrite the loop without its `else:` (set a flag before `break`")
    assert "do_not_convert" not in rep.conversion_note


def test_a_refused_function_that_cannot_trace_either_reports_the_refusal(worker):
    rep = report(worker, "generator")
    assert rep.error is not None and rep.error.kind == "conversion-failed"
    assert "generators are not supported" in rep.error.message
    assert any(d.startswith("then, tracing it as written:") for d in rep.error.details)
    assert rep.error.advice.startswith("rewrite that construct so that AutoGraph converts the "
                                       "function (marked @tf.autograph.experimental."
                                       "do_not_convert it runs as written, which suits it only")


def test_a_loop_staged_once_and_unrolled_once_is_mixed(worker):
    rep = report(worker, "mixed_loop")
    outer, inner = rep.statements
    assert outer.verdict == "python"
    assert (inner.verdict, inner.mixed, inner.iterations) == ("mixed", (1, 1), 2)
    assert inner.reason.startswith("mixed: staged 1 time and run in Python 1 time")
    data = rep.to_dict()["statements"][1]
    assert (data["verdict"], data["mixed"]) == ("mixed", {"staged": 1, "python": 1})
