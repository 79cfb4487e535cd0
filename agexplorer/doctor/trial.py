"""Try a fix: a rewrite traced and run before and after, side by side; apply it to the file.

Both versions are measured (verdicts, op count, trace time, the run lab's medians) and their
results compared; the rewritten file lives in a temporary folder until the user applies it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import function_diff, rewrite
from agexplorer.model.doctor import Finding, FixTrial, Rewrite, TrialSide
from agexplorer.model.errors import ARGUMENT_ERRORS, AgxError


def pick_finding(findings: list[Finding], choice: str) -> Finding:
    """The finding ``--try CODE|LINE|CODE@LINE`` names, among those with a rewrite."""
    wanted = choice.strip().upper()
    ready = [f for f in findings if f.rewrite is not None]
    code, _, line = wanted.partition("@") if "@" in wanted else (
        (wanted, "", "") if wanted.startswith("AGX") else ("", "", wanted))
    match = [f for f in ready if (not code or f.code == code) and (not line or str(f.line) == line)]
    if match:
        return match[0]
    offered = ", ".join(f"{f.code} at line {f.line} ({f.rewrite})" for f in ready)
    raise AgxError("no-rewrite", f"no finding with a mechanical rewrite matches '{choice}'",
                   advice=f"these have one: {offered}." if offered else
                   "no finding of this function has one (see the fix text instead).")


def _side(report: Any, lab: Any) -> TrialSide:
    return TrialSide(file=report.file, call=report.call, verdicts=report.statements,
                     op_count=len(report.inventory.ops) if report.inventory else None,
                     trace_s=report.timings.get("trace_s"), error=report.error, lab=lab)


def _lab(target: str, call: str | None, report: Any, options: dict[str, Any]) -> Any:
    from agexplorer.lab.runs import run_lab

    if report.error is not None and report.error.kind in ARGUMENT_ERRORS:
        return None
    return run_lab(target, call, **options)


def _inputs(target: str, call: str | None) -> Any:
    """The call's arguments, evaluated once for both sides (the same random tensor); None
    when they cannot be (the labs then say why, each on its own)."""
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.load import load_target

    try:
        with capture_output():
            loaded = load_target(target, call)
    except (Exception, SystemExit):  # noqa: BLE001 - reported by the trace and the labs
        return None
    return loaded.args, loaded.kwargs


def _compare(old_target: str, old_call: str | None, new_target: str, new_call: str | None,
             inputs: Any = None) -> tuple[bool | None, str]:
    """The original run eagerly (what the Python means) against the rewrite as a graph."""
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.load import load_target
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.inputs import shared
    from agexplorer.lab.runs import same_result, summarize, to_host

    tf = import_tf()
    doing = "running the original eagerly"
    try:
        with capture_output():
            old = load_target(old_target, old_call)
            args, kwargs = (old.args, old.kwargs) if inputs is None else \
                shared(inputs, (old.args, old.kwargs))
            expected = to_host(old.bound(*args, **kwargs))
            doing = "running the rewrite as a graph"
            new = load_target(new_target, new_call)
            args, kwargs = (new.args, new.kwargs) if inputs is None or new_call != old_call \
                else shared(inputs, (new.args, new.kwargs))
            got = to_host(tf.function(new.bound, input_signature=new.signature)(
                *args, **kwargs))
    except AgxError as exc:
        return None, f"not compared: {doing} failed ({exc.message})"
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        return None, f"not compared: {doing} raised {type(exc).__name__}: {first}"
    equal = same_result(expected, got)
    return equal, (f"the original run eagerly gave {summarize(expected, 120)}; the rewrite as "
                   f"a graph gave {summarize(got, 120)}")


def try_fix(target: str, choice: str, call: str | None = None, budget: float = 0.5,
            device: str | None = None, progress: Callable[[str], None] | None = None,
            run: bool = True, skip_xla: bool = False, mode_timeout: float | None = None
            ) -> FixTrial:
    """Rewrite ``target`` for the finding ``choice`` names (a code or a line) and compare.

    Both versions are traced (verdicts, op count, trace time) and, unless
    ``run`` is False, run in the run lab (eager, graph, XLA medians); the
    rewritten file lives in a temporary folder, the user's file is not touched.
    Each mode of each side is boxed to ``mode_timeout`` seconds (what a mode measured
    by then is kept) and XLA is left out with ``skip_xla``; both sides get the same
    argument values when the rewrite keeps the call.
    """
    from agexplorer.engine.buffer import shadowed
    from agexplorer.engine.pipeline import build_report
    from agexplorer.source.targets import parse_spec, read_source

    say = progress or (lambda phase: None)
    spec = parse_spec(target)
    text = read_source(spec.path)
    report = build_report(target, call, progress=progress)
    doctor = diagnose(target, call, report=report, try_budget=None)  # tried in full below
    finding = pick_finding(doctor.findings, choice)
    made = rewrite(text, finding, report.call)
    assert made is not None  # pick_finding only offers findings whose rewrite exists
    after_call = made.new_call if made.new_call is not None else call
    inputs = _inputs(target, call)
    options: dict[str, Any] = dict(device=device, budget=budget, progress=progress,
                                   skip_xla=skip_xla, mode_timeout=mode_timeout, inputs=inputs)
    say(f"running {doctor.function} as it is")
    before = _side(report, _lab(target, call, report, options) if run else None)
    if after_call != call:
        options["inputs"] = None  # another call: its own arguments
    with shadowed(target, made.new_text if made.new_text is not None else text) as (new, shadow):
        say(f"tracing {doctor.function} rewritten ({made.description})")
        after_report = shadow.fix(build_report(new, after_call))
        lab = _lab(new, after_call, after_report, options) if run else None
        after = _side(after_report, shadow.fix(lab))
        equal, note = _compare(target, call, new, after_call, inputs)
        note = shadow.fix_text(note) or ""
    if made.new_text is not None:
        diff = function_diff(text, made.new_text, doctor.first_line, doctor.end_line,
                             os.path.basename(spec.path))
    else:
        name = doctor.function.split(".")[-1]
        diff = (f"--- call (before)\n+++ call (after)\n@@ call @@\n-{name}({report.call})\n"
                f"+{name}({made.new_call})\n")
    return FixTrial(file=doctor.file, function=doctor.function, finding=finding, rewrite=made,
                    diff=diff, before=before, after=after, results_equal=equal,
                    results_note=note)


def apply_fix(path: str, made: Rewrite) -> str:
    """Write ``made`` to ``path`` atomically, keeping its encoding, BOM and line endings.

    Refuses when the file changed since the rewrite was made; returns the real path written
    (a symlink's target). A failed write leaves the file untouched (see ``write_source``).
    """
    from agexplorer.source.files import read_source_file, write_source

    path = os.path.abspath(path)
    if made.new_text is None:
        raise AgxError("call-only", f"the {made.code} fix changes the call, not the file: "
                       f'call the function with --call "{made.new_call}".')
    current = read_source_file(path)
    if not made.made_from(current.text):
        raise AgxError("file-changed", f"{path} changed on disk since the fix was made",
                       advice="run the doctor again and retry.")
    return write_source(path, made.new_text, like=current)
