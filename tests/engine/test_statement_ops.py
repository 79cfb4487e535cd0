"""A statement's ops are those its own lines made, and its op is its own: two answers the
differential corpus (tests/differential) found wrong."""

import pytest

pytestmark = pytest.mark.tf

EARLY_RETURNS = '''import tensorflow as tf


def f(x, n):
    x = x * 1.5 + 1.0
    if n > 5:
        return x - 1.0
    x = x * 2.0
    for i in range(2):
        if n > 4:
            return x
        x = x + 1.0
    return x * 3.0
'''

TENSOR_OR = '''import tensorflow as tf


def f(x, n, v):
    if x > 0.0 or n > 4:
        for e in tf.data.Dataset.from_tensor_slices(v):
            x = x + e
    return x
'''


def _report(tmp_path, source, call):
    from agexplorer.engine.pipeline import build_report

    path = tmp_path / "program.py"
    path.write_text(source)
    rep = build_report(f"{path}::f", call)
    assert rep.error is None
    return rep, {v.line: v for v in rep.statements}


def test_the_code_after_an_early_return_is_not_the_ifs(tf, tmp_path):
    # AutoGraph runs the code after `if ...: return` in that if's else branch, so its ops'
    # frames pass through the if's line: they were counted as the if's (8 and 4 ops).
    rep, at = _report(tmp_path, EARLY_RETURNS, "tf.constant(1.0), 3")
    by_line = rep.inventory.by_line(rep.file)
    assert (by_line[8], by_line[12], by_line[13]) == (2, 4, 2)
    assert (at[6].verdict, at[6].branch, at[6].ops_created) == ("python", "false", 0)
    assert (at[10].verdict, at[10].times, at[10].ops_created) == ("python", 2, 0)
    assert (at[9].iterations, at[9].ops_created) == (2, 4)  # its body's, twice
    assert "its 2 ops were copied 2 times" in at[9].reason


def test_an_if_names_its_own_op_not_its_conditions(tf, tmp_path):
    # `x > 0.0 or n > 4` on a tensor makes a StatelessIf on the same line; the if's own op
    # is a stateful If (a dataset loop runs in its branch).
    rep, at = _report(tmp_path, TENSOR_OR, "tf.constant(1.0), 3, tf.constant([0.5, 1.5])")
    types = sorted(op.type for op in rep.inventory.ops if op.line == 5 and "If" in op.type)
    assert types == ["If", "StatelessIf"]
    assert at[5].verdict == "staged" and at[5].graph_op == "If"
    assert "an If op" in at[5].reason
