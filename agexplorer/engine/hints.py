"""The one-line fix for a loop that ran in Python while tracing, in the code's own names."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agexplorer.engine.recorder import Call
from agexplorer.engine.statements import Statement
from agexplorer.model.report import CONDITIONALS, Intended
from agexplorer.model.values import (
    CONTAINERS,
    DENSE_TENSORS,
    GRAPH_TENSORS,
    PYTHON_SCALARS,
    Described,
    NamedValue,
)

_GRAPH_LOOP = "and AutoGraph builds one tf.while_loop."
_GENERAL_FOR = "iterate over a tensor (tf.range, a tensor's rows) or a tf.data.Dataset to get a graph loop."
_GENERAL_WHILE = ("make the condition a tensor (compute it with tf ops) so AutoGraph builds "
                  "a tf.while_loop.")
# A comparison's direction decides which side is the counter: ``i < n`` and ``n > i`` both
# count ``i`` up to ``n``.
_COUNTER_LEFT = (ast.Lt, ast.LtE, ast.Eq, ast.NotEq)
_COUNTER_RIGHT = (ast.Gt, ast.GtE)


def _parse(expr: str) -> ast.expr | None:
    try:
        return ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None


def _code(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def loop_hint(stmt: Statement, described: Described | None,
              names: list[NamedValue] | tuple[NamedValue, ...] = ()) -> str | None:
    """How to make the Python ``for`` at ``stmt`` a graph loop (it iterated ``described``;
    ``names``: the values its header read); None where no rewrite applies (a list of layers,
    of mixed things: unrolling is the point)."""
    hint = _for_hint(stmt, described, names)
    if hint and stmt.appended and stacks(hint):
        # (a range's fix says it in its own words)
        named = " and ".join(f"`{n}`" for n in stmt.appended)
        hint += (f" Collect {named} in a tf.TensorArray as well: a staged loop cannot fill "
                 "a Python list.")
    return hint + carried_note(stmt) if hint and hint != _GENERAL_FOR else hint


def stacks(hint: str | None) -> bool:
    """Whether a loop's fix ``hint`` makes its loop over a container one graph loop: the
    items stacked (:data:`STACK_ITEMS`), or a zip or enumerate of lists indexed
    (:data:`INDEXED`)."""
    return hint is not None and (hint.startswith(STACK_ITEMS) or INDEXED in hint)


def carried_note(stmt: Statement) -> str:
    """What a staged loop asks of the values it carries that start as Python numbers
    (``acc = 0.0`` before ``acc = acc + x[:, t] @ w``): "" where there are none."""
    if not stmt.numbers_carried:
        return ""
    named = " and ".join(f"`{n}`" for n, _ in stmt.numbers_carried)
    started = ", ".join(f"{n} = {v}" for n, v in stmt.numbers_carried)
    return (f" {named} {'starts' if len(stmt.numbers_carried) == 1 else 'start'} as a "
            f"Python number ({started}): a staged loop keeps each value's shape and dtype "
            "from step to step, so if a step changes them, start it as a tensor of the "
            "shape and dtype it has after one step.")


def _for_hint(stmt: Statement, described: Described | None,
              names: list[NamedValue] | tuple[NamedValue, ...]) -> str | None:
    kind = described.kind if described else None
    if unrolling_is_the_point(described):  # layers, functions (in a list or Keras's own)
        return None
    node = _parse(stmt.expr)
    if described is not None and kind == "range":
        return _range_hint(stmt, node, described, names)
    if described is not None and kind in CONTAINERS:
        return _container_hint(stmt, node, described)
    if described is not None and kind in ("zip", "enumerate"):
        return _zipped_hint(stmt, node, described)
    if kind == "numpy":
        return (f"convert it with tf.convert_to_tensor({stmt.expr}) first: a NumPy array is "
                "iterated in Python.")
    return _GENERAL_FOR


def unrolling_is_the_point(described: Described | None) -> bool:
    """A loop over things no tensor can hold (layers, functions, mixed items), over strings
    (names, keys) or over variables (one step each): running it in Python is what it is
    for, and no rewrite to a graph loop applies, in converted code or not."""
    if described is None:
        return False
    if described.holds_variables():
        return True
    if described.kind in CONTAINERS or (described.kind == "other" and described.items):
        # a list, or a list's subclass of one kind of item (Keras's TrackedList of layers);
        # strings are names and keys (getattr(tf.nn, name)): a tensor of them serves none
        return described.items == "python-str" or (
            not described.stackable and described.items not in DENSE_TENSORS)
    return described.kind in ("zip", "enumerate") and \
        any(unrolling_is_the_point(part) for part in described.parts)


def unstackable(described: Described | None) -> bool:
    """A list or tuple of tensors that differ in shape or dtype (a model's gradients): no
    tensor holds them together, so a graph loop cannot step through them."""
    return described is not None and described.kind in CONTAINERS \
        and described.items in DENSE_TENSORS and not described.stackable


def intended(described: Described | None) -> Intended | None:
    """Why a Python loop over ``described`` unrolls on purpose (None: it need not): one step
    per variable (``for v in model.trainable_variables``, ``zip(grads, variables)``)."""
    return "variables" if described is not None and described.holds_variables() else None


def _target(stmt: Statement) -> str:
    """The loop's target as written (``s``, ``i, x``)."""
    target = _parse_target(stmt)
    return ast.unparse(target) if target is not None else "x"


# How the fix for a loop over a Python list or tuple of stackable items starts; the doctor's
# rewrite for it (``for v in tf.stack(ITEMS):``) is offered, and tried, where a fix says so.
STACK_ITEMS = "stack the items into one tensor"
# How the fix for a loop over items no tensor holds together (shapes or dtypes differ) starts:
# once per item is what such a loop does (a graph loop needs one shape for every step).
UNSTACKABLE = "the items differ in shape or dtype"


def _container_hint(stmt: Statement, node: ast.expr | None, described: Described) -> str | None:
    kind = described.kind
    if not described.stackable:  # tensors (layers and the like: unrolling_is_the_point)
        return (f"{UNSTACKABLE}, so tf.stack cannot pack them into one "
                "tensor: the loop unrolls once per item (fine for a few); pad them to one "
                "shape and stack them to get one tf.while_loop.")
    if kind == "dict":
        return (f"if the body only reads the values, stack them into one tensor "
                f"(tf.stack(list({stmt.expr}.values()))) and iterate over it: a Python dict is "
                "always unrolled.")
    if isinstance(node, (ast.List, ast.Tuple)):
        items = ast.unparse(ast.List(elts=node.elts))
        return (f"{STACK_ITEMS} (tf.stack({items})) and iterate over "
                f"it: a Python {kind} is always unrolled.")
    return (f"{STACK_ITEMS} (tf.stack({stmt.expr})) and iterate over it "
            f"(`for {_target(stmt)} in tf.stack({stmt.expr}):`): a Python {kind} is always "
            "unrolled, a tensor's rows make one tf.while_loop. A list built with .append in a "
            "loop is better collected in a tf.TensorArray (iterate over its .stack()); items "
            "passed in can come as a tf.data.Dataset.")


# How the fix for a zip/enumerate of Python lists reads (the doctor's rewrite, which tries it,
# goes by these words): ``a Python zip of lists is always unrolled, and a list cannot ...``.
INDEXED = "of lists is always unrolled, and a list cannot be indexed by a tensor"


@dataclass(frozen=True)
class Indexed:
    """A ``for`` over ``zip``/``enumerate`` of Python lists made a loop over an index of
    stacked tensors: ``made`` (each stacked name and its list), the loop's ``index`` and
    ``bound`` (``for i in tf.range(len(bound)):``), and the body's first statement ``read``
    (``a, b = xs_t[i], ys_t[i]``)."""

    made: tuple[tuple[str, str], ...]
    index: str
    bound: str
    read: str


def indexed(kind: str, target: ast.expr | None, call: ast.expr | None) -> Indexed | None:
    """The loop over an index for ``for TARGET in CALL:`` (``kind``: "zip" or "enumerate"),
    or None where the loop is not that simple shape (a ``start=``, a starred list, a target
    that does not unpack one item per list)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == kind and call.args and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and isinstance(target, ast.Tuple)):
        return None
    lists = call.args
    if kind == "enumerate":  # one list, no start: the index is the position
        if len(lists) != 1 or len(target.elts) != 2 or not isinstance(target.elts[0], ast.Name):
            return None
        index, items = target.elts[0].id, target.elts[1:]
    else:
        if len(target.elts) != len(lists):
            return None
        index, items = "i", target.elts
    names = [ast.unparse(a) for a in lists]
    stacked = [f"{n}_t" if n.isidentifier() else f"stacked{k}" for k, n in enumerate(names)]
    read = (", ".join(ast.unparse(t) for t in items) + " = "
            + ", ".join(f"{t}[{index}]" for t in stacked))
    return Indexed(tuple(zip(stacked, names, strict=True)), index, names[0], read)


def _zipped_hint(stmt: Statement, node: ast.expr | None, described: Described) -> str | None:
    """``zip(a, b)`` / ``enumerate(a)`` of Python lists: a tensor cannot be zipped or
    enumerated in Python, and a list cannot be indexed by a tensor; stacked tensors can."""
    kind = described.kind
    shape = indexed(kind, _parse_target(stmt), node)
    if shape is None or len(shape.made) != len(described.parts) or not all(
            p.kind in CONTAINERS - {"dict"} and p.stackable for p in described.parts):
        return None
    made = "; ".join(f"{t} = tf.stack({n})" for t, n in shape.made)
    return (f"a Python {kind} {INDEXED}: stack {'it' if len(shape.made) == 1 else 'each'} "
            f"before the loop (`{made}`), then loop over an index (`for {shape.index} in "
            f"tf.range(len({shape.bound})):`) and read the items first thing in the body "
            f"(`{shape.read}`), so AutoGraph builds one tf.while_loop.")


def _parse_target(stmt: Statement) -> ast.expr | None:
    """The ``for`` statement's target as an expression (``i, x``)."""
    try:
        loop = ast.parse(stmt.header + "\n    pass").body[0]
    except SyntaxError:
        return None
    return loop.target if isinstance(loop, ast.For) else None


def unconverted_hint(kind: str) -> str:
    """The fix for a statement of code AutoGraph does not convert (a Keras 3 layer's call):
    only explicit graph control flow, or none, can be staged there."""
    if kind in CONDITIONALS:
        what = "an if" if kind == "if" else "a conditional expression"
        return (f"AutoGraph does not convert this code, so {what} on a tensor raises here: "
                "write it with tf.cond or keras.ops.cond (tf.where or keras.ops.where to "
                "choose per element).")
    return ("AutoGraph does not convert this code, so the loop always runs in Python (over a "
            "tensor it raises): vectorise it (one op over the whole tensor instead of one per "
            "element), or write it with tf.while_loop, tf.scan or keras.ops.fori_loop.")


def _range_hint(stmt: Statement, node: ast.expr | None, described: Described,
                names: list[NamedValue] | tuple[NamedValue, ...]) -> str:
    def tail(pass_: str) -> str:
        # A list the body appends to: a staged loop cannot fill one (the doctor's rewrite
        # makes it a tf.TensorArray); said only where there is one.
        named = " and ".join(f"`{n}`" for n in stmt.appended)
        collect = (f"; collect {named} in a tf.TensorArray: a staged loop cannot fill a "
                   "Python list") if named else ""
        return (f"instead, so AutoGraph builds one tf.while_loop whatever the count"
                f"{'; ' + pass_ if pass_ else ''}{collect}.")

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "range" and node.args and not node.keywords:
        bounds = ", ".join(ast.unparse(a) for a in node.args)
        plain = [a.id for a in node.args if isinstance(a, ast.Name)]
        one = len(plain) == 1
        pass_ = (f"if {_code(plain)} {'is an argument' if one else 'are arguments'}, pass "
                 f"{'it as a tensor' if one else 'them as tensors'} so that a new value does "
                 "not retrace") if plain else ""
        return f"iterate over tf.range({bounds}) " + tail(pass_) + _indexed(stmt, node, names)
    # ``for i in steps`` (a range made elsewhere): the bounds are only known as traced.
    bounds = described.text[len("range("):-1]
    return (f"iterate over a tf.range with the same bounds (here tf.range({bounds})) "
            + tail("pass the bounds as tensors so that new values do not retrace"))


def _indexed(stmt: Statement, node: ast.Call,
             names: list[NamedValue] | tuple[NamedValue, ...]) -> str:
    """``for i in range(len(xs))`` over a Python list: the body indexes ``xs`` with the
    counter, which a tensor counter cannot do; a tensor stacked from it can be."""
    lists = {n.name for n in names if n.kind in ("list", "tuple") and n.value.stackable}
    read = [a.args[0].id for a in node.args if isinstance(a, ast.Call)
            and isinstance(a.func, ast.Name) and a.func.id == "len" and len(a.args) == 1
            and isinstance(a.args[0], ast.Name) and a.args[0].id in lists]
    if not read:
        return ""
    n, i = read[0], _target(stmt)
    return (f" A Python list cannot be indexed by a tensor: stack `{n}` before the loop "
            f"(`{n}_t = tf.stack({n})`) and read `{n}_t[{i}]` in the body instead of "
            f"`{n}[{i}]`.")


def while_hint(stmt: Statement, calls: list[Call]) -> str:
    """How to make the Python ``while`` at ``stmt`` a graph loop (``calls``: its runs)."""
    values = {n.name: n for c in calls[:1] for n in c.names}
    node = _parse(stmt.expr)
    where = ""
    if isinstance(node, ast.BoolOp):
        # A tensor first operand makes AutoGraph's and/or a tensor: fixing it is enough.
        op = "and" if isinstance(node.op, ast.And) else "or"
        node = node.values[0]
        where = f" in `{ast.unparse(node)}`, the first part of the `{op}`"
    found = None
    if isinstance(node, ast.Compare):
        found = _compare_fix(node, values, stmt)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        found = _flag_fix(node.operand, values, stmt)
    elif isinstance(node, ast.Name):
        found = _flag_fix(node, values, stmt)
    if found is not None:
        held, fix = found
        verb = "is a Python value" if len(held) == 1 else "are Python values"
        return f"{_code(held)} {verb} while tracing{where}: {fix}, {_GRAPH_LOOP}"
    python_names = [n for n, v in values.items() if v.kind in PYTHON_SCALARS]
    if python_names:
        verb = "is a Python value" if len(python_names) == 1 else "are Python values"
        return (f"make the condition a tensor: {_code(python_names)} {verb} while tracing; "
                f"make {'it' if len(python_names) == 1 else 'one of them'} a tensor "
                f"(tf.constant(...)) or compute the condition with tf ops, {_GRAPH_LOOP}")
    return _GENERAL_WHILE


def _literal(held: NamedValue | None) -> str | None:
    """The value ``held`` had, as Python source that keeps its type (3.0, not 3)."""
    literal = held.value.literal if held is not None else None
    if literal is not None and held is not None and held.kind == "python-float" \
            and not any(c in literal for c in ".e") and literal not in ("inf", "-inf", "nan"):
        literal += ".0"
    return literal


def _start(name: str, values: dict[str, NamedValue], stmt: Statement) -> str:
    """``start `i` as a tensor (`i = tf.constant(0)`)``: around what the function started
    it with (``n = len(x)``: ``tf.constant(len(x))``, for every input, not the value one
    trace held), a parameter made a tensor first in the function; else with the value it
    held."""
    started = dict(stmt.started).get(name)
    if started is not None and _number_text(started) is None:
        return f"start `{name}` as a tensor (`{name} = tf.constant({started})`)"
    if started is None and name in stmt.params:
        return (f"make `{name}` a tensor first in the function (`{name} = "
                f"tf.constant({name})`, or pass a tensor)")
    literal = _literal(values.get(name))
    if literal is None:
        return f"make `{name}` a tensor (tf.constant(...))"
    return f"start `{name}` as a tensor (`{name} = tf.constant({literal})`)"


# The fix's words for a counter started as a tensor (``start `i` as a tensor (`i =
# tf.constant(0)`)``), which the doctor's rewrite makes and tries.
STARTED = re.compile(r"start `(?P<name>\w+)` as a tensor \(`(?P=name) = tf\.constant\("
                     r"(?P<value>[^`]+)\)`\)")


def _number_text(text: str) -> str | None:
    """``text`` where it is a number literal (``3``, ``-1.5``), else None."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return text if type(value) in (int, float, bool) else None


def _flag_fix(flag: ast.expr, values: dict[str, NamedValue],
              stmt: Statement) -> tuple[list[str], str] | None:
    """``while not done`` / ``while running``: the flag itself must be a tensor."""
    if not isinstance(flag, ast.Name):
        return None
    held = values.get(flag.id)
    if held is not None and held.kind not in PYTHON_SCALARS:
        return None
    return [flag.id], f"{_start(flag.id, values, stmt)} and update it with tf ops in the body"


def _static_size(node: ast.expr) -> bool:
    """Whether ``node`` is ``x.shape[k]``: the static shape, a Python int while tracing
    (``tf.shape(x)[k]`` is the tensor)."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
        and node.value.attr == "shape" and not isinstance(node.slice, ast.Slice)


def _tensor_bound(bound: ast.expr, values: dict[str, NamedValue]) -> tuple[str, str]:
    """The bound as a tensor expression, and the words for the rewrite."""
    if _static_size(bound):
        assert isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute)
        return (f"tf.shape({ast.unparse(bound.value.value)})[{ast.unparse(bound.slice)}]",
                "compare with the dynamic shape")
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) \
            and bound.func.id == "len" and len(bound.args) == 1 \
            and isinstance(bound.args[0], ast.Name) \
            and getattr(values.get(bound.args[0].id), "kind", None) in GRAPH_TENSORS:
        return f"tf.shape({bound.args[0].id})[0]", "compare with the dynamic shape"
    return f"tf.constant({ast.unparse(bound)})", "compare with a tensor"


