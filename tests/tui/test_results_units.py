"""The explorer's sentence for a function given no arguments: its example fits the function."""

from agexplorer.tui.results import call_example


def test_the_example_has_one_argument_for_each_parameter():
    assert call_example("scale takes arguments (x)") == "tf.ones([2])"
    assert call_example("step takes arguments (x, steps)") == "tf.ones([2]), tf.ones([2])"
    assert call_example("Model.call takes arguments (inputs, training, mask)").count("tf.") == 3
    assert call_example("something else") == "tf.ones([2])"  # a sentence of another shape
