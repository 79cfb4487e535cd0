"""`report FILE::Class.call --init ARGS`: the method's instance is built with its constructor's
arguments (else the module's instance, else its defaults), called so that build() runs, and
the report says which instance it used."""

from __future__ import annotations

import os

import pytest

from agexplorer.engine.pipeline import build_report
from agexplorer.model.errors import AgxError
from tests.conftest import FIXTURES

LAYER = os.path.join(FIXTURES, "record", "keras_fit_predict.py")


def _loop(report):
    return next(v for v in report.statements if v.kind == "for")


@pytest.mark.tf
def test_init_builds_the_instance_with_its_constructor_arguments(tf):
    report = build_report(f"{LAYER}::Smoother.call", "tf.zeros([8, 4])", init="steps=4")
    assert report.error is None and report.instance == "Smoother(steps=4) (--init)"
    loop = _loop(report)
    assert (loop.verdict, loop.iterations) == ("python", 4)
    assert loop.unconverted == "keras3"  # Keras 3 runs it unconverted: said, with its fixes
    assert "tf.while_loop" in loop.hint
    assert report.to_dict()["call"]["instance"] == "Smoother(steps=4) (--init)"


@pytest.mark.tf
def test_without_init_a_method_is_called_on_its_class_with_its_defaults_and_says_so(tf):
    report = build_report(f"{LAYER}::Smoother.call", "tf.zeros([8, 4])")
    assert report.instance == "Smoother() (its defaults; --init sets its arguments)"
    assert _loop(report).iterations == 3


@pytest.mark.tf
def test_an_init_the_constructor_refuses_is_one_sentence(tf):
    with pytest.raises(AgxError) as raised:
        build_report(f"{LAYER}::Smoother.call", "tf.zeros([8, 4])", init="bogus=1")
    assert raised.value.kind == "no-instance"
    assert raised.value.message.startswith("Smoother(bogus=1) raised ")  # Keras: ValueError
    assert raised.value.message.endswith("fix --init.")


@pytest.mark.tf
def test_init_on_a_plain_function_says_to_drop_it(tf):
    with pytest.raises(AgxError) as raised:
        build_report(f"{LAYER}::main", None, init="steps=2")
    assert "is not a method of a class: drop --init." in raised.value.message


@pytest.mark.tf
def test_a_class_without_defaults_says_to_pass_init(tf, tmp_path):
    """Its method needs an instance the class cannot make alone: the advice names --init
    first (and where the explorer takes it), the module-level instance second."""
    path = tmp_path / "gate.py"
    path.write_text("class Gate:\n    def __init__(self, k):\n        self.k = k\n\n"
                    "    def call(self, x):\n        return x * self.k\n")
    with pytest.raises(AgxError) as raised:
        build_report(f"{path}::Gate.call", "tf.zeros([2])")
    assert raised.value.kind == "no-instance"
    assert "pass its constructor's arguments with --init (in the explorer: the Run tab's " \
        "init box)" in raised.value.message
