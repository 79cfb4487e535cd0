"""A Python dict looked up with a tensor (AGX013): ``VOCAB[word]`` or ``VOCAB.get(word, 0)``
where ``word`` is a tensor (a ``dataset.map`` function's element, a tf.function's argument).

A dict hashes its keys; a tensor while tracing is symbolic and unhashable, so the lookup
raises "Tensor is unhashable. Instead, use tensor.ref() as the key." That advice does not
apply to a lookup by value: ``tensor.ref()`` hashes the tensor object, which never equals
the dict's keys. A ``tf.lookup.StaticHashTable`` made once from the dict looks up by value
in the graph.
"""

from __future__ import annotations

from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import dotted_name

UNHASHABLE = "Tensor is unhashable"


def _dicts(exam: ExaminedFunction) -> dict[str, Any]:
    """Names bound to a dict literal (or ``dict(...)``): the module's, then the function's
    own; each with its value node."""
    found: dict[str, Any] = {}
    for body in (exam.mod.tree.body, list(exam.nodes())):
        for node in body:
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name) \
                    and (isinstance(node.value, gast.Dict) or (
                        isinstance(node.value, gast.Call)
                        and dotted_name(node.value.func) == "dict")):
                found[node.targets[0].id] = node.value
    return found


def _default(exam: ExaminedFunction, value: Any, given: Any) -> str:
    """The table's default_value: the ``.get``'s default, else one of the values' type."""
    if given is not None:
        return exam.mod.segment(given)
    values = value.values if isinstance(value, gast.Dict) else []
    kinds = {type(v.value) for v in values if isinstance(v, gast.Constant)}
    if len(kinds) == 1 and len(values) == sum(isinstance(v, gast.Constant) for v in values):
        return {int: "-1", float: "-1.0", str: '""'}.get(kinds.pop(), "...")
    return "..."


def dict_lookups(exam: ExaminedFunction) -> None:
    """AGX013: a dict looked up on the line where tracing raised "Tensor is unhashable"."""
    line = exam.failed_at(UNHASHABLE)
    if line is None:
        return
    dicts = _dicts(exam)
    tf = exam.mod.tf_name or "tf"
    for node in exam.nodes():
        if not isinstance(node, (gast.Subscript, gast.Call)) \
                or not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in dicts:
            name, key, given = node.value.id, node.slice, None
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr == "get" and isinstance(node.func.value, gast.Name) \
                and node.func.value.id in dicts and node.args:
            name, key = node.func.value.id, node.args[0]
            given = node.args[1] if len(node.args) > 1 else None
        else:
            continue
        default = _default(exam, dicts[name], given)
        table = f"{name.lower()}_table"
        exam.add("AGX013", node, f"`{exam.mod.segment(node)}` looks up the Python dict "
                 f"`{name}` with `{exam.mod.segment(key)}`, a tensor while tracing, which a "
                 "dict cannot hash: that is what made tracing fail (TensorFlow's advice, "
                 "tensor.ref() as the key, looks up the tensor object, never equal to the "
                 "dict's keys)",
                 f"make a table from the dict once, at the module's top level: `{table} = "
                 f"{tf}.lookup.StaticHashTable({tf}.lookup.KeyValueTensorInitializer("
                 f"list({name}.keys()), list({name}.values())), default_value={default})`, "
                 f"and look up with `{table}.lookup({exam.mod.segment(key)})` here: it "
                 "looks up by value, in the graph.", "trace", name, cause=True)
