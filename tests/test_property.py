"""Property: for random nested if/for/while over Python and tensor values, in the explored
function and in generated helpers it calls (in a second file), every verdict matches what
the generator built, and every staged statement has its op at its line, in its file. Some
loops create a name in their body that is read after the loop (``m3 = x * 2.0``): the report
crosses the worker's pipe whole and shows it as a variable the loop defined."""

from __future__ import annotations

import itertools
import pickle
from dataclasses import dataclass, field

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

N = 3  # the Python int passed as ``n``
_files = itertools.count()


@dataclass
class Node:
    kind: str  # py_for, tf_for, py_while, tf_while, py_if, tf_if, call (a helper: its body)
    count: int = 0  # iterations of a loop; for py_if the threshold compared with n
    body: list[Node] = field(default_factory=list)
    orelse: list[Node] = field(default_factory=list)
    line: int = 0
    file: str = "main"  # "main" (the explored function's file) or "helpers"
    creates: bool = False  # a loop whose body creates a name, read after the loop
    created: str = ""  # that name, once rendered


def nodes(depth: int) -> st.SearchStrategy[list[Node]]:
    if depth == 0:
        return st.just([])
    child = nodes(depth - 1)
    loop = st.builds(Node, kind=st.sampled_from(["py_for", "tf_for", "py_while", "tf_while"]),
                     count=st.integers(0, 3), body=child, creates=st.booleans())
    cond = st.builds(Node, kind=st.sampled_from(["py_if", "tf_if"]), count=st.integers(1, 5),
                     body=child, orelse=child)
    call = st.builds(Node, kind=st.just("call"), body=child)
    return st.lists(st.one_of(loop, cond, call), min_size=0, max_size=2)


def render(tree: list[Node], module: str) -> tuple[str, str]:
    """The explored file (``f``) and the helpers' file (imported as ``module``)."""
    main = ["import tensorflow as tf", f"import {module}", "", "", "def f(x, n):"]
    helpers = ["import tensorflow as tf", ""]
    counter = itertools.count()

    def emit(block: list[Node], indent: int, lines: list[str], file: str,
             placed_in: list[Node] | None = None, in_cond: bool = False) -> None:
        pad = "    " * indent
        lines.append(f"{pad}x = x * 1.5 + 1.0")
        for node in block:
            d = next(counter)
            node.file = file
            if node.kind == "call":
                lines.append(f"{pad}x = {module}.h{d}(x, n)" if file == "main"
                             else f"{pad}x = h{d}(x, n)")
                own = ["", "", f"def h{d}(x, n):"]  # its own lines: a helper may call one
                placed: list[Node] = []
                emit(node.body, 1, own, "helpers", placed)
                for inner in placed:  # lines of ``own`` -> lines of the helpers' file
                    inner.line += len(helpers)
                helpers.extend([*own, "    return x"])
                continue
            if placed_in is not None:
                placed_in.append(node)
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
            # Not under an if: a name that an enclosing staged loop carries round must be
            # made on every path (tf.function refuses it too).
            if node.creates and not node.kind.endswith("_if") and not in_cond:
                node.created = f"m{d}"
                lines.append(f"{pad}    m{d} = x * 2.0")
            # A Python loop that runs no iteration is a path that makes nothing, as an if's
            # branch is: a name made under it is not made on every path of a staged loop
            # around it either (tf.function refuses that: "'m3' must be defined before the
            # loop"; hypothesis found tf_for > py_for(0) > py_for(1) making m3).
            inside = in_cond or node.kind.endswith("_if") or (
                node.kind in ("py_for", "py_while") and node.count == 0)
            emit(node.body, indent + 1, lines, file, placed_in, inside)
            if node.kind.endswith("_if"):
                lines.append(f"{pad}else:")
                emit(node.orelse, indent + 1, lines, file, placed_in, inside)
            elif node.created and node.count:  # read after a loop that ran: Python's rule
                lines.append(f"{pad}x = x + {node.created}")

    emit(tree, 1, main, "main")
    main.append("    return x")
    return "\n".join(main) + "\n", "\n".join(helpers) + "\n"


