"""The mechanical rewrites for the doctor's findings, each an edit of the file's text (or of the call).

A rewrite edits the file's text at the flagged node's position (the node's
line and UTF-8 byte columns, turned into character offsets), so everything
else in the file, comments and formatting included, stays byte-identical.

The rewrites, by finding code:

- AGX001 ``print(...)`` -> ``tf.print(...)`` (not with ``file=``/``flush=`` or an
  f-string, which would print the trace-time text on every call).
- AGX003 ``l = []`` ... ``for ...: l.append(v)`` ... ``tf.stack(l)`` / ``return l``
  -> a ``tf.TensorArray`` under the same name: ``l.write(i, v)`` into an array of
  ``size=n`` for ``for i in range(n)`` / ``tf.range(n)`` (XLA compiles it), else
  ``l.write(l.size(), v)`` with ``dynamic_size=True``; then ``l.stack()``. Only
  that shape (one ``[]``, one append directly in a ``for`` body, the list used
  after the loop only by ``tf.stack(l)`` or ``return l``); anything else gets no
  rewrite. The dtype: see :func:`_dtype`.
- AGX004 ``for ... in range(...)`` -> ``tf.range(...)``: the loop variable
  becomes an int32 tensor, and AutoGraph stages one tf.while_loop. A list its body appends
  to becomes a ``tf.TensorArray`` in the same rewrite (AGX003's), where that rewrite takes it:
  a staged body's value appended to a list is out of scope after the loop. A ``while`` that a
  ``break`` on a tensor stopped (the finding's cause): ``while True:`` -> ``while
  tf.constant(True):``, or the numbers its condition compares, assigned before it in the
  function's body, started as tensors (``i = 0`` -> ``i = tf.constant(0)``). A ``for`` over a
  Python list or tuple whose items stack (the verdict's fix says so) -> ``for v in
  tf.stack(ITEMS):``, one tf.while_loop over the rows. A ``while`` comparing a static size
  (``while x.shape[0] < 8:``) -> ``tf.shape(x)[0]``; one whose fix starts a Python counter as a
  tensor -> its number assigned before the loop made one (``i = 0`` -> ``i = tf.constant(0)``).
  A ``for`` over ``zip``/``enumerate`` of Python lists -> the lists stacked before it, a loop
  over an index and the items read first in its body (the verdict's fix, step by step). In
  each of these, the lists the loop's body appends to become tf.TensorArrays as in AGX003.
- AGX009 a Python number argument -> ``tf.constant(...)`` in the CALL; the file
  is unchanged (``new_text`` is None).
- AGX010 a loop variable started as a Python number whose dtype the staged loop's body does
  not keep (``total = 0`` before a loop adding float32 values) -> that number of the body's
  dtype (``total = 0.0``; ``tf.constant(0.0, tf.float64)`` for another dtype).
- AGX011 ``for ...: ... return e ...`` then ``return d`` -> ``result = d`` before the
  loop, ``result = e`` and ``break`` in place of the return, ``return result`` after it.
  Only that shape (the loop a statement of the function's body, the one loop around the
  return, the return first on its line, ``d`` reading no name the loop assigns).
- AGX012 ``x.shape[i]`` -> ``tf.shape(x)[i]`` where the trace raised on its None.
- AGX016 a comprehension over a tensor ``[f(v) for v in x]`` -> ``... for v in
  tf.unstack(x)`` (each argument of a ``zip(...)``, the first of an ``enumerate(...)``): a
  Python list of the rows, which needs the first dimension known when tracing.
- AGX017 ``assert TEST, MESSAGE`` -> ``tf.debugging.Assert(tf.reduce_all(TEST), [MESSAGE])``
  (the test's text as the message where it has none).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

import gast

from agexplorer.doctor import asserts, branches, iterations, loop_dtypes, loops, returns, shapes
from agexplorer.doctor.parse import (
    ParsedFile,
    appended_lists,
    dotted_name,
    param_names,
    parent_map,
)
from agexplorer.engine.hints import INDEXED, STACK_ITEMS, STARTED, indexed
from agexplorer.model.doctor import Finding, Rewrite, text_sha


def _replace(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _enclosing_def(mod: ParsedFile, line: int) -> Any:
    defs = [n for n in gast.walk(mod.tree) if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))
            and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return max(defs, key=lambda n: n.lineno, default=None)


def _flagged(mod: ParsedFile, finding: Finding, kind: Callable[[Any], bool]) -> Any:
    """The node of ``kind`` the finding flagged (at its line and column), or None."""
    return next((n for n in gast.walk(mod.tree) if getattr(n, "lineno", None) == finding.line
                 and mod.col(n) == finding.col and kind(n)), None)


# -- the rewrites -----------------------------------------------------------------------

def _print(mod: ParsedFile, finding: Finding, call: str | None) -> tuple[list, str, str | None] | None:
    node = _flagged(mod, finding, lambda n: isinstance(n, gast.Call)
                    and isinstance(n.func, gast.Name) and n.func.id == "print")
    if node is None or mod.tf_name is None:
        return None
    if any(k.arg in ("file", "flush") for k in node.keywords) or any(
            isinstance(a, gast.JoinedStr) for a in node.args):
        return None
    start, end = mod.span(node.func)
    return [(start, end, f"{mod.tf_name}.print")], f"print(...) -> {mod.tf_name}.print(...)", None


def _range(mod: ParsedFile, finding: Finding, call: str | None) -> tuple[list, str, str | None] | None:
    loop = next((n for n in gast.walk(mod.tree) if isinstance(n, gast.While)
                 and n.lineno == finding.line), None)
    if loop is not None:
        return _tensor_start(mod, loop, finding) or _dynamic_condition(mod, loop, finding) \
            or _counter_start(mod, loop, finding)
    node = next((n for n in gast.walk(mod.tree) if isinstance(n, gast.For)
                 and n.lineno == finding.line), None)
    if node is not None and mod.tf_name is not None and (finding.fix or "").startswith(
            STACK_ITEMS):
        return _stacked(mod, node, call)
    if node is not None and mod.tf_name is not None and INDEXED in (finding.fix or ""):
        return _indexed(mod, node, call)
    if node is None or mod.tf_name is None or not isinstance(node.iter, gast.Call) \
            or dotted_name(node.iter.func) != "range":
        return None
    start, end = mod.span(node.iter.func)
    return _with_arrays(mod, node, call, [(start, end, f"{mod.tf_name}.range")],
                        f"range(...) -> {mod.tf_name}.range(...): one tf.while_loop, the loop "
                        "variable an int32 tensor")


def _with_arrays(mod: ParsedFile, loop: Any, call: str | None, edits: list, said: str,
                 sized: tuple[str, str] | None = None) -> tuple[list, str, str | None]:
    """A rewrite that stages ``loop`` (``edits``, ``said``), with each list its body appends
    to made a tf.TensorArray (AGX003's rewrite): such a list holds one value of a staged
    body, out of its scope after the loop, and the rewrite alone fails. A list that rewrite
    cannot take: the loop's rewrite alone, whose trial fails and says what to do.
    ``sized``: the rewritten loop's count and index, as text (see :func:`_tensorarray`)."""
    arrays = [(name, _tensorarray(mod, Finding(code="AGX003", line=append.lineno, message="",
                                               why="", fix=None, col=mod.col(append),
                                               subject=name), call, sized))
              for name, append in appended_lists(loop)]
    if all(made is not None for _, made in arrays):
        for name, made in arrays:
            edits = edits + (made[0] if made is not None else [])
            said += f"; {name} -> {mod.tf_name}.TensorArray ({name}.write, {name}.stack())"
    return edits, said, None


def _stacked(mod: ParsedFile, loop: Any, call: str | None
             ) -> tuple[list, str, str | None] | None:
    """A loop over a Python list or tuple whose items stack (the fix the verdict wrote,
    :data:`STACK_ITEMS`): ``for v in ITEMS:`` -> ``for v in tf.stack(ITEMS):``, whose rows
    make one tf.while_loop (the lists its body appends to tf.TensorArrays); the trial says
    whether the body takes a tensor item."""
    items = mod.segment(loop.iter)
    start, end = mod.span(loop.iter)
    if isinstance(loop.iter, gast.Tuple) and not items.startswith("("):
        items = f"({items})"  # `for v in a, b:`
    return _with_arrays(mod, loop, call, [(start, end, f"{mod.tf_name}.stack({items})")],
                        f"{items} -> {mod.tf_name}.stack({items}): one tf.while_loop over its "
                        "rows")


def _counter_start(mod: ParsedFile, loop: Any, finding: Finding
                   ) -> tuple[list, str, str | None] | None:
    """A ``while`` on a Python counter whose fix starts it as a tensor (``start `i` as a
    tensor (`i = tf.constant(0)`)``): its number assigned before the loop made a tensor."""
    started = STARTED.search(finding.fix or "")
    func = _enclosing_def(mod, loop.lineno)
    if started is None or func is None or mod.tf_name is None or finding.cause:
        return None
    name = started["name"]
    found = [s for s in loops.python_starts(func, loop) if s.targets[0].id == name]
    if not found:
        return None
    value = mod.segment(found[0].value)
    return ([(*mod.span(found[0].value), f"{mod.tf_name}.constant({value})")],
            f"{name} = {value} -> {name} = {mod.tf_name}.constant({value}): the condition a "
            "tensor from the first step", None)


def _indexed(mod: ParsedFile, loop: Any, call: str | None
             ) -> tuple[list, str, str | None] | None:
    """``for a, b in zip(xs, ys):`` (or ``for i, a in enumerate(xs):``) over Python lists, as
    the verdict's fix says (:func:`agexplorer.engine.hints.indexed`): the lists stacked
    before the loop, the loop over an index (``for i in tf.range(len(xs)):``) and the items
    read first thing in its body (``a, b = xs_t[i], ys_t[i]``); the lists its body appends
    to tf.TensorArrays."""
    import ast

    try:
        target = ast.parse(mod.segment(loop.target), mode="eval").body
        over = ast.parse(mod.segment(loop.iter), mode="eval").body
    except SyntaxError:
        return None
    kind = over.func.id if isinstance(over, ast.Call) and isinstance(over.func, ast.Name) \
        else ""
    shape = indexed(kind, target, over)
    first = loop.body[0]
    if shape is None or first.lineno == loop.lineno:  # a body on the header's line
        return None
    tf = mod.tf_name
    indent, inner = " " * mod.col(loop), " " * mod.col(first)
    made = "; ".join(f"{t} = {tf}.stack({n})" for t, n in shape.made)
    start, _ = mod.span(loop)
    header = (mod.span(loop.target)[0], mod.span(loop.iter)[1])
    body, _ = mod.span(first)
    edits = [(start, start, f"{made}\n{indent}"),
             (*header, f"{shape.index} in {tf}.range(len({shape.bound}))"),
             (body, body, f"{shape.read}\n{inner}")]
    # The lists it appends to: arrays of the loop's count, written at its index, as for a
    # range (XLA returns an empty array for a dynamic one), where that count can be read
    # before the loop (the bound's names never assigned in the function).
    func = _enclosing_def(mod, loop.lineno)
    sized = (f"len({shape.bound})", shape.index) if func is not None and not (
        {n.id for n in ast.walk(ast.parse(shape.bound, mode="eval"))
         if isinstance(n, ast.Name)} & _assigned(func)) else None
    return _with_arrays(mod, loop, call, edits,
                        f"{kind}(...) -> an index over stacked tensors ({made}; for "
                        f"{shape.index} in {tf}.range(len({shape.bound})); {shape.read})",
                        sized)


def _dynamic_condition(mod: ParsedFile, loop: Any, finding: Finding
                       ) -> tuple[list, str, str | None] | None:
    """A ``while`` whose condition compares a static size (``while x.shape[0] < 8:``, a
    Python int while tracing): that size read when the graph runs, ``tf.shape(x)[0]``; the
    trial says whether the body keeps its values' shapes from step to step."""
    sizes = loops.static_sizes(loop)
    if not sizes or mod.tf_name is None or finding.cause:
        return None
    edits = [(*mod.span(node), shapes.dynamic_size(mod, node)) for node in sizes]
    said = "; ".join(f"{mod.segment(node)} -> {shapes.dynamic_size(mod, node)}"
                     for node in sizes)
    return edits, f"{said}: the condition a tensor, one tf.while_loop", None


def _tensor_start(mod: ParsedFile, loop: Any, finding: Finding
                  ) -> tuple[list, str, str | None] | None:
    """A while loop that a tensor break stopped (AGX004 with its cause): its condition a
    tensor from the first step (``while True:`` -> ``while tf.constant(True):``, or the
    numbers it compares started as tensors)."""
    tf = mod.tf_name
    if tf is None or not finding.cause:
        return None
    if isinstance(loop.test, gast.Constant) and loop.test.value is True:
        return ([(*mod.span(loop.test), f"{tf}.constant(True)")],
                f"while True -> while {tf}.constant(True): a graph loop from its first step",
                None)
    func = _enclosing_def(mod, loop.lineno)
    starts = loops.python_starts(func, loop) if func is not None else []
    if not starts:
        return None
    edits = [(*mod.span(s.value), f"{tf}.constant({mod.segment(s.value)})") for s in starts]
    names = ", ".join(s.targets[0].id for s in starts)
    return edits, f"{names} started as tensors: a graph loop from its first step", None


def _int_expr(node: Any, counter: str) -> bool:
    if isinstance(node, gast.Name):
        return node.id == counter
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, gast.USub) and _int_expr(node.operand, counter)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                              gast.FloorDiv, gast.Mod)):
        return _int_expr(node.left, counter) and _int_expr(node.right, counter)
    return False


