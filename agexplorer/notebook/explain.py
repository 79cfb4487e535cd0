"""``agexplorer.explain(fn, *args, **kwargs)``: the engine's report for a live call, in-process.

The user's real model and batch are already in memory (a notebook, an IPython session, a
test): this traces ``fn`` with them, here, and returns the report the explorer shows,
without the ``PATH::FUNC --call`` round trip. What the call leaves behind is what the call
itself would: the trace is made by a fresh ``tf.function`` of the Python function (the
user's own tf.function keeps its cache, unless ``reuse=True``), an unbuilt layer gets the
weights a call would build and no more, and TensorFlow's and AutoGraph's global settings
are put back (notebook/settings.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agexplorer.notebook.explanation import Explanation
from agexplorer.notebook.target import NotExplainable, Target, build_layer, load, resolve

ORIGIN = "agexplorer.explain's arguments"


def explain(fn: Any, *args: Any, run: bool = False, reuse: bool = False,
            **kwargs: Any) -> Explanation:
    """Trace ``fn(*args, **kwargs)`` and return what AutoGraph did: the converted code
    with its source map, a verdict (and its reason and fix) for every if/for/while the
    trace reached across the call tree, the ops each line made and the trace's time.

    ``fn``: a function, a ``tf.function``, a bound method, or a Keras layer or model (its
    ``call``). ``run=True`` also times the call eagerly, as a graph and with XLA (the run
    lab; every variable the call's graph uses is put back afterwards). ``reuse=True``
    traces through ``fn``'s own tf.function, so its settings apply and its cache keeps the
    trace. A call that raises is the explanation's ``error``, at the user's line.
    """
    __tracebackhide__ = True  # IPython and pytest show the user's line, not agexplorer's
    return explain_call(fn, args, kwargs, run=run, reuse=reuse, origin=ORIGIN)


def explain_call(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], *,
                 run: bool = False, reuse: bool = False, origin: str = ORIGIN,
                 written: str | None = None,
                 progress: Callable[[str], None] | None = None) -> Explanation:
    """:func:`explain` with the call's arguments as a tuple and a dict (the magics'),
    ``origin`` naming where they came from in the report and ``written`` how the user
    wrote them."""
    __tracebackhide__ = True
    from agexplorer.notebook.settings import kept_settings

    for name, value in (("run", run), ("reuse", reuse)):
        if not isinstance(value, bool):
            raise NotExplainable(f"{name} must be True or False, got {value!r}.")
    target = resolve(fn)
    if reuse and target.tf_function is None:
        raise NotExplainable(f"reuse=True traces through a tf.function's own cache, and "
                             f"{target.name} is not a tf.function: drop reuse=True.")
    with kept_settings() as kept:
        loaded = load(target, tuple(args), dict(kwargs), origin, written)
        notes = _notes(kept.eager, target)
        loaded.args_error = build_layer(kept.tf, target, loaded)
        report = _report(loaded, target, reuse, notes, progress)
        report = _fixes_tried(loaded, target, report)
        lab = None
        if run and report.error is None:
            from agexplorer.notebook.running import run_restored

            lab = run_restored(kept.tf, loaded, progress)
    return Explanation(report, lab, notes)


def _notes(eager: bool, target: Target) -> list[str]:
    notes = []
    if eager:
        notes.append("tf.config.run_functions_eagerly(True) is on, so your tf.functions run "
                     "eagerly; this shows what they do as graphs, as they would with it off.")
    if getattr(target.tf_function, "_autograph", True) is False:
        notes.append(f"{target.name} is a tf.function made with autograph=False: TensorFlow "
                     "does not convert it, so its Python control flow runs as written; the "
                     "verdicts show what AutoGraph would do with it.")
    return notes


def can_try_fixes(loaded: Any, target: Target) -> bool:
    """Whether a rewrite of the function can be tried: a module-level function of a .py file,
    bare or under tf.function (its rewritten def is made again in a copy of its module's
    namespace; another decorator could register it twice). A cell's function cannot (its
    file is the notebook's), nor a method or a layer (a rewritten copy's class has no
    instance)."""
    import os

    from agexplorer.source.targets import TF_FUNCTION_NAMES

    info = next((f for f in loaded.functions if f.qualname == loaded.qualname), None)
    return target.layer is None and loaded.instance is None and loaded.own is None \
        and "." not in loaded.qualname and loaded.node is not None and info is not None \
        and all(d in TF_FUNCTION_NAMES for d in info.decorators) \
        and loaded.path.endswith(".py") and os.path.isfile(loaded.path) \
        and hasattr(loaded.pyfn, "__globals__")


def live_call(loaded: Any) -> tuple[tuple[Any, ...], dict[str, Any], dict[str, Any]]:
    """The call as a trial takes it: its arguments, and the function's module namespace."""
    return tuple(loaded.args), dict(loaded.kwargs), loaded.pyfn.__globals__


def _fixes_tried(loaded: Any, target: Target, report: Any) -> Any:
    """The report with its unrolled loops' fixes tried, as ``agexplorer report`` tries them
    (each rewrite traced, here with the call's own arguments), where they can be
    (:func:`can_try_fixes`)."""
    from agexplorer.model.doctor import offers_fix

    if report.error is not None or report.inventory is None \
            or not any(offers_fix(v) for v in report.statements):
        return report
    if not can_try_fixes(loaded, target):
        return report
    from agexplorer.doctor.verdict_fixes import tried_fixes

    return tried_fixes(f"{loaded.path}::{loaded.qualname}", loaded.text, report, None,
                       live=live_call(loaded))


def _report(loaded: Any, target: Target, reuse: bool, notes: list[str],
            progress: Callable[[str], None] | None) -> Any:
    """The report, traced by a fresh tf.function, or by the user's own (``reuse``)."""
    if not reuse:
        return traced_report(loaded, progress)
    user = target.tf_function
    before = user.experimental_get_tracing_count()
    loaded.traced_with = user
    report = traced_report(loaded, progress)
    if report.error is None and user.experimental_get_tracing_count() == before:
        # Its cache held a trace for this call already: nothing was traced, nothing watched.
        loaded.traced_with = None
        report = traced_report(loaded, progress)
        notes.append(f"{target.name} already held a trace for this call (kept as it is); "
                     "the verdicts come from a fresh tf.function's trace.")
    return report


def traced_report(loaded: Any, progress: Callable[[str], None] | None = None) -> Any:
    """The engine's report for ``loaded``, with what the trace printed and logged kept on it
    (as ``agexplorer report`` keeps it), not written into the notebook."""
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.pipeline import report_from_loaded

    with capture_output() as captured:
        report = report_from_loaded(loaded, progress or (lambda phase: None))
    report.output, report.log = captured.stdout, captured.log
    return report
