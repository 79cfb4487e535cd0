"""The doctor and the retrace explainer on live calls: ``%agx doctor f(x)``, ``%agx retrace f(a); f(b)``.

The same checks and the same explanation as ``agexplorer doctor`` and ``agexplorer
retrace``, given the function object and the session's own argument values instead of
``PATH::FUNC`` and argument strings; TensorFlow's settings are kept as for ``explain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agexplorer.notebook.explain import traced_report

if TYPE_CHECKING:
    from agexplorer.model.doctor import DoctorReport
    from agexplorer.model.retrace import RetraceReport

Call = tuple[str, tuple[Any, ...], dict[str, Any]]  # (as written, args, kwargs)


def diagnose_call(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                  origin: str, written: str | None = None) -> DoctorReport:
    """The doctor's findings for ``fn(*args, **kwargs)``, cross-checked with its trace; each
    rewrite tried as ``agexplorer doctor`` tries it (a rewritten copy of the file traced
    with these arguments), for a function of a .py file (see
    agexplorer.notebook.explain.can_try_fixes)."""
    __tracebackhide__ = True
    from agexplorer.doctor.checks import examine
    from agexplorer.doctor.tried import TRY_BUDGET_S
    from agexplorer.notebook.explain import can_try_fixes, live_call
    from agexplorer.notebook.settings import kept_settings
    from agexplorer.notebook.target import build_layer, load, resolve

    target = resolve(fn)
    with kept_settings() as kept:
        loaded = load(target, args, kwargs, origin, written)
        loaded.args_error = build_layer(kept.tf, target, loaded)
        report = traced_report(loaded)
        tried = can_try_fixes(loaded, target)
        return examine(loaded.path, loaded.text, loaded.qualname, report, loaded.call,
                       values=_by_parameter(loaded.bound, args, kwargs),
                       target=f"{loaded.path}::{loaded.qualname}" if tried else None,
                       try_budget=TRY_BUDGET_S if tried else None,
                       live=live_call(loaded) if tried else None)


def _by_parameter(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by the parameter each binds to ({} where they do not bind)."""
    import inspect

    try:
        return dict(inspect.signature(fn).bind_partial(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return {}


def retrace_calls(fn: Any, calls: list[Call], origin: str) -> RetraceReport:
    """Why each of ``calls`` (of ``fn``, in order) traced or reused a trace, on a fresh
    tf.function with ``fn``'s own settings; then the replays with reduce_retracing and a
    derived input_signature, as ``agexplorer retrace`` shows them."""
    __tracebackhide__ = True
    from agexplorer.engine.live import tracing_settings
    from agexplorer.notebook.settings import kept_settings
    from agexplorer.notebook.target import NotExplainable, build_layer, load, resolve
    from agexplorer.retrace import explain

    target = resolve(fn)
    _, args, kwargs = calls[0]
    with kept_settings() as kept:
        loaded = load(target, args, kwargs, origin)
        failed = build_layer(kept.tf, target, loaded)
        if failed is not None:
            raise NotExplainable(failed.message)
        settings = tracing_settings(target.tf_function, loaded)
        return explain.retrace_calls(loaded, calls, settings, origin)