def _dtype(mod: ParsedFile, value: Any, loop: Any) -> str:
    """The TensorArray's dtype.

    1. Said in the value: ``tf.cast(v, DT)`` or a ``dtype=DT`` keyword -> DT.
    2. An integer expression of the counter of a ``range``/``tf.range`` loop over
       Python ints or names (``i``, ``i * 2``) -> int32: tf.range's dtype for
       int32 bounds, and what AutoGraph's staged ``range`` yields.
    3. Otherwise float32, the dtype of most model values: a wrong guess shows up
       as a dtype error when the fix is tried, never as a silently changed result.
    """
    tf = mod.tf_name
    if isinstance(value, gast.Call):
        if mod.is_tf(dotted_name(value.func), "cast") and len(value.args) >= 2:
            return mod.segment(value.args[1])
        for kw in value.keywords:
            if kw.arg == "dtype":
                return mod.segment(kw.value)
    it = loop.iter
    if isinstance(it, gast.Call) and isinstance(loop.target, gast.Name) \
            and (dotted_name(it.func) == "range" or mod.is_tf(dotted_name(it.func), "range")) \
            and not it.keywords and _int_expr(value, loop.target.id):
        return f"{tf}.int32"
    return f"{tf}.float32"


def _statement_lists(tree: Any) -> list[list[Any]]:
    return [getattr(n, f) for n in gast.walk(tree) for f in ("body", "orelse", "finalbody")
            if isinstance(getattr(n, f, None), list)]


