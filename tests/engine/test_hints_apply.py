"""Every fix agexplorer shows can be applied: each case's program, its verdict and hint, then
the program rewritten as the hint says, traced the way a user runs it (a plain tf.function; a
Keras 3 layer inside a model called in a tf.function, and through a one-step fit)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import sys
import textwrap

import pytest

from agexplorer.doctor.checks import diagnose

pytestmark = pytest.mark.tf

_names = itertools.count()


def write(folder, name: str, source: str):
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return path


def load(path):
    """The file as a fresh module of its own (the user's program, as Python runs it)."""
    spec = importlib.util.spec_from_file_location(f"hints_apply_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def op_types(concrete) -> list[str]:
    return [op.type for op in concrete.graph.get_operations()]


def loop_of(rep, line: int | None = None, function: str | None = None):
    verdicts = list(rep.statements) + [v for f in rep.reached for v in f.statements]
    return next(v for v in verdicts if v.kind in ("for", "while", "if")
                and (line is None or v.line == line)
                and (function is None or v.function == function))


def line_of(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# -- a Python list ---------------------------------------------------------------------

LISTS = '''
    import tensorflow as tf


    @tf.function
    def total(shards):
        acc = tf.zeros([2])
        for s in shards:
            acc = acc + s
        return acc


    @tf.function
    def indexed(shards):
        acc = tf.zeros([2])
        for i in range(len(shards)):
            acc = acc + shards[i] * tf.cast(i, tf.float32)
        return acc


    @tf.function
    def numbered(shards):
        acc = tf.zeros([2])
        for i, s in enumerate(shards):
            acc = acc + s * tf.cast(i, tf.float32)
        return acc


    @tf.function
    def paired(shards, weights):
        acc = tf.zeros([2])
        for s, w in zip(shards, weights):
            acc = acc + s * w
        return acc


    @tf.function
    def built(x):
        parts = []
        for k in range(3):
            parts.append(x * float(k))
        acc = tf.zeros([2])
        for p in parts:
            acc = acc + p
        return acc


    SHARDS = "[tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), tf.constant([5.0, 6.0])]"
    AGX_CALLS = {"total": SHARDS, "indexed": SHARDS, "numbered": SHARDS,
                 "paired": SHARDS + ", [tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)]",
                 "built": "tf.constant([1.0, 2.0])"}
'''


@pytest.fixture(scope="module")
def lists(tmp_path_factory):
    return write(tmp_path_factory.mktemp("lists"), "lists", LISTS)


def shards(tf):
    return [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), tf.constant([5.0, 6.0])]


def apply_header(path, old: str, new: str, folder, name: str):
    """The program with the loop header ``old`` replaced by ``new`` (what the hint wrote)."""
    text = path.read_text()
    assert text.count(old) == 1
    return write(folder, name, text.replace(old, new))


def staged_while(tf, function, *args) -> None:
    """Traced as the user runs it: a plain tf.function call builds a While op."""
    concrete = function.get_concrete_function(*args)
    assert {"While", "StatelessWhile"} & set(op_types(concrete))


def test_a_list_loop_hint_stacks_and_the_stacked_loop_is_one_while(report, tf, lists,
                                                                   tmp_path):
    loop = loop_of(report(f"{lists}::total"))
    assert (loop.verdict, loop.iterations) == ("python", 3)
    assert "tf.range(len(" not in loop.hint
    header = re.search(r"`(for .+?:)`", loop.hint).group(1)
    assert header == "for s in tf.stack(shards):"
    fixed = apply_header(lists, "for s in shards:", header, tmp_path, "total_fixed")
    after = loop_of(report(f"{fixed}::total"))
    assert after.verdict == "staged" and "While" in after.graph_op
    new, old = load(fixed), load(lists)
    staged_while(tf, new.total, shards(tf))
    assert new.total(shards(tf)).numpy().tolist() == old.total(shards(tf)).numpy().tolist()


def test_a_list_can_come_as_a_dataset_instead(report, tf, lists):
    """"items passed in can come as a tf.data.Dataset": the same loop, staged on a dataset."""
    loop = loop_of(report(f"{lists}::total"))
    assert "tf.data.Dataset" in loop.hint
    call = "tf.data.Dataset.from_tensor_slices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))"
    assert loop_of(report(f"{lists}::total", call)).verdict == "staged"
    module = load(lists)
    dataset = tf.data.Dataset.from_tensor_slices(tf.stack(shards(tf)))
    assert "ReduceDataset" in op_types(module.total.get_concrete_function(dataset))
    assert module.total(dataset).numpy().tolist() == [9.0, 12.0]


def test_a_list_built_by_append_is_collected_in_a_tensorarray(report, tf, lists, tmp_path):
    second = line_of(lists, "for p in parts:")
    loop = loop_of(report(f"{lists}::built"), second)
    assert loop.verdict == "python" and "tf.TensorArray" in loop.hint
    assert "iterate over its .stack()" in loop.hint
    fixed = write(tmp_path, "built_fixed", '''
        import tensorflow as tf


        @tf.function
        def built(x):
            parts = tf.TensorArray(tf.float32, size=3)
            for k in tf.range(3):
                parts = parts.write(k, x * tf.cast(k, tf.float32))
            acc = tf.zeros([2])
            for p in parts.stack():
                acc = acc + p
            return acc


        AGX_CALLS = {"built": "tf.constant([1.0, 2.0])"}
    ''')
    rep = report(f"{fixed}::built")
    assert [v.verdict for v in rep.statements] == ["staged", "staged"]
    x = tf.constant([1.0, 2.0])
    concrete = load(fixed).built.get_concrete_function(x)
    assert sum(t in ("While", "StatelessWhile") for t in op_types(concrete)) == 2
    assert load(fixed).built(x).numpy().tolist() == load(lists).built(x).numpy().tolist()


def test_a_range_loop_that_appends_is_staged_as_its_hint_says(report, tf, lists, tmp_path):
    """The range loop's hint (tf.range, the appended values in a TensorArray) applied as
    written: ``float(k)`` of the tensor counter stays, as AutoGraph converts it to a cast."""
    loop = loop_of(report(f"{lists}::built"), line_of(lists, "for k in range(3):"))
    assert loop.verdict == "python" and "iterate over tf.range(3)" in loop.hint
    assert "tf.TensorArray" in loop.hint
    text = lists.read_text()
    before = "    parts = []\n    for k in range(3):\n        parts.append(x * float(k))\n"
    assert text.count(before) == 1
    after = ("    parts = tf.TensorArray(tf.float32, size=3)\n"
             "    for k in tf.range(3):\n"
             "        parts = parts.write(k, x * float(k))\n"
             "    parts = tf.unstack(parts.stack())\n")
    fixed = write(tmp_path, "range_fixed", text.replace(before, after))
    assert report(f"{fixed}::built").statements[0].verdict == "staged"
    x = tf.constant([1.0, 2.0])
    staged_while(tf, load(fixed).built, x)
    assert load(fixed).built(x).numpy().tolist() == load(lists).built(x).numpy().tolist()


def test_a_range_over_a_lists_length_indexes_a_stacked_tensor(report, tf, lists, tmp_path):
    """The hint that raised "list indices must be integers or slices, not SymbolicTensor"
    now says to index a stacked tensor; done so, the loop stages."""
    loop = loop_of(report(f"{lists}::indexed"))
    assert "`shards_t = tf.stack(shards)`" in loop.hint and "`shards_t[i]`" in loop.hint
    text = lists.read_text()
    loop_text = ("    for i in range(len(shards)):\n"
                 "        acc = acc + shards[i] * tf.cast(i, tf.float32)\n")
    assert text.count(loop_text) == 1
    fixed_text = text.replace(loop_text, "    shards_t = tf.stack(shards)\n"
                              + loop_text.replace("range(", "tf.range(")
                              .replace("shards[i]", "shards_t[i]"))
    fixed = write(tmp_path, "indexed_fixed", fixed_text)
    staged_while(tf, load(fixed).indexed, shards(tf))
    assert loop_of(report(f"{fixed}::indexed"), function="indexed").verdict == "staged"
    assert load(fixed).indexed(shards(tf)).numpy().tolist() == \
        load(lists).indexed(shards(tf)).numpy().tolist()
    # What the old hint said (tf.range, the list indexed as it was) does raise.
    broken = write(tmp_path, "indexed_broken", text.replace("range(len(shards))",
                                                           "tf.range(len(shards))"))
    with pytest.raises(TypeError, match="list indices must be integers"):
        load(broken).indexed(shards(tf))


@pytest.mark.parametrize(("function", "old_header"), [
    ("numbered", "for i, s in enumerate(shards):"),
    ("paired", "for s, w in zip(shards, weights):"),
])
def test_zip_and_enumerate_of_lists_loop_over_an_index(report, tf, lists, tmp_path,
                                                      function, old_header):
    loop = loop_of(report(f"{lists}::{function}"))
    assert loop.verdict == "python" and "tf.range(len(" in loop.hint
    made = re.search(r"stack (?:it|each) before the loop \(`(.+?)`\)", loop.hint).group(1)
    header = re.search(r"loop over an index \(`(for .+?:)`\)", loop.hint).group(1)
    read = re.search(r"first thing in the body \(`(.+?)`\)", loop.hint).group(1)
    text = lists.read_text()
    assert text.count(f"    {old_header}\n") == 1
    fixed_text = text.replace(f"    {old_header}\n", f"    {made}\n    {header}\n        {read}\n")
    fixed = write(tmp_path, f"{function}_fixed", fixed_text)
    module, old = load(fixed), load(lists)
    args = [shards(tf)] + ([[tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)]]
                           if function == "paired" else [])
    staged_while(tf, getattr(module, function), *args)
    assert getattr(module, function)(*args).numpy().tolist() == \
        getattr(old, function)(*args).numpy().tolist()


# -- unconverted code: a Keras 3 layer's call ------------------------------------------

LAYERS = '''
    import keras
    import tensorflow as tf


    class Cumulate(keras.layers.Layer):
        def call(self, x):
            out = []
            for i in range(x.shape[1]):
                out.append(x[:, i] * 2.0)
            return tf.stack(out, axis=1)


    class Sign(keras.layers.Layer):
        def call(self, x):
            if tf.reduce_sum(x) > 0:
                return x
            return -x


    model = keras.Sequential([keras.Input((4,)), Cumulate(), keras.layers.Dense(1)])


    @tf.function
    def step(x):
        return model(x)


    AGX_CALLS = {"step": "tf.ones([2, 4])", "Cumulate.call": "tf.ones([2, 4])",
                 "Sign.call": "tf.ones([2, 4])"}
'''

# The layer rewritten each way the unconverted-code hint names.
_CUMULATE = {
    "vectorise": "return x * 2.0",
    "tf.scan": "return tf.transpose(tf.scan(lambda _, col: col * 2.0, tf.transpose(x), "
               "initializer=tf.zeros_like(x[:, 0])))",
    "keras.ops.fori_loop": "return keras.ops.fori_loop(0, x.shape[1], lambda i, out: out + "
                           "keras.ops.expand_dims(x[:, i] * 2.0, 1) * "
                           "keras.ops.one_hot(i, x.shape[1]), keras.ops.zeros_like(x))",
    "tf.while_loop": "return tf.while_loop(lambda i, out: i < tf.shape(x)[1], lambda i, out: "
                     "(i + 1, out + tf.expand_dims(x[:, i] * 2.0, 1) * tf.one_hot(i, "
                     "tf.shape(x)[1])), (0, tf.zeros_like(x)))[1]",
}


@pytest.fixture(scope="module")
def layers(tmp_path_factory):
    return write(tmp_path_factory.mktemp("layers"), "layers", LAYERS)


def layer_program(folder, name: str, body: str, width: int = 4):
    """A Keras 3 layer whose ``call`` is ``body`` (lines), in a model made by ``make()``."""
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    path = folder / f"{name}.py"
    path.write_text("import keras\nimport tensorflow as tf\n\n\n"
                    "class Cumulate(keras.layers.Layer):\n    def call(self, x):\n" + lines
                    + "\n\ndef make():\n    return keras.Sequential([keras.Input(("
                    f"{width},)), Cumulate(), keras.layers.Dense(1)])\n")
    return path


_UNROLLED = "return tf.stack([x[:, i] * 2.0 for i in range(x.shape[1])], axis=1)"


def in_model(tf, module, width: int = 4):
    """The layer as a user runs it: in a model called inside a tf.function, then fit()."""
    model = module.make()
    concrete = tf.function(lambda x: model(x)).get_concrete_function(tf.ones([2, width]))
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(tf.ones([2, width]), tf.ones([2, 1]), epochs=1, verbose=0)
    assert history.history["loss"][0] == history.history["loss"][0]  # a number, not NaN
    return concrete


def test_a_loop_keras_3_runs_unconverted_gets_no_tf_range_hint(report, layers):
    reached = loop_of(report(f"{layers}::step"), function="Cumulate.call")
    direct = loop_of(report(f"{layers}::Cumulate.call"))
    for loop in (reached, direct):
        assert loop.verdict == "python"
        assert "tf.range" not in loop.hint
        assert "vectorise" in loop.hint and "keras.ops.fori_loop" in loop.hint
    assert direct.unconverted == "keras3"
    assert direct.reason.count("Keras 3 runs Cumulate.call without AutoGraph") == 1


BLOCKS = '''
    import keras
    import tensorflow as tf


    class Stack(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.blocks = [keras.layers.Dense(4) for _ in range(3)]

        def call(self, x):
            for block in self.blocks:
                x = x + block(x)
            for _ in range(2):
                x = 0.5 * x
            for i in range(len(self.blocks)):
                x = x - self.blocks[i](x)
            return x


    model = keras.Sequential([keras.Input((4,)), Stack()])


    @tf.function
    def step(x):
        return model(x)


    AGX_CALLS = {"step": "tf.ones([2, 4])", "Stack.call": "tf.ones([2, 4])"}
'''


def test_a_keras_3_layers_loop_over_its_sublayers_gets_no_fix(report, tmp_path):
    """Over Keras's list of layers (a TrackedList) the unrolling is the point, whether the
    layer is reached from a tf.function or explored itself; its range loop keeps the fix for
    code AutoGraph does not convert."""
    path = write(tmp_path, "blocks", BLOCKS)
    over_blocks, over_range = line_of(path, "for block in"), line_of(path, "for _ in range(2)")
    for target in ("step", "Stack.call"):
        rep = report(f"{path}::{target}")
        blocks = loop_of(rep, over_blocks, "Stack.call")
        assert (blocks.verdict, blocks.iterations, blocks.hint) == ("python", 3, None), target
        assert "keras.ops.fori_loop" in loop_of(rep, over_range, "Stack.call").hint
    reached = loop_of(report(f"{path}::step"), over_blocks, "Stack.call")
    assert "a Python TrackedList of 3 items, which no tensor holds" in reached.reason
    # A counter that picks the layer to call (self.blocks[i](x)): no loop op could hold
    # layers either; it was told to use tf.while_loop or keras.ops.fori_loop.
    picked = loop_of(report(f"{path}::step"), line_of(path, "for i in range(len("),
                     "Stack.call")
    assert (picked.verdict, picked.iterations, picked.hint) == ("python", 3, None)
    assert picked.reason.endswith(
        "Its body calls `self.blocks[i]`, an item its counter picks from a Python sequence: no "
        "tensor holds what is called (layers, functions), so one step per item is the point, "
        "nothing to rewrite.")


NORMS = '''
    import keras
    import tensorflow as tf


    class Norms(keras.layers.Layer):
        def build(self, shape):
            self.a = self.add_weight(shape=(shape[-1], 3))
            self.b = self.add_weight(shape=(3,))

        def call(self, x):
            total = tf.zeros([])
            for w in [self.a * 1.0, self.b * 1.0]:  # tensors of two shapes
                total = total + tf.norm(w)
            for s in [tf.ones([2]), tf.ones([2])]:
                total = total + tf.reduce_sum(s)
            return x * total


    model = keras.Sequential([keras.Input((4,)), Norms()])


    @tf.function
    def step(x):
        return model(x)


    AGX_CALLS = {"step": "tf.ones([2, 4])", "Norms.call": "tf.ones([2, 4])"}
'''


def test_a_keras_3_loop_over_tensors_of_different_shapes_gets_no_fix(report, tmp_path):
    """Keras 3 runs a layer's call without AutoGraph: over tensors that differ in shape (its
    weights read, a model's gradients) no graph loop steps, so one step per item is the
    point; over same-shaped tensors the fix for unconverted code stays."""
    path = write(tmp_path, "norms", NORMS)
    mixed, same = line_of(path, "for w in"), line_of(path, "for s in")
    rep = report(f"{path}::Norms.call")
    loop = loop_of(rep, mixed, "Norms.call")
    assert (loop.verdict, loop.iterations, loop.hint) == ("python", 2, None), loop.hint
    assert "keras.ops.fori_loop" in loop_of(rep, same, "Norms.call").hint


def test_the_tf_range_the_old_hint_gave_raises_in_a_keras_3_layer(tf, tmp_path):
    module = load(layer_program(tmp_path, "ranged", "out = []\nfor i in tf.range(x.shape[1]):\n"
                                "    out.append(x[:, i] * 2.0)\nreturn tf.stack(out, axis=1)"))
    with pytest.raises(Exception, match=r"Iterating over a symbolic `?tf\.Tensor`? is not allowed"):
        model = module.make()
        tf.function(lambda x: model(x)).get_concrete_function(tf.ones([2, 4]))


@pytest.mark.parametrize("way", ["tf.scan", "keras.ops.fori_loop", "tf.while_loop"])
def test_the_unconverted_hints_explicit_loops_stage_in_a_keras_3_model(tf, tmp_path, way):
    module = load(layer_program(tmp_path, way.replace(".", "_"), _CUMULATE[way]))
    concrete = in_model(tf, module)
    assert {"While", "StatelessWhile"} & set(op_types(concrete))
    old = load(layer_program(tmp_path, "unrolled", _UNROLLED))
    x = tf.constant([[1.0, 2.0, 3.0, 4.0]])
    assert module.Cumulate()(x).numpy().tolist() == old.Cumulate()(x).numpy().tolist()


def test_the_vectorised_layer_does_not_grow_with_the_width(tf, tmp_path):
    sizes = {}
    for width in (4, 8):
        for way, body in (("vectorise", _CUMULATE["vectorise"]),
                          ("unrolled", _UNROLLED)):
            module = load(layer_program(tmp_path, f"{way}{width}", body, width))
            sizes[(way, width)] = len(op_types(in_model(tf, module, width)))
    assert sizes[("vectorise", 4)] == sizes[("vectorise", 8)]
    assert sizes[("unrolled", 8)] > sizes[("unrolled", 4)]  # the check can fail


def test_an_if_keras_3_runs_unconverted_is_written_with_cond(report, tf, layers, tmp_path):
    verdict = loop_of(report(f"{layers}::Sign.call"))
    assert verdict.kind == "if" and verdict.unconverted == "keras3"
    assert "keras.ops.cond" in verdict.hint and "tf.range" not in verdict.hint
    assert "Keras 3 runs Sign.call without AutoGraph" in verdict.reason
    fixed = load(write(tmp_path, "sign_fixed", '''
        import keras
        import tensorflow as tf


        class Sign(keras.layers.Layer):
            def call(self, x):
                return keras.ops.cond(tf.reduce_sum(x) > 0, lambda: x, lambda: -x)


        def make():
            return keras.Sequential([keras.Input((4,)), Sign(), keras.layers.Dense(1)])
    '''))
    concrete = in_model(tf, fixed)
    assert {"If", "StatelessIf"} & set(op_types(concrete))


# -- a loop over variables -------------------------------------------------------------

VARIABLES = '''
    import keras
    import tensorflow as tf

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(1)])


    @tf.function
    def train(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        for var, grad in zip(model.trainable_variables, grads):
            var.assign_sub(0.1 * grad)
        for i, v in enumerate(model.trainable_variables):
            v.assign(v * 0.99)
        for v in [model.trainable_variables[0], model.trainable_variables[1]]:
            v.assign(v * 0.99)
        return loss


    @tf.function
    def staged_attempt(x):
        variables = model.trainable_variables
        for i in tf.range(len(variables)):
            variables[i].assign(variables[i] * 0.99)
        return x


    AGX_CALLS = {"train": "tf.ones([2, 4]), tf.ones([2, 1])", "staged_attempt": "tf.ones([1])"}
'''


@pytest.fixture(scope="module")
def variables(tmp_path_factory):
    return write(tmp_path_factory.mktemp("variables"), "variables", VARIABLES)


def test_a_loop_over_variables_is_intended_counted_and_has_no_fix(report, variables):
    target = f"{variables}::train"
    rep = report(target)
    loops = [v for v in rep.statements if v.kind == "for"]
    assert len(loops) == 3
    for loop, count in zip(loops, (4, 4, 2), strict=True):
        assert (loop.verdict, loop.iterations, loop.intended) == ("python", count, "variables")
        assert loop.hint is None and "unrolling is the point" in loop.reason
        row = json.loads(json.dumps(loop.to_dict()))
        assert row["intended"] == "variables" and row["hint"] is None
    doctor = diagnose(target, report=rep, try_budget=None)
    assert not [f for f in doctor.findings if f.code in ("AGX003", "AGX004")]


def test_staging_a_loop_over_variables_cannot_work(tf, variables):
    """Why there is no fix: a tensor counter cannot index the Python list of variables."""
    with pytest.raises(TypeError, match="list indices must be integers"):
        load(variables).staged_attempt(tf.ones([1]))


# -- a Keras 3 subclassed model's weights, created before the first trace ----------------

SUBCLASSED = '''
    import keras
    import tensorflow as tf


    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.d1 = keras.layers.Dense(3)
            self.d2 = keras.layers.Dense(1)

        def call(self, x):
            return self.d2(self.d1(x))


    class BuiltNet(Net):
        def build(self, input_shape):
            self.d1.build(input_shape)
            self.d2.build((input_shape[0], 3))


    def trainer(net, opt):
        @tf.function
        def train(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((net(x) - y) ** 2)
            grads = tape.gradient(loss, net.trainable_variables)
            opt.apply_gradients(zip(grads, net.trainable_variables))
            return loss
        return train
'''


@pytest.mark.parametrize("prepare", ["call once", "build() that builds each sublayer"])
def test_creating_a_keras_3_models_weights_first_saves_the_second_trace(tf, tmp_path, prepare):
    module = load(write(tmp_path, "subclassed", SUBCLASSED))
    x, y = tf.ones([2, 4]), tf.ones([2, 1])
    import keras

    plain = module.Net()
    plain.build((None, 4))  # what the old advice said: Keras warns and makes no weights
    assert plain.weights == []
    unprepared = module.trainer(module.Net(), keras.optimizers.Adam(0.1))
    unprepared(x, y)
    assert unprepared.experimental_get_tracing_count() == 2
    net = module.Net() if prepare == "call once" else module.BuiltNet()
    if prepare == "call once":
        net(x[:1])
    else:
        net.build((None, 4))
    assert len(net.weights) == 4
    opt = keras.optimizers.Adam(0.1)
    opt.build(net.trainable_variables)
    train = module.trainer(net, opt)
    train(x, y)
    train(x, y)
    assert train.experimental_get_tracing_count() == 1


def test_keras_3_is_told_from_keras_2_by_the_layer_class(tf, monkeypatch):
    """Keras 2 (tf-keras, TF_USE_LEGACY_KERAS=1) converts a layer's call; Keras 3 does not."""
    import types

    import keras

    from agexplorer.engine.keras_layers import keras_major, runs_unconverted

    class Mine(keras.layers.Layer):
        def call(self, x):
            return x

    assert keras_major(Mine) == 3 and runs_unconverted(Mine, "call")
    Mine.traced = tf.function(lambda self, x: x)
    assert not runs_unconverted(Mine, "traced")  # a tf.function method is converted
    legacy = type("Layer", (), {"__module__": "tf_keras.src.engine.base_layer"})
    monkeypatch.setitem(sys.modules, "tf_keras", types.SimpleNamespace(__version__="2.17.0"))
    old = type("Old", (legacy,), {"call": lambda self, x: x})
    assert keras_major(old) == 2 and not runs_unconverted(old, "call")
    assert keras_major(type("Plain", (), {})) is None


# -- an assignment expression (:=), which AutoGraph refuses ---------------------------------

def test_a_walrus_is_named_and_its_fix_converts_and_stages_the_function(report, tf, tmp_path):
    """AutoGraph asserts on gast's NamedExpr node (its message names no construct): the
    report says which, the loop that then raised at its header says so, and the rewrite the
    hint gives converts the function: its loop and its if staged, the same result."""
    from agexplorer.engine.convert import WALRUS_FIX

    source = '''
        import tensorflow as tf


        @tf.function
        def positives(xs):
            total = tf.constant(0.0)
            for x in xs:
                if (s := tf.reduce_sum(x)) > 0:
                    total += s
            return total


        AGX_CALLS = {"positives": "tf.constant([[1.0, 2.0], [-3.0, 1.0], [2.0, 2.0]])"}
    '''
    walrus = write(tmp_path, "walrus", source)
    rep = report(f"{walrus}::positives")
    assert "an assignment expression `s := tf.reduce_sum(x)` (:=)" in rep.conversion_note
    assert "<gast" not in rep.conversion_note and rep.error is not None
    assert rep.error.advice == WALRUS_FIX
    loop, branch = rep.statements
    assert loop.hint == WALRUS_FIX and "header raised as the loop started" in loop.reason
    assert loop.verdict == "unreached"  # a loop over a symbolic tensor raises as it starts
    assert branch.verdict == "unreached"
    fixed = write(tmp_path, "walrus_fixed", source.replace(
        "if (s := tf.reduce_sum(x)) > 0:", "s = tf.reduce_sum(x)\n                if s > 0:"))
    rep = report(f"{fixed}::positives")
    assert rep.conversion_note is None and rep.error is None
    assert [v.verdict for v in rep.statements] == ["staged", "staged"]
    xs = tf.constant([[1.0, 2.0], [-3.0, 1.0], [2.0, 2.0]])
    assert float(load(fixed).positives(xs)) == 7.0


def test_a_match_statement_is_named_and_its_if_elif_rewrite_converts(report, tf, tmp_path):
    """AutoGraph asserts somewhere inside on a ``match`` (its message names no construct):
    the report names it at its line and gives the if/elif rewrite in the code's own words;
    done so, the function converts and its tensor condition is staged."""
    source = '''
        import tensorflow as tf


        @tf.function
        def pick(x, mode):
            match mode:
                case "double":
                    y = x * 2.0
                case _:
                    y = x
            if tf.reduce_sum(y) > 0:
                y = y + 1.0
            return y


        AGX_CALLS = {"pick": "tf.constant([1.0, 2.0]), 'double'"}
    '''
    path = write(tmp_path, "pick", source)
    rep = report(f"{path}::pick")
    assert rep.conversion is None  # tf.function ran it as written: its tensor if raised
    assert f"pick.py:{line_of(path, 'match mode:')}: AutoGraph could not transform pick: a " \
        "`match` statement" in rep.conversion_note
    assert "`if mode == 'double':` for its first `case`" in rep.error.advice
    assert "then, tracing it as written" in " ".join(rep.error.details)
    (branch,) = rep.statements
    assert "raised (the error below)" in branch.reason
    assert "write the `match` as `if`/`elif`" in branch.hint
    fixed = write(tmp_path, "pick_fixed", source.replace(
        '''match mode:
                case "double":
                    y = x * 2.0
                case _:
                    y = x''', '''if mode == "double":
                y = x * 2.0
            else:
                y = x'''))
    rep = report(f"{fixed}::pick")
    assert rep.conversion is not None and rep.conversion_note is None
    assert [v.verdict for v in rep.statements] == ["python", "staged"]
    assert load(fixed).pick(tf.constant([1.0, 2.0]), "double").numpy().tolist() == [3.0, 5.0]


# -- the doctor's fixes for Python state and NumPy -----------------------------------------

CHANGED = '''
    import numpy as np
    import tensorflow as tf

    history = []


    @tf.function
    def step(x):
        history.append(x * 2.0)
        return x - np.mean(x)


    AGX_CALLS = {"step": "tf.constant([1.0, 3.0])"}
'''


def test_a_module_lists_fix_collects_one_value_per_call(report, tf, tmp_path):
    """AGX002 on ``history.append`` inside: the list gets the trace's symbolic tensor once;
    the fix (return it, append where the function is called) gets a value per call."""
    path = write(tmp_path, "changed", CHANGED.replace("return x - np.mean(x)", "return x"))
    finding = next(f for f in diagnose(f"{path}::step", None,
                                       report=report(f"{path}::step")).findings)
    assert finding.code == "AGX002" and "`history.append(step(...))`" in finding.fix
    module = load(path)
    for _ in range(3):
        module.step(tf.constant([1.0, 3.0]))
    assert len(module.history) == 1 and not hasattr(module.history[0], "numpy")
    fixed = load(write(tmp_path, "changed_fixed", CHANGED.replace(
        "history.append(x * 2.0)\n        return x - np.mean(x)", "return x * 2.0")))
    for k in range(3):
        fixed.history.append(fixed.step(tf.constant([1.0, 3.0]) * k))
    assert [h.numpy().tolist() for h in fixed.history] == [[0.0, 0.0], [2.0, 6.0], [4.0, 12.0]]


@pytest.mark.parametrize("rewrite", ["tf.reduce_mean(x)", "tf.experimental.numpy.mean(x)"])
def test_a_numpy_calls_fix_traces(report, tf, tmp_path, rewrite):
    """AGX006 on ``np.mean(x)`` of a tensor, which fails to trace; both rewrites it names
    trace and give NumPy's answer."""
    path = write(tmp_path, "numpy_call", CHANGED.replace("        history.append(x * 2.0)\n", ""))
    rep = report(f"{path}::step")
    assert rep.error is not None and "numpy" in rep.error.message
    finding = next(f for f in diagnose(f"{path}::step", None, report=rep).findings
                   if f.code == "AGX006")
    assert "tf.reduce_mean(...)" in finding.fix and "tf.experimental.numpy.mean" in finding.fix
    assert "that is what made tracing fail" in finding.message
    fixed = write(tmp_path, "numpy_fixed", path.read_text().replace("np.mean(x)", rewrite))
    assert report(f"{fixed}::step").error is None
    assert load(fixed).step(tf.constant([1.0, 3.0])).numpy().tolist() == [-1.0, 1.0]


COUNTER = '''
    import tensorflow as tf


    class Counter(tf.Module):
        def __init__(self):
            self.calls = 0

        @tf.function
        def step(self, x):
            self.calls += 1
            return x + 1


    AGX_CALLS = {"Counter.step": "tf.constant(1)"}
'''


def test_an_attributes_fix_counts_every_call(report, tf, tmp_path):
    """AGX002 on ``self.calls += 1`` in a method: it moved once for three calls; the fix (a
    tf.Variable made in __init__, .assign_add inside) counts three. Written ``+=`` on the
    variable, tracing is refused, and the finding says that is why."""
    path = write(tmp_path, "counter", COUNTER)
    (finding,) = diagnose(f"{path}::Counter.step", None,
                          report=report(f"{path}::Counter.step")).findings
    assert finding.code == "AGX002" and "`self.calls.assign_add(...)`" in finding.fix
    counter = load(path).Counter()
    for _ in range(3):
        counter.step(tf.constant(1))
    assert counter.calls == 1
    fixed = load(write(tmp_path, "counter_fixed", COUNTER.replace(
        "self.calls = 0", "self.calls = tf.Variable(0)").replace(
        "self.calls += 1", "self.calls.assign_add(1)"))).Counter()
    for _ in range(3):
        fixed.step(tf.constant(1))
    assert int(fixed.calls.numpy()) == 3
    refused = write(tmp_path, "counter_var", COUNTER.replace("self.calls = 0",
                                                             "self.calls = tf.Variable(0)"))
    rep = report(f"{refused}::Counter.step")
    (finding,) = diagnose(f"{refused}::Counter.step", None, report=rep).findings
    assert rep.error is not None and "that is what made tracing fail" in finding.message


# -- a while loop on a Python counter -------------------------------------------------------

COUNTDOWNS = '''
    import tensorflow as tf


    @tf.function
    def by_length(x):
        n = len(x)
        t = tf.constant(0.0)
        while n > 0:
            t += x[n - 1]
            n -= 1
        return t


    @tf.function
    def by_argument(x, n):
        t = tf.constant(0.0)
        while n > 0:
            t += x[n - 1]
            n -= 1
        return t


    AGX_CALLS = {"by_length": "tf.constant([1.0, 2.0, 3.0])",
                 "by_argument": "tf.constant([1.0, 2.0, 3.0]), 3"}
'''


@pytest.mark.parametrize(("function", "start", "edit"), [
    # started by an expression: the fix keeps it (not the 3 that one trace's len gave)
    ("by_length", "`n = tf.constant(len(x))`",
     ("n = len(x)", "n = tf.constant(len(x))")),
    # a parameter: made a tensor first in the function (not the 3 one call passed)
    ("by_argument", "`n = tf.constant(n)`",
     ("def by_argument(x, n):\n", "def by_argument(x, n):\n    n = tf.constant(n)\n")),
])
def test_a_while_counters_start_keeps_what_the_function_starts_it_with(report, tf, tmp_path,
                                                                        function, start, edit):
    """The counter a Python ``while`` compares is made a tensor around what the function
    started it with: applied, the loop is one staged while, and the function still sums
    every input it is given (a longer one too), where tf.constant(3) would sum 3 items."""
    path = write(tmp_path, f"countdown_{function}", COUNTDOWNS)
    loop = loop_of(report(f"{path}::{function}"))
    assert (loop.verdict, loop.iterations) == ("python", 3)
    assert start in loop.hint and "tf.constant(3)" not in loop.hint
    fixed = write(tmp_path, f"countdown_{function}_fixed",
                  textwrap.dedent(COUNTDOWNS).replace(*edit))
    assert loop_of(report(f"{fixed}::{function}")).verdict == "staged"
    module = load(fixed)
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    args = (x,) if function == "by_length" else (x, 4)
    assert float(getattr(module, function)(*args)) == 10.0


# -- an if on a static shape ------------------------------------------------------------------

SHAPED = '''
    import tensorflow as tf


    @tf.function
    def halve_long(x):
        if x.shape[0] > 2:
            x = x * 0.5
        return x


    AGX_CALLS = {"halve_long": "tf.ones([3])"}
'''


def test_an_if_on_a_static_shape_names_the_dynamic_test_which_stages(report, tf, tmp_path):
    """``if x.shape[0] > 2`` is a Python bool while tracing: the fix names the dynamic
    shape's test, and that rewrite stages a tf.cond that still chooses per size (one trace,
    input_signature with a None dimension, both sizes)."""
    path = write(tmp_path, "shaped", SHAPED)
    branch = loop_of(report(f"{path}::halve_long"))
    assert (branch.verdict, branch.branch) == ("python", "true")
    assert "`if tf.shape(x)[0] > 2:`" in branch.hint
    fixed = write(tmp_path, "shaped_fixed", textwrap.dedent(SHAPED).replace(
        "if x.shape[0] > 2:", "if tf.shape(x)[0] > 2:"))
    assert loop_of(report(f"{fixed}::halve_long")).verdict == "staged"
    step = tf.function(load(fixed).halve_long.python_function,
                       input_signature=[tf.TensorSpec([None], tf.float32)])
    assert step(tf.ones([3])).numpy().tolist() == [0.5] * 3
    assert step(tf.ones([2])).numpy().tolist() == [1.0] * 2
    assert step.experimental_get_tracing_count() == 1


RECURSIVE = '''
    import tensorflow as tf


    def halve(x, depth):
        if depth == 0:
            return x
        return halve(x * 0.5, depth - 1)


    def shrink(x, depth):
        if depth > 0:
            x = shrink(x * 0.5, depth - 1)
        return x


    @tf.function
    def step(x):
        return halve(x, 3) + shrink(x, 2)


    @tf.function
    def flat(x, big):
        if big:
            x = x * 2.0
        return x


    AGX_CALLS = {"step": "tf.ones([2])", "halve": "tf.ones([2]), 3", "flat": "tf.ones([2]), True"}
'''


def test_the_if_that_ends_a_recursion_is_not_told_to_become_a_tf_cond(report, tmp_path):
    """A tensor condition there would trace the recursive branch at every level without end:
    the fix says to keep it a Python value (and how deep it went), in a helper reached from a
    tf.function and in the function explored itself; an ordinary Python if keeps its fix."""
    path = write(tmp_path, "recursive", RECURSIVE)
    rep = report(f"{path}::step")
    halve = loop_of(rep, line_of(path, "if depth == 0"), "halve")
    assert halve.hint.startswith("it ends a recursion (4 levels deep while tracing"), halve.hint
    assert "tf.cond" not in halve.hint
    shrink = loop_of(rep, line_of(path, "if depth > 0"), "shrink")
    assert shrink.hint.startswith("it ends a recursion (3 levels deep"), shrink.hint
    own = next(v for v in report(f"{path}::halve").statements if v.kind == "if")
    assert own.hint.startswith("it ends a recursion (4 levels deep"), own.hint
    flat = next(v for v in report(f"{path}::flat").statements if v.kind == "if")
    assert "make the condition a tensor and AutoGraph stages a tf.cond" in flat.hint
