"""The doctor's entry point: every check over one function (or the module), each finding's rewrite."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from agexplorer.doctor import python_state, retracing, tensors
from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import ParsedFile
from agexplorer.doctor.reached import HELPER_CHECKS, reached_findings
from agexplorer.doctor.retracing import module_loops
from agexplorer.doctor.rewrites import described
from agexplorer.doctor.tried import TRY_BUDGET_S, Live, try_rewrites
from agexplorer.model.doctor import DoctorReport, Finding
from agexplorer.model.errors import AgxError

# The checks (findings are sorted by position afterwards): those that hold for any code
# run while tracing, which the helpers the trace reached get too, and those about the
# examined tf.function itself (a list or attribute it changes, its variables and tensors'
# values, a tf.function made inside, its Python number arguments).
CHECKS: tuple[Callable[[ExaminedFunction], None], ...] = (
    *HELPER_CHECKS, python_state.changed_lists, python_state.changed_attributes,
    tensors.variables, tensors.values, retracing.functions, retracing.scalars)


def module_findings(text: str) -> list[Finding]:
    """Findings about the module itself, not one function (AGX008 in top-level loops)."""
    return module_loops(ParsedFile(text))


# -- the entry point --------------------------------------------------------------------

def diagnose(target: str, call: str | None = None,
             progress: Callable[[str], None] | None = None, report: Any = None,
             try_budget: float | None = TRY_BUDGET_S, init: str | None = None,
             origin: str | None = None, reached: bool = False,
             unconverted: bool = False) -> DoctorReport:
    """The findings for ``PATH::QUALNAME``: the static checks, cross-checked with its trace.

    ``report``: a :class:`~agexplorer.model.report.Report` already built for the
    same target and call (it is built here otherwise). A function that fails to
    trace still gets its static findings, and the error. Each finding's rewrite is
    tried (one trace of a rewritten copy) within ``try_budget`` seconds in all; None:
    not tried, and the finding says nothing of it. ``origin``: where ``call`` came from,
    when not --call; ``reached``: the run reached the function only from another one's
    trace; ``unconverted``: the run ran it only as plain Python (see DoctorRequest).
    """
    from agexplorer.engine.pipeline import build_report
    from agexplorer.source.targets import parse_source, parse_spec, read_source

    spec = parse_spec(target)
    text = read_source(spec.path)
    parse_source(spec.path, text)  # a syntax error: one sentence, before TensorFlow loads
    if spec.qualname is None:
        raise AgxError("no-function", f"name a function: {spec.path}::FUNCTION.")
    load_error: AgxError | None = None
    if report is None:
        try:
            report = build_report(target, call, progress=progress, init=init)
        except AgxError as exc:
            if exc.kind != "load-error":
                raise
            load_error = exc  # the module does not load: the parse alone still helps
    if unconverted and report is not None:  # as the run ran it, not as tf.function would
        from agexplorer.engine.calltree import ran_unconverted

        report = ran_unconverted(report)
    return examine(spec.path, text, spec.qualname, report, call, target=target,
                   progress=progress, try_budget=try_budget, load_error=load_error,
                   origin=origin, reached=reached)


def examine(path: str, text: str, qualname: str, report: Any, call: str | None = None, *,
            target: str | None = None, progress: Callable[[str], None] | None = None,
            try_budget: float | None = None, load_error: AgxError | None = None,
            values: dict[str, Any] | None = None, origin: str | None = None,
            reached: bool = False, live: Live | None = None) -> DoctorReport:
    """The findings for ``qualname`` of the source ``text`` (of ``path``), cross-checked with
    ``report`` (None: the static checks alone). The rewrites are tried only for a
    ``target`` file that can be loaded again (``try_budget`` seconds in all). ``values``:
    the live call's arguments by parameter, read instead of the call's text; ``live``: the
    call's arguments themselves (a notebook's), which the trials pass as they are (a rewrite
    of the call, AGX009, is then left untried). ``origin`` and ``reached``: as for diagnose.
    """
    mod = ParsedFile(text)
    func, method = mod.find(qualname, report.first_line if report else 0)
    if func is None:
        raise AgxError("unknown-function", f"{path} has no function '{qualname}' "
                       "that the doctor can read.")
    exam = ExaminedFunction(mod, func, method, report, values, origin, traced_alone=not reached)
    # A plain function that calls the file's tf.functions (``main``): the program runs it in
    # Python, so the checks for code run while tracing would misread it (a print there runs
    # on every call), and so would the helpers it calls itself; what is traced is the
    # tf.functions it calls and what they call.
    drives = tuple(getattr(report, "drives", ()) or ())
    if not drives:
        for check in CHECKS:
            check(exam)
    findings = exam.findings
    wrapped = qualname.split(".")[-1]
    if not drives:
        findings += [f for f in module_loops(mod) if f.subject == wrapped]
    # Each finding gains its rewrite's description as a new record, not by mutation. Where
    # Keras 3 runs the function unconverted, range -> tf.range cannot stage anything.
    findings = sorted((replace(f, rewrite=None if exam.keras3 and f.code == "AGX004" else
                               described(text, f, report.call if report else call))
                       for f in findings), key=lambda f: (f.line, f.col, f.code))
    # Then the helpers the trace reached (their rewrites are not offered: another function,
    # maybe another file; the fix says what to do there, tried where it is in this file).
    helpers = reached_findings(report, mod, report.file if report else path)
    if drives:
        helpers = [f for f in helpers if any(site.function in drives
                                             for site in (f.call_path or ())[1:])]
    if try_budget is not None and target is not None:
        if progress is not None and any(f.rewrite for f in findings):
            progress(f"trying the rewrites for {qualname}")
        findings = try_rewrites(target, text, findings + helpers, report, call, try_budget,
                                live)
    else:
        findings += helpers
    first = min([func.lineno, *(d.lineno for d in func.decorator_list)])
    return DoctorReport(
        file=report.file if report else path, function=qualname,
        first_line=first, end_line=func.end_lineno or func.lineno,
        call=report.call if report else call,
        call_origin=exam.origin,
        traced=exam.traced, findings=findings,
        error=report.error if report is not None else load_error,
        note=driver_note(qualname, drives) if drives else None)


def driver_note(qualname: str, drives: tuple[str, ...]) -> str:
    """What the doctor checks of a plain function that calls the file's tf.functions."""
    name = qualname.split(".")[-1]
    return (f"{name} is no tf.function: your program runs it in Python, so its own lines are "
            "not checked for what runs only while tracing (a print there runs on every "
            f"call); the findings are those of the tf.function{'s' if len(drives) > 1 else ''}"
            f" it calls ({', '.join(drives)}), as the trace of tf.function({name}) reaches them")


def doctor_targets(path: str) -> list[str]:
    """The qualnames ``agexplorer doctor PATH`` examines (see :func:`doctor_plan`)."""
    return doctor_plan(path)[0]


def doctor_plan(path: str) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """What ``agexplorer doctor PATH`` examines, from one static parse of the file: every
    function but dunder methods (``__init__`` and friends are not traced by tf.function),
    ``__call__`` excepted, and but the plain functions that call the file's tf.functions
    (``main`` calling ``train_epoch``), which it leaves out and says so, with those calls:
    the program runs them in Python and nothing traces them, so the checks for code run
    while tracing would misread them (a print there runs on every call)."""
    from agexplorer.engine.pipeline import list_file
    from agexplorer.source.targets import traceable

    functions = list_file(path)
    return ([f.qualname for f in functions if traceable(f.qualname) and not f.drives],
            {f.qualname: f.drives for f in functions if f.drives})