def _tensorarray(mod: ParsedFile, finding: Finding, call: str | None,
                 sized: tuple[str, str] | None = None) -> tuple[list, str, str | None] | None:
    """AGX003's rewrite. ``sized``: (count, index) of the loop as another rewrite makes it
    (``len(xs)``, ``i``): the array of that size, written at that index."""
    func, name, tf = _enclosing_def(mod, finding.line), finding.subject, mod.tf_name
    if func is None or name is None or tf is None:
        return None
    parents = parent_map(func)
    stmt = next((n for n in gast.walk(func) if isinstance(n, gast.Expr)
                 and n.lineno == finding.line and isinstance(n.value, gast.Call)
                 and isinstance(n.value.func, gast.Attribute) and n.value.func.attr == "append"
                 and isinstance(n.value.func.value, gast.Name) and n.value.func.value.id == name),
                None)
    if stmt is None or len(stmt.value.args) != 1 or stmt.value.keywords:
        return None
    loop = parents.get(id(stmt))
    if not isinstance(loop, gast.For) or not any(s is stmt for s in loop.body):
        return None
    names = [n for n in gast.walk(func) if isinstance(n, gast.Name) and n.id == name]
    stores = [n for n in names if not isinstance(n.ctx, gast.Load)]
    init = parents.get(id(stores[0])) if len(stores) == 1 else None
    if not (isinstance(init, gast.Assign) and len(init.targets) == 1
            and ((isinstance(init.value, gast.List) and not init.value.elts)
                 or (isinstance(init.value, gast.Call) and dotted_name(init.value.func) == "list"
                 and not init.value.args and not init.value.keywords))
            and init.lineno < loop.lineno
            and any(any(s is init for s in body) and any(s is loop for s in body)
                    for body in _statement_lists(func))):
        return None
    value = stmt.value.args[0]
    dtype, bound = _dtype(mod, value, loop), _count(func, loop)
    every = not _skips(loop)  # one write per step: an array of the count has no hole
    if sized is not None and every:
        made, index = f"{tf}.TensorArray({dtype}, size={sized[0]})", sized[1]
    elif bound is not None and every:  # the lesson's shape, which XLA compiles too (_count)
        made = f"{tf}.TensorArray({dtype}, size={mod.segment(bound)})"
        index = mod.segment(loop.target)
    else:
        made, index = f"{tf}.TensorArray({dtype}, size=0, dynamic_size=True)", f"{name}.size()"
    edits = [(*mod.span(init.value), made),
             (*mod.span(stmt.value), f"{name} = {name}.write({index}, {mod.segment(value)})")]
    for use in names:
        if use is stmt.value.func.value or use in stores:
            continue
        parent = parents.get(id(use))
        after = use.lineno > (loop.end_lineno or loop.lineno)
        if after and isinstance(parent, gast.Call) and mod.is_tf(dotted_name(parent.func), "stack") \
                and len(parent.args) == 1 and parent.args[0] is use and not parent.keywords:
            edits.append((*mod.span(parent), f"{name}.stack()"))
        elif after and isinstance(parent, gast.Return) and parent.value is use:
            edits.append((*mod.span(use), f"{name}.stack()"))
        else:
            return None  # another use of the list (len, indexing, ...): not the simple shape
    if len(edits) == 2:
        return None
    return (edits, f"list + append -> {tf}.TensorArray: {name}.write({index}, ...), "
            f"{name}.stack()", None)


