"""Property: for random nested if/for/while over Python and tensor values, every verdict
matches what the generator built, and every staged statement has its op at its line."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

N = 3  # the Python int passed as ``n``
_files = itertools.count()


@dataclass
class Node:
    kind: str  # py_for, tf_for, py_while, tf_while, py_if, tf_if
    count: int = 0  # iterations of a loop; for py_if the threshold compared with n
    body: list[Node] = field(default_factory=list)
    orelse: list[Node] = field(default_factory=list)
    line: int = 0


def nodes(depth: int) -> st.SearchStrategy[list[Node]]:
    if depth == 0:
        return st.just([])
    child = nodes(depth - 1)
    loop = st.builds(Node, kind=st.sampled_from(["py_for", "tf_for", "py_while", "tf_while"]),
                     count=st.integers(0, 3), body=child)
    cond = st.builds(Node, kind=st.sampled_from(["py_if", "tf_if"]), count=st.integers(1, 5),
                     body=child, orelse=child)
    return st.lists(st.one_of(loop, cond), min_size=0, max_size=2)


def render(tree: list[Node]) -> str:
    lines = ["import tensorflow as tf", "", "", "def f(x, n):"]
    counter = itertools.count()

    def emit(block: list[Node], indent: int) -> None:
        pad = "    " * indent
        lines.append(f"{pad}x = x * 1.5 + 1.0")
        for node in block:
            d = next(counter)
            if node.kind == "py_for":
                node.line = len(lines) + 1
                lines.append(f"{pad}for i{d} in range({node.count}):")
            elif node.kind == "tf_for":
                node.line = len(lines) + 1
                lines.append(f"{pad}for i{d} in tf.range({node.count}):")
            elif node.kind in ("py_while", "tf_while"):
                start = "0" if node.kind == "py_while" else "tf.constant(0)"
                lines.append(f"{pad}c{d} = {start}")
                node.line = len(lines) + 1
                lines.append(f"{pad}while c{d} < {node.count}:")
                lines.append(f"{pad}    c{d} += 1")
            elif node.kind == "py_if":
                node.line = len(lines) + 1
                lines.append(f"{pad}if n > {node.count}:")
            else:
                node.line = len(lines) + 1
                lines.append(f"{pad}if x > 0.0:")
            emit(node.body, indent + 1)
            if node.kind.endswith("_if"):
                lines.append(f"{pad}else:")
                emit(node.orelse, indent + 1)

    emit(tree, 1)
    lines.append("    return x")
    return "\n".join(lines) + "\n"


def expected(tree: list[Node], times: int, out: dict[int, tuple]) -> int:
    """Fill ``out[line] = (verdict, times, iterations, branch)``; return ops-ish size."""
    size = times
    for node in tree:
        if times == 0:
            out[node.line] = ("unreached", 0, None, None)
            expected(node.body, 0, out)
            expected(node.orelse, 0, out)
            continue
        if node.kind in ("py_for", "py_while"):
            out[node.line] = ("python", times, times * node.count, None)
            size += expected(node.body, times * node.count, out)
        elif node.kind in ("tf_for", "tf_while"):
            out[node.line] = ("staged", times, None, None)
            size += expected(node.body, times, out)
        elif node.kind == "py_if":
            taken = N > node.count
            out[node.line] = ("python", times, None, "true" if taken else "false")
            size += expected(node.body, times if taken else 0, out)
            size += expected(node.orelse, 0 if taken else times, out)
        else:
            out[node.line] = ("staged", times, None, None)
            size += expected(node.body, times, out) + expected(node.orelse, times, out)
    return size


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(tree=nodes(3))
def test_verdicts_match_the_generated_function(tmp_path_factory, tf, tree):
    from agexplorer.engine.pipeline import build_report

    source = render(tree)
    want: dict[int, tuple] = {}
    if expected(tree, 1, want) > 150:
        return  # keep each trace small; hypothesis still explores the shapes
    path = tmp_path_factory.mktemp("gen") / f"generated_{next(_files)}.py"
    path.write_text(source)
    rep = build_report(f"{path}::f", f"tf.constant(1.0), {N}")
    assert rep.error is None, (source, rep.error.message)
    got = {v.line: v for v in rep.statements}
    assert set(got) == set(want), source
    cf_at = {}
    for op in rep.inventory.ops:
        if op.type in ("While", "StatelessWhile", "If", "StatelessIf"):
            cf_at.setdefault(op.line, []).append(op.type)
    for line, (verdict, times, iterations, branch) in want.items():
        v = got[line]
        assert v.verdict == verdict, (source, line, v.reason)
        assert v.times == times, (source, line)
        if verdict == "python":
            assert v.iterations == iterations and v.branch == branch, (source, line)
            assert line not in cf_at, (source, line)
        if verdict == "staged":
            loop = v.kind in ("for", "while")
            ops = [t for t in cf_at.get(line, []) if ("While" in t) == loop]
            assert len(ops) == times and v.graph_op in ops, (source, line, cf_at)
