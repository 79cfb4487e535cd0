"""Keras's fit/predict, tf.data's functions and a Keras model in the user's tf.function,
recorded as a user would run them; every count checked against an independent trace
(tests/record/graph_oracle.py: each graph's ops by their own tracebacks)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import pytest

from agexplorer.runlog.log import read_log
from agexplorer.runlog.summary import summarise
from agexplorer.runlog.text import text_lines
from tests.conftest import ROOT, recorded_once
from tests.record.test_record import RECORD

KERAS = os.path.join(RECORD, "keras_fit_predict.py")
PIPELINE = os.path.join(RECORD, "data_pipeline.py")
FEATURES = os.path.join(RECORD, "data_features.py")


def _run(script: str, tmp: str, env: dict[str, str] | None = None) -> tuple[list[dict], str]:
    """The trace records of ``agexplorer record SCRIPT``, and its log's path."""
    log = os.path.join(tmp, os.path.basename(script) + ".agxlog")
    proc = subprocess.run([sys.executable, "-m", "agexplorer", "record", "-o", log, script],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, **(env or {})})
    assert proc.returncode in (0, 1), proc.stderr
    return _traces(log), log


def _traces(log: str) -> list[dict]:
    """The trace records of a recorded run's log."""
    with open(log, encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if r["type"] == "trace"]


_oracles: list[subprocess.Popen] = []  # the module's oracle server, once started


@pytest.fixture(scope="module", autouse=True)
def _oracle_server():
    yield
    for server in _oracles:
        server.stdin.close()
        server.wait(timeout=60)
    _oracles.clear()


def _oracle(script: str, *files: str, env: dict[str, str] | None = None) -> list[dict]:
    """The graphs of ``script``, counted by the oracle: in a process forked from its server
    (TensorFlow imported once for the module), or with ``env``, a process of its own
    (TensorFlow reads some variables, TF_USE_LEGACY_KERAS, as it is imported)."""
    if env:
        proc = subprocess.run([sys.executable, "-m", "tests.record.graph_oracle", script,
                               *files], capture_output=True, text=True, timeout=300, cwd=ROOT,
                              env={**os.environ, **env})
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.splitlines()[-1])
    if not _oracles:
        _oracles.append(subprocess.Popen(
            [sys.executable, "-m", "tests.record.graph_oracle", "--serve"], cwd=ROOT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE))
    server = _oracles[0]
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "graphs.json")
        server.stdin.write(json.dumps([script, list(files), out]) + "\n")
        server.stdin.flush()
        status = server.stdout.readline().strip()
        assert status, f"the oracle server ended (exit status {server.wait(timeout=60)})"
        with open(out + ".err", encoding="utf-8") as err:
            assert status == "0", (status, err.read())
        with open(out, encoding="utf-8") as result:
            return json.loads(result.read().splitlines()[-1])


def _graphs(oracle: list[dict], name: str) -> list[dict]:
    return [g for g in oracle if g["name"] == name]


def _ops(graph: dict, file: str, *lines: int) -> int:
    return sum(graph["lines"].get(f"{os.path.basename(file)}:{n}", 0) for n in lines)


def _path(statement: dict) -> list[tuple[str, int]]:
    return [(site["function"], site["line"]) for site in statement["call_path"]]


def _summary(log: str) -> str:
    return " ".join(" ".join(text_lines(summarise(read_log(log)), width=400)).split())


def _named(traces: list[dict], suffix: str) -> list[dict]:
    return [t for t in traces if t["function"].endswith(suffix)]


@pytest.fixture(scope="module")
def keras3(tmp_path_factory):
    """The Keras fit/predict program's traces and log (recorded once a run: the doctor's
    tests share it), and the oracle's graphs."""
    code, stderr, log = recorded_once(tmp_path_factory, KERAS)
    assert code in (0, 1), stderr
    return _traces(log), log, _oracle(KERAS, KERAS)


@pytest.mark.tf
def test_a_keras3_fit_counts_the_layers_loop_in_each_train_trace(keras3):
    traces, _, oracle = keras3
    steps = _named(traces, "one_step_on_data")
    graphs = _graphs(oracle, "one_step_on_data")
    assert steps and len(steps) == len(graphs)
    for trace, graph in zip(steps, graphs, strict=True):
        loop, branch = trace["statements"]
        assert (loop["line"], loop["kind"], loop["verdict"], loop["iterations"]) == \
            (18, "for", "python", 6)
        assert loop["ops_created"] == _ops(graph, KERAS, 19) > 0
        assert (branch["line"], branch["kind"], branch["branch"]) == (20, "if", "true")
        assert loop["unconverted"] == "keras3" and "tf.while_loop" in loop["hint"]
        assert _path(loop) == [("model.fit", 30), ("Smoother.call", 16)]
        (layer,) = trace["reached"]
        assert (layer["function"], layer["converted"]) == ("Smoother.call", False)
        assert layer["init"] == "steps=6"
        assert [a["text"] for a in layer["arguments"]] == ["float32[8, 4]"]
        assert layer["note"] == ("Keras 3 runs Smoother.call without AutoGraph: its Python "
                                 "loops unroll and an `if` on a tensor raises")


