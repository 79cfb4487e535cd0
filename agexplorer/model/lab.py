"""The run lab's results: each mode's outcome and timings, and the comparisons between modes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

# Why the graph mode traced more than once, when the worker can tell: "variables" (the first
# call traced twice, as TensorFlow does when the first trace creates variables), "signature"
# (a later call traced again: the arguments' signature changed between calls).
RetraceReason = Literal["variables", "signature"]


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
    first_call_traces: int | None = None  # traces made by the first call alone (graph modes)
    timed_out: bool = False  # the mode's own time box ran out (what it measured stays)
    skipped: bool = False  # not run: asked to skip it (XLA, --no-xla)

    def to_dict(self) -> dict:
        """JSON form."""
        return asdict(self)


@dataclass
class HloText:
    """The HLO XLA compiles for one function, each line's source, and what compiling costs.

    Times in seconds, each measured apart (lab/hlo.py): ``trace_s`` the jit-compiled
    function's trace; ``lower_s`` lowering its graph to this HLO; ``compile_s`` building
    XLA's executable from the graph (lowering, XLA's passes, code generation) without
    running it: what the first XLA call pays beyond the trace.
    """

    text: str | None = None
    # Per line of ``text``: the user's (file, line) whose op the instruction came from, or
    # None (a header, a parameter, an op of TensorFlow's own); empty when not known.
    lines: list[tuple[str, int] | None] = field(default_factory=list)
    trace_s: float | None = None
    lower_s: float | None = None
    compile_s: float | None = None
    error: str | None = None  # the one sentence saying why XLA could not compile it

    def to_dict(self) -> dict:
        """The report's ``hlo`` object: ``{"text", "error", "lines": [[file, line] or null],
        "trace_s", "lower_s", "compile_s"}``."""
        return {"text": self.text, "error": self.error,
                "lines": [list(w) if w is not None else None for w in self.lines],
                "trace_s": self.trace_s, "lower_s": self.lower_s, "compile_s": self.compile_s}


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
    hlo_ir: HloText | None = None  # asked for (--hlo, the HLO tab): see HloText
    tensorboard: str | None = None
    tensorboard_note: str | None = None
    # The fixed per-call cost of an empty tf.function ("graph") and an empty XLA one ("xla") on
    # this device, measured in the same run: what a call costs before the function does anything.
    overhead_s: dict[str, float | None] = field(default_factory=dict)
    retrace_reason: RetraceReason | None = None
    mode_timeout_s: float | None = None  # each mode's own time box (None: no box)
    shared_inputs: bool = False  # the modes got the same argument values (evaluated once)

    @property
    def hlo(self) -> str | None:
        """The HLO text, None when not asked for or not compiled."""
        return self.hlo_ir.text if self.hlo_ir is not None else None

    @property
    def hlo_error(self) -> str | None:
        """Why XLA could not compile the function, in one sentence."""
        return self.hlo_ir.error if self.hlo_ir is not None else None

    def rename_file(self, old: str, new: str) -> None:
        """Name ``new`` where the HLO's lines name ``old`` (an unsaved buffer's shadow file)."""
        if self.hlo_ir is not None:
            self.hlo_ir.lines = [(new, w[1]) if w is not None and w[0] == old else w
                                 for w in self.hlo_ir.lines]

    def work_s(self, mode: str) -> float | None:
        """What ``mode``'s median spends beyond the fixed per-call cost (never negative)."""
        run, fixed = self.runs.get(mode), self.overhead_s.get(mode)
        if run is None or run.median_s is None or fixed is None:
            return None
        return max(run.median_s - fixed, 0.0)

    def to_dict(self) -> dict:
        """The report's run keys: ``device``, ``runs`` (each mode's ModeRun, with
        ``timed_out``, ``skipped`` and ``first_call_traces``), ``speedup``,
        ``results_match``, ``tracing_count``, ``budget_s``, ``fresh_module``, ``overhead_s``
        (``{"graph": s, "xla": s}``: an empty function's per-call cost, None where it could
        not be measured), ``retrace_reason`` (``"variables"``, ``"signature"`` or null),
        ``mode_timeout_s`` (each mode's time box, null: none), ``shared_inputs``; and when
        they apply ``mismatch``, ``hlo`` and ``tensorboard``."""
        data = {"device": self.device, "runs": {m: r.to_dict() for m, r in self.runs.items()},
                "speedup": self.speedup, "results_match": self.results_match,
                "tracing_count": self.tracing_count, "budget_s": self.budget_s,
                "fresh_module": self.fresh_module, "overhead_s": self.overhead_s,
                "retrace_reason": self.retrace_reason, "mode_timeout_s": self.mode_timeout_s,
                "shared_inputs": self.shared_inputs}
        if self.mismatch is not None:
            data["mismatch"] = self.mismatch
        if self.hlo_ir is not None:
            data["hlo"] = self.hlo_ir.to_dict()
        if self.tensorboard is not None:
            data["tensorboard"] = {"logdir": self.tensorboard, "note": self.tensorboard_note}
        return data
