"""What a recorded trace keeps of the user's code it reached: the user's call on the line that
asked a library for the trace, and a method's instance (no TensorFlow needed)."""

from __future__ import annotations

import sys

import pytest

from agexplorer.record.reached import CallTexts, entry_of, instance_init

SOURCE = """\
class Data:
    def __init__(self, texts):
        self.texts = texts

    def map(self, *args, **kwargs):
        return self._asked("map")

    def fit(self, *args, **kwargs):
        return self._asked("fit")

    def _asked(self, name):
        import sys
        frame = sys._getframe(2)
        self.texts.append(CALLS.text(__file__, frame.f_lineno, [name]))
        return self


def featurize(x):
    return x


def run(texts):
    ds = Data(texts)
    ds.map(featurize, num_parallel_calls=2)
    ds.map(lambda x: x)
    x = [1, 2]
    ds.fit(x, epochs=3)
    ds.map(featurize).fit(x)
    ds.map(x, featurize)
"""


def test_the_call_on_the_users_line_is_named_as_written(tmp_path):
    path = tmp_path / "pipeline.py"
    path.write_text(SOURCE)
    namespace = {"__file__": str(path), "CALLS": CallTexts()}
    exec(compile(SOURCE, str(path), "exec"), namespace)
    texts: list[str | None] = []
    namespace["run"](texts)
    # the function it is given is part of the call (wherever it is); data (x) is not
    assert texts == ["ds.map(featurize)", "ds.map(lambda)", "ds.fit",
                     "ds.map(featurize)", "ds.map(featurize).fit", "ds.map(featurize)"]


def test_a_line_without_the_libraries_call_names_nothing(tmp_path):
    path = tmp_path / "other.py"
    path.write_text("y = len([1])\n")
    assert CallTexts().text(str(path), 1, ["fit"]) is None


class Plain:
    def __init__(self, steps=3):
        self.steps = steps


class Configured:
    def __init__(self, steps=3, scale=1.0, name=None):
        self.config = {"steps": steps, "scale": scale, "name": name, "trainable": True}

    def get_config(self):
        return dict(self.config)


class Unserialisable(Configured):
    def __init__(self, fn=None):
        self.config = {"fn": fn}


def test_an_instance_is_rebuilt_from_its_config_where_it_keeps_one():
    assert instance_init(Configured(steps=6)) == ("steps=6", None)
    assert instance_init(Configured()) == ("", None)  # its defaults build it
    assert instance_init(Configured(steps=2, scale=0.5)) == ("steps=2, scale=0.5", None)
    init, note = instance_init(Plain(steps=6))
    assert init is None and "keeps no record of its constructor's arguments" in note
    init, note = instance_init(Unserialisable(fn=print))
    assert init is None and "fn was not a plain Python value" in note


@pytest.mark.tf
def test_a_keras_model_built_from_its_parts_is_not_rebuilt_from_its_defaults(tf):
    # Its class keeps Keras's constructor, given Keras inputs and outputs (or layers): its
    # defaults would build an empty model, whose call raises NotImplementedError
    import keras

    class Clipped(keras.Model):
        def train_step(self, data):
            return {}

    class Stack(keras.Sequential):
        pass

    inp = keras.Input((4,))
    init, note = instance_init(Clipped(inp, keras.layers.Dense(1)(inp)))
    assert init is None and "from Keras inputs and outputs (the functional API)" in note
    init, note = instance_init(Stack([keras.Input((4,)), keras.layers.Dense(1)]))
    assert init is None and "from its layers (keras.Sequential)" in note
    assert instance_init(Stack()) == ("", None)  # empty: its defaults do build it

    class Wide(keras.layers.Dense):
        pass

    init, note = instance_init(Wide(3))  # Dense's constructor needs its units
    assert init is None and "constructor, whose arguments (units) were not recorded" in note


def test_a_first_frame_gives_its_arguments_and_its_instance():
    seen = []

    class Layer(Configured):
        def call(self, x, *rest, flag=True, **extra):
            seen.append(entry_of(sys._getframe()))

    Layer(steps=4).call(3, 5, flag=False)
    (entry,) = seen
    assert entry.init == "steps=4"
    assert [(a.name, a.text) for a in entry.arguments] == [
        ("x", "the Python int 3"), ("flag", "the Python bool False"),
        ("rest", "a Python tuple [5]"), ("extra", "a Python dict {}")]
