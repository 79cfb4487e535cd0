"""One verdict per if/for/while, from what AutoGraph's operators did during the trace."""

from __future__ import annotations

import ast
import linecache
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import NamedTuple

from agexplorer.engine.hints import carried_note, intended, loop_hint, while_hint
from agexplorer.engine.inventory import CONTROL_FLOW_OPS
from agexplorer.engine.recorder import Call
from agexplorer.engine.statements import Statement
from agexplorer.model.inventory import Inventory
from agexplorer.model.report import (
    CONDITIONALS,
    LOOPS,
    StatementKind,
    Verdict,
    VerdictKind,
    kind_words,
)
from agexplorer.model.text import plural
from agexplorer.model.values import PYTHON_SCALARS, Described


def _names_text(calls: list[Call], expr: str) -> str:
    """"n is the Python int 3, ..." for the names the statement's expression ``expr`` read;
    empty for an expression that is one name (its value is the value said already)."""
    for call in calls:
        if call.names:
            return ", ".join(f"{n.name} is {n.text}" for n in call.names
                             if n.name != expr.strip())
    return ""


def _described(calls: list[Call]) -> Described | None:
    return next((c.value for c in calls if c.value), None)


def _value(calls: list[Call]) -> str:
    described = _described(calls)
    return described.text if described else "a value AutoGraph did not report"


def _with_names(text: str, names: str) -> str:
    return f"{text} ({names})" if names else text


def _where(stmt: Statement, statements: list[Statement]) -> str:
    """' (inside the unrolled loop at line N)' for a statement run many times."""
    index = stmt.parent
    while index is not None:
        parent = statements[index]
        if parent.kind in LOOPS:
            return f" (it sits in the loop at line {parent.line})"
        index = parent.parent
    return ""


@dataclass(frozen=True)
class _Seen:
    """What the trace recorded for one statement: what every outcome's builder reads."""

    stmt: Statement
    calls: list[Call]  # its calls in the final graph
    ops_created: int
    names: str  # "n is the Python int 3", for the sentences
    traced: bool = True  # False: the trace failed, so no op was counted
    failed_line: int | None = None  # the trace raised at this line of its header


def _verdict(seen: _Seen, verdict: VerdictKind, reason: str, *, graph_op: str | None = None,
             iterations: int | None = None, branch: str | None = None,
             hint: str | None = None) -> Verdict:
    """The one place a Verdict is made: the outcome's fields beside what was recorded."""
    calls = seen.calls
    described = _described(calls)
    return Verdict(kind=seen.stmt.kind, line=seen.stmt.line, header=seen.stmt.header,
                   verdict=verdict, graph_op=graph_op, iterations=iterations, branch=branch,
                   ops_created=seen.ops_created, reason=reason, hint=hint, times=len(calls),
                   value=_value(calls) if calls else None,
                   names=next((c.names for c in calls if c.names), []),
                   value_kind=described.kind if described else None,
                   loop_vars=_loop_vars(calls))


def _loop_vars(calls: list[Call]) -> tuple:
    """The loop variables of the first run that changed one, else of the first run."""
    recorded = [c.loop_vars for c in calls if c.loop_vars]
    return next((lv for lv in recorded if any(v.changed for v in lv)),
                recorded[0] if recorded else ())


