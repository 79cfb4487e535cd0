"""The loops of the generated programs (see corpus.py): every kind of iterable and ``while``
AutoGraph tells apart, with what their bodies carry (a created name, a Python counter, a
Python list, a tf.TensorArray) and what the code after them reads."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

N = 3  # the call's n
# kind -> (iterable with {k} its length and {floats} that many Python floats, target, whether
# the index (the target's first name) is a Python value)
FOR = {
    "py_range": ("range({k})", "i{d}", True),
    "py_range_n": ("range(n)", "i{d}", True),
    "tf_range": ("tf.range({k})", "i{d}", False),
    "tf_range_n": ("tf.range(n)", "i{d}", False),
    "py_list": ("[{floats}]", "e{d}", True),
    "py_unstack": ("tf.unstack(v[:{k}])", "e{d}", False),
    "py_mixed": ("[{mixed}]", "e{d}", False),  # floats and tensors: staged some times
    "tensor": ("v[:{k}]", "e{d}", False),
    "dataset": ("tf.data.Dataset.from_tensor_slices(v[:{k}])", "e{d}", False),
    "enumerate": ("enumerate(tf.unstack(v[:{k}]))", "j{d}, e{d}", True),
    "zip": ("zip([{floats}], tf.unstack(v[:{k}]))", "e{d}, w{d}", True),
}
WHILE = ("py_while", "tf_while", "and_while")
KINDS = (*FOR, *WHILE)
STAGED = frozenset({"tf_range", "tf_range_n", "tensor", "dataset", "tf_while"})


def _staged(kind: str, k: int, n_python: bool) -> bool:
    if kind == "and_while":  # ``c < k and x < ...``: a tensor once c < k holds
        return k > 0
    if kind == "py_range_n":  # AutoGraph stages range(n) over a tensor n
        return not n_python
    return kind in STAGED


def _header(kind: str, d: int, k: int, staged: bool) -> tuple[str, list[str], tuple[str, bool]]:
    """The loop's header, the lines its body starts with, and its index (name, whether a
    Python value) for the body's conditions."""
    if kind in WHILE:
        test = f"c{d} < {k}" + (" and x < 1000.0" if kind == "and_while" else "")
        return f"while {test}:", [f"c{d} += 1"], (f"c{d}", not staged)
    iterable, target, python = FOR[kind]
    floats = ", ".join(f"{j + 0.5}" for j in range(k))
    mixed = ", ".join(f"{j + 0.5}" if j % 2 == 0 else f"x * {j}.0" for j in range(k))
    target = target.format(d=d)
    python = python and not (kind == "py_range_n" and staged)
    return (f"for {target} in {iterable.format(k=k, floats=floats, mixed=mixed)}:", [],
            (target.split(", ")[0], python))


def write_loop(w: Any, ctx: Any, indent: int) -> tuple[str, str]:
    """One loop (``w``: the corpus's Writer, ``ctx`` its Ctx) and the lines that read what
    it made; the returns made in it (its breaks and continues are its own)."""
    d, k = next(w.ids), w.rng.choice((0, 1, 2, 2, 3, 3))
    kind = w.rng.choice(KINDS)
    staged = _staged(kind, k, ctx.n_python)
    runs = N if kind == "py_range_n" else k
    w.features.add(kind)
    if ctx.loops:
        w.features.add("nested_loop")
    acc = w.rng.choice((None, None, "list", "array"))
    if acc == "list" and staged:
        acc = None  # a Python list cannot grow inside a staged loop
    if acc == "list":
        w.put(indent, f"acc{d} = []")
        w.features.add("list_append")
    elif acc == "array":
        w.put(indent, f"ta{d} = tf.TensorArray(tf.float32, size=0, dynamic_size=True, "
                      "element_shape=())")
        w.features.add("tensor_array")
    counter = w.rng.random() < 0.25
    if counter:
        w.put(indent, f"s{d} = 0")
        w.features.add("python_counter")
    header, prefix, index = _header(kind, d, k, staged)
    if kind in WHILE:
        w.put(indent, f"c{d} = {'tf.constant(0)' if kind == 'tf_while' else '0'}")
    w.put(indent, header)
    # A dataset loop carries no name its body creates (nor one created in a loop inside).
    creates = not ctx.in_cond and ctx.ran and kind != "dataset" and w.rng.random() < 0.4
    if creates:
        prefix.append(f"m{d} = x * 2.0")
        w.features.add("creates_name")
    if counter:
        prefix.append(f"s{d} += 1")
    if acc == "list":
        prefix.append(f"acc{d}.append(x)")
    elif acc == "array":
        prefix.append(f"ta{d} = ta{d}.write(ta{d}.size(), x)")
    body = replace(ctx, depth=ctx.depth + 1, top=False,
                   loops=(*ctx.loops, "tf" if staged else "py"),
                   py_since_loop=True, mult=ctx.mult * (1 if staged else max(runs, 1)),
                   ran=ctx.ran and (staged or runs > 0) and kind != "dataset", index=index,
                   acc=f"acc{d}" if acc == "list" else None)
    jumps = w.block(body, indent + 1, tuple(prefix))
    if creates and (staged or runs > 0):  # Python's rule: a loop that never ran made nothing
        w.put(indent, f"x = x + m{d}")
    if counter:
        w.put(indent, f"x = x + tf.cast(s{d}, tf.float32)")
    if acc == "list":
        w.put(indent, f"x = x + tf.add_n(acc{d} + [x])")
    elif acc == "array":
        w.put(indent, f"x = x + tf.reduce_sum(ta{d}.stack())")
    return ("", jumps[1])
