"""The run lab: the function eagerly, as a graph and with XLA, with honest timings.

Honest means: every timed call brings its result to the host (``.numpy()``)
inside the timed region, so asynchronous execution on a GPU cannot flatter a
mode; the first call (trace, compile) is reported apart from steady state;
steady state is a median over batches autoranged to a time budget; and each
mode starts from a fresh load of the module, so that one mode's side effects (a
counter, a model's weights) do not leak into the next, and from one seed, so that a
model's unseeded initial weights are drawn alike in every mode. Where results still
differ, the lab keeps the evidence (lab/evidence.py) the report words its cause from.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agexplorer.engine.load import Loaded, load_target
from agexplorer.lab.evidence import effects_since, random_ops, snapshot, trace_op_types
from agexplorer.lab.inputs import Inputs
from agexplorer.lab.results import compare_results, leaves, sink_for, summarize, to_host
from agexplorer.lab.results import same_result as same_result  # callers import it from here
from agexplorer.lab.seeds import LAB_SEED, seed_everything
from agexplorer.lab.timing import quartiles, steady_state, time_calls
from agexplorer.model.errors import AgxError, ErrorKind, user_code_error
from agexplorer.model.lab import ModeRun, RetraceReason, RunLab

if TYPE_CHECKING:
    from agexplorer.engine.capture import Captured

MODES = ("eager", "graph", "xla")
# The error kind of a mode whose run raised.
_FAILED: dict[str, ErrorKind] = {"eager": "eager-failed", "graph": "graph-failed",
                                 "xla": "xla-failed"}
_MODE_WORDS = {"eager": "running {f} eagerly", "graph": "running {f} as a graph",
               "xla": "running {f} with XLA"}


def speedups(runs: dict[str, ModeRun]) -> dict[str, float | None]:
    """Graph's and XLA's speed-up over eager (eager's median over theirs, 4 significant
    figures: a graph 5,000 times slower is 0.0002x, never 0); None where either median is
    missing (a mode that failed)."""
    eager = runs["eager"].median_s
    out: dict[str, float | None] = {}
    for mode in ("graph", "xla"):
        median = runs[mode].median_s
        out[mode] = float(f"{eager / median:.4g}") if eager and median else None
    return out


# -- the modes -------------------------------------------------------------------------

def _callable_for(mode: str, loaded: Loaded, tf: Any) -> Any:
    if mode == "eager":
        return loaded.bound
    return loaded.tf_function(tf, input_signature=loaded.signature,
                              jit_compile=(mode == "xla"))


def _device_of(value: Any) -> str | None:
    for leaf in leaves(value):
        device = getattr(leaf, "device", None)
        if isinstance(device, str) and device:
            return device
    return None


def resolve_device(name: str | None) -> str:
    """A logical device name (``/device:GPU:0``) for ``name``; default: first GPU, else CPU:0."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    devices = [d.name for d in tf.config.list_logical_devices()]
    if name is None:
        gpus = [d for d in devices if ":GPU:" in d]
        return gpus[0] if gpus else next(d for d in devices if ":CPU:" in d)
    wanted = name.upper().replace("/DEVICE:", "").lstrip("/")
    for d in devices:
        if d.upper().endswith("/DEVICE:" + wanted) or d.upper().endswith(wanted):
            return d
    raise AgxError("unknown-device", f"no device '{name}' here", advice="available: "
                   f"{', '.join(d.split('device:')[-1] for d in devices)} "
                   "(see `agexplorer devices`).")


