"""What kind of value AutoGraph dispatched on, beside the words that describe it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ValueKind = Literal[
    "python-bool", "python-int", "python-float", "python-str",  # "the Python int 4"
    "none", "range", "list", "tuple", "dict", "set",
    "tensor", "variable", "eager-tensor",  # symbolic, tf.Variable, captured eager tensor
    "ragged-tensor", "sparse-tensor", "tensor-array",  # tf.RaggedTensor, tf.SparseTensor, ...
    "keras-tensor",  # a Keras functional model's symbolic input (no graph tensor)
    "numpy", "dataset", "dataset-iterator", "other",  # iter(dataset): a tf.data iterator
]

# The kinds described as "the Python ...": plain values fixed into the graph while tracing.
PYTHON_SCALARS: frozenset[ValueKind] = frozenset(
    {"python-bool", "python-int", "python-float", "python-str"})
# The Python containers a loop always unrolls (a set is iterated too, but the hint does
# not name it: its order is not the user's).
CONTAINERS: frozenset[ValueKind] = frozenset({"list", "tuple", "dict"})
# Values that stay tensors in the graph (an eager tensor captured from outside is a constant).
GRAPH_TENSORS: frozenset[ValueKind] = frozenset(
    {"tensor", "variable", "ragged-tensor", "sparse-tensor", "tensor-array"})


@dataclass(frozen=True)
class Described:
    """A value as the recorder saw it: its kind, its noun phrase, and for Python numbers
    and bools the literal the phrase shows ("4", "True", "0.5")."""

    kind: ValueKind
    text: str
    literal: str | None = None


@dataclass(frozen=True)
class NamedValue:
    """A name the statement reads and the value it held while tracing."""

    name: str
    value: Described

    @property
    def text(self) -> str:
        """The value in words."""
        return self.value.text

    @property
    def kind(self) -> ValueKind:
        """The value's kind."""
        return self.value.kind
