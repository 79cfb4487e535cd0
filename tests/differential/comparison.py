"""One generated program through both sides: the oracle's plain trace and agexplorer's report,
compared fact by fact; what the fast test and the benchmark both run.

An *internal error* is a failure of agexplorer's own: an exception out of ``build_report`` or
out of what is done with a report (pickling it for the worker's pipe, its JSON, its text
rendering), or a report that could not trace what plain tf.function traced (or traced what
it refused). A *disagreement* is a fact the oracle knows that the report states otherwise.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import os
import pickle
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from corpus import Program
from oracle import Fact, Oracle, observe, trace_ops

_modules = itertools.count()


@dataclass(frozen=True)
class Check:
    """One fact compared: where (a statement's line, or a line's ops), what, both answers."""

    line: int | None
    what: str  # "verdict", "times", "iterations", "branch", "graph_op", "ops_created",
    #            "ops_at_line", "loop_var", "statements"
    want: Any  # the oracle's
    got: Any  # agexplorer's

    @property
    def ok(self) -> bool:
        return self.want == self.got


@dataclass
class Outcome:
    """What one program gave: compared, skipped (tf.function refused it) or an internal error."""

    program: Program
    status: str  # "compared" | "skipped" | "internal-error"
    reason: str = ""  # why skipped, or the internal error
    checks: list[Check] = field(default_factory=list)
    statements: int = 0  # statements whose facts were compared
    unknown: Counter = field(default_factory=Counter)  # facts the oracle left out, by why

    @property
    def disagreements(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def explain(self) -> str:
        """The program, numbered, and what went wrong in it (for a failing test)."""
        numbered = "\n".join(f"{i:3} | {line}" for i, line in
                             enumerate(self.program.source.splitlines(), 1))
        head = (f"seed {self.program.seed} (max_ticks {self.program.max_ticks}), "
                f"call f({self.program.call}): {self.status}")
        what = [self.reason] if self.reason else []
        what += [f"line {c.line}: {c.what}: oracle {c.want!r}, agexplorer {c.got!r}"
                 for c in self.disagreements]
        return "\n".join([head, numbered, *what])


def _load(path: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"differential_{next(_modules)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _exercise(report: Any) -> None:
    """What the worker and the commands do with a report: pickle it, write its JSON, print it."""
    from rich.console import Console

    from agexplorer.render.terminal import render_report

    pickle.loads(pickle.dumps(report))
    json.dumps(report.to_dict())
    render_report(report, Console(file=io.StringIO(), width=120))


def run(program: Program, folder: str, tf: Any, render: bool = True) -> Outcome:
    """Write ``program`` to ``folder``, trace it both ways and compare."""
    from agexplorer.engine.pipeline import build_report

    path = os.path.join(folder, f"program_{program.seed}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(program.source)
    refused = None
    try:
        args = eval(f"({program.call},)", {"tf": tf})  # the corpus's own call text
        ops = trace_ops(tf, _load(path), program.function, args, path)
    except Exception as exc:  # noqa: BLE001 - tf.function refusing the program is data
        refused = f"{type(exc).__name__}"
    try:
        report = build_report(f"{path}::{program.function}", program.call)
        if render:
            _exercise(report)
    except Exception:  # noqa: BLE001 - anything out of agexplorer is what is hunted
        return Outcome(program, "internal-error", traceback.format_exc(limit=-6))
    if refused is not None:
        if report.error is None:
            return Outcome(program, "internal-error",
                           f"tf.function refused it ({refused}), agexplorer traced it")
        return Outcome(program, "skipped", f"tf.function refused it ({refused})")
    if report.error is not None:
        return Outcome(program, "internal-error", "tf.function traced it, agexplorer said: "
                       + report.error.message)
    return compare(program, observe(ops, program.source, program.function), report)


def compare(program: Program, oracle: Oracle, report: Any) -> Outcome:
    """Every fact the oracle knows beside the report's answer."""
    outcome = Outcome(program, "compared")
    checks = outcome.checks
    got = {v.line: v for v in [*report.statements,
                               *(v for f in report.reached for v in f.statements)]}
    checks.append(Check(None, "statements", sorted(f.line for f in oracle.facts), sorted(got)))
    for fact in oracle.facts:
        v = got.get(fact.line)
        if v is None:
            continue
        outcome.statements += 1
        outcome.unknown.update(f"{what}: {why}" for what, why in fact.unknown.items())
        checks.extend(_statement_checks(fact, v))
        # AutoGraph's own variables (break_, retval_) are no loop variables of the user's.
        foreign = sorted(lv.name for lv in v.loop_vars if lv.name not in oracle.names)
        checks.append(Check(fact.line, "loop_var names not in the source", [], foreign))
    theirs = report.inventory.by_line(report.file) if report.inventory else {}
    for line in sorted({*oracle.ops_by_line, *(k for k in theirs if k is not None)}):
        checks.append(Check(line, "ops_at_line", oracle.ops_by_line.get(line, 0),
                            theirs.get(line, 0)))
    return outcome


def _statement_checks(fact: Fact, v: Any) -> list[Check]:
    line = fact.line
    checks = [Check(line, "ops_created", fact.ops_created, v.ops_created)]
    for what in ("verdict", "times", "graph_op"):
        if what not in fact.unknown and not (what == "graph_op" and fact.verdict not in
                                             ("staged", "mixed")):
            checks.append(Check(line, what, getattr(fact, what), getattr(v, what)))
    if fact.verdict == "mixed" and "verdict" not in fact.unknown:
        checks.append(Check(line, "mixed", fact.mixed, v.mixed))
    conditional = fact.kind in ("if", "ifexp")
    if fact.verdict == "python" and not conditional and "iterations" not in fact.unknown:
        checks.append(Check(line, "iterations", fact.iterations, v.iterations))
    if fact.verdict == "python" and conditional and "branch" not in fact.unknown:
        checks.append(Check(line, "branch", fact.branch, v.branch))
    ran = fact.verdict in ("staged", "mixed") or bool(fact.iterations)
    if ran:
        for name in fact.created:  # the loop defined it (unless a staged loop carries it in)
            var = next((lv for lv in v.loop_vars if lv.name == name), None)
            seen = None if var is None else (var.defined_by_loop, var.changed)
            checks.append(Check(line, f"loop_var {name}: (defined by the loop, changed)",
                                (not fact.carried, False), seen))
    return checks
