"""The evidence for a difference between modes: the Python state each mode changed, the trace's
random ops.

A mode's results can differ from eager's for a handful of reasons, and the report names one
only when it saw it: the effects tracker's look at the Python state a call can change
(globals, closure cells, the instance's attributes, Python's and NumPy's random generators)
before and after the first call (for graph and XLA, the call that traces) and after the
timed calls; and the random ops of TensorFlow's own stateful generators in the trace.
"""

from __future__ import annotations

from typing import Any

from agexplorer.engine.effects import changes, snapshot

__all__ = ["effects_since", "is_random_op", "random_ops", "snapshot", "trace_op_types"]
from agexplorer.model.lab import EffectPhase, ModeEffect

State = dict[tuple[str, str], str]

# Ops that draw from a generator of TensorFlow's own, seeded from the global seed and a
# per-op seed that a graph and eager execution derive differently; stateless random ops
# (tf.random.stateless_*, Keras 3's seeded draws) take their seed as an input and are not here.
_RANDOM_OPS = {"TruncatedNormal", "Multinomial", "ParameterizedTruncatedNormal",
               "RngReadAndSkip", "RngSkip"}
_RANDOM_PREFIXES = ("Random", "StatefulUniform", "StatefulStandardNormal",
                    "StatefulTruncatedNormal", "StatefulRandom")


def effects_since(loaded: Any, before: State, phase: EffectPhase) -> tuple[list[ModeEffect], State]:
    """(what the call of ``loaded`` (a Loaded) changed since ``before``, a ``snapshot`` of it,
    tagged with ``phase``; the state now)."""
    now = snapshot(loaded)
    return [ModeEffect(kind, name, old, new, phase)  # type: ignore[arg-type]
            for kind, name, old, new, _ in changes(before, now)], now


def is_random_op(op_type: str) -> bool:
    """Whether ``op_type`` draws from one of TensorFlow's stateful random generators."""
    return op_type in _RANDOM_OPS or op_type.startswith(_RANDOM_PREFIXES)


def trace_op_types(fn: Any, args: tuple, kwargs: dict) -> list[str]:
    """The op type of every node in the trace ``fn`` (a tf.function) made for this call, its
    nested functions (loop bodies, branches) included; [] when it cannot tell."""
    try:
        graph = fn.get_concrete_function(*args, **kwargs).graph.as_graph_def()
    except Exception:  # noqa: BLE001 - evidence only: no figure rather than a failed mode
        return []
    return [node.op for node in graph.node] + [
        node.op for function in graph.library.function for node in function.node_def]


def random_ops(types: list[str]) -> list[str]:
    """The stateful random op types among a trace's ``types`` (see trace_op_types)."""
    return sorted({t for t in types if is_random_op(t)})
