"""An argument keeps its Python type, its value's source and what holds a tensor as fields:
the retrace explainer and a rebuilt call read them, not the words shown (no TensorFlow:
Python values and NumPy arrays)."""

from __future__ import annotations

import numpy as np

from agexplorer.retrace.args import change_kind, describe_argument
from agexplorer.runlog.calls import rebuild_call


def test_python_values_keep_their_type_and_whole_source():
    n, rate, long = (describe_argument("n", 3), describe_argument("rate", 0.1234567),
                     describe_argument("tag", "x" * 300))
    assert (n.python_type, n.value, n.text) == ("int", "3", "the Python int 3")
    assert (rate.value, rate.text) == ("0.1234567", "the Python float 0.123457")
    assert long.python_type == "str" and long.value is None  # too long to rebuild a call
    assert describe_argument("xs", []).value == "[]"
    assert describe_argument("xs", [1]).value is None


def test_what_changed_is_read_from_the_type():
    three, four, half = (describe_argument("n", 3), describe_argument("n", 4),
                         describe_argument("n", 0.5))
    assert change_kind(four, three) == "value" and change_kind(half, three) == "type"
    # a str that reads like another type's words is still a str
    said = describe_argument("n", "the Python int 3")
    assert change_kind(said, describe_argument("n", "b")) == "value"
    # a list where an array was: its structure and values are traced (it read no why)
    listed, array = describe_argument("x", [1.0, 2.0]), describe_argument("x", np.ones(4))
    assert change_kind(listed, array) == change_kind(array, listed) == "structure"


def test_a_numpy_array_says_so_and_is_rebuilt_as_one():
    arg = describe_argument("x", np.zeros((2, 3), np.float32))
    assert (arg.holder, arg.text) == ("numpy", "NumPy float32[2, 3]")
    rows = [{"name": a.name, **a.to_dict()} for a in (
        arg, describe_argument("rate", 0.1234567), describe_argument("tag", "x" * 300))]
    assert rebuild_call(rows[:2]).text == "np.zeros((2, 3), np.float32), 0.1234567"
    cut = rebuild_call(rows)
    assert cut.text is None and "tag was recorded only as the Python str" in cut.problem


def test_a_one_level_tuple_list_or_dict_is_rebuilt_from_its_recorded_values():
    """A Keras step's ``data`` (a tuple of the batch's tensors) and a dict batch come back
    as the container of their values; a nested one does not (its inner containers' types
    are not recorded), and says so."""
    x, y = np.zeros((16, 4), np.float32), np.zeros((16, 1), np.float32)

    def rebuilt(value):
        arg = describe_argument("data", value)
        return rebuild_call([{"name": arg.name, **arg.to_dict()}])

    assert rebuilt((x, y)).text == "(np.zeros((16, 4), np.float32), np.zeros((16, 1), " \
        "np.float32))"
    assert rebuilt([x]).text == "[np.zeros((16, 4), np.float32)]"
    assert rebuilt((3,)).text == "(3,)"
    assert rebuilt({"x": x, "n": 2}).text == "{'x': np.zeros((16, 4), np.float32), 'n': 2}"
    nested = rebuilt(((x, y), 1))
    assert nested.text is None and "data was recorded only as a Python tuple" in nested.problem
    assert rebuilt(()).text == "()"


def test_a_trace_made_for_an_unknown_rank_is_relaxed_too():
    from types import SimpleNamespace

    from agexplorer.retrace.args import relaxed_for

    class Shape:  # a TensorShape of unknown rank: as_list() refuses
        rank = None

        def as_list(self):
            raise ValueError("unknown rank")

    spec = type("TensorSpec", (), {})()
    spec.dtype, spec.shape = SimpleNamespace(name="float32"), Shape()
    from agexplorer.retrace.args import call_arguments

    traced = call_arguments(None, (spec, 3), {})
    assert relaxed_for(traced) == {"arg0": "float32[unknown rank]"}
