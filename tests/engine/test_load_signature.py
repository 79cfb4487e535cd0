"""Arguments built from an input_signature: each unknown dimension gets one size, and the
call's text says which size it got."""

from __future__ import annotations

from agexplorer.engine.callargs import UNKNOWN_DIM
from agexplorer.engine.load import load_target
from conftest import fixture

SIGNED = fixture("doctor_tree/signed.py")
WRAPPED = fixture("doctor_tree/wrapped.py")


def test_unknown_dimensions_are_said_with_the_size_given(tf):
    loaded = load_target(f"{SIGNED}::Scorer.score")
    assert loaded.call_origin == "input_signature"
    n = UNKNOWN_DIM
    assert loaded.call == f"<float32[None→{n}, None→{n}]>, <int32[]>"
    x, k = loaded.args
    assert (x.shape.as_list(), x.dtype, k.shape.as_list()) == ([n, n], tf.float32, [])


def test_a_plain_def_wrapped_with_a_signature_gets_it(tf):
    loaded = load_target(f"{WRAPPED}::normalize")
    assert loaded.call_origin == "input_signature"
    [frames] = loaded.args
    assert frames.shape.as_list() == [UNKNOWN_DIM, 8]
