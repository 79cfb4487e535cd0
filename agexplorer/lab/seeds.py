"""One fixed seed for every random generator a mode can draw from, set before each load and run.

Each mode loads the module afresh, and a module that builds a model draws its initial
weights at load: unseeded, every mode would get other weights and other results, for no
reason of graph or XLA. So before each load and before each mode's calls, Python's
``random``, NumPy's global generator and TensorFlow's global seed are set to one value;
Keras (3, and tf-keras where present) gets the same through ``keras.utils.set_random_seed``,
which also resets its global ``SeedGenerator``. What a fixed seed cannot make equal: a
``tf.random`` op derives its own seed from the global one differently in a graph (the op's
id in it) than eagerly (a counter of eager ops), and XLA draws with its own generator.
"""

from __future__ import annotations

import random
import sys

LAB_SEED = 1234


def seed_everything(seed: int = LAB_SEED) -> None:
    """Set every random generator the lab knows of to ``seed``. Keras is seeded only where
    the process already imported it (a module's load imports it after this, and then
    starts from the generators seeded here)."""
    import numpy as np

    from agexplorer.engine.tfenv import import_tf

    random.seed(seed)
    np.random.seed(seed)
    import_tf().random.set_seed(seed)
    for name in ("keras", "tf_keras"):
        module = sys.modules.get(name)
        utils = getattr(module, "utils", None)
        setter = getattr(utils, "set_random_seed", None)
        if callable(setter):
            setter(seed)