def build_verdicts(statements: list[Statement], calls: list[Call], inventory: Inventory | None,
                   traced: bool, file: str | None = None,
                   chains: dict[tuple[tuple[str, int], ...], int] | None = None,
                   failed_line: int | None = None) -> list[Verdict]:
    """Combine the static statements of one function (in ``file``) with the recorded calls
    and the op inventory. With ``chains`` (ops counted by the user frames they were made
    under), a statement's ops include those its calls made in other functions.
    ``failed_line``: the line of ``file`` the trace raised at, when it did."""
    by_line = inventory.by_line(file) if inventory else {}
    final = inventory.graph_names if inventory else None
    cf_ops: list[_CfOp] = []
    if inventory:
        for op in inventory.ops:
            if op.type in CONTROL_FLOW_OPS and (file is None or op.file in (file, None)):
                cf_ops.append(_CfOp(op.line, op.function, op.type, op.name))

    verdicts: list[Verdict] = []
    # Each statement's calls in the final graph (a loop's verdict reads its inner ones too).
    theirs = {(stmt.line, stmt.kind): [c for c in calls if c.line == stmt.line
                                       and c.kind == stmt.kind
                                       and (file is None or c.file == file)
                                       and (final is None or id(c.graph) in final)]
              for stmt in statements}
    for stmt in statements:
        mine = theirs[(stmt.line, stmt.kind)]
        if chains is not None and file is not None:
            ops_created = sum(n for chain, n in chains.items() if stmt.made(chain, file))
        else:
            ops_created = sum(n for line, n in by_line.items()
                              if line is not None and stmt.spans(line))
        seen = _Seen(stmt, mine, ops_created, _names_text(mine, stmt.expr), traced,
                     failed_line if _in_header(stmt, failed_line) else None)
        staged = [c for c in mine if c.path == "staged"]
        python = [c for c in mine if c.path == "python"]
        if staged:
            verdict = _staged(seen, staged, python, _Ops(cf_ops, final or {}, inventory, file),
                              statements)
        elif python and stmt.kind in CONDITIONALS:
            verdict = _python_if(seen, python, statements)
        elif python:
            verdict = _python_loop(seen, python, statements,
                                   _runs_differ(stmt, statements, theirs))
        else:
            verdict = _verdict(seen, "unreached",
                               _unreached_reason(stmt, statements, verdicts, traced,
                                                 failed_line))
        verdicts.append(verdict)
    return verdicts


class _CfOp(NamedTuple):
    """A control-flow op of the trace: its line, the body it is in, its type and name."""

    line: int | None
    function: str
    type: str
    name: str


@dataclass(frozen=True)
class _Ops:
    """The trace's control-flow ops, and what tells a statement's own op among them."""

    cf: list[_CfOp]
    final: dict[int, str]  # id(FuncGraph) -> body name, for the graphs of the final trace
    inventory: Inventory | None
    file: str | None

    def held(self, op: _CfOp) -> set[int] | None:
        """The lines (of the statements' file) of the ops in ``op``'s bodies; None where the
        inventory cannot tell."""
        lines = getattr(self.inventory, "body_lines", None)
        if lines is None:
            return None
        return {line for f, line in lines(op.function, op.name)
                if line is not None and (self.file is None or f == self.file)}


_LOOP_OPS = frozenset({"While", "StatelessWhile", "ReduceDataset", "For"})


def _graph_op(stmt: Statement, staged: list[Call], ops: _Ops) -> str | None:
    """The type of the control-flow op the statement made in its graphs: its own where the
    inventory tells (the most common where several)."""
    bodies = {ops.final.get(id(call.graph)) for call in staged}
    found = [op for op in ops.cf if op.line == stmt.line
             and (op.type in _LOOP_OPS) == (stmt.kind in LOOPS)
             and (None in bodies or op.function in bodies)]
    types = Counter(op.type for op in _own(stmt, found, ops))
    return types.most_common(1)[0][0] if types else None


def _own(stmt: Statement, found: list[_CfOp], ops: _Ops) -> list[_CfOp]:
    """Of the control-flow ops made on the statement's line, its own: those that run its
    body's first line (AutoGraph's guard around the code after a ``continue`` is made on
    the line of the statement around it, and runs the rest of the body only; a tensor
    ``and`` in the condition makes a tf.cond whose branches hold the condition alone); else
    those that run any of its lines; else all of them."""
    held: list[tuple[_CfOp, set[int]]] = []
    for op in found:
        lines = ops.held(op)
        if lines is None:
            return found
        held.append((op, lines))
    first = stmt.body_lines[0]
    return ([op for op, lines in held if first in lines]
            or [op for op, lines in held if any(stmt.line < n <= stmt.end_line for n in lines)]
            or found)


