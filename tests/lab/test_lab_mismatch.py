"""Differences between the run lab's modes are explained by evidence: every mode starts from one
seed, a side effect is named only when the effects tracker saw it, and otherwise the words say
what differs and list only the causes that can apply (issue 22)."""

from __future__ import annotations

import os

import pytest

from agexplorer.model.lab import ModeEffect, ModeRun, RunLab
from agexplorer.render.lab_mismatch import mismatch_words

CASES = os.path.join(os.path.dirname(__file__), "cases_modes.py")


def _lab(differences: dict[str, float | None], device: str = "/device:CPU:0",
         **effects: list[ModeEffect]) -> RunLab:
    runs = {m: ModeRun(ok=True, result=f"r-{m}", effects=effects.get(m, []),
                       first_call_traces=None if m == "eager" else 1) for m in ("eager", "graph", "xla")}
    shown = "; ".join(f"{m}: r-{m}" for m in ["eager", *differences])
    return RunLab(device=device, runs=runs, results_match=False, mismatch=shown,
                  differences=differences)


def _count(before: str, after: str, phase: str = "first-call") -> ModeEffect:
    return ModeEffect("global", "count", before, after, phase)  # type: ignore[arg-type]


def test_a_side_effect_seen_to_differ_is_named_with_its_values():
    lab = _lab({"graph": 0.5}, eager=[_count("0", "1"), _count("1", "40", "later-calls")],
               graph=[_count("0", "2")])
    lab.runs["graph"].first_call_traces = 2
    words = mismatch_words(lab)
    assert words.startswith("results differ between modes: eager: r-eager; graph: r-graph.\n")
    assert "eager: the global `count` went 0 -> 1 in its first call, then to 40 over its later " \
           "calls" in words
    assert "graph: the global `count` went 0 -> 2 while tracing (2 traces), and never in its " \
           "later calls" in words
    assert "likely causes" not in words


def test_a_side_effect_alike_in_every_mode_is_not_a_cause():
    lab = _lab({"graph": 1.0}, eager=[_count("0", "1")], graph=[_count("0", "1")])
    words = mismatch_words(lab)
    assert "side effects differ" not in words
    assert "the global `count` changed alike in every mode's first call" in words


def test_without_evidence_the_words_say_so_and_name_no_side_effect():
    words = mismatch_words(_lab({"graph": 1.7}))
    assert "no global, closure variable or attribute changed while tracing" in words
    assert "side effect" not in words and "global counter" not in words
    assert "likely causes" not in words and "XLA" not in words and "GPU" not in words
    assert "the trace has no random ops and the difference is too large for float rounding; " \
           "left to check: state the lab does not watch" in words


def test_random_ops_are_named_from_the_trace_and_xla_only_where_xla_differs():
    lab = _lab({"graph": 1.7})
    lab.runs["graph"].random_ops = ["RandomStandardNormal"]
    words = mismatch_words(lab)
    assert "likely causes: random ops without an op-level seed (RandomStandardNormal)" in words
    assert "XLA" not in words
    lab = _lab({"xla": 1.2})
    lab.runs["xla"].random_ops = ["RandomUniform"]
    words = mismatch_words(lab)
    assert "XLA draws its random ops (RandomUniform) with a generator of its own" in words
    assert "op-level seed" not in words  # graph agreed with eager


def test_float_rounding_only_for_a_small_difference_and_xla_only_when_xla_differs():
    xla = mismatch_words(_lab({"xla": 3e-4}))
    assert "float rounding: XLA fuses and reorders float arithmetic (largest relative " \
           "difference 0.0003)" in xla
    graph = mismatch_words(_lab({"graph": 3e-4}))
    assert "float rounding: a graph's optimizations" in graph and "XLA" not in graph
    assert "too large for float rounding" in mismatch_words(_lab({"xla": 0.4}))
    assert "float rounding:" not in mismatch_words(_lab({"xla": None}))  # another shape


