"""A staged loop whose variable changes shape or dtype across an iteration (AGX010)."""

from __future__ import annotations

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import LOOP_NODES
from agexplorer.model.loopvars import loop_var_fix


def loop_shapes(exam: ExaminedFunction) -> None:
    """AGX010: a staged loop's variable whose dtype or shape after one body trace is not the
    one it entered with. It reads the recorded loop, which a trace that failed on that very
    change still has (the verdict is kept beside the error)."""
    for node in exam.nodes():
        if not isinstance(node, LOOP_NODES):
            continue
        verdict = exam.verdict(node)
        if verdict is None or verdict.verdict not in ("staged", "mixed"):
            continue
        kind = "for" if isinstance(node, gast.For) else "while"
        for var in verdict.loop_vars:
            if not var.changed:
                continue
            exam.add("AGX010", node,
                     f"`{var.name}` changes {var.change or 'type'} in the staged "
                     f"{kind} loop: {var.before.text()} before the loop, {var.after.text()} after "
                     "one iteration, so tracing fails", loop_var_fix(var), "trace",
                     subject=var.name)