def _staged(seen: _Seen, staged: list[Call], python: list[Call], ops: _Ops,
            statements: list[Statement]) -> Verdict:
    stmt, names = seen.stmt, seen.names
    op = _graph_op(stmt, staged, ops)
    op_text = f"{'an' if op and op[0] in 'AEIOU' else 'a'} {op} op" if op else "a graph op"
    value = _value(staged)
    if stmt.kind == "for":
        described = _described(staged)
        if described is not None and described.kind == "dataset":
            what = f"iterates over {value}, so AutoGraph staged it as a dataset loop: {op_text}"
        else:
            what = (f"iterates over `{stmt.expr}`, {value}, so AutoGraph staged it as "
                    f"tf.while_loop: {op_text} whose body was traced once")
    elif stmt.kind == "while":
        what = (f"the condition `{stmt.expr}` is {_with_names(value, names)}, so AutoGraph "
                f"staged the loop as tf.while_loop: {op_text} whose body was traced once")
    else:
        what = (f"the condition `{stmt.expr}` is {_with_names(value, names)}, so AutoGraph "
                f"staged {'the expression' if stmt.kind == 'ifexp' else 'it'} as tf.cond: "
                f"{op_text} with both branches traced")
    reason = what + "."
    copies = len(staged) > 1
    if copies:
        reason += (f" It was staged {len(staged)} times, once each time Python reached it"
                   f"{_where(stmt, statements)}: {len(staged)} separate {op or 'control-flow'} ops.")
    hint = ("the enclosing loop runs in Python and copies this statement every "
            "iteration; stage that loop (iterate over a tensor) to get one op.") if copies else None
    if python:
        return _mixed(seen, staged, python, op, reason, statements)
    return _verdict(seen, "staged", reason, graph_op=op, hint=hint)


def _mixed(seen: _Seen, staged: list[Call], python: list[Call], op: str | None,
           staged_reason: str, statements: list[Statement]) -> Verdict:
    """Staged on some executions, run in Python on others: the value it dispatched on was a
    tensor one time and a Python value another (a loop over mixed values around it)."""
    stmt = seen.stmt
    described = _described(python)
    other = described.text if described else "a Python value"
    if stmt.kind in CONDITIONALS:
        counts = Counter(c.branch for c in python if c.branch)
        ran = "; in Python it took " + " and ".join(
            f"the {b} branch {plural(n, 'time')}" for b, n in counts.items()) \
            if counts else ""
    else:
        runs = sum(c.body_runs for c in python)
        ran = f"; in Python its body ran {plural(runs, 'time')} in all"
    reason = (f"mixed: staged {plural(len(staged), 'time')} and run in "
              f"Python {plural(len(python), 'time')}{_where(stmt, statements)}. "
              f"When staged: {staged_reason[0].lower() + staged_reason[1:]} When run in "
              f"Python, `{stmt.expr}` was {other}{ran}.")
    hint = ("give it the same kind of value every time: a tensor each time (tf.constant, "
            "tf.range) stages one op per execution; mixing Python values makes some copies "
            "plain Python.")
    return replace(_verdict(seen, "mixed", reason, graph_op=op,
                            iterations=sum(c.body_runs for c in python) if stmt.kind in LOOPS
                            else None, hint=hint), mixed=(len(staged), len(python)))


def _again(stmt: Statement, python: list[Call], statements: list[Statement]) -> str:
    reached = len(python)
    return f" It was reached {reached} times{_where(stmt, statements)}." if reached > 1 else ""


def _python_if(seen: _Seen, python: list[Call], statements: list[Statement]) -> Verdict:
    stmt, names, value = seen.stmt, seen.names, _value(python)
    reached = len(python)
    counts = Counter(c.branch for c in python if c.branch)
    branch = next(iter(counts)) if len(counts) == 1 else None
    if branch:
        taken = f"Python took the {branch} branch"
        if reached > 1:
            taken += f" every time ({reached} times)"
        skipped = "false" if branch == "true" else "true"
        taken += f"; the {skipped} branch is not in the graph"
    else:
        parts = [f"the {b} branch {plural(counts[b], 'time')}"
                 for b in ("true", "false")]
        taken = "Python took " + " and ".join(parts)
        value = "a Python bool"
        names = names and names + " the first time"
    reason = (f"the condition `{stmt.expr}` was {_with_names(value, names)} while "
              f"tracing, not a tensor, so {taken}.")
    dynamic = _dynamic_shape_test(stmt.expr)
    test = f"`if {dynamic}:`" if stmt.kind == "if" else f"`... if {dynamic} else ...`"
    levels = _recursion_depth(python)
    if levels > 1 and dynamic is None:
        # The if that ends a recursion: a tensor condition would trace both branches, the
        # recursive one again and again (tracing would not end), so no tf.cond applies.
        hint = (f"it ends a recursion ({levels} levels deep while tracing, one copy of the "
                "function's ops per level): keep its condition a Python value (a tensor one "
                "would trace both branches, the recursive call again at every level, and "
                "tracing would not end); to stage the recursion, write it as a loop (a "
                "`while` on a tensor, or tf.while_loop).")
        return _verdict(seen, "python", reason, branch=branch, hint=hint)
    hint = ("fine if the choice is fixed per trace; if it must depend on data, make the "
            "condition a tensor and AutoGraph stages a tf.cond.") if dynamic is None else (
        f"fine for sizes known when tracing: a static shape is a Python value then (a new "
        f"shape traces again anyway); for a size known only when the graph runs (a None "
        f"dimension), test the dynamic shape, {test}, and AutoGraph stages a tf.cond.")
    return _verdict(seen, "python", reason, branch=branch, hint=hint)


