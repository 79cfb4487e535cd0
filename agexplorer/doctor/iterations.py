"""``zip`` or ``enumerate`` over tensors in a for loop (AGX015), a comprehension over a
tensor (AGX016).

AutoGraph stages ``for x in tensor:`` as a tf.while_loop, but ``zip(xs, ys)`` and
``enumerate(xs)`` over tensors go through Python's own builtins, which iterate the tensors
element by element: a symbolic tensor cannot be iterated while tracing ("Iterating over a
symbolic `tf.Tensor` is not allowed", with TensorFlow's advice to decorate the function with
@tf.function, which it already is). Looping over an index with tf.range stages the loop.
A comprehension is never converted: Python iterates what its first ``for`` goes over, which a
symbolic tensor cannot be; ``tf.unstack`` makes it a Python list of the rows where the first
dimension is known when tracing, ``tf.map_fn`` maps over it where it is not.
"""

from __future__ import annotations

from typing import Any

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


COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def comprehended_tensors(exam: ExaminedFunction) -> None:
    """AGX016: a comprehension on the line where tracing raised that a symbolic tensor
    cannot be iterated: AutoGraph converts ``for`` statements, not comprehensions, so Python
    iterates what the comprehension's first ``for`` goes over."""
    line = exam.failed_at(ITERATING)
    if line is None:
        return
    seg, tf = exam.mod.segment, exam.mod.tf_name or "tf"
    for node in exam.nodes():
        if not (isinstance(node, COMPREHENSIONS) and len(node.generators) == 1
                and node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue  # (with two fors, which one met the tensor is not known)
        over = [part for part in iterated(node) if not _python_sequence(exam, part)]
        if not over:
            continue  # a Python list: what met a tensor is in the comprehension's body
        first = node.generators[0]
        listed = [f"{tf}.unstack({seg(part)})" for part in over]
        unstacked = listed[0] if over[0] is first.iter else \
            f"{dotted_name(first.iter.func)}({', '.join(listed)})"
        fix = (f"iterate over `{unstacked}`, a Python list of its rows: the comprehension "
               "then runs while tracing, once per row, and makes the list it made eagerly "
               "(the tensor's first dimension must be known when tracing)")
        if isinstance(node, gast.ListComp) and len(node.generators) == 1 \
                and not first.ifs and isinstance(first.target, gast.Name) and len(over) == 1 \
                and over[0] is first.iter:
            fix += (f"; where it is not, `{tf}.map_fn(lambda {first.target.id}: "
                    f"{seg(node.elt)}, {seg(first.iter)})` gives the results stacked in one "
                    "tensor, not a list (with `fn_output_signature` where their dtype is not "
                    "the tensor's)")
        exam.add("AGX016", node, f"`{seg(node)}` is a comprehension, and AutoGraph converts "
                 "`for` statements, not comprehensions: Python iterates over "
                 f"`{seg(first.iter)}`, a symbolic tensor while tracing, which cannot be "
                 "iterated: that is what made tracing fail (TensorFlow's advice, to decorate "
                 "the function with @tf.function, does not apply)", fix + ".", "trace",
                 seg(over[0]), cause=True)
        return


def iterated(node: Any) -> list[Any]:
    """What a comprehension's first ``for`` iterates that tf.unstack can make a list of:
    its iterable, or the arguments of ``zip(...)``, the first of ``enumerate(...)``; none
    for ``range(...)`` and literals (already Python's)."""
    it = node.generators[0].iter
    if isinstance(it, gast.Call) and not it.keywords:
        name = dotted_name(it.func)
        if name == "zip" and it.args:
            return list(it.args)
        if name == "enumerate" and len(it.args) == 1:
            return [it.args[0]]
        if name in ("range", "zip", "enumerate", "reversed", "sorted", "list", "tuple"):
            return []
    if isinstance(it, (gast.List, gast.Tuple, gast.Set, gast.Dict, gast.Constant)):
        return []
    return [it]


_SEQUENCES = (gast.List, gast.Tuple, gast.ListComp, gast.Set, gast.Dict)


def _python_sequence(exam: ExaminedFunction, node: Any) -> bool:
    """Whether ``node`` names a Python list or tuple: a module-level list, or a name the
    function assigns a list, tuple or comprehension (or list(...), sorted(...))."""
    if not isinstance(node, gast.Name):
        return isinstance(node, _SEQUENCES)
    if node.id in exam.mod.lists:
        return True
    return any(isinstance(n, gast.Assign) and any(isinstance(t, gast.Name) and t.id == node.id
                                                  for t in n.targets)
               and (isinstance(n.value, _SEQUENCES) or (
                   isinstance(n.value, gast.Call)
                   and dotted_name(n.value.func) in ("list", "tuple", "sorted")))
               for n in exam.nodes())
