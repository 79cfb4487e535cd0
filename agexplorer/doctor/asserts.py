"""An ``assert`` on a tensor in a tf.function (AGX017).

AutoGraph leaves ``assert`` statements to Python: it converts them only where the function
asks for the optional feature ``tf.autograph.experimental.Feature.ASSERT_STATEMENTS``. So
``assert b != 0`` takes the comparison, a symbolic tensor while tracing, as a Python bool,
and tracing raises ("Using a symbolic `tf.Tensor` as a Python `bool` is not allowed", with
TensorFlow's advice to decorate the function with @tf.function, which it already is).
``tf.debugging.Assert`` makes the check an op of the graph, run each time the graph runs.
"""

from __future__ import annotations

from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction

AS_BOOL = "as a Python `bool` is not allowed"


def asserted_tensors(exam: ExaminedFunction) -> None:
    """AGX017: an ``assert`` statement on the line where tracing raised that a symbolic
    tensor cannot be a Python bool."""
    line = exam.failed_at(AS_BOOL)
    if line is None:
        return
    for node in exam.nodes():
        if isinstance(node, gast.Assert) and node.lineno <= line <= (node.end_lineno
                                                                     or node.lineno):
            test = exam.mod.segment(node.test)
            exam.add("AGX017", node, f"`assert {test}` tests a tensor, and AutoGraph leaves "
                     "assert statements to Python (it converts them only with the optional "
                     "feature tf.autograph.experimental.Feature.ASSERT_STATEMENTS): Python "
                     "cannot take a symbolic tensor as a bool while tracing, which is what "
                     "made tracing fail (TensorFlow's advice, to decorate the function with "
                     "@tf.function, does not apply)",
                     f"make the check an op of the graph, run each time it runs: "
                     f"`{assert_op(exam.mod.tf_name or 'tf', exam.mod.segment, node)}` (it "
                     "raises InvalidArgumentError when the condition is false).", "trace",
                     test, cause=True)
            return


def assert_op(tf: str, segment: Any, node: Any) -> str:
    """``tf.debugging.Assert(tf.reduce_all(TEST), [MESSAGE])`` for an ``assert TEST, MESSAGE``
    node (its test's text as the message where it has none); a test that reduces already
    (``tf.reduce_all(x > 0)``, ``tf.math.reduce_any(...)``) is not reduced again."""
    test = segment(node.test)
    message = segment(node.msg) if node.msg is not None else repr(f"assert {test}")
    reduced = isinstance(node.test, gast.Call) and isinstance(node.test.func, gast.Attribute) \
        and node.test.func.attr in ("reduce_all", "reduce_any")
    condition = test if reduced else f"{tf}.reduce_all({test})"
    return f"{tf}.debugging.Assert({condition}, [{message}])"