@pytest.mark.tf
def test_a_nested_library_trace_counts_only_its_own_graph(keras3):
    traces, _, oracle = keras3
    (outer,) = _named(traces, "multi_step_on_iterator")
    (graph,) = _graphs(oracle, "multi_step_on_iterator")
    assert outer["op_count"] == graph["ops"] and not outer["statements"]
    (inner, *_) = _named(traces, "one_step_on_data")
    assert inner["inside"] == outer["trace"]


@pytest.mark.tf
def test_predict_with_new_batch_sizes_says_which_shape_changed_and_that_keras_relaxed_it(keras3):
    traces, log, oracle = keras3
    predicts = _named(traces, "one_step_on_data_distributed")
    assert len(predicts) == len(_graphs(oracle, "one_step_on_data_distributed")) == 2
    first, second = predicts
    assert first["statements"][0]["ops_created"] == \
        _ops(_graphs(oracle, "one_step_on_data_distributed")[0], KERAS, 19)
    assert second["kind"] == "retrace"
    assert second["causes"] == [{"name": "data[0]", "change": "shape",
                                 "relaxed": "float32[None, 4]"}]
    assert "reduce_retracing made this one for float32[None, 4]" in second["reason"]
    text = _summary(log)
    assert "model.predict (keras_fit_predict.py:32) → one_step_on_data_distributed" in text
    assert "data[0]: a new shape [5, 4]; reduce_retracing made it float32[None, 4]" in text
    # Keras's own function takes no input_signature from the user: no fix is offered
    assert "a None dimension for data[0]" not in text


@pytest.mark.tf
def test_the_summary_ranks_the_layers_loop_from_the_fit_line_and_says_keras3_once(keras3):
    _, log, _ = keras3
    text = _summary(log)
    assert "model.fit (keras_fit_predict.py:30) → Smoother.call (keras_fit_predict.py:18) " \
        "for: unrolled 6x, 43 ops" in text
    assert text.count("Keras 3 runs Smoother.call without AutoGraph") == 1
    assert "multi_step_on_iterator" not in text and "wrapped_fn" not in text


@pytest.mark.tf
@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="needs tf-keras")
def test_keras2_converts_the_layers_call_and_counts_its_loop(tmp_path):
    legacy = {"TF_USE_LEGACY_KERAS": "1"}
    traces, _ = _run(KERAS, str(tmp_path), legacy)
    oracle = _oracle(KERAS, KERAS, env=legacy)
    steps = _named(traces, "train_function")
    graphs = _graphs(oracle, "train_function")
    assert steps and len(steps) == len(graphs)
    for trace, graph in zip(steps, graphs, strict=True):
        loop = trace["statements"][0]
        assert (loop["line"], loop["verdict"], loop["iterations"]) == (18, "python", 6)
        assert loop["ops_created"] == _ops(graph, KERAS, 19) > 0
        assert loop["unconverted"] is None and "tf.range(self.steps)" in loop["hint"]
        assert _path(loop)[0] == ("model.fit", 30)
        (layer,) = trace["reached"]
        assert layer["converted"] is True and layer["init"] == "steps=6"


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("pipeline"))
    return (*_run(PIPELINE, tmp), _oracle(PIPELINE, PIPELINE, FEATURES))


@pytest.mark.tf
@pytest.mark.parametrize(("call", "graph", "file", "line", "body", "iterations"), [
    ("rows.map(featurize)", "Dataset_map_featurize", PIPELINE, 10, 11, 5),
    ("feats.filter(keep)", "Dataset_filter_keep", PIPELINE, 17, 18, 2),
    ("doubled.map(frame_energy)", "Dataset_map_frame_energy", FEATURES, 8, 9, 4),
])
def test_each_tf_data_function_is_a_root_with_its_loop_counted_in_its_own_graph(
        pipeline, call, graph, file, line, body, iterations):
    traces, _, oracle = pipeline
    (trace,) = [t for t in traces if (t.get("called_from") or {}).get("call") == call]
    (made,) = _graphs(oracle, graph)
    assert trace["op_count"] == made["ops"]
    (loop,) = trace["statements"]
    assert (loop["file"], loop["line"], loop["iterations"]) == (file, line, iterations)
    assert loop["ops_created"] == _ops(made, file, body) > 0
    assert _path(loop)[0][0] == call
    (fn,) = trace["reached"]
    assert fn["converted"] is True  # tf.data converts its functions with AutoGraph