def test_nondeterministic_kernels_only_on_a_gpu():
    assert "nondeterministic GPU kernels" in mismatch_words(_lab({"graph": 0.1}, "/device:GPU:0"))
    assert "nondeterministic" not in mismatch_words(_lab({"graph": 0.1}))


def test_effects_and_differences_are_in_the_json():
    lab = _lab({"graph": 0.5}, graph=[_count("0", "2")])
    data = lab.to_dict()
    assert data["differences"] == {"graph": 0.5}
    assert data["runs"]["graph"]["effects"] == [
        {"kind": "global", "name": "count", "before": "0", "after": "2", "phase": "first-call"}]
    assert data["runs"]["graph"]["random_ops"] == []


# -- with TensorFlow: real programs -----------------------------------------------------------

@pytest.mark.tf
def test_unseeded_initial_weights_are_drawn_alike_in_every_mode(tf):
    # (a) The case: a Keras 3 model built at load, each mode loading the module afresh.
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::predict", budget=0.02)
    assert lab.results_match is True, lab.mismatch
    assert lab.seed is not None and lab.to_dict()["seed"] == lab.seed


@pytest.mark.tf
def test_an_unseeded_random_op_differs_and_is_named_from_the_trace(tf):
    # (b) One global seed does not make tf.random.normal agree: eager derives the op's seed
    # from a counter of eager ops, a graph from the op's id, and XLA has a generator of its own.
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::noise", budget=0.02)
    assert lab.results_match is False and set(lab.differences) == {"graph", "xla"}
    assert lab.runs["graph"].random_ops == ["RandomStandardNormal"]
    assert all(not run.effects for run in lab.runs.values())
    words = mismatch_words(lab)
    assert "no global, closure variable or attribute changed while tracing" in words
    assert "random ops without an op-level seed (RandomStandardNormal)" in words
    assert "XLA draws its random ops" in words and "side effects" not in words


@pytest.mark.tf
def test_a_global_counter_is_named_as_the_side_effect_it_is(tf):
    # (c) count += 1 in the body; the first call builds a layer, so graph traces twice.
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::counted_model", budget=0.02, skip_xla=True)
    assert lab.results_match is False and lab.differences == {"graph": 0.5}
    words = mismatch_words(lab)
    assert "eager: the global `count` went 0 -> 1 in its first call" in words
    assert "graph: the global `count` went 0 -> 2 while tracing (2 traces)" in words
    shared = run_lab(f"{CASES}::counted", budget=0.02, skip_xla=True, fresh_module=False)
    assert shared.results_match is False  # eager's calls moved the counter graph then traced with
    eager = shared.runs["eager"].effects
    assert [(e.phase, e.before) for e in eager] == [("first-call", "0"), ("later-calls", "1")]
    assert f"graph: the global `count` went {eager[1].after} -> " in mismatch_words(shared)


@pytest.mark.tf
def test_xla_giving_a_result_where_an_assertion_raised_is_a_mismatch_with_its_cause(tf):
    """tf.debugging.assert_positive raises in eager and graph; XLA's compile ignores Assert
    ops (tf2xla's kernel for it only logs "Ignoring Assert operator"), so XLA gives a
    result: the modes disagree, and the words name the Assert op the trace has."""
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{CASES}::checked_log", budget=0.02)
    assert not lab.runs["eager"].ok and not lab.runs["graph"].ok and lab.runs["xla"].ok
    assert lab.runs["xla"].assert_ops == 1
    assert lab.results_match is False
    assert lab.mismatch.startswith("eager and graph raised InvalidArgumentError, xla gave ")
    words = mismatch_words(lab)
    assert "XLA leaves Assert ops out" in words and "the trace has 1 Assert op" in words
    assert "never ran" in words and lab.to_dict()["runs"]["xla"]["assert_ops"] == 1
    # Where the check holds every mode agrees, and the assertion is no cause of anything.
    fine = run_lab(f"{CASES}::checked_log", "tf.constant([1.0, 2.0])", budget=0.02)
    assert fine.results_match is True and fine.mismatch is None
