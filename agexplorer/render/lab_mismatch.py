"""Why the run lab's modes disagree, in words made from the evidence the lab kept.

A cause is named only when the lab saw it: a Python side effect when the effects tracker
saw a global, closure variable or attribute change differently in the modes that disagree;
random ops when the trace has them; float rounding only for a small difference; XLA's own
generator and rounding only when XLA's result is the one that differs; nondeterministic
kernels only on a GPU. Otherwise the sentence says so and names what is left to check.
"""

from __future__ import annotations

from agexplorer.model.lab import PYTHON_STATE, ModeEffect, ModeRun, RunLab, asserts_skipped
from agexplorer.model.text import plural

_LABEL = {"eager": "eager", "graph": "graph", "xla": "XLA"}
_STATE_WORDS = {"global": "the global `{}`", "nonlocal": "the closure variable `{}`",
                "attribute": "the attribute `{}`"}
_ROUNDING = 1e-3  # the largest relative difference float rounding is taken to explain


def _state(effects: list[ModeEffect], phase: str) -> dict[tuple[str, str], ModeEffect]:
    return {(e.kind, e.name): e for e in effects if e.phase == phase and e.kind in PYTHON_STATE}


def _went(effect: ModeEffect) -> str:
    return f"{effect.before} -> {effect.after}"


def _first_mode(lab: RunLab) -> str | None:
    return next((m for m in ("eager", "graph", "xla") if m in lab.runs and lab.runs[m].ok), None)


def _differing(lab: RunLab) -> list[str]:
    return [m for m in ("eager", "graph", "xla") if m in lab.differences]


def side_effect_evidence(lab: RunLab) -> list[str]:
    """Per mode, the Python state its first call changed differently from the first mode's
    (for graph and XLA, while tracing), in words; [] when no such change was seen."""
    first = _first_mode(lab)
    if first is None:
        return []
    reference = _state(lab.runs[first].effects, "first-call")
    keys: list[tuple[str, str]] = []
    for mode in _differing(lab):
        mine = _state(lab.runs[mode].effects, "first-call")
        for key in sorted(reference.keys() | mine.keys()):
            ref, own = reference.get(key), mine.get(key)
            same = ref is not None and own is not None and _went(ref) == _went(own)
            if not same and key not in keys:
                keys.append(key)
    if not keys:
        return []
    return [_mode_words(mode, lab.runs[mode], keys) for mode in [first, *_differing(lab)]]


def _mode_words(mode: str, run: ModeRun, keys: list[tuple[str, str]]) -> str:
    first, later = _state(run.effects, "first-call"), _state(run.effects, "later-calls")
    parts = []
    for key in keys:
        name = _STATE_WORDS[key[0]].format(key[1])
        if key not in first:
            parts.append(f"{name} did not change")
            continue
        when = "in its first call" if mode == "eager" else "while tracing"
        traces = run.first_call_traces or 1
        if mode != "eager" and traces > 1:
            when += f" ({traces} traces)"
        words = f"{name} went {_went(first[key])} {when}"
        if key in later:
            words += f", then to {later[key].after} over its later calls"
        elif mode != "eager":
            words += ", and never in its later calls (they run the graph, not the Python)"
        parts.append(words)
    return f"{_LABEL[mode]}: " + ", ".join(parts)


def candidates(lab: RunLab) -> list[str]:
    """The causes that can apply when no side effect explains the difference, in words."""
    differing = _differing(lab)
    found: list[str] = []
    graph_ops = sorted({op for m in ("graph", "xla") if m in lab.runs
                        for op in lab.runs[m].random_ops})
    if graph_ops and "graph" in differing:
        found.append(f"random ops without an op-level seed ({', '.join(graph_ops)}): even "
                     "under one global seed, TensorFlow derives each op's seed differently "
                     "in a graph than eagerly (pass seed= to the op, or use "
                     "tf.random.stateless_*)")
    if graph_ops and "xla" in differing:
        found.append(f"XLA draws its random ops ({', '.join(graph_ops)}) with a generator of "
                     "its own, which matches neither eager nor graph, seeded or not")
    drawn = sorted({e.name for m in differing for e in lab.runs[m].effects
                    if e.phase == "first-call" and e.kind in ("random", "numpy-random")})
    if drawn:
        found.append(f"the function draws from {' and '.join(drawn)} in Python: a graph runs "
                     "that draw only while tracing, and keeps its value as a constant")
    small = {m: d for m, d in lab.differences.items() if d is not None and d <= _ROUNDING}
    if small and not graph_ops:
        worst = max(small.values())
        who = "XLA fuses and reorders" if differing == ["xla"] else \
            "a graph's optimizations (Grappler's rewrites, fused kernels) reorder"
        found.append(f"float rounding: {who} float arithmetic (largest relative difference "
                     f"{worst:.2g})")
    if "GPU" in lab.device.upper():
        found.append("nondeterministic GPU kernels (tf.config.experimental."
                     "enable_op_determinism() makes them repeatable)")
    return found


def mismatch_words(lab: RunLab) -> str:
    """``results differ between modes: <what>``, then the evidence, or the candidates."""
    head = f"results differ between modes: {lab.mismatch}"
    checked = asserts_skipped(lab.runs)
    if checked:
        count = lab.runs["xla"].assert_ops
        return (f"{head}.\nXLA leaves Assert ops out: its compile ignores each one (TensorFlow's "
                f"XLA kernel for Assert only logs \"Ignoring Assert operator\"), and the trace "
                f"has {plural(count, 'Assert op')} (made by tf.debugging.Assert and the "
                "tf.debugging.assert_* checks), so under XLA the check that raised in "
                f"{' and '.join(checked)} never ran. Check the values before an XLA function, "
                "or outside it.")
    evidence = side_effect_evidence(lab)
    if evidence:
        return (f"{head}.\nThe modes' Python side effects differ: " + "; ".join(evidence) +
                ". Python code runs on every eager call, but in graph and XLA only while "
                "tracing, so each mode computed with another Python value.")
    changed = sorted({_STATE_WORDS[e.kind].format(e.name) for run in lab.runs.values()
                      for e in run.effects if e.phase == "first-call" and e.kind in PYTHON_STATE})
    seen = (f"{', '.join(changed)} changed alike in every mode's first call" if changed else
            "no global, closure variable or attribute changed while tracing")
    found = candidates(lab)
    if not found:
        ruled_out = ["the trace has no random ops"]
        if lab.differences and all(d is None or d > _ROUNDING for d in lab.differences.values()):
            ruled_out.append("the difference is too large for float rounding")
        return (f"{head};\n{seen}, " + " and ".join(ruled_out) + "; left to check: state the "
                "lab does not watch (a tf.Variable's value, the contents of an object) and "
                "code that asks tf.executing_eagerly().")
    return f"{head};\n{seen}; likely causes: " + "; ".join(found) + "."