@pytest.mark.tf
def test_interleave_and_reduce_are_named_by_the_users_call(pipeline):
    traces, log, _ = pipeline
    calls = {(t.get("called_from") or {}).get("call") for t in traces}
    assert {"kept.interleave(expand)", "energies.reduce(lambda)"} <= calls
    text = _summary(log)
    assert "doubled.map(frame_energy) (data_pipeline.py:31) → frame_energy " \
        "(data_features.py:8) for: unrolled 4x" in text


@pytest.mark.tf
def test_a_map_function_defined_inside_another_is_named_not_given_its_outer_ones_call(
        pipeline):
    """``main``'s own ``centred``, mapped: its loop is counted in the map's graph and charged
    to main's lines, but main was never called with centred's arguments: the log keeps the
    local function's name, and `doctor LOG` says why it is not examined instead of
    examining main with a call main does not take."""
    from agexplorer.cli.doctor_log import local_functions, targets

    traces, log, oracle = pipeline
    (trace,) = [t for t in traces
                if (t.get("called_from") or {}).get("call") == "feats.map(centred)"]
    (made,) = _graphs(oracle, "Dataset_map_centred")
    (loop,) = trace["statements"]
    assert (loop["line"], loop["iterations"]) == (36, 2)
    assert loop["ops_created"] == _ops(made, PIPELINE, 37) > 0
    (outer,) = trace["reached"]
    assert (outer["function"], outer["local"]) == ("main.<locals>.centred",
                                                   "main.centred (line 35)")
    assert "arguments" not in outer
    summary = summarise(read_log(log))
    assert "main" not in {e.function for e in targets(summary)}
    (skipped,) = local_functions(summary)
    assert (skipped["file"], skipped["function"]) == (PIPELINE, "main.centred (line 35)")
    assert skipped["why"].startswith("it is defined inside main")


@pytest.mark.tf
def test_a_loop_over_a_dataset_keeps_each_statement_in_the_trace_that_made_it(pipeline):
    """``for v in ds:`` in a tf.function: AutoGraph stages it on tf.data, which traces the
    body (and its ``if``) as a function of its own, inside the tf.function's trace. The
    ``if`` is that trace's, staged, counted in its graphs; in the tf.function's trace it is
    not "never reached", and the body's trace does not list the ``for`` around it. Each
    trace counts its own graph's ops (the reduce's body is not counted twice)."""
    traces, _, oracle = pipeline
    (outer,) = _named(traces, "positive_sum")
    assert [(v["line"], v["verdict"]) for v in outer["statements"]] == [(48, "staged")]
    # Its own graph only: the reduce's body, walked as control flow, has a record of its own.
    (own,) = _graphs(oracle, "positive_sum")
    (reduce_body,) = _graphs(oracle, "reduce_reduce_body")
    assert outer["op_count"] == own["ops"]
    assert outer["statements"][0]["ops_created"] == _ops(own, PIPELINE, 48) > 0
    bodies = [t for t in traces if t.get("inside") == outer["trace"]]
    assert {(t.get("called_from") or {}).get("text") for t in bodies} == {"for v in ds:"}
    assert reduce_body["ops"] in [t["op_count"] for t in bodies if not t["statements"]]
    (body,) = [t for t in bodies if t["statements"]]
    (branch,) = body["statements"]
    assert (branch["line"], branch["verdict"]) == (49, "staged")
    graphs = [g for g in oracle if g["name"] == "Dataset_scan_scan_body"
              or g["name"].startswith(("cond_true", "cond_false"))]
    assert body["op_count"] == sum(g["ops"] for g in graphs)
    assert branch["ops_created"] == sum(_ops(g, PIPELINE, 49, 50) for g in graphs) > 0


@pytest.mark.tf
def test_a_keras3_model_inside_a_user_function_counts_the_layers_loop(tmp_path):
    script = os.path.join(RECORD, "keras_in_function.py")
    traces, _ = _run(script, str(tmp_path))
    (graph,) = _graphs(_oracle(script, script), "step")
    (step,) = traces
    assert step["user"] and step["op_count"] == graph["ops"]
    (loop,) = step["statements"]
    assert (loop["function"], loop["iterations"]) == ("Block.call", 3)
    assert loop["ops_created"] == _ops(graph, script, 11) > 0
    assert _path(loop) == [("step", 20), ("Block.call", 9)]


