"""The fix for a loop that ran in Python names the code's own expression, the right way round."""

from __future__ import annotations

import ast
import textwrap

import pytest

from agexplorer.engine.describe import classify
from agexplorer.engine.hints import loop_hint, while_hint
from agexplorer.engine.recorder import Call
from agexplorer.engine.statements import find_statements
from agexplorer.model.values import Described, NamedValue
from agexplorer.worker.protocol import ReportRequest


def statement(header: str):
    """The Statement of ``header`` (``while i < n:``), as the engine parses it."""
    tree = ast.parse(f"def f():\n    {header}\n        pass\n")
    return find_statements(tree.body[0])[0]


def runs(**held) -> list[Call]:
    """One Python run of a while whose names held ``held`` while tracing."""
    names = [NamedValue(name, classify(value)) for name, value in held.items()]
    return [Call(kind="while", line=2, graph=None, path="python", names=names)]


@pytest.mark.parametrize(("header", "iterated", "says"), [
    ("for i in range(n):", range(2), "iterate over tf.range(n) instead"),
    ("for i in range(len(xs)):", range(3), "iterate over tf.range(len(xs)) instead"),
    ("for i in range(1, n, 2):", range(1, 4, 2), "iterate over tf.range(1, n, 2) instead"),
    ("for i in range(5):", range(5), "iterate over tf.range(5) instead"),
    ("for i in steps:", range(4), "a tf.range with the same bounds (here tf.range(4))"),
    ("for x in xs:", [1, 2], "stack the items into one tensor (tf.stack(xs))"),
    ("for x in self.items:", (1, 2), "(tf.stack(self.items))"),
    ("for x in [a, b]:", [1, 2], "(tf.stack([a, b])) and iterate over it: a Python list"),
    ("for k in table:", {1: 2}, "tf.stack(list(table.values()))"),
])
def test_a_for_hint_names_the_codes_iterable(header, iterated, says):
    hint = loop_hint(statement(header), classify(iterated))
    assert says in hint
    assert "tf.range(2)" not in hint  # never the value it held while tracing


def test_a_range_hint_says_which_bound_to_pass_as_a_tensor():
    assert "if `n` is an argument, pass it as a tensor" in \
        loop_hint(statement("for i in range(n):"), classify(range(2)))
    assert "if `a` and `b` are arguments, pass them as tensors" in \
        loop_hint(statement("for i in range(a, b):"), classify(range(1, 3)))
    assert "argument" not in loop_hint(statement("for i in range(len(xs)):"), classify(range(3)))


def test_a_literal_is_stacked_without_len_of_it():
    hint = loop_hint(statement("for x in (a, b):"), classify((1, 2)))
    assert "tf.stack([a, b])" in hint and "len(" not in hint


@pytest.mark.parametrize(("header", "held", "says"), [
    ("while i < n:", {"i": 0, "n": 3},
     "`i` and `n` are Python values while tracing: start `i` as a tensor "
     "(`i = tf.constant(0)`) or compare with a tensor (`i < tf.constant(n)`)"),
    ("while n > i:", {"n": 3, "i": 0},
     "start `i` as a tensor (`i = tf.constant(0)`) or compare with a tensor "
     "(`tf.constant(n) > i`)"),
    ("while i <= n:", {"i": 1, "n": 3}, "`i = tf.constant(1)`) or compare with a tensor "
                                        "(`i <= tf.constant(n)`)"),
    ("while n >= i:", {"n": 3, "i": 1}, "(`tf.constant(n) >= i`)"),
    ("while i != n:", {"i": 0, "n": 3}, "(`i != tf.constant(n)`)"),
    # A static size: only the rewrite the doctor tries (a tensor counter would still
    # compare with the size tracing knows, which a None dimension breaks).
    ("while x.shape[0] > i:", {"x": None, "i": 0},
     "`x.shape[0]` is a Python value while tracing: compare with the dynamic shape "
     "(`tf.shape(x)[0] > i`), and AutoGraph"),
    ("while x.shape[0] < 8:", {"x": None},
     "`x.shape[0]` is a Python value while tracing: compare with the dynamic shape "
     "(`tf.shape(x)[0] < 8`), and AutoGraph"),
    ("while len(items) > i:", {"items": [1, 2], "i": 0},
     "or compare with a tensor (`tf.constant(len(items)) > i`)"),
    ("while n > 0:", {"n": 5}, "`n` is a Python value while tracing: start `n` as a tensor "
                               "(`n = tf.constant(5)`), and AutoGraph"),
    ("while 0 < n:", {"n": 5}, "start `n` as a tensor (`n = tf.constant(5)`), and"),
    ("while x > 1:", {"x": 3.0}, "(`x = tf.constant(3.0)`)"),  # stays a float
    ("while not done:", {"done": False},
     "`done` is a Python value while tracing: start `done` as a tensor "
     "(`done = tf.constant(False)`) and update it with tf ops in the body"),
    ("while running:", {"running": True}, "(`running = tf.constant(True)`)"),
    ("while i < n and ok:", {"i": 0, "n": 3, "ok": True},
     "`i` and `n` are Python values while tracing in `i < n`, the first part of the `and`: "
     "start `i` as a tensor (`i = tf.constant(0)`) or compare with a tensor "
     "(`i < tf.constant(n)`)"),
    ("while self.i < self.n:", {"self": object()},
     "make `self.i` a tensor (tf.constant(...)) or compare with a tensor "
     "(`self.i < tf.constant(self.n)`)"),
])
def test_a_while_hint_fits_the_comparison(header, held, says):
    hint = while_hint(statement(header), runs(**held))
    assert says in hint
    assert hint.endswith("AutoGraph builds one tf.while_loop.")
    assert "while ..." not in hint