def _skips(loop: Any) -> bool:
    """Whether a step of ``loop`` can end before its body's end (a ``continue``, ``break`` or
    ``return`` of its own, not of a loop or function inside it)."""
    def walk(node: Any, inner: bool) -> bool:  # inner: within a loop inside ``loop``
        if isinstance(node, gast.Return):
            return True
        if isinstance(node, (gast.Continue, gast.Break)):
            return not inner
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                             gast.ClassDef)):
            return False
        inner = inner or isinstance(node, (gast.For, gast.While))
        return any(walk(child, inner) for child in gast.iter_child_nodes(node))
    return any(walk(statement, False) for statement in loop.body)


def _count(func: Any, loop: Any) -> Any:
    """The bound ``n`` of a ``for i in range(n)`` / ``tf.range(n)`` loop, when it can size the array.

    A TensorArray sized by the count and written at ``i`` is what XLA compiles
    correctly: with ``dynamic_size=True`` XLA silently returns an empty array.
    The bound is evaluated where the list was made, so it may only read names
    that the function never assigns.
    """
    it = loop.iter
    if not (isinstance(it, gast.Call) and len(it.args) == 1 and not it.keywords
            and isinstance(loop.target, gast.Name)
            and (dotted_name(it.func) or "").split(".")[-1] == "range"):
        return None
    read = {n.id for n in gast.walk(it.args[0]) if isinstance(n, gast.Name)}
    calls = any(isinstance(n, gast.Call) for n in gast.walk(it.args[0]))
    return None if read & _assigned(func) or calls else it.args[0]


