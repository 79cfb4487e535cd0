"""Checks for tensors misused: a tf.Variable made inside (AGX005), a tensor made a Python value (AGX006)."""

from __future__ import annotations

from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import ancestors, dotted_name
from agexplorer.model.values import GRAPH_TENSORS


def variables(exam: ExaminedFunction) -> None:
    """AGX005: tf.Variable(...) created inside the function."""
    for node in exam.nodes():
        if isinstance(node, gast.Call) and exam.mod.is_tf(dotted_name(node.func), "Variable"):
            guarded = any(isinstance(a, gast.If) and (
                (isinstance(a.test, gast.UnaryOp) and isinstance(a.test.op, gast.Not))
                or any(isinstance(op, (gast.Is, gast.IsNot)) for c in gast.walk(a.test)
                       if isinstance(c, gast.Compare) for op in c.ops))
                for a in ancestors(node, exam.parents, exam.func))
            if guarded:
                continue
            error = exam.report.error if exam.report else None
            failed = error is not None and error.cause == "variable-created"
            exam.add("AGX005", node, f"`{exam.mod.segment(node)}` creates a variable inside "
                     "the function" + ("; tracing refused it" if failed else
                                       ", which tf.function allows only on the first trace"),
                     "create the variable once, outside the function (or in __init__), "
                     "and only .assign(...) to it inside.", "trace" if failed else "static")


def _tensor_names(exam: ExaminedFunction) -> set[str]:
    names = {p for p, (kind, _) in exam.args.items() if kind == "tensor"}
    for v in exam.verdicts.values():
        names |= {n.name for n in v.names if n.kind in GRAPH_TENSORS}
    return names


def _tensorish(exam: ExaminedFunction, node: Any, names: set[str]) -> bool:
    if isinstance(node, gast.Constant):
        return False
    if isinstance(node, gast.Attribute) and node.attr in ("shape", "dtype", "ndim", "name"):
        return False
    if isinstance(node, gast.Call):
        func = dotted_name(node.func)
        if func in ("len", "int", "float", "bool", "str", "round"):
            return False
        if func is not None and func.split(".")[0] in (exam.mod.tf or ["tf"]):
            return True
    if isinstance(node, gast.Name):
        return node.id in names
    return any(_tensorish(exam, c, names) for c in gast.iter_child_nodes(node))


def values(exam: ExaminedFunction) -> None:
    """AGX006: .numpy(), or bool/int/float of a tensor expression."""
    names = _tensor_names(exam)
    error = exam.report.error if exam.report else None
    for node in exam.nodes():
        if not isinstance(node, gast.Call):
            continue
        text = exam.mod.segment(node)
        if isinstance(node.func, gast.Attribute) and node.func.attr == "numpy" \
                and not node.args:
            failed = error is not None and error.cause == "numpy-in-graph" and (
                error.line is None
                or node.lineno <= error.line <= (node.end_lineno or node.lineno))
            exam.add("AGX006", node, f"`{text}` asks a symbolic tensor for its value while "
                     "tracing" + ("; that is what made tracing fail" if failed else
                                  ": it fails in a graph"),
                     "keep it a tensor: use tf ops on it (tf.math, tf.cast) instead of "
                     "NumPy.", "trace" if failed else "static", cause=failed)
        elif isinstance(node.func, gast.Name) and node.func.id in ("bool", "int", "float") \
                and len(node.args) == 1 and _tensorish(exam, node.args[0], names):
            if node.func.id == "bool":
                message = (f"`{text}` needs the tensor's value while tracing: in a graph it "
                           "raises OperatorNotAllowedInGraphError")
                fix = ("keep it a tensor: compare with tf ops and let AutoGraph stage the "
                       "if (tf.cond), or tf.cast(..., tf.bool).")
            else:
                dtype = "tf.int32" if node.func.id == "int" else "tf.float32"
                message = (f"`{text}` turns a tensor into a Python number: AutoGraph quietly "
                           f"rewrites it as tf.cast(..., {dtype}), and without AutoGraph "
                           "it fails")
                fix = f"say what you mean: tf.cast(..., {dtype}) (or the dtype you need)."
            exam.add("AGX006", node, message, fix)
        elif _numpy_call(exam, node) and (
                (failed := error is not None and error.cause == "numpy-in-graph"
                 and error.line == node.lineno)
                or any(_tensorish(exam, a, names) for a in node.args)):
            # (the trace that failed there shows a tensor reached NumPy, whatever the
            # arguments look like: a name the call passed, a module-level tensor)
            function = (dotted_name(node.func) or "").partition(".")[2]
            exam.add("AGX006", node, f"`{text}` hands a symbolic tensor to NumPy while "
                     "tracing" + ("; that is what made tracing fail" if failed else
                                  ": NumPy needs its value, so it fails in a graph"),
                     _numpy_fix(exam, function), "trace" if failed else "static",
                     cause=failed)


# NumPy functions and the TensorFlow op that does the same on a tensor (argument order and
# meaning kept: np.mean(x, axis=0) -> tf.reduce_mean(x, axis=0)).
_TF_FOR_NUMPY = {
    "mean": "reduce_mean", "sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min",
    "prod": "reduce_prod", "std": "math.reduce_std", "var": "math.reduce_variance",
    "exp": "exp", "log": "math.log", "sqrt": "sqrt", "abs": "abs", "square": "square",
    "matmul": "matmul", "concatenate": "concat", "stack": "stack", "argmax": "argmax",
    "argmin": "argmin", "maximum": "maximum", "minimum": "minimum", "where": "where",
    "clip": "clip_by_value", "tanh": "tanh", "transpose": "transpose", "reshape": "reshape",
}


def _numpy_call(exam: ExaminedFunction, node: Any) -> bool:
    """``np.mean(...)`` (any NumPy function but its random ones: AGX007)."""
    head, _, rest = (dotted_name(node.func) or "").partition(".")
    return head in exam.mod.np and bool(rest) and not rest.startswith("random.")


def _numpy_fix(exam: ExaminedFunction, function: str) -> str:
    tf = exam.mod.tf_name or "tf"
    same = _TF_FOR_NUMPY.get(function)
    instead = f"{tf}.{same}(...)" if same else "the TensorFlow op that does the same"
    return (f"keep it a tensor: use {instead}, which works on symbolic tensors (or "
            f"{tf}.experimental.numpy.{function}, NumPy's functions as graph ops).")