def _compare_fix(node: ast.Compare, values: dict[str, NamedValue],
                 stmt: Statement) -> tuple[list[str], str] | None:
    """``i < n``, ``n > i``, ``x.shape[0] > i``...: which side to make a tensor, keeping the
    comparison's order (``tf.constant(n) > i``)."""
    if len(node.ops) != 1 or not isinstance(node.ops[0], _COUNTER_LEFT + _COUNTER_RIGHT):
        return None
    sides = [node.left, node.comparators[0]]
    constant = [isinstance(s, ast.Constant) for s in sides]
    if all(constant):
        return None
    if any(constant):
        counter = 1 if constant[0] else 0
    elif isinstance(sides[0], ast.Name) != isinstance(sides[1], ast.Name):
        counter = 0 if isinstance(sides[0], ast.Name) else 1
    else:
        counter = 0 if isinstance(node.ops[0], _COUNTER_LEFT) else 1
    counted, bound = sides[counter], sides[1 - counter]
    sizes = [i for i, side in enumerate(sides) if _static_size(side)]
    if sizes:  # `while x.shape[0] < 8`, `while i < x.shape[0]`: the size when the graph
        # runs, tf.shape(x)[0] (the doctor's rewrite, which tries it)
        rewritten = list(sides)
        for i in sizes:
            rewritten[i] = ast.parse(_tensor_bound(sides[i], values)[0], mode="eval").body
        text = ast.unparse(ast.Compare(left=rewritten[0], ops=node.ops,
                                       comparators=[rewritten[1]]))
        return ([ast.unparse(sides[i]) for i in sizes],
                f"compare with the dynamic shape (`{text}`)")
    options = [_start(counted.id, values, stmt) if isinstance(counted, ast.Name)
               else f"make `{ast.unparse(counted)}` a tensor (tf.constant(...))"]
    if not constant[1 - counter]:
        tensor, words = _tensor_bound(bound, values)
        rewritten = list(sides)
        rewritten[1 - counter] = ast.parse(tensor, mode="eval").body
        text = ast.unparse(ast.Compare(left=rewritten[0], ops=node.ops,
                                       comparators=[rewritten[1]]))
        options.append(f"{words} (`{text}`)")
    held = [ast.unparse(s) for s, c in zip(sides, constant, strict=True) if not c]
    return held, " or ".join(options)
