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
    "zip", "enumerate",  # Python's zip/enumerate over Python values (``parts``: what they read)
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
# The tensors tf.stack packs into one (not a ragged, sparse or Keras symbolic one).
DENSE_TENSORS: frozenset[ValueKind] = frozenset({"tensor", "variable", "eager-tensor"})


@dataclass(frozen=True)
class Described:
    """A value as the recorder saw it: its kind, its noun phrase, and for Python numbers
    and bools the literal the phrase shows ("4", "True", "0.5").

    A container also says what it holds: ``items``, the kind every item shares (None when
    empty or mixed), and ``stackable``, whether ``tf.stack`` makes one tensor of them (tensors
    or Python scalars of one dtype and shape). A zip or enumerate names what it reads in
    ``parts``, without consuming it.
    """

    kind: ValueKind
    text: str
    literal: str | None = None
    items: ValueKind | None = None
    stackable: bool = False
    parts: tuple[Described, ...] = ()

    def holds_variables(self) -> bool:
        """A container of variables, or a zip/enumerate reading one (``zip(variables, grads)``)."""
        return self.items == "variable" or any(p.holds_variables() for p in self.parts)


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
