"""One verdict per if/for/while, from what AutoGraph's operators did during the trace."""

from __future__ import annotations

from collections import Counter

from agexplorer.engine.inventory import CONTROL_FLOW_OPS
from agexplorer.engine.recorder import Call
from agexplorer.engine.statements import Statement
from agexplorer.model.inventory import Inventory
from agexplorer.model.report import Verdict


def _names_text(calls: list[Call]) -> str:
    for call in calls:
        if call.names:
            return ", ".join(f"{name} is {desc}" for name, desc in call.names)
    return ""


def _value(calls: list[Call]) -> str:
    return next((c.value for c in calls if c.value), "a value AutoGraph did not report")


def _with_names(text: str, names: str) -> str:
    return f"{text} ({names})" if names else text


def _loop_hint(stmt: Statement, value: str) -> str:
    if value.startswith("range("):
        return (f"iterate over tf.range({value[6:-1]}) instead, so AutoGraph builds one "
                "tf.while_loop whatever the count; pass the bound as a tensor so that a new "
                "value does not retrace; collect per-step results in a tf.TensorArray.")
    if value.startswith(("a Python list", "a Python tuple", "a Python dict")):
        return ("stack the items into one tensor (tf.stack or tf.constant) and iterate over "
                "it, or loop over tf.range(len(...)): a Python container is always unrolled.")
    if value.startswith("a NumPy"):
        return "convert it with tf.convert_to_tensor first: a NumPy array is iterated in Python."
    return "iterate over a tensor (tf.range, a tensor's rows) or a tf.data.Dataset to get a graph loop."


def _while_hint(calls: list[Call]) -> str:
    python_names = [n for c in calls[:1] for n, d in c.names if d.startswith("the Python")]
    if python_names:
        listed = " and ".join(f"`{n}`" for n in python_names)
        verb = "is a Python value" if len(python_names) == 1 else "are Python values"
        return (f"make the condition a tensor: {listed} {verb} while tracing; pass "
                f"`{python_names[-1]}` as a tensor (tf.constant(...)) or compare with one "
                f"(while ... < tf.constant({python_names[-1]})), and AutoGraph builds one "
                "tf.while_loop.")
    return "make the condition a tensor (compute it with tf ops) so AutoGraph builds a tf.while_loop."


def _where(stmt: Statement, statements: list[Statement]) -> str:
    """' (inside the unrolled loop at line N)' for a statement run many times."""
    index = stmt.parent
    while index is not None:
        parent = statements[index]
        if parent.kind in ("for", "while"):
            return f" (it sits in the loop at line {parent.line})"
        index = parent.parent
    return ""


def build_verdicts(statements: list[Statement], calls: list[Call], inventory: Inventory | None,
                   traced: bool) -> list[Verdict]:
    """Combine the static statements with the recorded calls and the op inventory."""
    by_line = inventory.by_line() if inventory else {}
    final = inventory.graph_names if inventory else None
    cf_ops: Counter[tuple[int | None, str, str]] = Counter()
    if inventory:
        for op in inventory.ops:
            if op.type in CONTROL_FLOW_OPS:
                cf_ops[(op.line, op.function, op.type)] += 1

    verdicts: list[Verdict] = []
    for stmt in statements:
        mine = [c for c in calls if c.line == stmt.line and c.kind == stmt.kind
                and (final is None or id(c.graph) in final)]
        ops_created = sum(n for line, n in by_line.items()
                          if line is not None and stmt.spans(line))
        staged = [c for c in mine if c.path == "staged"]
        python = [c for c in mine if c.path == "python"]
        names = _names_text(mine)
        verdict = Verdict(kind=stmt.kind, line=stmt.line, header=stmt.header,
                          verdict="unreached", graph_op=None, iterations=None, branch=None,
                          ops_created=ops_created, reason="", hint=None, times=len(mine),
                          value=_value(mine) if mine else None,
                          names=next((c.names for c in mine if c.names), []))
        if staged:
            _staged(verdict, stmt, staged, python, cf_ops, final or {}, statements, names)
        elif python:
            _python(verdict, stmt, python, statements, names, calls)
        else:
            verdict.reason = _unreached_reason(stmt, statements, verdicts, traced)
        verdicts.append(verdict)
    return verdicts


