"""``zip`` or ``enumerate`` over tensors in a for loop (AGX015).

AutoGraph stages ``for x in tensor:`` as a tf.while_loop, but ``zip(xs, ys)`` and
``enumerate(xs)`` over tensors go through Python's own builtins, which iterate the tensors
element by element: a symbolic tensor cannot be iterated while tracing ("Iterating over a
symbolic `tf.Tensor` is not allowed", with TensorFlow's advice to decorate the function with
@tf.function, which it already is). Looping over an index with tf.range stages the loop.
"""

from __future__ import annotations

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import dotted_name, free_name

ITERATING = "Iterating over a symbolic `tf.Tensor` is not allowed"


def zipped_tensors(exam: ExaminedFunction) -> None:
    """AGX015: a for over ``zip(...)``/``enumerate(...)`` at the line where tracing raised
    that a symbolic tensor cannot be iterated."""
    line = exam.failed_at(ITERATING)
    if line is None:
        return
    seg, tf = exam.mod.segment, exam.mod.tf_name or "tf"
    for node in exam.nodes():
        if not (isinstance(node, gast.For) and node.lineno == line
                and isinstance(node.iter, gast.Call) and not node.iter.keywords
                and dotted_name(node.iter.func) in ("zip", "enumerate") and node.iter.args):
            continue
        builtin, args = dotted_name(node.iter.func), node.iter.args
        first = seg(args[0])
        target = node.target
        index = free_name(exam.func, "i")
        if builtin == "enumerate" and isinstance(target, gast.Tuple) and len(target.elts) == 2 \
                and isinstance(target.elts[0], gast.Name) and len(args) == 1:
            index, rest = target.elts[0].id, seg(target.elts[1])
            first_line = f"{rest} = {first}[{index}]"
        elif builtin == "zip" and isinstance(target, gast.Tuple) \
                and len(target.elts) == len(args):
            names = ", ".join(seg(t) for t in target.elts)
            first_line = f"{names} = " + ", ".join(f"{seg(a)}[{index}]" for a in args)
        else:
            continue
        header = f"for {seg(target)} in {seg(node.iter)}:"
        exam.add("AGX015", node, f"`{header}` hands the tensors to Python's {builtin}(), "
                 "which iterates them one element at a time, and a symbolic tensor cannot "
                 "be iterated while tracing (AutoGraph stages `for x in tensor:` itself, not "
                 f"through {builtin}()): that is what made tracing fail (TensorFlow's advice, "
                 "to decorate the function with @tf.function, does not apply)",
                 f"loop over the index, which AutoGraph stages as one tf.while_loop: `for "
                 f"{index} in {tf}.range({tf}.shape({first})[0]):` with `{first_line}` first "
                 "in the loop's body.", "trace", cause=True)
