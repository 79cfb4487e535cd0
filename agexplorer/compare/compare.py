"""Build a comparison of two functions from the report and run lab of each side."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agexplorer.model.compare import CompareSide, Comparison
from agexplorer.model.errors import AgxError
from agexplorer.model.lab import RunLab
from agexplorer.model.report import Report
from agexplorer.source.targets import parse_spec

# The progress said as each side starts: "comparing: the left side, bad_loop".
_PHASE = "comparing: the {} side"


def side_of(report: Report, lab: RunLab | None) -> CompareSide:
    """One side as plain data: the report's verdicts, op counts, trace time and code (the
    live graph stays behind), and the run lab."""
    inv = report.inventory
    return CompareSide(file=report.file, function=report.function, call=report.call,
                       call_origin=report.call_origin,
                       op_count=len(inv.ops) if inv is not None else None,
                       ops_by_type=inv.by_type() if inv is not None else {},
                       trace_s=report.timings.get("trace_s") if inv is not None else None,
                       statements=list(report.statements),
                       code=report.conversion.code if report.conversion else None,
                       lab=lab, error=report.error)


def failed_side(target: str, call: str | None, error: AgxError) -> CompareSide:
    """A side that could not be analysed at all (its module raised on load, say)."""
    spec = parse_spec(target)
    return CompareSide(file=spec.path, function=spec.qualname or "", call=call, error=error)


def compare(sides: Sequence[Any], analyse: Callable[[Any], Mapping[str, Any]],
            progress: Callable[[str], None] | None = None) -> Comparison:
    """Analyse both ``sides`` (each with a ``target`` and a ``call``: the worker's report
    requests) with ``analyse`` (the worker's report handler: ``{"report", "lab"}``) and
    compare them. A side that fails becomes its error; the other side is still analysed."""
    say = progress or (lambda phase: None)
    built: list[CompareSide] = []
    for name, side in zip(("left", "right"), sides, strict=True):
        say(f"{_PHASE.format(name)}, {side.target.rpartition('::')[2]}")
        try:
            answer = analyse(side)
        except AgxError as exc:
            built.append(failed_side(side.target, side.call, exc))
            continue
        built.append(side_of(answer["report"], answer["lab"]))
    left, right = built
    return Comparison.of(left, right)


def compare_apart(request: Any, ask: Callable[[Any, Callable[[str], None]], Any]) -> Comparison:
    """Compare in one request (``ask(request, on_progress)``: the worker's answer); when a
    side's code ends the worker (os._exit, a signal, the OOM killer) the answer is lost, so
    the other side is analysed again in its own request, on the fresh worker, and the side
    that ended it becomes that sentence. ``request`` is a CompareRequest."""
    reached = ["left"]  # the side the worker was on, from compare()'s progress

    def heard(phase: str) -> None:
        for name in ("left", "right"):
            if phase.startswith(_PHASE.format(name)):
                reached[0] = name

    try:
        return ask(request, heard)
    except AgxError as exc:
        if exc.kind != "worker-died":
            raise
        ended = AgxError(exc.kind, exc.what.rstrip('.'), advice="the other side was analysed "
                         "alone in a fresh worker.", line=exc.line, exit_code=exc.exit_code)
    left, right = request.sides()
    dead = left if reached[0] == "left" else right

    def analyse(side: Any) -> Mapping[str, Any]:
        if side is dead:
            raise ended
        return ask(side, lambda phase: None)

    return compare((left, right), analyse)