def _recursion_depth(calls: list[Call]) -> int:
    """How many activations of the statement's function were on the stack when it ran (1: it
    was not recursing): its frames whose line calls it by name, plus the innermost. (Its
    other frames are AutoGraph's branch and body functions of one activation: an if with a
    return puts the rest of the function in its else branch.)"""
    depth = 1
    for call in calls:
        if not call.stack:
            continue
        own = call.stack[-1]
        calls_itself = re.compile(rf"\b{re.escape(own.name)}\s*\(")
        levels = 1 + sum(bool(calls_itself.search(linecache.getline(f.file, f.line)))
                         for f in call.stack[:-1] if f.file == own.file and f.name == own.name)
        depth = max(depth, levels)
    return depth


def _dynamic_shape_test(expr: str) -> str | None:
    """``expr`` with each static size it reads (``x.shape[0]``) as the tensor one
    (``tf.shape(x)[0]``); None where it reads none."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return None

    class Dynamic(ast.NodeTransformer):
        found = False

        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            value = node.value
            if isinstance(value, ast.Attribute) and value.attr == "shape":
                self.found = True
                shape = ast.Call(func=ast.Attribute(value=ast.Name("tf"), attr="shape"),
                                 args=[self.visit(value.value)], keywords=[])
                return ast.Subscript(value=shape, slice=node.slice, ctx=node.ctx)
            return self.generic_visit(node)

    rewriter = Dynamic()
    new = rewriter.visit(tree)
    return ast.unparse(new) if rewriter.found else None


def _ran(iterations: int, ops_created: int, varies: bool) -> str:
    """What the body's Python runs put into the graph, in words."""
    if iterations and not ops_created:
        return (f"the body ran {plural(iterations, 'time')} while tracing "
                "but added no ops: it only changed Python values, fixed into the graph as "
                "constants")
    if iterations:
        return (f"the body ran {plural(iterations, 'time')} while tracing and "
                + copied_words(iterations, ops_created, varies))
    return "the body never ran while tracing, so nothing inside it is in the graph"


def copied_words(iterations: int, ops: int, varies: bool) -> str:
    """``its 2 ops were copied 3 times`` where every run of the body made the same ops (the
    trace showed none differ, ``varies`` False, and the count divides), else ``made 6 ops in
    all``: a body whose if went both ways (``for i in range(10): if i == 3: break``) has
    no per-run count."""
    per = ops // iterations if iterations else 0
    if varies or not per or per * iterations != ops:
        return f"made {plural(ops, 'op')} in all"
    return (f"its {plural(per, 'op')} {'were' if per != 1 else 'was'} copied "
            f"{plural(iterations, 'time')}")


def _only_constants(seen: _Seen, python: list[Call], iterations: int) -> bool:
    """A Python loop that costs the graph nothing: its body ran and added no op, and no
    parameter of its function that holds a Python number or bool (one a caller could vary,
    tracing anew per value: the lesson's ``while i < n`` with ``n=3``) drives it. It computed
    Python values, which the graph holds as constants: staging it would only add a loop."""
    if not iterations or seen.ops_created:
        return False
    read = next((c.names for c in python if c.names), [])
    return not any(n.name in seen.stmt.params and n.kind in PYTHON_SCALARS for n in read)


