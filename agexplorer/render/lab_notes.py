"""Sentences that explain the run lab's timings: fixed call cost against work, retraces, boxes."""

from __future__ import annotations

from rich.text import Text

from agexplorer.model.lab import RunLab

_LABEL = {"graph": "graph", "xla": "XLA"}
# How many times a call's fixed cost a slower mode must lose by before the fixed cost is
# no longer its explanation.
_UNEXPLAINED = 10
_A_CALL = {"graph": "a graph call", "xla": "an XLA call"}
_RETRACE = {
    "variables": "graph traced twice: its first call created variables (a tf.Variable, a "
                 "layer's weights, an optimizer's slots), and TensorFlow then traces again to "
                 "run with them as state; later calls reuse that second trace.",
    "signature": "graph traced again after its first call: a later call's arguments had a new "
                 "signature (another shape, dtype or Python value), and each new signature "
                 "is a new trace.",
}


def about(seconds: float) -> str:
    """A small duration in milliseconds, as said aloud: ``0.35 ms``, ``12 ms``, ``1.5 s``."""
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds < 5e-6:
        return "less than 0.01 ms"
    ms = seconds * 1e3
    return f"{ms:.2f} ms" if ms < 1 else f"{ms:.3g} ms"


def cost_note(lab: RunLab, mode: str) -> str | None:
    """Why ``mode`` is slower or faster than eager: the fixed cost of a call against the work.

    The split into fixed cost and work is stated only where ``RunLab.work_s`` gives a work
    (beyond noise, and no more than eager's whole call: see its rule); elsewhere the note
    sets the fixed cost beside eager's time and states no work, so it cannot contradict the
    times it comes from.
    """
    fixed, speed = lab.overhead_s.get(mode), lab.speedup.get(mode)
    run, eager = lab.runs.get(mode), lab.runs.get("eager")
    if fixed is None or not speed or run is None or run.median_s is None or eager is None \
            or eager.median_s is None:
        return None
    label, work = _LABEL[mode], lab.work_s(mode)
    if work is not None:
        costs = (f"each call costs about {about(fixed)} of fixed overhead, this function does "
                 f"about {about(work)} of work")
        if speed < 1:
            return (f"{label} is slower here: {costs}; graphs pay off when a function runs "
                    "many small ops or loops.")
        return (f"{label} is faster here: {costs}, and eager mode pays for every op from "
                "Python on every call.")
    empty = f"about {about(fixed)} for an empty function taking the same arguments"
    excess = run.median_s - eager.median_s
    if speed < 1 and excess > _UNEXPLAINED * fixed + (run.spread_s or 0.0) + \
            (eager.spread_s or 0.0):
        # Slower by many times a call's fixed cost: an empty function may stand in for a
        # call's own fixed cost a few times short (issue 22's 2x2 matmul), never so far.
        return (f"{label} is slower here by {about(excess)} a call ({about(run.median_s)} "
                f"against eager's {about(eager.median_s)}), over {_UNEXPLAINED} times "
                f"{_A_CALL[mode]}'s fixed cost ({empty}): the "
                f"{'graph' if mode == 'graph' else 'compiled'} ops themselves took longer than "
                "eager's whole call, so the fixed cost does not explain it (a profile shows "
                "where the time goes: --tensorboard LOGDIR writes one).")
    if fixed >= run.median_s:
        # Measured in another moment, the empty function came out no cheaper than this whole
        # call: the fixed cost is then all the timings show, and no number of it is stated
        # as if it were part of a call that took less.
        empty = (f"an empty function taking the same arguments measured {about(fixed)}, "
                 f"no less than this whole call's {about(run.median_s)}")
    if speed < 1:
        return (f"{label} is slower here: {_A_CALL[mode]}'s fixed cost ({empty}) outweighs what "
                f"it saves on this function's work, which eager runs whole in "
                f"{about(eager.median_s)}; graphs pay off when a function runs many small ops "
                "or loops.")
    return (f"{label} is faster here: eager mode pays for every op from Python on every call "
            f"({about(eager.median_s)} a call, against {about(run.median_s)} for "
            f"{_A_CALL[mode]}); the timings are too noisy to split {_A_CALL[mode]} into its "
            f"fixed cost ({empty}) and the function's own work.")


def timing_notes(lab: RunLab) -> list[Text]:
    """The notes under the timings: cost against work, a retrace's reason, boxes and skips."""
    notes: list[Text] = []
    if lab.eager_setting_off:
        notes.append(Text("the module turns on tf.config.run_functions_eagerly(True), under "
                          "which a tf.function runs eagerly: graph and XLA ran with it off.",
                          style="yellow"))
    for mode in ("graph", "xla"):
        note = cost_note(lab, mode)
        if note:
            notes.append(Text(note, style="cyan"))
    if lab.retrace_reason in _RETRACE:
        notes.append(Text(_RETRACE[lab.retrace_reason], style="cyan"))
    for mode, run in lab.runs.items():
        if run.timed_out and run.ok:
            notes.append(Text(f"{mode} ran past its {lab.mode_timeout_s:g} s box: its timings "
                              "are from the calls made by then.", style="yellow"))
    return notes
