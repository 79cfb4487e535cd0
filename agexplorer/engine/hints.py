"""The one-line fix for a loop that ran in Python while tracing."""

from __future__ import annotations

from agexplorer.engine.recorder import Call
from agexplorer.engine.statements import Statement
from agexplorer.model.values import CONTAINERS, PYTHON_SCALARS, Described


def loop_hint(stmt: Statement, described: Described | None) -> str:
    """How to make the Python ``for`` at ``stmt`` a graph loop (it iterated ``described``)."""
    kind = described.kind if described else None
    if described is not None and kind == "range":
        bounds = described.text[len("range("):-1]
        return (f"iterate over tf.range({bounds}) instead, so AutoGraph builds one "
                "tf.while_loop whatever the count; pass the bound as a tensor so that a new "
                "value does not retrace; collect per-step results in a tf.TensorArray.")
    if kind in CONTAINERS:
        return ("stack the items into one tensor (tf.stack or tf.constant) and iterate over "
                "it, or loop over tf.range(len(...)): a Python container is always unrolled.")
    if kind == "numpy":
        return "convert it with tf.convert_to_tensor first: a NumPy array is iterated in Python."
    return "iterate over a tensor (tf.range, a tensor's rows) or a tf.data.Dataset to get a graph loop."


def while_hint(stmt: Statement, calls: list[Call]) -> str:
    """How to make the Python ``while`` at ``stmt`` a graph loop (``calls``: its runs)."""
    python_names = [n.name for c in calls[:1] for n in c.names if n.kind in PYTHON_SCALARS]
    if python_names:
        listed = " and ".join(f"`{n}`" for n in python_names)
        verb = "is a Python value" if len(python_names) == 1 else "are Python values"
        return (f"make the condition a tensor: {listed} {verb} while tracing; pass "
                f"`{python_names[-1]}` as a tensor (tf.constant(...)) or compare with one "
                f"(while ... < tf.constant({python_names[-1]})), and AutoGraph builds one "
                "tf.while_loop.")
    return "make the condition a tensor (compute it with tf ops) so AutoGraph builds a tf.while_loop."