@pytest.mark.parametrize(("header", "held"), [
    ("while 0 < i < n:", {"i": 1, "n": 3}),
    ("while keep_going(i):", {"i": 1}),
    ("while i is not None:", {"i": 1}),
])
def test_other_conditions_get_the_general_sentence_naming_the_python_values(header, held):
    hint = while_hint(statement(header), runs(**held))
    assert hint.startswith("make the condition a tensor: `")
    assert "compute the condition with tf ops" in hint and "tf.constant(n)" not in hint


def test_not_done_and_more_fixes_the_flag_first():
    hint = while_hint(statement("while not done and i < n:"), runs(done=False, i=0, n=3))
    assert hint.startswith("`done` is a Python value while tracing in `not done`, the first "
                           "part of the `and`: start `done` as a tensor")


def test_without_recorded_values_the_hint_still_names_the_code():
    hint = while_hint(statement("while i < n:"), runs())
    assert "make `i` a tensor (tf.constant(...)) or compare with a tensor (`i < tf.constant(n)`)" \
        in hint
    assert while_hint(statement("while f():"), runs()) == \
        "make the condition a tensor (compute it with tf ops) so AutoGraph builds a tf.while_loop."
    assert "tf.range, a tensor's rows" in loop_hint(statement("for x in it:"), None)
    assert "tf.convert_to_tensor(arr)" in loop_hint(statement("for r in arr:"),
                                                    Described("numpy", "a NumPy ndarray"))


SOURCE = textwrap.dedent('''
    import tensorflow as tf


    def count_up(x, n):
        for i in range(n):
            x = x * 2.0
        return x


    def count_down(x, n):
        i = 0
        while n > i:
            x = x + 1.0
            i += 1
        return x
''')


@pytest.fixture(scope="module")
def loops_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("hints") / "loops.py"
    path.write_text(SOURCE)
    return path


def loop_verdict(worker, path, function: str):
    rep = worker.request(ReportRequest(f"{path}::{function}", call="tf.constant(1.0), 2",
                                       no_run=True))["report"]
    assert rep.error is None
    return next(s for s in rep.statements if s.kind in ("for", "while"))


@pytest.mark.tf
def test_a_traced_range_loop_hints_at_the_codes_bound(worker, loops_file):
    loop = loop_verdict(worker, loops_file, "count_up")
    assert (loop.verdict, loop.iterations) == ("python", 2)
    assert "iterate over tf.range(n) instead" in loop.hint and "tf.range(2)" not in loop.hint


@pytest.mark.tf
def test_a_traced_while_keeps_the_comparisons_order(worker, loops_file):
    loop = loop_verdict(worker, loops_file, "count_down")
    assert (loop.verdict, loop.iterations) == ("python", 2)
    assert "start `i` as a tensor (`i = tf.constant(0)`)" in loop.hint
    assert "(`tf.constant(n) > i`)" in loop.hint