@pytest.mark.tf
def test_nested_user_functions_each_count_their_own_graph(tmp_path):
    script = os.path.join(RECORD, "nested_functions.py")
    traces, _ = _run(script, str(tmp_path))
    oracle = _oracle(script, script)
    by_name = {t["function"]: t for t in traces}
    for name in ("inner", "outer"):
        (graph,) = _graphs(oracle, name)
        assert by_name[name]["op_count"] == graph["ops"]
    assert [(s["line"], s["iterations"]) for s in by_name["inner"]["statements"]] == [(8, 4)]
    assert [(s["line"], s["iterations"]) for s in by_name["outer"]["statements"]] == [(16, 2)]


@pytest.mark.tf
def test_a_tensor_if_in_a_keras3_layer_is_explained_by_its_root_cause(tmp_path):
    script = os.path.join(RECORD, "keras_tensor_if.py")
    _, log = _run(script, str(tmp_path))
    text = _summary(log)
    assert "OperatorNotAllowedInGraphError at keras_tensor_if.py:10" in text
    assert "Keras 3 runs Gate.call without AutoGraph: its Python loops unroll and an `if` " \
        "on a tensor raises" in text
    assert "fix: AutoGraph does not convert this code, so an if on a tensor raises here: " \
        "write it with tf.cond or keras.ops.cond" in text
    assert "Exception encountered" not in text and "Could not automatically infer" not in text


@pytest.mark.tf
def test_a_function_traced_without_autograph_counts_its_own_loop(tmp_path):
    script = os.path.join(RECORD, "no_autograph.py")
    traces, _ = _run(script, str(tmp_path))
    (graph,) = _graphs(_oracle(script, script), "step")
    (step,) = traces
    loop, branch = step["statements"]
    assert (loop["line"], loop["verdict"], loop["iterations"]) == (8, "python", 3)
    assert loop["ops_created"] == _ops(graph, script, 9) > 0
    assert (branch["line"], branch["branch"]) == (10, "true")
    assert "autograph=False" in loop["reason"]


@pytest.mark.tf
def test_a_first_fit_that_builds_the_model_counts_only_its_own_graphs_runs(tmp_path):
    """Keras 3 calls Stack.call in scratch graphs to infer shapes while the first step
    traces: those runs made nothing of the step's graph and are not counted."""
    script = os.path.join(RECORD, "keras_unbuilt_fit.py")
    traces, _ = _run(script, str(tmp_path))
    steps = _named(traces, "one_step_on_data")
    graphs = _graphs(_oracle(script, script), "one_step_on_data")
    assert steps and len(steps) == len(graphs)
    for trace, graph in zip(steps, graphs, strict=True):
        loops = {s["line"]: s for s in trace["statements"]}
        assert (loops[15]["iterations"], loops[15]["times"]) == (2, 1)
        assert loops[15]["ops_created"] == _ops(graph, script, 16) > 0
        assert (loops[17]["iterations"], loops[17]["times"]) == (3, 1)
        # Over Keras's list of layers the unrolling is the point: no fix; over a range, the
        # fix for code AutoGraph does not convert.
        assert loops[17]["hint"] is None and "no tensor holds" in loops[17]["reason"]
        assert loops[17]["value"] == "a Python TrackedList of 3 items"
        assert "keras.ops.fori_loop" in loops[15]["hint"]


@pytest.mark.tf
def test_a_keras_3_train_steps_loop_over_the_variables_is_intended(tmp_path):
    """Keras 3 runs a model's own train_step without AutoGraph; its loop over
    zip(grads, self.trainable_variables) is one step per variable, as in converted code:
    counted as intended, no fix, not among the unrolled loops listed."""
    script = os.path.join(RECORD, "keras_train_step.py")
    traces, log = _run(script, str(tmp_path))
    (step, *_) = _named(traces, "one_step_on_data")
    loop = next(s for s in step["statements"] if s["line"] == 23)
    assert (loop["iterations"], loop["intended"], loop["hint"]) == (2, "variables", None)
    # Over the gradients alone (a kernel's and a bias's, two shapes): no graph loop takes
    # them, so no fix either (it was told to vectorise or use keras.ops.fori_loop).
    norms = next(s for s in step["statements"] if s["line"] == 26)
    assert (norms["iterations"], norms["hint"]) == (2, None), norms
    assert "which differ in shape or dtype" in norms["reason"]
    text = _summary(log)
    assert "1 loop over variables unrolled as intended" in text
    assert "Stepper.train_step (keras_train_step.py:23) for" not in text
