"""The independent trace: what plain ``tf.function`` built for a generated program, read from
each op's own traceback, and what that says about every if/for/while of its function.

Nothing of agexplorer is used here. The function is traced with
``tf.function(f).get_concrete_function(...)``; the outer graph and every body its ops name
(loop bodies and conditions, branches, nested ones) are walked; each op's traceback gives
the lines of the program's file it was made under (outermost first).

From the ops alone:

- a loop was staged where a While/StatelessWhile (a dataset's: ReduceDataset) op was made at
  its line; an ``if`` where an If/StatelessIf op made at its line holds, in a branch, the
  first line of the if's body (an ``and``/``or`` on a tensor makes a tf.cond of its own,
  whose branches hold only the condition's line; AutoGraph's guard around the code after a
  ``continue`` under a tensor condition is a tf.cond made at the line of the statement
  around it, whose branch holds that code only);
- how often Python ran a line: a tick (``tf.constant(K.0)`` alone on a line, see corpus.py)
  makes the same ops each time, as many as the function's first tick, which runs once;
- so a statement was reached as often as the tick before it ran, ran in Python where it
  made no op of its own, was unrolled as often as its body's first tick ran, took the branch
  whose tick ran.

Where the ops cannot tell (no tick, a count that is no multiple of a tick's ops), the fact is
left out with the reason, never guessed.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

CF_LOOP = ("While", "StatelessWhile", "ReduceDataset")  # a dataset loop: a reduce
CF_IF = ("If", "StatelessIf")


@dataclass(frozen=True)
class TracedOp:
    """One op of the traced function: its type and the file's lines it was made under."""

    type: str
    chain: tuple[int, ...]  # lines of the program's file, outermost first (empty: none)
    branch_lines: frozenset[int] = frozenset()  # an If: lines of the ops in its branches
    value: float | None = None  # a scalar Const: its value (a conditional expression's
    # branches are one generated line, so their ops share its first line: their constants
    # tell them apart)

    @property
    def line(self) -> int | None:
        return self.chain[-1] if self.chain else None


@dataclass(frozen=True)
class Fact:
    """What the ops say about one statement; None where they cannot tell (see ``unknown``)."""

    line: int
    function: str
    kind: str  # "if" | "for" | "while" | "ifexp" (``tD = (A if COND else B)``, corpus.py)
    verdict: str | None  # "staged" | "python" | "mixed" | "unreached"
    times: int | None  # how often Python reached it
    iterations: int | None = None  # a loop run in Python: body runs in all
    branch: str | None = None  # an if run in Python: the one branch it took, else None
    graph_op: str | None = None  # the op type of a staged statement
    mixed: tuple[int, int] | None = None  # a mixed statement: (times staged, times in Python)
    ops_created: int = 0  # ops its lines made (and the functions they called)
    created: tuple[str, ...] = ()  # names its body makes and the code after it reads
    carried: bool = False  # a staged loop around it carries those names in
    unknown: dict[str, str] = field(default_factory=dict)  # fact -> why it is left out


@dataclass(frozen=True)
class Oracle:
    """The independent view of one traced program."""

    facts: tuple[Fact, ...]
    ops_by_line: dict[int, int]  # innermost line of the file -> ops made there
    names: frozenset[str] = frozenset()  # every name its functions assign (params included)


def _walk(graph: Any, root: Any, path: str, out: list[TracedOp],
          chains: dict[int, list[tuple[int, ...]]], value_of: Any = None) -> None:
    if id(graph) in chains:
        return
    chains[id(graph)] = _chains(graph, path)
    for op, chain in zip(graph.get_operations(), chains[id(graph)], strict=True):
        bodies = []
        for attr in op.op_def.attr:
            if attr.type not in ("func", "list(func)"):
                continue
            value = op.get_attr(attr.name)
            for fn in value if isinstance(value, list) else [value]:
                # private-tf: the library holds the bodies' FuncGraphs (with tracebacks)
                found = graph._functions.get(fn.name) or root._functions.get(fn.name)
                if found is not None:
                    bodies.append(found.graph)
        lines: set[int] = set()
        for body in bodies:
            _walk(body, root, path, out, chains, value_of)
            if op.type in CF_IF:
                lines.update(c[-1] for c in chains[id(body)] if c)
        value = None
        if op.type == "Const" and value_of is not None:
            array = value_of(op.get_attr("value"))
            value = float(array) if array.shape == () and array.dtype.kind == "f" else None
        out.append(TracedOp(op.type, chain, frozenset(lines), value))


def _chains(graph: Any, path: str) -> list[tuple[int, ...]]:
    """Each op's lines of the file at ``path``, outermost first (a placeholder TensorFlow
    adds may have no traceback)."""
    return [tuple(f.lineno for f in op.traceback or () if f.filename == path)
            for op in graph.get_operations()]