def run_mode(mode: str, loaded: Loaded, device: str, budget: float,
             timeout: float | None = None, inputs: Inputs | None = None) -> tuple[ModeRun, Any]:
    """Run one mode; returns the outcome and the host value of its first result.

    ``timeout``: the mode's own time box, first call included; past it the mode is
    abandoned and reports what it measured (see lab/boxed.py). ``inputs``: the arguments
    to call with (default: the load's own).
    """
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.boxed import run_boxed

    tf = import_tf()
    args, kwargs = inputs if inputs is not None else (loaded.args, loaded.kwargs)
    live = ModeRun()  # the thread writes here as it goes; a timed-out mode reports a copy
    samples: list[float] = []
    hosts: list[Any] = []
    doing = _MODE_WORDS[mode].format(f=loaded.qualname)
    began = time.perf_counter()
    deadline = None if timeout is None else began + timeout * 0.9  # leave the join its margin

    def measure() -> None:
        fn = _callable_for(mode, loaded, tf)
        with tf.device(device):
            before = snapshot(loaded)
            start = time.perf_counter()
            result = fn(*args, **kwargs)
            hosts.append(to_host(result))
            live.first_call_s = time.perf_counter() - start
            first, before = effects_since(loaded, before, "first-call")
            live.effects.extend(first)
            live.ran_on = _device_of(result)
            if mode != "eager":
                live.first_call_traces = fn.experimental_get_tracing_count()
                types = trace_op_types(fn, args, kwargs)
                live.random_ops, live.assert_ops = random_ops(types), types.count("Assert")
            _, live.calls = time_calls(fn, args, kwargs, sink_for(result), budget,
                                       deadline=deadline, samples=samples)
            if mode != "eager":
                live.tracing_count = fn.experimental_get_tracing_count()
            live.effects.extend(effects_since(loaded, before, "later-calls")[0])

    try:
        finished = run_boxed(measure, timeout)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        err = user_code_error(exc, loaded.path, doing, kind=_FAILED[mode])
        live.error, live.error_line = err.message, err.line
        return live, None
    out = replace(live, printed=[], effects=list(live.effects))
    taken = list(samples)
    if not finished:
        out.timed_out = True
        out.tracing_count = out.tracing_count or out.first_call_traces
        if not hosts:
            out.error = (f"timed out after {timeout:g} s before its first call returned "
                         "(tracing or compiling); raise the timeout or skip this mode")
            return out, None
    out.ok = True
    out.result = summarize(hosts[0])
    if taken:
        out.median_s, out.min_s, out.max_s = steady_state(taken)
        out.p25_s, _, out.p75_s = quartiles(taken)
    return out, hosts[0]


def _skipped() -> ModeRun:
    return ModeRun(skipped=True, error="skipped (asked not to run XLA)")


def retrace_reason(graph: ModeRun) -> RetraceReason | None:
    """Why the graph mode traced more than once, when its counts tell: the first call alone
    traced twice (TensorFlow does so when the first trace creates variables), or a later
    call traced again (the arguments' signature changed)."""
    first, total = graph.first_call_traces, graph.tracing_count
    if first is None or total is None or total < 2:
        return None
    if first >= 2:
        return "variables"
    return "signature" if total > first else None


def run_lab(target: str, call: str | None = None, device: str | None = None,
            budget: float = 1.0, fresh_module: bool = True, hlo: bool = False,
            tensorboard: str | None = None, loaded: Loaded | None = None,
            progress: Callable[[str], None] | None = None, skip_xla: bool = False,
            mode_timeout: float | None = None, inputs: Inputs | None = None,
            init: str | None = None) -> RunLab:
    """Run the three modes of ``target`` and compare them.

    ``skip_xla``: XLA is not run (its compile can take minutes); ``mode_timeout``: each
    mode's own time box; ``inputs``: argument values to share (default: the first load's;
    see lab/inputs.py), so that every mode gets the same random tensor. Every load and
    every mode's calls start from one seed (lab/seeds.py), so that modes draw the same
    weights; each mode's Python effects and random ops are kept as the evidence for a
    difference between them (lab/evidence.py).
    """
    say = progress or (lambda phase: None)
    from agexplorer.engine.capture import capture_output
    from agexplorer.lab.inputs import shared

    lab = RunLab(device=resolve_device(device), budget_s=budget, fresh_module=fresh_module,
                 mode_timeout_s=mode_timeout, shared_inputs=True, seed=LAB_SEED)
    hosts: dict[str, Any] = {}
    last: Loaded | None = loaded
    for mode in MODES:
        if mode == "xla" and skip_xla:
            lab.runs[mode], hosts[mode] = _skipped(), None
            continue
        say(_MODE_WORDS[mode].format(f=target.rpartition("::")[2]))
        with capture_output():  # what the module prints as it loads is not the mode's
            if last is None or fresh_module:
                seed_everything(LAB_SEED)
                last = load_target(target, call, init=init)
            own = (last.args, last.kwargs)
            inputs = own if inputs is None else shared(inputs, own)
        with capture_output(tally=True) as captured:
            seed_everything(LAB_SEED)
            lab.eager_setting_off |= last.eager_setting_off
            lab.runs[mode], hosts[mode] = run_mode(mode, last, lab.device, budget,
                                                   mode_timeout, inputs)
        _keep_output(lab.runs[mode], captured)
    assert last is not None
    with capture_output():
        _fixed_costs(lab, skip_xla, inputs, say)
        if hlo and not skip_xla:
            say(f"compiling {last.qualname} to HLO")
            _hlo(lab, last)
        if tensorboard:
            from agexplorer.lab.export import export_tensorboard

            lab.tensorboard_note = export_tensorboard(last, tensorboard, lab.device)
            lab.tensorboard = tensorboard
    _compared(lab, hosts)
    return lab


