"""What two runs of one command must agree on: its JSON without timings, and without the
number TensorFlow's process-wide counter gives each graph function (``__inference_f_11``: a
worker that traced before has counted further). The tests and benchmarks/bench_daemon.py
compare cold and warm answers through it."""

from __future__ import annotations

import re
from typing import Any


def comparable(data: Any) -> Any:
    """``data`` (a command's parsed JSON) with those left out."""
    if isinstance(data, dict):
        return {k: comparable(v) for k, v in data.items()
                if not re.search(r"(_s|_ms|seconds|time)$", k)}
    if isinstance(data, list):
        return [comparable(v) for v in data]
    if isinstance(data, str):
        return re.sub(r"(__inference_\w+?)_\d+\b", r"\1_N", data)
    return data