def trace_ops(tf: Any, module: Any, function: str, args: tuple, path: str) -> list[TracedOp]:
    """Every op plain tf.function made for ``module.function(*args)``, ``module`` loaded from
    ``path`` (raises what tracing raises)."""
    _convert_afresh(module)
    concrete = tf.function(getattr(module, function)).get_concrete_function(*args)
    out: list[TracedOp] = []
    _walk(concrete.graph, concrete.graph, path, out, {}, tf.make_ndarray)
    return out


def _convert_afresh(module: Any) -> None:
    """Forget AutoGraph's conversions of the module's functions. It caches them by code
    object, and code objects compare equal across files (the file name is not compared):
    the same text traced from another file would reuse that file's conversion, whose ops'
    tracebacks name the other file."""
    from tensorflow.python.autograph.impl import api  # noqa: TID251 - the oracle stands alone

    for value in vars(module).values():
        code = getattr(value, "__code__", None)
        if code is not None:
            api._TRANSPILER._cache._cache.pop(code, None)  # private-tf: no public way


# -- the source's shape ----------------------------------------------------------------------

def _is_tick(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "tf.constant")


def _tick_before(block: list[ast.stmt], index: int) -> int | None:
    """The tick that runs each time ``block[index]`` is reached: one before it with only
    straight-line assignments between."""
    for node in reversed(block[:index]):
        if _is_tick(node):
            return node.lineno
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)):
            return None
    return None


def _first_tick(block: list[ast.stmt]) -> int | None:
    """The tick that runs each time ``block`` starts (straight-line code before it)."""
    for node in block:
        if _is_tick(node):
            return node.lineno
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)):
            return None
    return None


