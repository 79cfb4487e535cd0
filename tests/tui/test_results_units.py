"""The explorer's sentence for a function given no arguments: the engine's example call."""

from agexplorer.model.errors import AgxError
from agexplorer.tui.results import call_example


def test_the_example_is_the_one_the_engine_gave_the_command_line():
    # As engine/load.py words it: one example argument for each parameter.
    error = AgxError("needs-arguments", "step takes arguments (x, steps)",
                     advice='pass them with --call, e.g. --call "tf.constant([1.0, 2.0]), '
                            'tf.constant([1.0, 2.0])".')
    assert call_example(error) == "tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])"
    assert call_example(AgxError("needs-arguments", "f takes arguments (x)")) == "tf.ones([2])"


def test_an_example_with_double_quotes_comes_in_single_quotes():
    error = AgxError("needs-arguments", "f takes arguments (x)",
                     advice="""pass them with --call, e.g. --call 'load("a.csv"), n=2'.""")
    assert call_example(error) == 'load("a.csv"), n=2'
