"""The fixed per-call cost of an empty ``tf.function`` (and an empty XLA one) on a device.

Measured in the same run as the function, timed the same way (its result brought to the
host), so the report can say how much of a graph's time is the call itself: a one-op
function is often slower as a graph than eagerly, and this is why.
"""

from __future__ import annotations

import statistics


def fixed_costs(device: str, budget: float, modes: tuple[str, ...] = ("graph", "xla")
                ) -> dict[str, float | None]:
    """Median seconds per call of an empty function in each of ``modes``; None where it could
    not be measured (XLA missing on this device)."""
    from agexplorer.engine import tf_internals
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.runs import time_calls

    tf = import_tf()
    out: dict[str, float | None] = {}
    for mode in modes:
        # One constant, so the call returns a tensor to bring to the host, as the modes do.
        empty = tf.function(lambda: tf.constant(0), jit_compile=(mode == "xla"))
        try:
            with tf.device(device):
                tf_internals.to_numpy(empty())  # the trace (and compile) are not the fixed cost
                samples, _ = time_calls(empty, (), {}, tf_internals.to_numpy, budget)
        except Exception:  # noqa: BLE001 - a device without XLA: no figure, never fatal
            out[mode] = None
            continue
        out[mode] = statistics.median(samples)
    return out
