"""Each finding's rewrite tried while the doctor runs: one trace of the rewritten copy, no run.

A rewrite that fails to trace is not offered (its finding loses its rewrite and gets a fix
that does not rely on it); the others say what the trace showed. Trials stop when the
doctor's time for them is spent; the ones left say so.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import replace
from typing import Any

from agexplorer.doctor.rewrites import described, rewrite
from agexplorer.engine.hints import STACK_ITEMS
from agexplorer.model.doctor import Finding, Tried
from agexplorer.model.errors import AgxError
from agexplorer.model.report import LOOPS

# Seconds in all for the trials of one function: each is a fresh load and trace of the file.
TRY_BUDGET_S = 4.0
# The rewrites that turn a Python loop into a graph loop: their trial checks the loop staged.
_LOOP_REWRITES = frozenset({"AGX004"})
# What to do instead, where the fix text is the rewrite that failed.
_INSTEAD: dict[str, str] = {
    "AGX001": "print outside the tf.function, or tf.print only tensors.",
    "AGX003": "collect the values in a tf.TensorArray by hand, with the values' own dtype "
              "and size, and .stack() it after the loop.",
    "AGX004": "the body does not work with a tensor counter: make what it does with the "
              "counter work on tensors (index a stacked tensor, not a Python list; tf.cast "
              "it to the dtype it meets), or keep the loop unrolled if its count is small "
              "and fixed.",
    "AGX009": "the function needs a Python value here (a shape, a count): keep it a Python "
              "number and expect one trace per value, or give it fewer distinct values.",
    "AGX011": "keep the value in a variable set before the loop to a value of the returned "
              "value's dtype and shape, `break` out of the loop where it returned, and return "
              "the variable after the loop (the rewrite's first value did not fit).",
    "AGX012": "use the size when the graph runs (tf.shape) and make what it feeds work with a "
              "tensor, or trace with a known size there.",
}
# What else to do where a staged loop's value changed shape or dtype, by the rewrite's code.
_OR_ELSE = {"AGX004": "or keep the loop unrolled if its count is small and fixed",
            "AGX012": "or trace with a known size there"}


# TensorFlow's words for a staged loop's value that changes from one step to the next.
_CHANGES = re.compile(r"'(?P<name>[^']+)' has (?P<what>shape|dtype) (?P<before>\S+(?: \S+)*?) "
                      r"before the loop, but (?:shape|dtype) (?P<after>.+?) after one iteration")


def _invariant(before: str, after: str) -> str | None:
    """``[None, 3]`` for TensorFlow's shapes ``(0, 3)`` and ``(1, 3)``: None where they
    differ; None (no invariant) where the ranks differ or a shape cannot be read."""
    def dims(text: str) -> list[str] | None:
        inner = text.strip()
        if not (inner.startswith("(") and inner.endswith(")")):
            return None
        return [d.strip() for d in inner[1:-1].split(",") if d.strip()]

    old, new = dims(before), dims(after)
    if old is None or new is None or len(old) != len(new) or old == new:
        return None
    return "[" + ", ".join(o if o == n else "None" for o, n in zip(old, new, strict=True)) + "]"


# An int tensor (tf.constant of a Python int) meeting a float: "Expected int32, but got 0.0
# of type 'float'", "... has type float32 that does not match type int32 ...".
_INT_MEETS_FLOAT = re.compile(r"Expected int(?:32|64), but got \S+ of type 'float'|"
                              r"type float\d+ that does not match type int\d+|"
                              r"type int\d+ that does not match type float\d+")


# TensorFlow's words for two dtypes that meet: "... has type int32 that does not match type
# float32 of argument 'x'".
_MEET = re.compile(r"has type (?P<have>\w+) that does not match type (?P<need>\w+)")


def _instead(code: str, error: str, subject: str | None = None, floats: bool = False,
             stacked: bool = False, floated: Tried | None = None) -> str:
    """What to do where the rewrite of ``code`` failed with ``error``: TensorFlow's own
    reason where it names one the user can act on, else the finding's general advice
    (``subject``: the name the finding is about; ``floats``: AGX009's int tensor met floats
    (:func:`_int_met_floats`); ``stacked``: the rewrite stacked a Python list's items, the
    loop variable is an item, not a counter; ``floated``: AGX009's float32 tensor, tried
    too where ``floats``)."""
    if code == "AGX009" and floated is not None and floated.outcome != "traced":
        return _INSTEAD[code]  # a float tensor fails as well: no tensor serves here
    if code == "AGX009" and floats:
        return (f"pass `{subject}` as a float tensor, tf.constant(..., tf.float32): the "
                "function computes with it in floats, where tf.constant of a Python int "
                "makes an int32 tensor (the error below); one trace then serves every value.")
    changed = _CHANGES.search(error)
    if changed and code in _OR_ELSE:
        name, what, after = changed["name"], changed["what"], changed["after"]
        said = (f"a staged loop keeps each value's {what} from step to step, and `{name}` "
                f"changes {what} ({changed['before']} before the loop, {after} after one "
                "step): ")
        varying = _invariant(changed["before"], after) if what == "shape" else None
        if varying is not None:  # it grows: no one shape holds it, a None there does
            return (said + "let it vary there with `tf.autograph.experimental."
                    f"set_loop_options(shape_invariants=[({name}, tf.TensorShape({varying}))])`"
                    " first in the loop's body (or collect the values in a tf.TensorArray), "
                    f"{_OR_ELSE[code]}.")
        return said + f"start `{name}` as a tensor of {what} {after} before the loop, " \
            f"{_OR_ELSE[code]}."

    if code == "AGX004" and stacked and "InaccessibleTensorError" not in error:
        met = _MEET.search(error)
        if met:
            return (f"the stacked items and the values the body meets them with differ in "
                    f"dtype ({met['have']} and {met['need']}): write the "
                    "items in the dtype of the values they meet, or keep the loop unrolled if "
                    "its count is small and fixed.")
        return ("the body does not work with a tensor item: make what it does with the item "
                "work on a tensor (index a stacked tensor, not a Python list), or keep the "
                "loop unrolled if its count is small and fixed.")
    if code == "AGX004":
        if "InaccessibleTensorError" in error:
            return ("the body fills a Python list, which a staged loop cannot: collect the "
                    "values in a tf.TensorArray as well (AGX003), or keep the loop unrolled "
                    "if its count is small and fixed.")
    return _INSTEAD.get(code, "")


# A live call (a notebook's): its arguments, its keyword arguments and the function's module
# namespace; a trial calls the rewritten function, made in a copy of that namespace, with
# those objects, where a call written as text cannot say them.
Live = tuple[tuple[Any, ...], dict[str, Any], dict[str, Any]]


def try_rewrites(target: str, text: str, findings: list[Finding], report: Any,
                 call: str | None, budget: float = TRY_BUDGET_S,
                 live: Live | None = None) -> list[Finding]:
    """``findings`` with each offered rewrite tried in ``budget`` seconds in all (``report``:
    the function's own trace; ``call``: the arguments the user gave, None for its own;
    ``live``: the arguments themselves, a notebook's objects, which the trials pass as
    they are). A finding in a function the trace reached (a helper) is tried as well, by
    tracing the explored function with the helper rewritten (in its file, or in its own
    module, imported from a rewritten copy); its rewrite is still not offered (``--try`` is
    the explored function's). One whose file a trial cannot load rewritten (a notebook's
    cell) says it was not tried; one the program runs without AutoGraph (a Keras 3 layer
    called it) is not tried, its fix being no AutoGraph rewrite."""
    traced = report is not None and report.inventory is not None and report.error is None
    # One trial costs about what the function's own load and trace did.
    cost = sum(report.timings.get(k, 0.0) for k in ("load_s", "convert_s", "trace_s")) \
        if report is not None else 0.0
    root_file = report.file if report is not None else None
    start = time.perf_counter()
    done = []
    for finding in findings:
        helper = finding.function is not None
        # The text the rewrite changes: the explored function's file, or a helper's own.
        own: str | None = text
        if helper and _runs_unconverted(report, finding):
            # the program runs the helper as plain Python (a Keras 3 layer called it): a
            # trial, traced with AutoGraph, would say nothing of the program
            done.append(replace(finding, rewrite=None))
            continue
        if helper:
            own = text if finding.file == root_file else _module_text(finding.file)
            words = described(own, finding, call, True) if own is not None else None
            if words is None and own is not text:  # no rewrite there, or not a module
                done.append(_elsewhere(finding))
                continue
            finding = replace(finding, rewrite=words)
        if finding.rewrite is None or (live is not None
                                       and (helper or finding.code == "AGX009")):
            # (a live call's arguments are objects: a rewrite of the call's text has none;
            # a live trial compiles the explored function alone, not its helpers)
            done.append(replace(finding, rewrite=None) if helper else finding)
            continue
        if not traced and not finding.cause:  # its cause's rewrite may make it trace
            tried = Tried("not-tried", why_not="not-traced")
        elif time.perf_counter() - start + cost > budget:
            tried = Tried("not-tried", why_not="budget", budget_s=budget)
        elif own is not None and own is not text:  # a helper of another file's module
            tried = _trial(target, text, finding, report.call, call, live,
                           module=(finding.file or "", own))
            # (an error's line is one of the explored function's file: not said)
            tried = replace(tried, error_line=None)
        else:
            tried = _trial(target, text, finding, report.call, call, live)
        floated = None
        if own is text and time.perf_counter() - start + cost <= budget \
                and _int_met_floats(finding, tried, text):
            # what the fix then says to pass, tried too: said only as it traced
            floated = _trial(target, text, finding, report.call, call, live, dtype="tf.float32")
        made = _with_trial(finding, tried, own or text, floated)
        done.append(replace(made, rewrite=None) if helper else made)
    return done


def _runs_unconverted(report: Any, finding: Finding) -> bool:
    """Whether the program runs the helper loop of ``finding`` without AutoGraph."""
    return any(r.function == finding.function and r.file == finding.file
               and r.runs_unconverted(finding.line) for r in getattr(report, "reached", ()))


def _module_text(path: str | None) -> str | None:
    """The source of a helper's file where a trial can load it rewritten (a module's .py
    file); None otherwise (a notebook's cell, a file gone)."""
    import os

    from agexplorer.source.targets import read_source

    if not path or not path.endswith(".py") or not os.path.isfile(path):
        return None
    try:
        return read_source(path)
    except AgxError:  # unreadable: no trial there
        return None


def _elsewhere(finding: Finding) -> Finding:
    """A helper's finding whose rewrite cannot be tried (its file is a notebook's cell, or
    gone): where a rewrite exists, its fix says it was not tried."""
    from agexplorer.source.cells import source_text

    try:
        other = source_text(finding.file or "")
    except Exception:  # noqa: BLE001 - a file gone or unreadable: nothing to say there
        return finding
    if described(other, finding, None, True) is None:
        return finding
    return _with_trial(finding, Tried("not-tried", why_not="other-file"), other)


def _trial(target: str, text: str, finding: Finding, traced_call: str | None,
           call: str | None, live: Live | None = None,
           module: tuple[str, str] | None = None, dtype: str | None = None) -> Tried:
    """One trace of the rewrite (``traced_call``: the arguments the function was traced
    with, which AGX009 rewrites; ``call``: the user's own, None for the file's; ``live``:
    the arguments themselves, passed as they are, where the rewrite keeps the call;
    ``module``: a helper's file and source where the finding is there, in another file than
    the explored function's, whose module the trace then imports rewritten; ``dtype``:
    AGX009's tensor made of that dtype)."""
    from agexplorer.engine.buffer import module_shadowed, shadowed
    from agexplorer.engine.pipeline import build_report

    made = rewrite(module[1] if module else text, finding, traced_call,
                   import_tf=finding.function is not None, dtype=dtype)
    if made is None or (module is not None and made.new_text is None):
        return Tried("not-tried", why_not="not-traced")  # (described from the same text)
    after_call = made.new_call if made.new_call is not None else call
    new_text = made.new_text if made.new_text is not None else text
    copy = None
    with contextlib.ExitStack() as stack:
        if module is not None:
            copy = stack.enter_context(module_shadowed(module[0], new_text))
            new_text = text
        new, _ = stack.enter_context(shadowed(target, new_text))
        try:
            after = build_report(new, after_call) if live is None or made.new_call \
                or made.new_text is None else _live_report(target, made.new_text, live)
        except AgxError as exc:
            return _failed(exc)
    if after.error is not None:
        return _failed(after.error)
    if finding.code not in _LOOP_REWRITES:
        return Tried("traced")
    line = made.new_line or finding.line  # lines inserted above it moved it
    # A helper's loop: its verdicts in the explored function's new trace.
    where = copy or after.file
    verdicts = after.statements if finding.function is None else next(
        (r.statements for r in after.reached
         if r.function == finding.function and r.file == where), ())
    loop = next((v for v in verdicts if v.line == line and v.kind in LOOPS), None)
    if loop is not None and loop.verdict == "staged":
        return Tried("staged", graph_op=loop.graph_op)
    return Tried("unstaged")


def _live_report(target: str, new_text: str, live: Live) -> Any:
    """The report of the rewritten function of ``target`` called with ``live``'s arguments,
    in the user's own process (a notebook's): the function's lines alone are compiled from
    a file of their own, at their lines, into a copy of its module's namespace, so no
    module-level code of the file runs again and nothing of the session changes."""
    import __future__

    import ast
    import os
    import shutil
    import tempfile

    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.live import load_callable
    from agexplorer.engine.pipeline import report_from_loaded
    from agexplorer.source.targets import find_function_node, parse_spec

    spec = parse_spec(target)
    node = find_function_node(ast.parse(new_text), spec.qualname or "")
    if node is None:
        raise AgxError("unknown-function", f"the rewrite has no function {spec.qualname}")
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = new_text.splitlines(keepends=True)
    folder = tempfile.mkdtemp(prefix="agx-trial-")
    copy = os.path.join(folder, os.path.basename(spec.path))
    try:
        source = "\n" * (first - 1) + "".join(lines[first - 1:node.end_lineno])
        with open(copy, "w", encoding="utf-8") as f:  # AutoGraph reads the source there
            f.write(source)
        namespace = dict(live[2])
        # The module's `from __future__` features hold for its def (annotations unevaluated).
        flags = 0
        for feature in __future__.all_feature_names:
            if namespace.get(feature) is getattr(__future__, feature):
                flags |= getattr(__future__, feature).compiler_flag
        code = compile(source, copy, "exec", flags=flags, dont_inherit=True)
        with capture_output():
            try:
                exec(code, namespace)  # the def (and its decorators) alone
                loaded = load_callable(namespace[node.name], live[0], live[1])
            except Exception as exc:  # noqa: BLE001 - user code: the trial failed, so it says
                raise AgxError("trace-failed", f"making the rewritten {node.name} raised "
                               f"{type(exc).__name__}: {exc}",
                               raised=f"{type(exc).__name__}: {exc}") from None
            return report_from_loaded(loaded)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _failed(error: AgxError) -> Tried:
    """What tracing raised, without the temporary copy's path: ``TypeError: ...``."""
    return Tried("fails", error=(error.raised or error.what).rstrip("."), error_line=error.line)


def _int_met_floats(finding: Finding, tried: Tried, text: str) -> bool:
    """Whether AGX009's int tensor failed where the function computes with floats, and the
    name bounds no ``range()`` (a float tensor there would raise when the function runs
    eagerly): the fix then says to pass a float32 one."""
    return finding.code == "AGX009" and tried.outcome == "fails" and bool(finding.subject) \
        and _INT_MEETS_FLOAT.search(tried.error or "") is not None \
        and not _bounds_range(text, finding.line, finding.subject)


def _with_trial(finding: Finding, tried: Tried, text: str = "",
                floated: Tried | None = None) -> Finding:
    """The finding with its trial said in its fix; a rewrite that fails is not offered
    (``text``: the file's source, read for what the finding's name does there; ``floated``:
    AGX009's float32 tensor, tried where the int one met floats)."""
    sentence = tried.text()
    said = sentence[0].upper() + sentence[1:] + "."
    if floated is not None:
        said = said[:-1] + ("; with tf.float32, it traces." if floated.outcome == "traced"
                            else "; with tf.float32, it fails too.")
    if tried.outcome == "fails":
        # What to do instead (the finding's own fix, where none is known: it is not the
        # rewrite's text alone).
        # (a float32 tensor is tried only where the int one met floats: known then)
        floats = floated is not None or _int_met_floats(finding, tried, text)
        stacked = (finding.fix or "").startswith(STACK_ITEMS)
        instead = _instead(finding.code, tried.error or "", finding.subject, floats,
                           stacked, floated) or finding.fix or ""
        return replace(finding, tried=tried, rewrite=None, fix=f"{instead} {said}".strip())
    return replace(finding, tried=tried, fix=f"{finding.fix} {said}" if finding.fix else said)


def _bounds_range(text: str, line: int, name: str | None) -> bool:
    """Whether ``name`` is read by a ``range(...)`` call's arguments in the innermost
    function of ``text`` that holds ``line``."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False
    holders = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and n.lineno <= line <= (n.end_lineno or n.lineno)]
    if not holders or name is None:
        return False
    inner = max(holders, key=lambda n: n.lineno)
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range"
               and any(isinstance(m, ast.Name) and m.id == name
                       for a in n.args for m in ast.walk(a))
               for n in ast.walk(inner))
