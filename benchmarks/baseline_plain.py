"""Plain baseline for bench_report_overhead.py: the work of ``agexplorer report --json``, nothing else.

Usage: ``python benchmarks/baseline_plain.py PATH FUNC ARGS_EXPR``

Imports TensorFlow, loads PATH as a module, converts FUNC with
``tf.autograph.to_code``, traces it once with the arguments ``ARGS_EXPR`` (a
Python argument list evaluated with ``tf``, ``np`` and the module's globals in
scope) and prints, as JSON, every op of the concrete graph and of every nested
function body (while cond/body, cond branches) with its name, type, output
dtypes/shapes and the innermost line of PATH in its creation traceback. It is
the floor that agexplorer's report (verdicts, source map, capture) is measured
against; it has no goal of its own.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys


def load(path: str):
    """Run ``path`` as a module, as ``import`` would (its ``__main__`` block does not run).

    Compiled from its text, as agexplorer does, so no ``__pycache__`` is written
    next to the sample.
    """
    spec = importlib.util.spec_from_file_location("baseline_user_module", path)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    with open(path, encoding="utf-8") as fh:
        exec(compile(fh.read(), path, "exec"), module.__dict__)
    return module


def user_line(op, path: str) -> int | None:
    """The innermost frame of ``path`` among the op's user frames."""
    line = None
    traceback = op.traceback  # None for ops of a graph rebuilt from a FunctionDef
    if traceback is None:
        return None
    for frame in traceback.get_user_frames():
        if frame.filename == path:
            line = frame.lineno
    return line


def shape_text(tensor) -> str:
    try:
        dims = tensor.shape.as_list()
    except ValueError:
        return f"{tensor.dtype.name}[*]"
    return tensor.dtype.name + "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def walk(graph, name: str, path: str, ops: list[dict], seen: set[int]) -> None:
    """Every op of ``graph``, then of every function graph it holds (recursively)."""
    if id(graph) in seen:
        return
    seen.add(id(graph))
    for op in graph.get_operations():
        ops.append({"name": op.name, "type": op.type, "function": name,
                    "line": user_line(op, path),
                    "outputs": [shape_text(t) for t in op.outputs]})
    for fname, fn in list(getattr(graph, "_functions", {}).items()):
        sub = getattr(fn, "graph", None) or getattr(fn, "_cached_graph", None)
        if sub is not None:
            walk(sub, fname, path, ops, seen)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, func, args_expr = os.path.abspath(argv[0]), argv[1], argv[2]
    import numpy as np
    import tensorflow as tf

    module = load(path)
    obj = module
    for part in func.split("."):
        obj = getattr(obj, part)
    pyfn = getattr(obj, "python_function", obj)
    code = tf.autograph.to_code(pyfn)
    namespace = {**vars(module), "tf": tf, "np": np}
    args, kwargs = eval(f"(lambda *a, **k: (a, k))({args_expr})", namespace)
    concrete = tf.function(pyfn).get_concrete_function(*args, **kwargs)
    ops: list[dict] = []
    walk(concrete.graph, concrete.name.decode() if isinstance(concrete.name, bytes)
         else str(concrete.name), path, ops, set())
    print(json.dumps({"code": code, "op_count": len(ops), "ops": ops}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
