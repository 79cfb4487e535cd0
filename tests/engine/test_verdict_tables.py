"""Table tests of the verdict builders, without TensorFlow: what AutoGraph's recorded calls
(build_verdicts) or a function's line counts (fallback_verdicts, code that ran unconverted)
make of each if/for/while."""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from agexplorer.engine.fallback import fallback_verdicts
from agexplorer.engine.recorder import Call
from agexplorer.engine.statements import find_statements
from agexplorer.engine.verdicts import build_verdicts
from agexplorer.model.values import Described
from agexplorer.source.targets import find_function_node

SOURCE = '''
def f(x, n):
    for i in range(n):
        x = x + 1
    if n > 2:
        x = x * 2
    while x < 10:
        x = x + 3
    return x
'''
FOR, IF, WHILE = 3, 5, 7
GRAPH = object()  # the FuncGraph the calls ran in: one trace


def statements():
    return find_statements(find_function_node(ast.parse(SOURCE), "f"))


def call(kind: str, line: int, path: str, runs: int = 0, branch: str | None = None,
         value: Described | None = None) -> Call:
    return Call(kind=kind, line=line, graph=GRAPH, path=path, body_runs=runs, branch=branch,
                value=value)


RANGE = Described("range", "range(3)")
TRUE = Described("python-bool", "the Python bool True", "True")


@pytest.mark.parametrize(("calls", "expected"), [
    # a Python loop: unrolled, its iterations counted
    ([call("for", FOR, "python", 3, value=RANGE)], {FOR: ("python", 3, None)}),
    # staged: one graph loop, no iterations
    ([call("for", FOR, "staged")], {FOR: ("staged", None, None)}),
    # staged on one trace, run in Python on another
    ([call("for", FOR, "staged"), call("for", FOR, "python", 2, value=RANGE)],
     {FOR: ("mixed", None, None)}),
    # an if on a Python value took one branch
    ([call("if", IF, "python", branch="true", value=TRUE)], {IF: ("python", None, "true")}),
    # nothing recorded at a line: never reached while tracing
    ([], {FOR: ("unreached", None, None), IF: ("unreached", None, None),
          WHILE: ("unreached", None, None)}),
])
def test_build_verdicts(calls, expected):
    made = {v.line: (v.verdict, v.iterations if v.verdict == "python" else None, v.branch)
            for v in build_verdicts(statements(), calls, None, traced=True)}
    for line, want in expected.items():
        assert made[line] == want, line


@pytest.mark.parametrize(("counts", "expected"), [
    # header 4 times (3 iterations and the exit), body 3 times
    ({FOR: 4, FOR + 1: 3}, {FOR: ("python", 3)}),
    # the if ran twice, its true branch once: both branches taken
    ({IF: 2, IF + 1: 1}, {IF: ("python", None)}),
    # a statement whose line never ran: unreached
    ({}, {FOR: ("unreached", None), WHILE: ("unreached", None)}),
])
def test_fallback_verdicts_from_line_counts(counts, expected):
    made = {v.line: (v.verdict, v.iterations) for v in fallback_verdicts(
        statements(), Counter(counts), "f", "Keras 3 runs f without AutoGraph", {}, True,
        refused=False)}
    for line, want in expected.items():
        assert made[line] == want, line


def test_an_if_that_took_one_branch_says_which():
    [v] = [v for v in fallback_verdicts(statements(), Counter({IF: 2, IF + 1: 2}), "f",
                                        "why", {}, True, refused=False) if v.line == IF]
    assert (v.verdict, v.branch, v.times) == ("python", "true", 2)
    assert v.hint is None  # an if on a Python value runs the same under Keras: nothing to fix


def test_a_statement_whose_header_raised_in_the_unconverted_trace_says_so():
    """The trace failed at the header (a tensor's truth value, a loop over a symbolic
    tensor): the if took no branch and the loop ran no body, and the verdict says it raised,
    not "took false" or "its body 0 times"."""
    from agexplorer.model.report import verdict_badge

    loop_line = IF - 2  # `for i in range(n):`
    [v] = [v for v in fallback_verdicts(statements(), Counter({loop_line: 1, IF: 1}), "f",
                                        "why", {}, False, failed_line=IF) if v.line == IF]
    assert v.branch is None and verdict_badge(v) == "in Python"
    assert "raised (the error below): no branch was taken" in v.reason
    [loop] = [v for v in fallback_verdicts(statements(), Counter({loop_line: 1}), "f", "why",
                                           {}, False, failed_line=loop_line)
              if v.line == loop_line]
    assert (loop.verdict, verdict_badge(loop)) == ("unreached", "unreached")  # not "x0"
    assert "the loop's header raised as the loop started (the error below)" in loop.reason
    [later] = [v for v in fallback_verdicts(statements(), Counter({loop_line: 3, loop_line + 1: 2}), "f",
                                            "why", {}, False, failed_line=loop_line)
               if v.line == loop_line]
    assert (later.verdict, later.iterations) == ("python", 2)
    assert "its header raised (the error below) after its body ran 2 times" in later.reason
    # Without the error at its line, the same counts are a branch taken, a loop run empty.
    [taken] = [v for v in fallback_verdicts(statements(), Counter({loop_line: 1, IF: 1}), "f",
                                            "why", {}, False, failed_line=None)
               if v.line == IF]
    assert taken.branch == "false" and verdict_badge(taken) == "took false"