def run_lab_loaded(loaded: Loaded, device: str | None = None, budget: float = 1.0,
                   skip_xla: bool = False, mode_timeout: float | None = None,
                   progress: Callable[[str], None] | None = None) -> RunLab:
    """The three modes of a function already loaded in this process, called with its own
    (live) arguments: ``agexplorer.explain(..., run=True)`` in a notebook.

    Unlike :func:`run_lab`, the modes share one load (the user's live objects cannot be
    loaded afresh) and no seed is set (the generators are the user's, and seeding them
    would change what the user's next draw gives).
    """
    from agexplorer.engine.capture import capture_output

    say = progress or (lambda phase: None)
    lab = RunLab(device=resolve_device(device), budget_s=budget, fresh_module=False,
                 mode_timeout_s=mode_timeout, shared_inputs=True, seed=None)
    hosts: dict[str, Any] = {}
    inputs = (loaded.args, loaded.kwargs)
    for mode in MODES:
        if mode == "xla" and skip_xla:
            lab.runs[mode], hosts[mode] = _skipped(), None
            continue
        say(_MODE_WORDS[mode].format(f=loaded.qualname.rpartition(".")[2]))
        with capture_output(tally=True) as captured:
            lab.runs[mode], hosts[mode] = run_mode(mode, loaded, lab.device, budget,
                                                   mode_timeout, inputs)
        _keep_output(lab.runs[mode], captured)
    with capture_output():
        _fixed_costs(lab, skip_xla, inputs, say)
    _compared(lab, hosts)
    return lab


def _fixed_costs(lab: RunLab, skip_xla: bool, inputs: Inputs | None,
                 say: Callable[[str], None]) -> None:
    from agexplorer.lab.overhead import fixed_costs

    say("measuring the fixed cost of a call")
    costs = fixed_costs(lab.device, min(lab.budget_s / 4, 0.25),
                        ("graph",) if skip_xla else ("graph", "xla"), inputs)
    lab.overhead_s = {m: c[0] if c else None for m, c in costs.items()}
    lab.overhead_spread_s = {m: c[1] if c else None for m, c in costs.items()}


def _compared(lab: RunLab, hosts: dict[str, Any]) -> None:
    """The speed-ups, the results compared, the graph mode's traces and why."""
    lab.speedup = speedups(lab.runs)
    lab.results_match, lab.mismatch, lab.differences = compare_results(lab.runs, hosts)
    lab.tracing_count = lab.runs["graph"].tracing_count or 0
    lab.retrace_reason = retrace_reason(lab.runs["graph"])


def _keep_output(run: ModeRun, captured: Captured) -> None:
    """Keep what a mode printed, stdout's and tf.print's stderr lines apart, as (line, count)
    pairs, the most frequent first, and how many lines each had (kept or not)."""
    if captured.printed is not None:
        run.printed_lines = captured.printed.lines
        run.printed = captured.printed.counts.most_common(8)
    if captured.native_err is not None:
        run.stderr_lines = captured.native_err.lines
        run.stderr = captured.native_err.counts.most_common(8)


def _hlo(lab: RunLab, loaded: Loaded) -> None:
    from agexplorer.lab.hlo import compile_hlo

    lab.hlo_ir = compile_hlo(loaded, lab.device)


def hlo_only(target: str, call: str | None = None, device: str | None = None,
             progress: Callable[[str], None] | None = None, init: str | None = None) -> RunLab:
    """The HLO alone, without the runs (the explorer's HLO tab): a RunLab with no modes."""
    from agexplorer.engine.capture import capture_output

    lab = RunLab(device=resolve_device(device), budget_s=0.0)
    with capture_output():
        loaded = load_target(target, call, init=init)
        if progress is not None:
            progress(f"compiling {loaded.qualname} to HLO")
        _hlo(lab, loaded)
    return lab