def _stored(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _loaded(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _created(func: ast.FunctionDef, block: list[ast.stmt], index: int) -> tuple[str, ...]:
    """Names the loop ``block[index]`` assigns at its body's top, the code after it reads,
    and nothing before it in the function assigns."""
    loop = block[index]
    made: set[str] = set()
    for node in loop.body:
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            made |= _stored(node)
    before = set().union(*(_stored(n) for n in ast.walk(func)
                           if isinstance(n, ast.stmt) and n.lineno < loop.lineno
                           and not isinstance(n, (ast.FunctionDef, ast.For, ast.While, ast.If))))
    return tuple(sorted((made & _loaded(block[index + 1:])) - before))


# -- the facts -------------------------------------------------------------------------------

@dataclass
class _Counts:
    """How often Python ran a line, from its ops and the ops of one tick."""

    by_line: Counter
    unit: int | None  # ops of the function's first tick (it runs once)

    def runs(self, line: int | None) -> tuple[int | None, str]:
        if line is None:
            return None, "no-tick"
        if not self.unit:
            return None, "no-first-tick"
        made = self.by_line.get(line, 0)
        if made % self.unit:
            return None, "count-not-a-multiple"
        return made // self.unit, ""


def observe(ops: list[TracedOp], source: str, function: str) -> Oracle:
    """The facts about every if/for/while of ``function`` and of the other functions of
    ``source`` that it reached (their first tick ran), from ``ops``."""
    tree = ast.parse(source)
    funcs = sorted((n for n in tree.body if isinstance(n, ast.FunctionDef)),
                   key=lambda n: n.name != function)  # the explored one first
    by_line = Counter(op.line for op in ops if op.line is not None)
    first = funcs[0].body[0]
    counts = _Counts(by_line, by_line.get(first.lineno) if _is_tick(first) else None)
    facts: list[Fact] = []
    for func in funcs:
        head = func.body[0]
        if func.name == function or (_is_tick(head) and by_line.get(head.lineno)):
            _visit(func, func.body, ops, counts, facts, False)
    names = {a.arg for f in funcs for a in f.args.args}.union(*(_stored(f) for f in funcs))
    return Oracle(tuple(facts), dict(by_line), frozenset(names))


def _visit(func: ast.FunctionDef, block: list[ast.stmt], ops: list[TracedOp], counts: _Counts,
           facts: list[Fact], staged_around: bool, parent: Fact | None = None) -> None:
    for index, node in enumerate(block):
        if _is_ternary(node):
            facts.append(_ternary_fact(func, block, index, ops, counts, staged_around))
        if isinstance(node, (ast.If, ast.For, ast.While)):
            reached = _elif_reached(parent) if parent is not None else None
            fact = _fact(func, block, index, ops, counts, staged_around, reached)
            facts.append(fact)
            loop = not isinstance(node, ast.If)
            inner = staged_around or (loop and fact.verdict in ("staged", "mixed"))
            _visit(func, node.body, ops, counts, facts, inner)
            elif_ = not loop and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)
            _visit(func, node.orelse, ops, counts, facts, inner, fact if elif_ else None)


def _is_ternary(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp)


def _ternary_fact(func: ast.FunctionDef, block: list[ast.stmt], index: int,
                  ops: list[TracedOp], counts: _Counts, staged_around: bool) -> Fact:
    """A conditional expression written as corpus.py writes one: each branch one Const of a
    value of its own. Staged where an If made at its line holds ops in its branches; in
    Python, the true branch ran as often as its constant was made."""
    node = block[index]
    expression = node.value
    line = expression.lineno
    true_value = float(ast.literal_eval(expression.body.args[0]))
    unknown: dict[str, str] = {}
    times, why = counts.runs(_tick_before(block, index))
    if why:
        unknown["times"] = why
    own = [op for op in ops if op.line == line and op.type in CF_IF and line in op.branch_lines]
    verdict, why = _verdict(times, len(own))
    if why:
        unknown["verdict"] = why
    graph_op = branch = None
    if verdict in ("staged", "mixed"):
        types = {op.type for op in own}
        graph_op = types.pop() if len(types) == 1 else None
        if graph_op is None:
            unknown["graph_op"] = "several-op-types"
    if verdict == "python" and times is not None:
        ran = sum(1 for op in ops if op.type == "Const" and op.line == line
                  and op.value == true_value)
        branch = "true" if ran == times else "false" if ran == 0 else None
    elif verdict == "mixed":
        unknown["branch"] = "mixed"
    made = sum(1 for op in ops if _made_in(op.chain, node, func))
    mixed = (len(own), times - len(own)) if verdict == "mixed" and times is not None else None
    return Fact(line, func.name, "ifexp", verdict, times, None, branch, graph_op, mixed, made,
                (), staged_around, unknown)


def _made_in(chain: tuple[int, ...], node: ast.stmt, func: ast.FunctionDef) -> bool:
    """Whether the statement's own lines made an op: the innermost frame of the function
    that holds it lies in them. (AutoGraph runs the code after an ``if ...: return`` in
    that if's else: its frames pass through the if's line, yet the if did not make it.)"""
    low, high = func.lineno, func.end_lineno or func.lineno
    here = next((line for line in reversed(chain) if low <= line <= high), None)
    return here is not None and node.lineno <= here <= (node.end_lineno or node.lineno)


def _elif_reached(parent: Fact) -> tuple[int | None, str]:
    """How often an ``elif`` was reached (no tick can sit before it): as often as its
    parent's else side was."""
    if parent.verdict in ("staged", "unreached"):  # a staged else is traced once per copy
        return parent.times, ""
    if parent.verdict == "python" and parent.branch is not None:
        return (0 if parent.branch == "true" else parent.times), ""
    return None, "elif-of-a-parent-with-no-count"


def _own_ops(node: ast.stmt, ops: list[TracedOp]) -> list[TracedOp]:
    """The control-flow ops the statement itself made (see the module's docstring)."""
    if not isinstance(node, ast.If):
        return [op for op in ops if op.line == node.lineno and op.type in CF_LOOP]
    first = node.body[0].lineno  # a tick: it made an op wherever its branch was traced
    return [op for op in ops if op.line == node.lineno and op.type in CF_IF
            and first in op.branch_lines]


def _verdict(times: int | None, staged: int) -> tuple[str | None, str]:
    if times is None:
        return None, "no-count"
    if times == 0:
        return ("unreached", "") if not staged else (None, "ops-on-an-unreached-line")
    if staged == times:
        return "staged", ""
    if staged == 0:
        return "python", ""
    return ("mixed", "") if staged < times else (None, "more-ops-than-reaches")


def _fact(func: ast.FunctionDef, block: list[ast.stmt], index: int, ops: list[TracedOp],
          counts: _Counts, staged_around: bool,
          reached: tuple[int | None, str] | None = None) -> Fact:
    node = block[index]
    kind = {ast.If: "if", ast.For: "for", ast.While: "while"}[type(node)]
    unknown: dict[str, str] = {}
    times, why = reached or counts.runs(_tick_before(block, index))
    if why:
        unknown["times"] = why
    own = _own_ops(node, ops)
    verdict, why = _verdict(times, len(own))
    if why:
        unknown["verdict"] = why
    graph_op = None
    if verdict in ("staged", "mixed"):
        types = {op.type for op in own}
        graph_op = types.pop() if len(types) == 1 else None
        if graph_op is None:
            unknown["graph_op"] = "several-op-types"
    iterations = branch = None
    if verdict == "python":
        ran, why = counts.runs(_first_tick(node.body))
        if why:
            unknown["iterations" if kind != "if" else "branch"] = why
        elif kind != "if":
            iterations = ran
        else:
            branch = "true" if ran == times else "false" if ran == 0 else None
    elif verdict == "mixed":
        unknown["iterations" if kind != "if" else "branch"] = "mixed"
    made = sum(1 for op in ops if _made_in(op.chain, node, func))
    created = _created(func, block, index) if kind != "if" else ()
    mixed = (len(own), times - len(own)) if verdict == "mixed" and times is not None else None
    return Fact(node.lineno, func.name, kind, verdict, times, iterations, branch, graph_op, mixed, made,
                created, staged_around, unknown)