def _assigned(func: Any) -> set[str]:
    """The names ``func`` assigns anywhere: a count read before a loop must read none."""
    return {n.id for n in gast.walk(func) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def _tensor_arg(mod: ParsedFile, finding: Finding, call: str | None, dtype: str | None = None
                ) -> tuple[list, str, str | None] | None:
    func, param = _enclosing_def(mod, finding.line), finding.subject
    if func is None or param is None or not call:
        return None
    import ast

    method = isinstance(parent_map(mod.tree).get(id(func)), gast.ClassDef)
    params = param_names(func, method)
    wrapper = f"f({call})"
    try:
        parsed = ast.parse(wrapper, mode="eval").body
    except SyntaxError:
        return None
    assert isinstance(parsed, ast.Call)
    arg = next((k.value for k in parsed.keywords if k.arg == param), None)
    if arg is None and param in params:
        index = params.index(param)
        if any(isinstance(a, ast.Starred) for a in parsed.args[:index + 1]) \
                or index >= len(parsed.args):
            return None
        arg = parsed.args[index]
    if arg is None:
        return None
    lines = wrapper.splitlines(keepends=True)

    def offset(line: int, byte_col: int) -> int:
        head = lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace")
        return sum(len(x) for x in lines[:line - 1]) + len(head)

    start = offset(arg.lineno, arg.col_offset)
    end = offset(arg.end_lineno or arg.lineno, arg.end_col_offset or 0)
    made = f"tf.constant({wrapper[start:end]}{f', {dtype}' if dtype else ''})"
    new = wrapper[:start] + made + wrapper[end:]
    return [], f"{param}={wrapper[start:end]} -> {made} in the call", new[2:-1]


def _return_break(mod: ParsedFile, finding: Finding, call: str | None
                  ) -> tuple[list, str, str | None] | None:
    func = _enclosing_def(mod, finding.line)
    found = returns.find(mod, func, finding.line, finding.col) if func is not None else None
    if found is None or found.nested or not found.after_independent \
            or found.node.value is None or not any(s is found.loop for s in func.body):
        return None
    node, name = found.node, found.result
    start, end = mod.span(node)
    line_start = mod.starts[node.lineno - 1]
    indent = mod.text[line_start:start]
    loop_start = mod.span(found.loop)[0]
    loop_indent = mod.text[mod.starts[found.loop.lineno - 1]:loop_start]
    if indent.strip() or loop_indent.strip():
        return None  # the return (or the loop) shares its line with other code
    value = mod.segment(node.value)
    edits = [(loop_start, loop_start, f"{name} = {mod.segment(found.after.value)}\n"
              f"{loop_indent}"),
             (start, end, f"{name} = {value}\n{indent}break"),
             (*mod.span(found.after), f"return {name}")]
    return edits, f"return {value} in the loop -> {name} = {value}; break", None


def _dynamic_size(mod: ParsedFile, finding: Finding, call: str | None
                  ) -> tuple[list, str, str | None] | None:
    node = _flagged(mod, finding, shapes.static_size)
    if node is None:
        return None
    size = shapes.dynamic_size(mod, node)
    return [(*mod.span(node), size)], f"{mod.segment(node)} -> {size}", None


def _unstacked(mod: ParsedFile, finding: Finding, call: str | None
               ) -> tuple[list, str, str | None] | None:
    node = _flagged(mod, finding, lambda n: isinstance(n, iterations.COMPREHENSIONS))
    if node is None or mod.tf_name is None:
        return None
    over = iterations.iterated(node)
    if not over:
        return None
    edits = [(*mod.span(part), f"{mod.tf_name}.unstack({mod.segment(part)})") for part in over]
    named = ", ".join(f"{mod.segment(p)} -> {mod.tf_name}.unstack({mod.segment(p)})"
                      for p in over)
    return edits, f"{named}: the comprehension iterates a Python list of the rows", None


def _cast_branch(mod: ParsedFile, finding: Finding, call: str | None
                 ) -> tuple[list, str, str | None] | None:
    """AGX014 of a tf.cond call: its false branch cast to the true branch's dtype (the dtypes
    are TensorFlow's words, kept in the finding's message)."""
    node = _flagged(mod, finding, lambda n: branches.cond_call(mod, n))
    if node is None or mod.tf_name is None:
        return None
    said = re.search(r"\(the true branch (.*), the false branch (.*)\): a tf\.cond",
                     finding.message)
    cast = branches.cast_branch(node, said[1], said[2]) if said else None
    if cast is None:
        return None
    body, dtype = cast
    made = f"{mod.tf_name}.cast({mod.segment(body)}, {mod.tf_name}.{dtype})"
    return [(*mod.span(body), made)], f"{mod.segment(body)} -> {made}", None


def _assert_op(mod: ParsedFile, finding: Finding, call: str | None
               ) -> tuple[list, str, str | None] | None:
    node = _flagged(mod, finding, lambda n: isinstance(n, gast.Assert))
    if node is None or mod.tf_name is None:
        return None
    made = asserts.assert_op(mod.tf_name, mod.segment, node)
    return [(*mod.span(node), made)], f"assert ... -> {made}", None


def _loop_start(mod: ParsedFile, finding: Finding, call: str | None
                ) -> tuple[list, str, str | None] | None:
    """AGX010 of a loop variable started as a Python number of the wrong dtype: that start
    given the dtype the body gives it (the finding's words name it)."""
    loop = _flagged(mod, finding, lambda n: isinstance(n, (gast.For, gast.While)))
    gives = loop_dtypes.GIVES.search(finding.message)
    func = _enclosing_def(mod, finding.line)
    if loop is None or gives is None or func is None or not finding.subject:
        return None
    start = loop_dtypes.starts(func, loop).get(finding.subject)
    number = loop_dtypes.number(start.value) if start is not None else None
    if start is None or number is None:
        return None
    made = loop_dtypes.started_as(mod.tf_name or "tf", number, gives[1])
    if made is None or (mod.tf_name is None and "(" in made):
        return None
    return ([(*mod.span(start.value), made)],
            f"{finding.subject} = {mod.segment(start.value)} -> {finding.subject} = {made}", None)


_MAKERS: dict[str, Callable[..., tuple[list, str, str | None] | None]] = {
    "AGX001": _print, "AGX003": _tensorarray, "AGX004": _range, "AGX009": _tensor_arg,
    "AGX010": _loop_start,
    "AGX011": _return_break, "AGX012": _dynamic_size, "AGX014": _cast_branch, "AGX016": _unstacked,
    "AGX017": _assert_op}


def rewrite(text: str, finding: Finding, call: str | None = None,
            import_tf: bool = False, dtype: str | None = None) -> Rewrite | None:
    """The mechanical rewrite for ``finding`` in ``text`` (the file), or None when there is none.

    ``call``: the argument list the function is called with (AGX009 rewrites it);
    ``import_tf``: where the file does not import TensorFlow (a helper module of plain
    Python), the rewrite imports it as ``tf`` (a line above its first statement);
    ``dtype``: AGX009's tensor made of that dtype (``tf.float32``), not the value's own.
    """
    maker = _MAKERS.get(finding.code)
    if maker is None or (dtype is not None and maker is not _tensor_arg):
        return None
    try:
        mod = ParsedFile(text)
        extra = (dtype,) if dtype else ()  # (only AGX009's maker takes one)
        made = maker(mod, finding, call, *extra)
        if made is None and import_tf and mod.tf_name is None and "tf" not in _bound(mod):
            mod.tf.append("tf")
            made = maker(mod, finding, call, *extra)
            if made is not None:
                edits, description, new_call = made
                at = _first_statement(mod)
                made = ([*edits, (at, at, "import tensorflow as tf\n")],
                        f"{description}; import tensorflow as tf", new_call)
    except SyntaxError:
        return None
    if made is None:
        return None
    edits, description, new_call = made
    at = mod.starts[finding.line - 1] + finding.col if finding.line <= len(mod.starts) else 0
    moved = sum(new.count("\n") - text[start:end].count("\n")
                for start, end, new in edits if start <= at)
    return Rewrite(code=finding.code, line=finding.line, description=description,
                   new_text=_replace(text, edits) if edits else None, new_call=new_call,
                   old_sha=text_sha(text), new_line=finding.line + moved if moved else None)


def described(text: str, finding: Finding, call: str | None = None,
              import_tf: bool = False) -> str | None:
    """The rewrite of ``finding`` in ``text`` in words (:func:`rewrite`'s arguments); None
    where there is none."""
    made = rewrite(text, finding, call, import_tf)
    return made.description if made is not None else None


def _bound(mod: ParsedFile) -> set[str]:
    """The names the file's module-level code binds (assignments, imports, defs)."""
    names: set[str] = set()
    for node in mod.tree.body:
        if isinstance(node, (gast.Import, gast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(node.name)
        else:
            names |= {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, gast.Store)}
    return names


def _first_statement(mod: ParsedFile) -> int:
    """The offset of the line of the file's first statement that is neither its docstring
    nor a ``from __future__`` import (where an import may go)."""
    for i, node in enumerate(mod.tree.body):
        docstring = i == 0 and isinstance(node, gast.Expr) and isinstance(
            node.value, gast.Constant) and isinstance(node.value.value, str)
        future = isinstance(node, gast.ImportFrom) and node.module == "__future__"
        if not docstring and not future:  # (a decorated def starts at its decorators)
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
            return mod.starts[first - 1]
    return len(mod.text)


def function_diff(old: str, new: str, first: int, end: int, name: str) -> str:
    """A unified diff of lines ``first``..``end`` (the function) of two versions of a file."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    mine, theirs = a[first - 1:end], b[first - 1:end + len(b) - len(a)]
    lines = list(difflib.unified_diff(mine, theirs, f"{name} (before)", f"{name} (after)",
                                      n=max(len(mine), len(theirs))))

    def shift(m: re.Match[str]) -> str:  # hunk lines relative to the file, not the slice
        return f"{m.group(1)}{int(m.group(2)) + first - 1}"

    return "".join(re.sub(r"([-+])(\d+)", shift, line) if line.startswith("@@") else
                   line if line.endswith("\n") else line + "\n" for line in lines)
