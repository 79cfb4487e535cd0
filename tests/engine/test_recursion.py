"""A tf.function that calls itself with a tensor base case: the RecursionError is named with
its cause (the staged if traces the recursive branch too) and both ways out it gives work."""

from __future__ import annotations

import pytest

from conftest import fixture

pytestmark = pytest.mark.tf

FILE = fixture("recursion.py")


def test_a_recursion_on_a_tensor_says_why_the_trace_never_ends(report):
    rep = report(f"{FILE}::fact", "tf.constant(5)")
    assert "RecursionError" in rep.error.message
    assert ("fact calls itself without end while it is traced: its if at line 8 has a "
            "tensor condition") in rep.error.advice
    assert "a for over tf.range" in rep.error.advice and "a Python value" in rep.error.advice


@pytest.mark.parametrize(("function", "call"), [("fact_on_int", "5"),
                                                ("fact_as_loop", "tf.constant(5)")])
def test_each_way_out_the_advice_gives_traces_and_computes(report, tf, function, call):
    rep = report(f"{FILE}::{function}", call)
    assert rep.error is None
    assert [v.verdict for v in rep.statements] == (
        ["python"] if function == "fact_on_int" else ["staged"])
    import importlib.util

    spec = importlib.util.spec_from_file_location("recursion_fixed", FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    value = 5 if function == "fact_on_int" else tf.constant(5)
    assert int(getattr(module, function)(value)) == 120


def test_other_errors_get_no_recursion_advice():
    from agexplorer.engine.recursion import recursion_advice

    try:
        raise ValueError("no") from KeyError("inner")
    except ValueError as exc:
        assert recursion_advice(exc, lambda file: True, [], ("f.py", "f", 1, 9)) is None
