"""The edit-latency benchmark's baseline, in a process of its own (the TUI's must stay free of
TensorFlow), asked between the explorer's edits so that both see the same machine.

Protocol: one JSON request per line on stdin, ``[path, qualname, lines, pause, kind]``; one
JSON answer per line on stdout, ``{"s": seconds, "c": seconds of to_code alone}`` or
``{"error": text}``. Each request loads a
fresh copy of the file with ``lines`` comment lines inserted just above the function (``kind``
"above"), or with the statement ``_agx_edit = lines`` before its first one ("body") (written to a
shadow file, as the worker does: AutoGraph caches conversions by code object, and code
objects compare by value, so an unedited reload would hit that cache) and times
``tf.autograph.to_code(loaded.pyfn)`` + ``tf.function(loaded.bound,
input_signature=loaded.signature).get_concrete_function(*loaded.args, **loaded.kwargs)``.
The load (running the module) is not timed; with ``pause`` > 0 the process then sleeps that
many seconds before the timed part, so that it starts from the state an edit's work starts
from in the explorer: after the typing pause, idle (on this shared machine a process that sat
idle 0.6 s runs the same work slower for its next tens of milliseconds, and the untimed load
would otherwise take that slowdown out of the timed part). What the samples print goes to a
buffer.

Run by ``bench_tui_edit_latency.py``; not on its own.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from bench_tui_edit_latency import edited_text

    from agexplorer.engine.buffer import shadowed
    from agexplorer.engine.load import load_target
    from agexplorer.source.targets import read_source

    def once(path: str, qualname: str, lines: int, pause: float, kind: str
             ) -> tuple[float, float]:
        text = edited_text(read_source(path), path, qualname, lines, kind)
        with shadowed(f"{path}::{qualname}", text) as (target, _):
            loaded = load_target(target)
            if pause > 0:
                time.sleep(pause)
            t0 = time.perf_counter()
            tf.autograph.to_code(loaded.pyfn)
            converted = time.perf_counter() - t0
            tf.function(loaded.bound, input_signature=loaded.signature).get_concrete_function(
                *loaded.args, **loaded.kwargs)
            return time.perf_counter() - t0, converted

    out = sys.stdout
    print(json.dumps({"ready": True}), file=out, flush=True)
    for line in sys.stdin:
        path, qualname, lines, pause, kind = json.loads(line)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                total, converted = once(path, qualname, lines, pause, kind)
                answer = {"s": total, "c": converted}
        except Exception as exc:  # noqa: BLE001 - reported to the benchmark
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), file=out, flush=True)


if __name__ == "__main__":
    main()
