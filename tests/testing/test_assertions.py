"""agexplorer.testing: each assertion passes where it should and fails with the explorer's sentence."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_PATH = os.path.join(HERE, "assertion_cases.py")


def _line(text: str) -> int:
    """The line of assertion_cases.py that holds ``text`` (tests never hard-code lines)."""
    with open(CASES_PATH, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, start=1) if text in line)


@pytest.fixture(scope="module")
def cases(tf):
    spec = importlib.util.spec_from_file_location("assertion_cases", CASES_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_import_needs_no_tensorflow():
    code = ("import sys, agexplorer.testing as t; t.assert_staged; "
            "print('tensorflow' in sys.modules, 'textual' in sys.modules, 'rich' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.split() == ["False", "False", "False"]


@pytest.mark.tf
def test_staged_loop_passes(cases, tf):
    from agexplorer.testing import assert_no_unrolled, assert_staged

    assert_staged(cases.staged_sum, tf.constant(5))
    assert_staged(cases.staged_sum, tf.constant(5), line=_line("for i in tf.range(n)"))
    assert_no_unrolled(cases.staged_sum, tf.constant(5))


@pytest.mark.tf
def test_unrolled_loop_fails_with_where_why_and_fix(cases):
    from agexplorer.testing import assert_staged

    with pytest.raises(AssertionError) as info:
        assert_staged(cases.unrolled_sum, 7)
    message = str(info.value)
    assert message.startswith(f"assertion_cases.py:{_line('for i in range(n)')} "
                              "`for i in range(n)` ran in Python while tracing (unrolled 7 times)")
    assert "range(7)" in message  # why: the reason names the Python value
    assert "Fix: Iterate over tf.range(n)" in message


@pytest.mark.tf
def test_no_unrolled_allows_small_unrolls(cases):
    from agexplorer.testing import assert_no_unrolled

    assert_no_unrolled(cases.unrolled_sum, 5, max_iterations=5)
    with pytest.raises(AssertionError, match=r"unrolled 6 times"):
        assert_no_unrolled(cases.unrolled_sum, 6, max_iterations=5)


@pytest.mark.tf
def test_plain_function_is_wrapped(cases, tf):
    from agexplorer.testing import assert_no_unrolled, assert_staged

    assert_staged(cases.plain_unrolled, tf.constant(3))  # a tensor bound: tf.while_loop
    with pytest.raises(AssertionError) as info:
        assert_no_unrolled(cases.plain_unrolled, 3)
    assert str(info.value).startswith(
        f"assertion_cases.py:{_line('while i < n')} `while i < n` ran in Python while tracing "
        "(unrolled 3 times): the condition `i < n` was the Python bool True")
    assert "Fix: " in str(info.value)


@pytest.mark.tf
def test_helper_loop_is_checked_and_named_with_its_call_path(cases, tf):
    from agexplorer.testing import assert_staged

    x = tf.constant([1.0])
    with pytest.raises(AssertionError) as info:
        assert_staged(cases.calls_helper, x)
    message = str(info.value)
    assert message.startswith(f"assertion_cases.py:{_line('for _ in range(steps)')} "
                              "`for _ in range(steps)` ran in Python while tracing (unrolled 3 times)")
    assert "(in normalize, reached by calls_helper (assertion_cases.py:" in message
    assert_staged(cases.calls_helper, x, line=_line("if tf.reduce_sum(x) > 0"))


@pytest.mark.tf
def test_line_without_statement_says_where_they_are(cases, tf):
    from agexplorer.testing import assert_staged

    blank = _line("x = x + 1.0")
    with pytest.raises(AssertionError) as info:
        assert_staged(cases.calls_helper, tf.constant([1.0]), line=blank)
    assert str(info.value) == (
        f"assertion_cases.py:{blank} holds no if, for or while that the trace of calls_helper "
        f"reached; its statements in assertion_cases.py are at lines "
        f"{_line('for _ in range(steps)')} (for), {_line('if tf.reduce_sum(x) > 0')} (if).")


@pytest.mark.tf
def test_methods_bound_and_decorated(cases, tf):
    from agexplorer.testing import assert_no_unrolled, assert_staged

    model = cases.Model()
    assert_staged(model.step, tf.constant(1.0))  # a plain bound method
    with pytest.raises(AssertionError) as info:  # a tf.function reached through an instance
        assert_no_unrolled(model.call, tf.constant(1.0))
    assert str(info.value).startswith(
        f"assertion_cases.py:{_line('for _ in range(self.layers)')} `for _ in range(self.layers)` "
        "ran in Python while tracing (unrolled 4 times)")
    assert_no_unrolled(model.call, tf.constant(1.0), max_iterations=4)


@pytest.mark.tf
def test_traces_counts_and_explains(cases, tf):
    from agexplorer.testing import assert_traces

    assert_traces(cases.staged_sum, [tf.constant(1), tf.constant(2)], count=1)
    assert_traces(cases.traces_per_value, [(1,), ((2,), {}), 2], count=2)
    with pytest.raises(AssertionError) as info:
        assert_traces(cases.traces_per_value, [1, 2, 2, ((), {"n": 3})], count=2)
    lines = str(info.value).splitlines()
    assert lines[0] == "traces_per_value traced 3 times over 4 calls, expected 2:"
    assert lines[1] == "call 1, traces_per_value(1): traced: first call"
    assert lines[2].startswith("call 2, traces_per_value(2): traced: n: now the Python int 2, "
                               "before 1 (call 1); Python values are baked into the trace: "
                               "pass a tensor")
    assert lines[3] == "call 3, traces_per_value(2): reused (same arguments as call 2)"
    assert lines[4].startswith("call 4, traces_per_value(n=3): traced: n: now the Python int 3")


@pytest.mark.tf
def test_user_code_that_raises_is_one_sentence(cases, tf):
    from agexplorer.testing import assert_staged, assert_traces

    with pytest.raises(AssertionError) as info:
        assert_staged(cases.raises, tf.constant(1))
    assert str(info.value).endswith(f"assertion_cases.py:{_line('raise ValueError')}: tracing "
                                    "raises raised ValueError: no good")
    with pytest.raises(AssertionError, match=r"assertion_cases.py:\d+: call 1, "
                                             r"raises\(EagerTensor\(int32\[\]\)\), raised "
                                             r"ValueError: no good$"):
        assert_traces(cases.raises, [tf.constant(1)], count=1)


@pytest.mark.tf
def test_bad_arguments_are_one_sentence(cases, tf):
    from agexplorer.testing import assert_no_unrolled, assert_staged, assert_traces

    with pytest.raises(TypeError, match=r"^expected a function, a tf.function or a bound "
                                        r"method, got int 5\.$"):
        assert_staged(5)
    with pytest.raises(TypeError, match=r"^line must be a line number"):
        assert_staged(cases.staged_sum, tf.constant(1), line="8")
    with pytest.raises(TypeError, match=r"^max_iterations must be an int of 0 or more"):
        assert_no_unrolled(cases.staged_sum, tf.constant(1), max_iterations=-1)
    with pytest.raises(TypeError, match=r"^calls must be a list of calls"):
        assert_traces(cases.staged_sum, 5, count=1)
    with pytest.raises(TypeError, match=r"has no \.py source file"):
        assert_staged(eval("lambda: 1"))
