"""The run lab's results: each mode's outcome and timings, and the comparisons between modes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class ModeRun:
    """One mode's outcome; times are seconds per call."""

    ok: bool = False
    result: str | None = None
    error: str | None = None
    error_line: int | None = None
    first_call_s: float | None = None
    median_s: float | None = None
    min_s: float | None = None
    max_s: float | None = None
    calls: int = 0
    tracing_count: int | None = None
    ran_on: str | None = None  # the device that produced the result
    printed_lines: int = 0  # what the mode printed: a Python print runs on every eager call,
    printed: list[tuple[str, int]] = field(default_factory=list)  # but only while tracing

    def to_dict(self) -> dict:
        """JSON form."""
        return asdict(self)


@dataclass
class RunLab:
    """All three modes for one target and call, with the comparisons between them."""

    device: str
    runs: dict[str, ModeRun] = field(default_factory=dict)
    speedup: dict[str, float | None] = field(default_factory=dict)
    results_match: bool | None = None
    mismatch: str | None = None
    tracing_count: int = 0
    budget_s: float = 1.0
    fresh_module: bool = True
    hlo: str | None = None
    hlo_error: str | None = None
    tensorboard: str | None = None
    tensorboard_note: str | None = None

    def to_dict(self) -> dict:
        """The report's run keys (``device``, ``runs``, ``speedup``, ``results_match``, ...)."""
        data = {"device": self.device, "runs": {m: r.to_dict() for m, r in self.runs.items()},
                "speedup": self.speedup, "results_match": self.results_match,
                "tracing_count": self.tracing_count, "budget_s": self.budget_s,
                "fresh_module": self.fresh_module}
        if self.mismatch is not None:
            data["mismatch"] = self.mismatch
        if self.hlo is not None or self.hlo_error is not None:
            data["hlo"] = {"text": self.hlo, "error": self.hlo_error}
        if self.tensorboard is not None:
            data["tensorboard"] = {"logdir": self.tensorboard, "note": self.tensorboard_note}
        return data
