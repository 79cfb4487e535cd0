"""Call-argument parsing, signature inputs and output capture."""

import os
import sys

import pytest

from agexplorer.engine.callargs import parse_call, signature_call
from agexplorer.engine.capture import capture_output, without_noise
from agexplorer.model.errors import AgxError


def test_parse_call_sees_the_namespace_and_keywords():
    args, kwargs = parse_call("k * 2, 'a', n=k", {"k": 21})
    assert args == (42, "a") and kwargs == {"n": 21}
    assert parse_call("", {}) == ((), {})


@pytest.mark.parametrize(("expr", "needle"), [("1,,", "not a valid Python argument list"),
                                              ("nothing_here", "NameError"),
                                              ("1/0", "ZeroDivisionError")])
def test_parse_call_errors_are_one_sentence(expr, needle):
    with pytest.raises(AgxError) as err:
        parse_call(expr, {})
    assert err.value.kind == "bad-call" and needle in err.value.message


def test_signature_values_replace_none_with_one(tf):
    args, _ = signature_call([tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int64),
                              tf.TensorSpec([2], tf.bool)])
    assert args[0].shape == (1, 3) and args[0].dtype == tf.float32  # None: 1, said in the call
    assert args[0].numpy().ravel().tolist() == [1, 2, 3]
    assert args[1].dtype == tf.int64 and args[2].numpy().tolist() == [True, False]


def test_capture_keeps_python_and_c_level_output():
    with capture_output() as captured:
        print("from python")
        sys.stderr.write("a warning\n")
        os.write(1, b"from C\n")
        os.write(2, b"I0000 00:00 port.cc:153] oneDNN custom operations are on.\n")
    assert "from python" in captured.stdout and "from C" in captured.stdout
    assert captured.log == "a warning"


def test_without_noise_drops_only_startup_chatter():
    text = "W tensorflow: real warning\nCould not find cuda drivers on your machine\n"
    assert without_noise(text) == "W tensorflow: real warning"
