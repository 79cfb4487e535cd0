"""Programs the corpus found agexplorer wrong on, kept as written (the generator may change):
each ran through the differential comparison with one disagreement before its fix."""

from __future__ import annotations

from corpus import Program

_HEAD = "import tensorflow as tf\n\n\ndef f(x, n, v):\n    tf.constant(0.0)\n"

REGRESSIONS = {
    # AutoGraph runs the code after `if ...: return` in that if's else, so every op after it
    # had the if's line in its frames: the if was said to make them (3 here, 198 in the
    # generated one), though the branch it took holds nothing.
    "ops of the code after an early return": _HEAD + """\
    x = x * 1.5 + 1.0
    tf.constant(1.0)
    if n > 5:
        tf.constant(2.0)
        return x - 1.0
    tf.constant(3.0)
    x = x * 2.0
    for i in range(2):
        tf.constant(4.0)
        if n > 4:
            return x
        x = x + 1.0
    return x
""",
    # A tensor `or` makes a StatelessIf on the if's own line; the if itself is a stateful If
    # (a dataset loop in its branch): the report named the `or`'s op.
    "the op of an if whose condition has a tensor or": _HEAD + """\
    x = x * 1.5 + 1.0
    tf.constant(1.0)
    if x > 0.0 or n > 4:
        tf.constant(2.0)
        for e in tf.data.Dataset.from_tensor_slices(v):
            tf.constant(3.0)
            x = x + e
    return x
""",
    # Nested dataset loops: both ops are named "ReduceDataset" (a dataset function's ops get
    # no name scope), and the text report's tree of function bodies, which links a body to
    # its op by name alone, recursed without end: `agexplorer report` exited 3.
    "the text report of nested dataset loops": _HEAD + """\
    x = x * 1.5 + 1.0
    tf.constant(1.0)
    for a in tf.data.Dataset.from_tensor_slices(v):
        tf.constant(2.0)
        for b in tf.data.Dataset.from_tensor_slices(v):
            tf.constant(3.0)
            x = x + a * b
    return x
""",
}
# Caught, with the fix not yet made: what it caught -> the file that needs it (strict xfail).
PENDING: dict[str, str] = {}


def regression_programs() -> list[tuple[str, Program]]:
    """(what it caught, the program), numbered below the generated seeds."""
    return [(what, Program(-1 - i, source, frozenset()))
            for i, (what, source) in enumerate(REGRESSIONS.items())]
