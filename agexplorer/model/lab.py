"""The run lab's results: each mode's outcome and timings, and the comparisons between modes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# Why the graph mode traced more than once, when the worker can tell: "variables" (the first
# call traced twice, as TensorFlow does when the first trace creates variables), "signature"
# (a later call traced again: the arguments' signature changed between calls).
RetraceReason = Literal["variables", "signature"]

# What the effects tracker (engine/effects.py) watches: a module global, a closure cell, an
# attribute of the bound instance, Python's and NumPy's global random generators.
EffectKind = Literal["global", "nonlocal", "attribute", "random", "numpy-random"]
# When a mode changed it: during its first call (for graph and XLA, the call that traces) or
# during the later, timed calls (for graph and XLA, only a retrace runs Python again).
EffectPhase = Literal["first-call", "later-calls"]
PYTHON_STATE: tuple[EffectKind, ...] = ("global", "nonlocal", "attribute")


@dataclass
class ModeEffect:
    """Python state one mode changed, as the effects tracker saw it: ``global count: 0 -> 1``.

    ``before``/``after`` are the tracker's short forms (a repr, or ``list of 3``); empty for a
    random generator, whose state is only known to have moved.
    """

    kind: EffectKind
    name: str
    before: str
    after: str
    phase: EffectPhase


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
    p25_s: float | None = None  # the quartiles of the per-call samples: their spread is the
    p75_s: float | None = None  # noise a difference of medians must exceed to mean something
    calls: int = 0
    tracing_count: int | None = None
    ran_on: str | None = None  # the device that produced the result
    printed_lines: int = 0  # what the mode printed: a Python print runs on every eager call,
    printed: list[tuple[str, int]] = field(default_factory=list)  # but only while tracing
    # What it wrote to stderr from native code, TensorFlow's own log lines aside: tf.print's
    # output (its default stream), an op that prints on every call in every mode.
    stderr_lines: int = 0
    stderr: list[tuple[str, int]] = field(default_factory=list)
    first_call_traces: int | None = None  # traces made by the first call alone (graph modes)
    timed_out: bool = False  # the mode's own time box ran out (what it measured stays)
    skipped: bool = False  # not run: asked to skip it (XLA, --no-xla)
    effects: list[ModeEffect] = field(default_factory=list)  # Python state the mode changed
    # The trace's random ops that draw from TensorFlow's own stateful generators (op types,
    # e.g. RandomStandardNormal), nested functions included; graph modes only.
    random_ops: list[str] = field(default_factory=list)
    # The trace's Assert ops (tf.debugging.Assert and the tf.debugging.assert_* checks make
    # them), nested functions included; graph modes only. XLA's compile ignores each one.
    assert_ops: int = 0

    @property
    def spread_s(self) -> float | None:
        """The interquartile range of the per-call samples (None when not timed)."""
        if self.p25_s is None or self.p75_s is None:
            return None
        return self.p75_s - self.p25_s

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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
    # this device, called with the same arguments, measured in the same run: what a call
    # costs before the function does anything.
    overhead_s: dict[str, float | None] = field(default_factory=dict)
    overhead_spread_s: dict[str, float | None] = field(default_factory=dict)  # their IQRs
    retrace_reason: RetraceReason | None = None
    mode_timeout_s: float | None = None  # each mode's own time box (None: no box)
    shared_inputs: bool = False  # the modes got the same argument values (evaluated once)
    seed: int | None = None  # the random seed set before each load and each mode's calls
    # Each mode whose result differs from the first mode's: the largest relative difference
    # of their values, None where they cannot be compared as numbers (another shape, dtype
    # or structure, or values that are not numbers).
    differences: dict[str, float | None] = field(default_factory=dict)
    # The module turned on tf.config.run_functions_eagerly(True), under which a tf.function
    # runs eagerly: the graph and XLA modes were run with it off (else they timed eager).
    eager_setting_off: bool = False

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
        """What ``mode``'s median spends beyond the fixed cost of a call, or None where the
        times cannot support that split.

        The rule: work = the mode's median - the fixed cost (``overhead_s``: an empty
        function called with the same arguments). It is given only when
        - the three medians it rests on are known (the mode's, eager's, the fixed cost's);
        - it is beyond noise: larger than the spreads of the two medians it subtracts
          (the interquartile ranges of their samples) together, and than a tenth of the
          fixed cost, since an empty function only stands in for this call's own fixed
          cost (its outputs, its arguments' checks);
        - it is no more than eager's median: eager runs the whole call, every op and its
          dispatch from Python, so the same ops cannot take longer inside a graph; a larger
          remainder means the fixed cost was underestimated, not that work was found.
        """
        run, eager = self.runs.get(mode), self.runs.get("eager")
        fixed = self.overhead_s.get(mode)
        if run is None or run.median_s is None or fixed is None or eager is None \
                or eager.median_s is None:
            return None
        work = run.median_s - fixed
        noise = max((run.spread_s or 0.0) + (self.overhead_spread_s.get(mode) or 0.0),
                    fixed / 10)
        if work <= noise or work > eager.median_s:
            return None
        return work

    def to_dict(self) -> dict[str, Any]:
        """The report's run keys: ``device``, ``runs`` (each mode's ModeRun, with
        ``timed_out``, ``skipped`` and ``first_call_traces``), ``speedup``,
        ``results_match``, ``tracing_count``, ``budget_s``, ``fresh_module``, ``overhead_s``
        (``{"graph": s, "xla": s}``: an empty function's per-call cost, None where it could
        not be measured) and ``overhead_spread_s`` (its interquartile range), ``retrace_reason``
        (``"variables"``, ``"signature"`` or null), ``mode_timeout_s`` (each mode's time box,
        null: none), ``shared_inputs``, ``seed`` (set before each load and each mode's
        calls); and when they apply ``eager_setting_off`` (true: the module turned on
        tf.config.run_functions_eagerly(True), and graph and XLA ran with it off),
        ``mismatch`` (each differing result) with
        ``differences`` (``{mode: largest relative difference or null}``), ``hlo`` and
        ``tensorboard``. Each run carries its ``effects`` (``[{"kind", "name", "before",
        "after", "phase"}]``) and ``random_ops``."""
        data: dict[str, Any] = {"device": self.device, "runs": {m: r.to_dict() for m, r in self.runs.items()},
                "speedup": self.speedup, "results_match": self.results_match,
                "tracing_count": self.tracing_count, "budget_s": self.budget_s,
                "fresh_module": self.fresh_module, "overhead_s": self.overhead_s,
                "retrace_reason": self.retrace_reason, "mode_timeout_s": self.mode_timeout_s,
                "overhead_spread_s": self.overhead_spread_s, "shared_inputs": self.shared_inputs,
                "seed": self.seed}
        if self.mismatch is not None:
            data["mismatch"] = self.mismatch
            data["differences"] = self.differences
        if self.eager_setting_off:
            data["eager_setting_off"] = True
        if self.hlo_ir is not None:
            data["hlo"] = self.hlo_ir.to_dict()
        if self.tensorboard is not None:
            data["tensorboard"] = {"logdir": self.tensorboard, "note": self.tensorboard_note}
        return data


def asserts_skipped(runs: dict[str, ModeRun]) -> list[str]:
    """The modes (eager, graph) that raised InvalidArgumentError where XLA ran and gave a
    result and its trace has Assert ops, which XLA's compile ignores; [] otherwise."""
    xla = runs.get("xla")
    if xla is None or not xla.ok or not xla.assert_ops:
        return []
    return [m for m in ("eager", "graph") if m in runs and not runs[m].ok
            and "InvalidArgumentError" in (runs[m].error or "")]