def _runs_differ(stmt: Statement, statements: list[Statement],
                 calls: dict[tuple[int, StatementKind], list[Call]]) -> bool:
    """Whether runs of the loop ``stmt``'s body made different ops, as the trace showed: an
    if inside it that Python took both ways (``if i == 3: break``), a loop inside it that
    ran a different number of times."""
    for child in stmt.nested(statements):
        runs = [c for c in calls.get((child.line, child.kind), []) if c.path == "python"]
        if child.kind in CONDITIONALS and len({c.branch for c in runs}) > 1:
            return True
        if child.kind in LOOPS and len({c.body_runs for c in runs}) > 1:
            return True
    return False


def _python_loop(seen: _Seen, python: list[Call], statements: list[Statement],
                 differ: bool = False) -> Verdict:
    stmt, names, value = seen.stmt, seen.names, _value(python)
    iterations = sum(c.body_runs for c in python)
    ran = _ran(iterations, seen.ops_created, differ) if seen.traced else (
        f"the body ran {plural(iterations, 'time')} while tracing"
        if iterations else "the body never ran while tracing")
    again = _again(stmt, python, statements)
    if seen.failed_line is not None:  # the trace raised at its header, on a later step
        again += (f" Then tracing raised at this loop's header (line {seen.failed_line}): "
                  "the error below says why.")
    if seen.traced and _only_constants(seen, python, iterations):
        what = (f"iterates over {_with_names(value, names)}, a Python value" if stmt.kind == "for"
                else f"the condition `{stmt.expr}` was {_with_names(value, names)} when the "
                     "loop started, not a tensor")
        return replace(_verdict(seen, "python", f"{what}, so AutoGraph ran the loop in Python: "
                                f"{ran}.{again} Nothing to stage: as a graph loop it would add "
                                "ops to compute what is now a constant.",
                                iterations=iterations), intended="constants")
    if stmt.kind == "for":
        reason = (f"iterates over {_with_names(value, names)}, a Python value, so "
                  f"AutoGraph ran the loop in Python: {ran}.{again}")
        purpose = intended(_described(python))
        if purpose == "variables":
            return replace(_verdict(seen, "python", reason + " One step per variable: "
                                    "unrolling is the point.", iterations=iterations),
                           intended=purpose)
        hint = loop_hint(stmt, _described(python),
                         next((c.names for c in python if c.names), []))
    else:
        reason = (f"the condition `{stmt.expr}` was {_with_names(value, names)} when "
                  f"the loop started, not a tensor, so AutoGraph ran the loop in "
                  f"Python: {ran}.{again}")
        hint = while_hint(stmt, python) + carried_note(stmt)
    return _verdict(seen, "python", reason, iterations=iterations, hint=hint)


def _in_header(stmt: Statement, line: int | None) -> bool:
    """Whether ``line`` is a line of ``stmt``'s header (``if ...:``, ``for ... in ...:``)."""
    return line is not None and stmt.line <= line < max(stmt.body_lines[0], stmt.line + 1)


def _unreached_reason(stmt: Statement, statements: list[Statement], done: list[Verdict],
                      traced: bool, failed_line: int | None = None) -> str:
    if not traced and _in_header(stmt, failed_line):
        if stmt.kind in CONDITIONALS:
            return (f"tracing raised here, at line {failed_line}, evaluating its condition, "
                    f"so the {kind_words(stmt.kind)} never chose a branch: the error below "
                    "says why.")
        # Unreached: no step of its body ran (one that raised after some is "python").
        return (f"tracing raised at this loop's header (line {failed_line}) before its body "
                "ran: the error below says why.")
    if stmt.parent is not None:
        parent = statements[stmt.parent]
        pv = done[stmt.parent]
        if parent.kind in CONDITIONALS and pv.verdict == "python":
            side = "true" if stmt.part == "body" else "false"
            return (f"it sits in the {side} branch of the {kind_words(parent.kind)} at line "
                    f"{parent.line}, which "
                    f"Python did not take while tracing (the condition was {pv.value}).")
        if parent.kind in LOOPS and pv.verdict == "python":
            if stmt.part == "orelse":
                return (f"it sits in the else clause of the loop at line {parent.line}, "
                        "which Python did not run while tracing.")
            return (f"it sits in the loop at line {parent.line}, whose body never ran "
                    "while tracing.")
        if pv.verdict == "unreached":
            return (f"it sits inside the {kind_words(parent.kind)} at line {parent.line}, which was "
                    "never reached either.")
    if not traced:
        return "tracing stopped with an error before Python reached this statement."
    return ("Python never reached it while tracing: the function returned (or skipped it) "
            "before this line.")