def expected(tree: list[Node], times: int, out: dict[tuple[str, int], tuple],
             reached: set[str] | None = None) -> int:
    """Fill ``out[(file, line)] = (verdict, times, iterations, branch)`` (a helper that never
    ran is no reached function: its statements have no verdicts); return ops-ish size."""
    size = times
    for node in tree:
        if node.kind == "call":
            if times:
                size += expected(node.body, times, out, reached)
            continue
        key = (node.file, node.line)
        if times == 0:
            if node.file == "main":  # a helper that never ran is not in the report
                out[key] = ("unreached", 0, None, None)
            expected(node.body, 0, out)
            expected(node.orelse, 0, out)
            continue
        if node.kind in ("py_for", "py_while"):
            out[key] = ("python", times, times * node.count, None)
            size += expected(node.body, times * node.count, out)
        elif node.kind in ("tf_for", "tf_while"):
            out[key] = ("staged", times, None, None)
            size += expected(node.body, times, out)
        elif node.kind == "py_if":
            taken = N > node.count
            out[key] = ("python", times, None, "true" if taken else "false")
            size += expected(node.body, times if taken else 0, out)
            size += expected(node.orelse, 0 if taken else times, out)
        else:
            out[key] = ("staged", times, None, None)
            size += expected(node.body, times, out) + expected(node.orelse, times, out)
    return size


def created(tree: list[Node], out: dict[tuple[str, int], tuple[str, bool]],
            staged_around: bool = False) -> None:
    """Fill ``out[(file, line)] = (name, undefined)`` for each loop that creates a name read
    after it: ``undefined`` unless a staged loop around it (in its function) carries the
    name in, as a placeholder made from its first iteration."""
    for node in tree:
        if node.kind == "call":  # a helper's names are its own
            created(node.body, out)
            continue
        if node.created and node.count:
            out[(node.file, node.line)] = (node.created, not staged_around)
        inside = staged_around or node.kind in ("tf_for", "tf_while")
        created(node.body, out, inside)
        created(node.orelse, out, inside)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(tree=nodes(3))
@example(tree=[Node("py_for"), Node("tf_for", body=[Node("py_for", body=[
    Node("py_for", count=1, creates=True)])])])  # a name under a loop that runs no iteration
def test_verdicts_match_the_generated_function(tmp_path_factory, tf, tree):
    from agexplorer.engine.pipeline import build_report

    number = next(_files)
    module = f"generated_helpers_{number}"
    source, helper_source = render(tree, module)
    want: dict[tuple[str, int], tuple] = {}
    if expected(tree, 1, want) > 150:
        return  # keep each trace small; hypothesis still explores the shapes
    folder = tmp_path_factory.mktemp("gen")
    path, helpers = folder / f"generated_{number}.py", folder / f"{module}.py"
    path.write_text(source)
    helpers.write_text(helper_source)
    files = {str(path): "main", str(helpers): "helpers"}
    shown = source + "\n# ---- helpers\n" + helper_source
    rep = build_report(f"{path}::f", f"tf.constant(1.0), {N}")
    assert rep.error is None, (shown, rep.error.message)
    pickle.loads(pickle.dumps(rep))  # the worker's reply, sent and read back: plain values
    everything = list(rep.statements) + [v for f in rep.reached for v in f.statements]
    got = {(files[v.file], v.line): v for v in everything}
    # A helper that ran has every statement reported, reached or not: those are expected too.
    ran = {f.function for f in rep.reached}
    for f in rep.reached:
        assert f.call_path[0].function == "f" and f.call_path[-1].function == f.function
    assert {k for k in got if k[0] == "main"} == {k for k in want if k[0] == "main"}, shown
    assert {k for k in want if k[0] == "helpers"} <= set(got), shown
    cf_at: dict[tuple[str, int | None], list[str]] = {}
    for op in rep.inventory.ops:
        if op.type in ("While", "StatelessWhile", "If", "StatelessIf"):
            cf_at.setdefault((files.get(op.file, "?"), op.line), []).append(op.type)
    for extra in set(got) - set(want):  # in a helper that ran, under a branch never taken
        assert got[extra].verdict == "unreached" and got[extra].function in ran, (shown, extra)
    for line, (verdict, times, iterations, branch) in want.items():
        v = got[line]
        assert v.verdict == verdict, (shown, line, v.reason)
        assert v.times == times, (shown, line)
        if verdict == "python":
            assert v.iterations == iterations and v.branch == branch, (shown, line)
            assert line not in cf_at, (shown, line)
        if verdict == "staged":
            loop = v.kind in ("for", "while")
            ops = [t for t in cf_at.get(line, []) if ("While" in t) == loop]
            assert len(ops) == times and v.graph_op in ops, (shown, line, cf_at)
    made: dict[tuple[str, int], tuple[str, bool]] = {}
    created(tree, made)
    for line, (name, undefined) in made.items():
        if want.get(line, ("unreached",))[0] == "unreached":
            continue
        [var] = [v for v in got[line].loop_vars if v.name == name] or [None]
        assert var is not None and not var.changed, (shown, line, got[line].loop_vars)
        assert var.defined_by_loop == undefined, (shown, line, var)
