"""A static size that is None while tracing (AGX012): ``x.shape[0]`` of an input whose size
is unknown there (None in an input_signature, a dataset's last batch), used as a number.

``x.shape`` is what tracing knows of the tensor's shape; where a dimension is unknown it
holds None, and Python's comparisons and arithmetic on None raise a TypeError. The size at
run time is ``tf.shape(x)[0]``, a tensor: an ``if`` on it becomes a tf.cond.
"""

from __future__ import annotations

from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import ParsedFile


def static_size(node: Any) -> bool:
    """Whether ``node`` is ``<tensor>.shape[<index>]``."""
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
        and node.value.attr == "shape" and not isinstance(node.slice, gast.Slice)


def dynamic_size(mod: ParsedFile, node: Any) -> str:
    """``tf.shape(x)[0]`` for ``x.shape[0]``, in the file's name for TensorFlow."""
    return f"{mod.tf_name or 'tf'}.shape({mod.segment(node.value.value)})[{mod.segment(node.slice)}]"


def unknown_sizes(exam: ExaminedFunction) -> None:
    """AGX012: ``x.shape[i]`` on the line where tracing raised a TypeError about None."""
    line = exam.failed_at("TypeError", "NoneType")
    if line is None:
        return
    for node in exam.nodes():
        if not (static_size(node) and node.lineno <= line <= (node.end_lineno or 0)):
            continue
        text, size = exam.mod.segment(node), dynamic_size(exam.mod, node)
        exam.add("AGX012", node, f"`{text}` is None while tracing (the size of that dimension "
                 "is unknown to the trace: None in the input_signature or the dataset), and "
                 "Python cannot compute with None: that is what made tracing fail",
                 f"use `{size}`, the size when the graph runs (a tensor: an `if` on it "
                 "becomes a tf.cond), or trace with a known size there.", "trace", cause=True)
