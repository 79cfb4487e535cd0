"""The fixed per-call cost of an empty ``tf.function`` (and an empty XLA one) on a device.

Measured in the same run as the function, timed the same way (its result brought to the
host), and called with the function's own arguments, so that what TensorFlow does with
them on every call (flattening, matching a trace, handing tensors in) counts as the fixed
cost, not as work: the report can then say how much of a graph's time is the call itself
(a one-op function is often slower as a graph than eagerly, and this is why).
"""

from __future__ import annotations

from typing import Any

from agexplorer.lab.inputs import Inputs


def fixed_costs(device: str, budget: float, modes: tuple[str, ...] = ("graph", "xla"),
                inputs: Inputs | None = None) -> dict[str, tuple[float, float] | None]:
    """(median, interquartile range) in seconds per call of an empty function in each of
    ``modes``, called with ``inputs`` (default: no arguments); None where it could not be
    measured (XLA missing on this device)."""
    from agexplorer.engine import tf_internals
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.timing import quartiles

    tf = import_tf()
    out: dict[str, tuple[float, float] | None] = {}
    for mode in modes:
        out[mode] = None
        for args, kwargs in ([inputs] if inputs is not None else []) + [((), {})]:
            samples = _empty_call(tf, tf_internals, mode, device, budget, args, kwargs)
            if samples:
                low, median, high = quartiles(samples)
                out[mode] = (median, high - low)
                break
    return out


def _empty_call(tf: Any, tf_internals: Any, mode: str, device: str, budget: float,
                args: tuple, kwargs: dict) -> list[float] | None:
    """Per-call samples of an empty function taking ``args``; None when it cannot be called
    so (arguments it cannot take, a device without XLA): never fatal."""
    from agexplorer.lab.timing import time_calls

    # One constant, so the call returns a tensor to bring to the host, as the modes do.
    empty = tf.function(lambda *a, **k: tf.constant(0), jit_compile=(mode == "xla"))
    try:
        with tf.device(device):
            tf_internals.to_numpy(empty(*args, **kwargs))  # the trace is not the fixed cost
            samples, _ = time_calls(empty, args, kwargs, tf_internals.to_numpy, budget)
    except Exception:  # noqa: BLE001 - see the docstring
        return None
    return samples
