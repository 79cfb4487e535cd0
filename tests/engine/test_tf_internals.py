"""The private TensorFlow names: each accessor on the installed release, the support check, and
that no module but engine/tf_internals.py touches them."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from agexplorer.engine import tf_internals
from agexplorer.model.errors import AgxError
from conftest import ROOT

PACKAGE = os.path.join(ROOT, "agexplorer")
HOME = os.path.join(PACKAGE, "engine", "tf_internals.py")
# What only tf_internals may write: the private package and every private name it wraps.
PRIVATE = ("tensorflow.python", "_TRANSPILER", "get_extra_locals", "_py_for_stmt", "_py_if_stmt",
           "_tf_while_stmt", "_tf_if_stmt", "_py_if_exp", "_tf_if_exp", "tf_stack", "_functions",
           "_cached_graph", "_numpy",
           "_list_all_concrete_functions", "tensor_util", "MakeNdarray",
           "_maybe_define_function", "_create_concrete_function", "_create_c_op",
           "_source_mapper_stacks", "_clone", "_EXCLUDED_PATHS")
# A line may name one if its comment says why (``# private-tf: ...``).
ALLOWED = "# private-tf:"


def python_loop(n):
    total = 0
    for i in range(n):
        total += i
    return total


def tensor_branch(x):
    if x > 0:
        x = x + 1
    return x


def staged_loop(n):
    import tensorflow as tf

    total = tf.constant(0)
    for i in tf.range(n):
        total += i
    return total


# -- the accessors ------------------------------------------------------------------------

def test_patched_autograph_wraps_marks_and_restores(tf):
    ag, cf = tf_internals.autograph_modules()
    before = (ag.for_stmt, cf._py_for_stmt)
    wrapped, marks = [], []

    def wrap(original):
        def for_stmt(*args):
            wrapped.append("for")
            return original(*args)
        return for_stmt

    with tf_internals.patched_autograph({"for_stmt": wrap}, marks.append):
        assert tf.autograph.to_graph(python_loop)(4) == 6
        tf.function(tf.autograph.to_graph(tensor_branch), autograph=False)(tf.constant(1))
    assert wrapped == ["for"]
    assert marks == ["python", "staged"]
    assert (ag.for_stmt, cf._py_for_stmt) == before


def stack_inside(n):
    frames = tf_internals.tf_stack_frames()
    return frames


def test_stack_frames_are_mapped_and_default_graph_follows_the_trace(tf):
    frames = tf_internals.tf_stack_frames()
    assert (frames[-1].filename, frames[-1].name) == (__file__, "test_stack_frames_are_mapped_and_"
                                                      "default_graph_follows_the_trace")
    # While tf.function traces, the generated module's frame reads as this file's line.
    inside = []
    tf.function(lambda: inside.append(stack_inside(1)) or tf.constant(0))()
    line = stack_inside.__code__.co_firstlineno + 1
    assert (inside[0][-1].filename, inside[0][-1].lineno) == (__file__, line)
    seen = []
    tf.function(lambda: seen.append(tf_internals.default_graph()) or tf.constant(0))()
    assert type(seen[0]).__name__ == "FuncGraph"


def test_evict_conversion_forgets_a_converted_function(tf):
    from tensorflow.python.autograph.impl import api  # private-tf: the cache evict must empty

    tf.autograph.to_graph(python_loop)
    assert python_loop.__code__ in api._TRANSPILER._cache._cache  # private-tf: as above
    assert tf_internals.evict_conversion(python_loop) is True
    assert python_loop.__code__ not in api._TRANSPILER._cache._cache  # private-tf: as above


def test_function_library_holds_the_loop_bodies(tf):
    concrete = tf.function(tf.autograph.to_graph(staged_loop), autograph=False) \
        .get_concrete_function(tf.constant(3))
    library = tf_internals.function_library(concrete.graph)
    assert any(name.startswith("while_body") for name in library)
    graphs = [tf_internals.function_graph(fn) for fn in library.values()]
    assert graphs and all(isinstance(g, tf.Graph) for g in graphs)
    assert tf_internals.function_library(object()) == {}
    assert tf_internals.function_graph(object()) is None


def test_to_numpy_reads_an_eager_tensor(tf):
    tensor = tf.constant([1, 2, 3])
    assert tf_internals.has_fast_numpy(tensor)
    assert not tf_internals.has_fast_numpy(3)
    np.testing.assert_array_equal(tf_internals.to_numpy(tensor), [1, 2, 3])


def test_concrete_functions_in_trace_order(tf):
    square = tf.function(lambda x: x * x)
    square(tf.constant(2))
    square(tf.constant(2.0))
    dtypes = [c.structured_input_signature[0][0].dtype for c in
              tf_internals.concrete_functions_of(square)]
    assert dtypes == [tf.int32, tf.float32]
    assert tf_internals.concrete_functions_of(python_loop) == []


def test_unroll_thresholds_are_autograph_s_own_and_a_moved_one_is_said(tf, monkeypatch):
    _, cf = tf_internals.autograph_modules()
    limits = tf_internals.unroll_thresholds()
    assert limits == {name: getattr(cf, name) for name in tf_internals.UNROLL_LIMITS}
    assert limits["INEFFICIENT_UNROLL_MIN_ITERATIONS"] < limits["PYTHON_MAX_ITERATIONS"]
    monkeypatch.delattr(cf, "PYTHON_MAX_ITERATIONS")
    assert "PYTHON_MAX_ITERATIONS" not in tf_internals.unroll_thresholds()
    [sentence] = tf_internals.check_support().warnings
    assert "control_flow.PYTHON_MAX_ITERATIONS, which agexplorer reads to mark AutoGraph's " \
        "unroll limits on a sweep, so the sweep shows no unroll thresholds;" in sentence


# -- the check ----------------------------------------------------------------------------

def test_every_private_name_exists_in_the_installed_tensorflow(tf):
    support = tf_internals.check_support()
    assert support.sentences == []
    assert support.error() is None


def test_a_moved_operator_is_one_fatal_sentence(tf, monkeypatch):
    _, cf = tf_internals.autograph_modules()
    monkeypatch.delattr(cf, "_py_for_stmt")
    version = ".".join(tf.__version__.split(".")[:2])
    support = tf_internals.check_support()
    assert support.warnings == []
    assert support.errors == [
        f"TensorFlow {version} moved tensorflow.python.autograph.operators.control_flow._py_for_stmt, "
        "which agexplorer watches to tell a Python for loop from a graph loop; agexplorer is "
        f"tested with TensorFlow {tf_internals.TESTED}."]
    error = support.error()
    assert (error.kind, error.exit_code, error.message) == ("tf-unsupported", 2, support.errors[0])
    with pytest.raises(AgxError, match="_py_for_stmt"):
        support.refuse("any request", None)
    monkeypatch.setattr(tf_internals, "_supported", False)
    with pytest.raises(AgxError, match="_py_for_stmt") as raised:
        tf_internals.require_support()
    assert raised.value.kind == "tf-unsupported"


def test_an_injected_operator_that_moved_is_named(tf, monkeypatch):
    ag, _ = tf_internals.autograph_modules()
    monkeypatch.delattr(ag, "while_stmt")
    [sentence] = tf_internals.check_support().errors
    assert "moved tensorflow.python.autograph.operators.while_stmt, which agexplorer watches to " \
        "judge while loops;" in sentence


def test_a_name_one_feature_needs_is_a_warning(tf, monkeypatch):
    function_class = type(tf.function(lambda: 0))
    monkeypatch.delattr(function_class, "_list_all_concrete_functions")
    support = tf_internals.check_support()
    assert support.errors == [] and support.error() is None
    [sentence] = support.warnings
    assert "Function._list_all_concrete_functions, which agexplorer reads to list a function's " \
        "traces, so the retrace report shows no trace signatures;" in sentence
    assert tf_internals.concrete_functions_of(tf.function(lambda: 0)) == []


def test_a_missing_function_library_is_said(tf, monkeypatch):
    # Only a graph instance has ``_functions``: the probe builds an empty one, so patch the class
    # TensorFlow builds to one without it.
    class Bare:
        pass

    from tensorflow.python.framework import ops  # private-tf: the class the probe builds

    monkeypatch.setattr(ops, "Graph", Bare)
    [sentence] = tf_internals.check_support().warnings
    assert "ops.Graph._functions, which agexplorer reads to find the bodies of loops and " \
        "conditionals, so the op inventory lists no ops inside them;" in sentence


# -- the one place ------------------------------------------------------------------------

def offending_lines() -> list[str]:
    pattern = re.compile("|".join(rf"(?<!\w){re.escape(name)}(?!\w)" for name in PRIVATE))
    found = []
    for folder, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not name.endswith(".py") or path == HOME:
                continue
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if pattern.search(line) and ALLOWED not in line:
                        found.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()}")
    return found


def test_no_module_but_tf_internals_touches_private_tensorflow():
    assert offending_lines() == []


def test_the_guard_covers_every_private_name_tf_internals_checks():
    parts = {part for name in tf_internals.NAMES for part in name.attribute.split(".")
             if part.startswith("_")} | set(tf_internals.PATH_FUNCTIONS)
    # ``_cache`` is a common word of our own; the transpiler's is reached only through _TRANSPILER.
    assert parts - set(PRIVATE) == {"_cache"}
