"""A Python loop whose body added no op is no problem to fix: it computed Python values, which
the graph holds as constants. No fix is offered for it, the doctor does not flag it and a
recorded run counts it apart from the unrolled loops it lists, unless an argument of its
function that holds a Python number drives it (a caller could vary it, tracing anew per
value: the lesson's bad_loop), which keeps its fix."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.model.report import intended_words
from agexplorer.runlog.summary import intended_unrolls, unrolled
from conftest import fixture

LOOPS = fixture("constant_loops.py")


def loop_at(rep, line):
    every = list(rep.statements) + [v for f in rep.reached for v in f.statements]
    return next(v for v in every if v.line == line)


@pytest.mark.parametrize(("function", "call", "line", "iterations"), [
    ("scaled", "tf.constant(2.0)", 8, 3),  # a helper's loop over a literal list
    ("bits_needed", "tf.constant(2)", 21, 10),  # a while computing a Python constant
])
def test_a_loop_that_added_no_op_gets_no_fix(report, function, call, line, iterations):
    rep = report(f"{LOOPS}::{function}", call)
    assert rep.error is None
    loop = loop_at(rep, line)
    assert (loop.verdict, loop.iterations, loop.ops_created) == ("python", iterations, 0)
    assert (loop.intended, loop.hint) == ("constants", None)
    assert "added no ops" in loop.reason and "Nothing to stage" in loop.reason
    assert loop.to_dict()["intended"] == "constants"
    codes = {(f.code, f.line) for f in diagnose(f"{LOOPS}::{function}", call,
                                                report=rep).findings}
    assert ("AGX004", line) not in codes


@pytest.mark.parametrize(("function", "line", "fix"), [
    ("counts_to", 29, "`i` and `n` are Python values"),
    ("sums_range", 37, "tf.range"),
])
def test_a_loop_an_argument_drives_keeps_its_fix(report, function, line, fix):
    """No ops either, but ``n`` is the caller's Python int: each value traces anew."""
    rep = report(f"{LOOPS}::{function}", "tf.constant(1), 4")
    loop = loop_at(rep, line)
    assert (loop.verdict, loop.iterations, loop.ops_created) == ("python", 4, 0)
    assert loop.intended is None and fix in loop.hint


def test_a_loop_that_adds_ops_keeps_its_fix(report):
    loop = loop_at(report(f"{LOOPS}::adds_ops", "tf.constant(1.0)"), 44)
    assert loop.intended is None and loop.ops_created > 0 and "tf.range" in loop.hint


def test_a_run_counts_them_apart_from_its_unrolled_loops():
    def row(line: int, ops: int, intended: str | None) -> dict:
        return {"file": "t.py", "function": "f", "line": line, "kind": "for",
                "verdict": "python", "iterations": 3, "ops_created": ops,
                "trace_op_count": 10, "trace_s": 0.1, "header": "for v in xs:",
                "intended": intended, "hint": None}

    summary = {"functions": [{"statements": [row(3, 0, "constants"), row(5, 6, None),
                                             row(7, 0, "constants")]}]}
    assert [r["line"] for r in unrolled(summary)] == [5]
    assert intended_unrolls(summary) == {"constants": 2}
    assert intended_words("constants", 2) == (
        "2 loops ran in Python adding no ops (only Python values, constants in the graph: "
        "nothing to stage)")
    assert intended_words("variables", 1) == "1 loop over variables unrolled as intended"


@pytest.mark.parametrize(("function", "line", "iterations", "ops"), [
    ("breaks_early", 51, 4, 6),  # three runs of Mul and its constant, a fourth that broke
    ("adds_once", 60, 4, 2),  # one run of four made AddV2 and its constant
])
def test_a_body_whose_runs_differ_gets_its_ops_in_all_not_per_run(report, function, line,
                                                                  iterations, ops):
    """An if or a break in the body: the runs made different ops, so no "its N ops were
    copied k times" (4 runs of 6 ops read "its 1 op"; 2 ops read "added no ops")."""
    loop = loop_at(report(f"{LOOPS}::{function}", "tf.constant(1.0)"), line)
    assert (loop.verdict, loop.iterations, loop.ops_created) == ("python", iterations, ops)
    assert f"the body ran {iterations} times while tracing and made {ops} ops in all" \
        in loop.reason
    assert "copied" not in loop.reason and "added no ops" not in loop.reason
    codes = diagnose(f"{LOOPS}::{function}", "tf.constant(1.0)",
                     report=report(f"{LOOPS}::{function}", "tf.constant(1.0)")).findings
    (finding,) = [f for f in codes if f.code == "AGX004"]
    assert finding.message.endswith(f"unrolled {iterations} times, making {ops} ops in all")


def test_a_generator_helpers_loop_is_counted_as_plain_python(report):
    """AutoGraph hands a generator function back unconverted: its loop ran as Python (it
    read "unreached"); it made no op, so it gets no fix."""
    rep = report(f"{LOOPS}::over_generator", "tf.constant(1.0)")
    (helper,) = [f for f in rep.reached if f.function == "indices"]
    assert helper.converted is False
    # Its note says why (no library called it: the function explored did, directly).
    assert "indices: it is a generator function (a `yield`), which AutoGraph calls as " \
           "written" in helper.note and "Keras" not in helper.note
    loop = loop_at(rep, 67)
    assert (loop.verdict, loop.iterations, loop.ops_created, loop.hint) == ("python", 3, 0, None)
    assert "AutoGraph does not convert a generator function" in loop.reason
    assert loop_at(rep, 73).iterations == 3  # the loop over the generator, converted


def test_a_loop_over_names_gets_no_fix_and_no_finding(report):
    """``for name in ["relu", "tanh"]: getattr(tf.nn, name)``: strings are names, and a
    tensor of them (the tf.stack hint it got) serves none of their uses."""
    rep = report(f"{LOOPS}::over_names", "tf.constant(1.0)")
    loop = loop_at(rep, 80)
    assert (loop.verdict, loop.iterations, loop.hint) == ("python", 2, None)
    findings = diagnose(f"{LOOPS}::over_names", "tf.constant(1.0)", report=rep).findings
    assert not [f for f in findings if f.code == "AGX004"]


def test_a_loop_as_large_in_two_traces_is_shown_from_the_first_the_run_made():
    """The same layer loop in fit's and predict's traces, 43 ops each: the row is fit's (the
    run made it first), whichever function the machine's load made slower to trace (the
    summary lists functions by trace time)."""
    def row(called: str, in_log: int) -> dict:
        return {"file": "t.py", "function": "Smoother.call", "line": 18, "kind": "for",
                "verdict": "python", "iterations": 6, "ops_created": 43, "in_log": in_log,
                "trace_op_count": 54, "trace_s": 0.1, "header": "for _ in range(6):",
                "intended": None, "hint": None, "called": called}

    summary = {"functions": [{"statements": [row("predict", 9)]},
                             {"statements": [row("fit", 2)]}]}
    [shown] = unrolled(summary)
    assert shown["called"] == "fit"
