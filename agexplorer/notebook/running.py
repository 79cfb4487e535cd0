"""``explain(..., run=True)``: the run lab on the user's live objects, their variables put back.

The run lab calls the function many times per mode to time it (lab/runs.py). From a file it
loads the module afresh for each mode; in a notebook the objects are the user's own, and a
train step timed for a second would train the model on that batch a thousand times. So
every variable the call's graph reads or writes (a model's weights, an optimizer's slots
and step, a counter kept in a tf.Variable) is read before the runs and assigned back after.
Python state (a list appended to, a global counter) cannot be put back: the run lab's
evidence names what changed (each mode's ``effects``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agexplorer.engine.load import Loaded
from agexplorer.model.lab import RunLab

# Per mode: seconds of timed calls, and the box for the first call (an XLA compile).
BUDGET_S = 0.5
MODE_TIMEOUT_S = None  # a thread would lose Keras's per-thread settings: run in this one


def graph_variables(tf: Any, loaded: Loaded) -> list[Any]:
    """The variables a trace of the call captures, each once."""
    concrete = loaded.tf_function(tf, input_signature=loaded.signature
                                  ).get_concrete_function(*loaded.args, **loaded.kwargs)
    found: dict[int, Any] = {}
    for variable in concrete.variables:
        found.setdefault(id(variable), variable)
    return list(found.values())


def run_restored(tf: Any, loaded: Loaded, progress: Callable[[str], None] | None = None,
                 budget: float = BUDGET_S) -> RunLab:
    """Eager, graph and XLA timings of the live call, each variable it uses put back after."""
    from agexplorer.lab.runs import run_lab_loaded

    variables = graph_variables(tf, loaded)
    saved = [(v, tf.identity(v.read_value())) for v in variables]
    try:
        return run_lab_loaded(loaded, budget=budget, mode_timeout=MODE_TIMEOUT_S,
                              progress=progress)
    finally:
        for variable, value in saved:
            variable.assign(value)
