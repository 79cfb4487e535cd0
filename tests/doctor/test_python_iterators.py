"""AGX002 for ``next()`` of a Python iterator in a tf.function: the trace takes one item,
and every later call of the graph gets that item again. The trace shows it (the line made
no iterator op; a tf.data iterator's next() is IteratorGetNext, and stays quiet). Both fixes
the finding gives, applied, give a new item on every call."""

from __future__ import annotations

import pytest

from agexplorer.doctor.checks import diagnose
from conftest import fixture, import_file

CASES = fixture("python_iterators.py")
with open(CASES, encoding="utf-8") as _fh:
    LINES = _fh.read().splitlines()

pytestmark = pytest.mark.tf


def found(report, target: str, call: str | None = None):
    rep = report(target, call)
    return [f for f in diagnose(target, call, report=rep).findings if f.code == "AGX002"]


def test_next_of_a_python_iterator_is_taken_once_per_trace_and_both_fixes_work(report, tf):
    [finding] = found(report, f"{CASES}::consume")
    assert finding.line == LINES.index("    return next(iterator) * 10") + 1
    assert "takes the next item of the Python iterator `iterator` while tracing" \
        in finding.message
    assert "`consume(tf.constant(next(iterator)))`" in finding.fix
    module = import_file(CASES, "python_iterators")
    items = iter([1, 2, 3])
    assert [int(module.consume(items)) for _ in range(2)] == [10, 10]  # the pitfall itself
    items = iter([1, 2, 3])  # the first fix: the item taken outside, passed as a tensor
    assert [int(module.consume_item(tf.constant(next(items)))) for _ in range(2)] == [10, 20]
    data = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))  # the second: tf.data's
    assert [int(module.consume(data)) for _ in range(2)] == [10, 20]


def test_next_of_a_tf_data_iterator_is_an_op_and_quiet(report):
    assert found(report, f"{CASES}::consume",
                 "iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))") == []


def test_next_in_a_helper_the_trace_reached_is_named_in_the_helper(report):
    target = f"{CASES}::consume_through_helper"
    [finding] = found(report, target)
    assert (finding.function, finding.line) == ("take", LINES.index(
        "    return next(iterator) + 1") + 1)
    assert finding.call_path and finding.call_path[-1].function == "take"