def _staged(verdict: Verdict, stmt: Statement, staged: list[Call], python: list[Call],
            cf_ops: Counter, final: dict[int, str], statements: list[Statement],
            names: str) -> None:
    verdict.verdict = "staged"
    types = Counter()
    for call in staged:
        body = final.get(id(call.graph))
        for (line, function, op_type), n in cf_ops.items():
            if line == stmt.line and (body is None or function == body):
                types[op_type] += n
    verdict.graph_op = types.most_common(1)[0][0] if types else None
    op = verdict.graph_op
    op_text = f"{'an' if op and op[0] in 'AEIOU' else 'a'} {op} op" if op else "a graph op"
    value = _value(staged)
    if stmt.kind == "for":
        if "Dataset" in value:
            what = f"iterates over {value}, so AutoGraph staged it as a dataset loop: {op_text}"
        else:
            what = (f"iterates over `{stmt.expr}`, {value}, so AutoGraph staged it as "
                    f"tf.while_loop: {op_text} whose body was traced once")
    elif stmt.kind == "while":
        what = (f"the condition `{stmt.expr}` is {_with_names(value, names)}, so AutoGraph "
                f"staged the loop as tf.while_loop: {op_text} whose body was traced once")
    else:
        what = (f"the condition `{stmt.expr}` is {_with_names(value, names)}, so AutoGraph "
                f"staged it as tf.cond: {op_text} with both branches traced")
    reason = what + "."
    if len(staged) > 1:
        op_name = verdict.graph_op or "control-flow"
        reason += (f" It was staged {len(staged)} times, once each time Python reached it"
                   f"{_where(stmt, statements)}: {len(staged)} separate {op_name} ops.")
    if python:
        reason += f" Python also ran it {len(python)} times with a non-tensor value."
    verdict.reason = reason
    if len(staged) > 1:
        verdict.hint = ("the enclosing loop runs in Python and copies this statement every "
                        "iteration; stage that loop (iterate over a tensor) to get one op.")


def _python(verdict: Verdict, stmt: Statement, python: list[Call], statements: list[Statement],
            names: str, calls: list[Call]) -> None:
    verdict.verdict = "python"
    value = _value(python)
    reached = len(python)
    again = (f" It was reached {reached} times{_where(stmt, statements)}."
             if reached > 1 else "")
    if stmt.kind == "if":
        counts = Counter(c.branch for c in python if c.branch)
        verdict.branch = next(iter(counts)) if len(counts) == 1 else None
        if verdict.branch:
            taken = f"Python took the {verdict.branch} branch"
            if reached > 1:
                taken += f" every time ({reached} times)"
            skipped = "false" if verdict.branch == "true" else "true"
            taken += f"; the {skipped} branch is not in the graph"
        else:
            parts = [f"the {b} branch {counts[b]} time{'s' if counts[b] != 1 else ''}"
                     for b in ("true", "false")]
            taken = "Python took " + " and ".join(parts)
            value = "a Python bool"
            names = names and names + " the first time"
        verdict.reason = (f"the condition `{stmt.expr}` was {_with_names(value, names)} while "
                          f"tracing, not a tensor, so {taken}.")
        verdict.hint = ("fine if the choice is fixed per trace; if it must depend on data, "
                        "make the condition a tensor and AutoGraph stages a tf.cond.")
        return
    iterations = sum(c.body_runs for c in python)
    verdict.iterations = iterations
    per = verdict.ops_created // iterations if iterations else 0
    if iterations and not per:
        ran = (f"the body ran {iterations} time{'s' if iterations != 1 else ''} while tracing "
               "but added no ops: it only changed Python values, fixed into the graph as "
               "constants")
    elif iterations:
        ran = (f"the body ran {iterations} time{'s' if iterations != 1 else ''} while tracing "
               f"and its {per} op{'s' if per != 1 else ''} "
               f"{'were' if per != 1 else 'was'} copied {iterations} "
               f"time{'s' if iterations != 1 else ''}")
    else:
        ran = "the body never ran while tracing, so nothing inside it is in the graph"
    if stmt.kind == "for":
        verdict.reason = (f"iterates over {_with_names(value, names)}, a Python value, so "
                          f"AutoGraph ran the loop in Python: {ran}.{again}")
        verdict.hint = _loop_hint(stmt, value)
    else:
        verdict.reason = (f"the condition `{stmt.expr}` was {_with_names(value, names)} when "
                          f"the loop started, not a tensor, so AutoGraph ran the loop in "
                          f"Python: {ran}.{again}")
        verdict.hint = _while_hint(python)


def _unreached_reason(stmt: Statement, statements: list[Statement], done: list[Verdict],
                      traced: bool) -> str:
    if stmt.parent is not None:
        parent = statements[stmt.parent]
        pv = done[stmt.parent]
        if parent.kind == "if" and pv.verdict == "python":
            side = "true" if stmt.part == "body" else "false"
            return (f"it sits in the {side} branch of the if at line {parent.line}, which "
                    f"Python did not take while tracing (the condition was {pv.value}).")
        if parent.kind in ("for", "while") and pv.verdict == "python":
            if stmt.part == "orelse":
                return (f"it sits in the else clause of the loop at line {parent.line}, "
                        "which Python did not run while tracing.")
            return (f"it sits in the loop at line {parent.line}, whose body never ran "
                    "while tracing.")
        if pv.verdict == "unreached":
            return (f"it sits inside the {parent.kind} at line {parent.line}, which was "
                    "never reached either.")
    if not traced:
        return "tracing stopped with an error before Python reached this statement."
    return ("Python never reached it while tracing: the function returned (or skipped it) "
            "before this line.")
