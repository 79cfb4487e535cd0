"""A plain function that calls the file's tf.functions (a program's ``main``), explored by
name: traced as tf.function(main) would be, and every view says so first."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.tf

DRIVER = '''\
import tensorflow as tf

w = tf.Variable(1.0)


@tf.function
def train_step(x):
    w.assign_sub(0.1 * x)
    return w * 1.0


def main():
    for epoch in range(3):
        train_step(tf.constant(1.0))
'''


def test_a_driver_s_report_says_its_verdicts_are_tf_function_of_it(report, tmp_path):
    from agexplorer.render.terminal import report_renderables

    path = tmp_path / "train.py"
    path.write_text(DRIVER)
    main = report(f"{path}::main")
    assert main.drives == ("train_step",) and main.error is None
    assert json.loads(json.dumps(main.to_dict()))["target"]["drives"] == ["train_step"]
    [loop] = main.statements  # what tf.function(main) would do: unrolled
    assert loop.unrolled
    text = str(report_renderables(main, width=200)[0].renderable)
    assert "main is no tf.function: your program runs it in Python" in text
    assert report(f"{path}::train_step").drives == ()  # the tf.function itself
