"""`agexplorer doctor RUN.agxlog`: the doctor on a recorded run, each function of the user's
code (its own tf.functions and what Keras's and tf.data's reached) with its recorded call."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import FIXTURES, ROOT, recorded_once, run_cli


@pytest.fixture(scope="module")
def keras_log(tmp_path_factory):
    """The Keras fit/predict program's log (recorded once a run: tests/record share it)."""
    code, stderr, log = recorded_once(tmp_path_factory,
                                      os.path.join(FIXTURES, "record", "keras_fit_predict.py"))
    assert code == 0, stderr
    return log


@pytest.mark.tf
def test_a_recorded_keras_run_is_examined_with_the_recorded_call_and_instance(keras_log):
    proc = run_cli("doctor", keras_log, "--json")
    assert proc.returncode == 1, proc.stderr  # something was found, as a linter says
    data = json.loads(proc.stdout)
    (layer,) = data["functions"]
    assert layer["function"] == "Smoother.call" and data["not_examined"] == []
    assert layer["call"] == {"args": "tf.zeros([8, 4], tf.float32)",
                             "origin": "recorded: trace 1 of model.fit"}
    (finding,) = [f for f in layer["findings"] if f["code"] == "AGX004"]
    assert "unrolled 6 times" in finding["message"]  # the recorded instance: steps=6
    assert "tf.while_loop" in finding["fix"]


@pytest.mark.tf
def test_the_text_says_how_many_functions_were_examined(keras_log):
    proc = run_cli("doctor", keras_log)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(f"{os.path.basename(keras_log)}: 1 function of your code examined with the "
                                  "calls the run recorded")
    assert "[recorded: trace 1 of model.fit]" in proc.stdout


def test_a_log_takes_no_call_of_its_own(tmp_path):
    log = tmp_path / "run.agxlog"
    log.write_text('{"type": "start", "format": "agexplorer-record/1", "argv": []}\n')
    proc = run_cli("doctor", str(log), "--call", "tf.ones([2])")
    assert proc.returncode == 2
    assert "a recorded run is examined with its recorded calls: drop --call" in proc.stderr


def test_a_file_that_is_neither_python_nor_a_log_is_one_sentence(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    proc = run_cli("doctor", str(notes))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"agexplorer: {notes} is neither a Python file (.py) nor a "
                                   "run log written by `agexplorer record`; pass one of those.")


def test_a_garbage_log_is_one_sentence(tmp_path):
    log = tmp_path / "run.agxlog"
    log.write_text("not json at all\n")
    proc = run_cli("doctor", str(log))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_each_function_is_examined_with_the_call_the_run_made_first_whatever_the_trace_times():
    """The summary lists functions by tracing time, which a loaded machine reorders: the
    call examined is still the first one the run made (fit's, made before predict's)."""
    from agexplorer.cli.doctor_log import targets

    def reaching(number: int, in_log: int, shape: str) -> dict:
        return {"trace": number, "in_log": in_log, "arguments": None,
                "reached": [{"file": "m.py", "function": "Smoother.call", "init": "",
                             "arguments": [shape]}]}

    fit = {"file": "k.py", "function": "train_function", "user": False,
           "called_from": {"call": "model.fit"}, "each_trace": [reaching(1, 1, "fit's")]}
    predict = {"file": "k.py", "function": "predict_function", "user": False,
               "called_from": {"call": "model.predict"},
               "each_trace": [reaching(1, 2, "predict's")]}
    for listed in ([fit, predict], [predict, fit]):  # either tracing time first
        (examined,) = targets({"functions": listed})
        assert (examined.arguments, examined.source) == (["fit's"], "trace 1 of model.fit")


def test_a_trace_made_by_a_loop_over_a_dataset_is_named_by_that_loop():
    """``for x, y in ds:`` in a tf.function makes tf.data trace its body as a function of
    its own (``wrapped_fn``, no call of the user's): the functions it reached say which
    loop recorded their call, not "wrapped_fn"."""
    from agexplorer.cli.doctor_log import targets

    body = {"file": "/tf/data/ops/structured_function.py", "user": False,
            "function": "StructuredFunctionWrapper.__init__.<locals>.wrapped_fn",
            "called_from": {"file": "/w/pipeline.py", "function": "total", "line": 24,
                            "text": "for x, y in ds:", "call": None},
            "each_trace": [{"trace": 1, "in_log": 1, "arguments": None,
                            "reached": [{"file": "/w/helpers.py", "function": "clip_all",
                                         "arguments": ["x"]}]}]}
    (examined,) = targets({"functions": [body]})
    assert examined.source == "trace 1 of for x, y in ds: (pipeline.py:24)"


def test_a_function_the_run_only_reached_is_marked_so_and_one_it_traced_is_not():
    """A helper reached from another function's trace is examined as not traced on its own
    (a Python number it is passed retraces nothing of it); one the run also traced as its own
    tf.function is, whichever of the two came first."""
    from agexplorer.cli.doctor_log import targets

    def calling(function: str, user: bool, in_log: int, reached: list[str]) -> dict:
        trace = {"trace": 1, "in_log": in_log, "arguments": ["x"],
                 "reached": [{"file": "m.py", "function": f, "arguments": ["3"]}
                             for f in reached]}
        return {"file": "m.py", "function": function, "user": user, "each_trace": [trace]}

    run = {"functions": [calling("augment", True, 1, ["normalise", "scale"]),
                         calling("scale", True, 2, [])]}
    examined = {e.function: e.reached for e in targets(run)}
    assert examined == {"augment": False, "normalise": True, "scale": False}


HELPER = '''
import tensorflow as tf


def normalise(x, steps):
    for _ in range(steps):
        x = x - tf.reduce_mean(x)
    return x
'''


@pytest.mark.tf
def test_a_python_number_is_a_retrace_cause_only_for_a_function_traced_on_its_own(
        worker, tmp_path):
    """AGX009 names the call's origin (the recorded trace, not --call); a function the run
    only reached gets no AGX009: nothing retraces it on its own."""
    from agexplorer.worker.protocol import DoctorRequest

    path = tmp_path / "helpers.py"
    path.write_text(HELPER)
    target, call = f"{path}::normalise", "tf.zeros([4]), 3"

    def codes(**how) -> dict[str, str]:
        report = worker.request(DoctorRequest(target, call=call, **how))
        return {f.code: f.message for f in report.findings}

    alone = codes(call_origin="the recorded trace 1 of augment")
    assert "(from the recorded trace 1 of augment)" in alone["AGX009"]
    assert "AGX009" not in codes(call_origin="the recorded trace 1 of augment", reached=True)
    assert "(from --call)" in codes()["AGX009"]


@pytest.mark.tf
def test_a_recorded_training_run_names_what_its_calls_made_up_and_no_retrace_for_a_helper(
        worker, monkeypatch, capsys, tmp_path):
    """tests/fixtures/program.agxlog (the training script of tests/fixtures/record): its step
    reaches ``normalize(x, 3)``. With the step's batch recorded as unknown, the step is
    examined with a batch of 1 and says so; the helper gets no AGX009 (only the step's
    trace runs it: nothing retraces it on its own)."""
    from agexplorer.cli import main
    from agexplorer.worker import client

    records = []
    with open(os.path.join(FIXTURES, "program.agxlog"), encoding="utf-8") as f:
        for line in f:
            record = json.loads(line.replace("$ROOT", ROOT))
            if record.get("type") == "trace" and record.get("trace") == 1:
                record["arguments"][0].update(text="float32[None, 4]", shape=[None, 4])
            records.append(json.dumps(record))
    log = tmp_path / "train.agxlog"
    log.write_text("\n".join(records) + "\n", encoding="utf-8")
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    main(["doctor", str(log), "--json"])
    data = json.loads(capsys.readouterr().out)
    examined = {f["function"]: f for f in data["functions"]}
    step, helper = examined["train_step"], examined["normalize"]
    assert step["call"]["args"].startswith("tf.zeros([1, 4], tf.float32)")
    assert step["call"]["origin"] == ("recorded: trace 1 of train_step; x's unknown "
                                      "dimensions are 1")
    assert helper["call"] == {"args": "tf.zeros([16, 4], tf.float32), 3",
                              "origin": "recorded: trace 1 of train_step"}
    assert "AGX009" not in {f["code"] for f in helper["findings"]}


def test_a_function_the_run_ran_only_unconverted_is_marked_so():
    """A helper every trace reached as plain Python (a Keras 3 layer's call and what it
    calls, ``converted: false`` in the log) is examined as the run ran it; one a trace
    reached converted, or that the run traced on its own, is not."""
    from agexplorer.cli.doctor_log import targets

    def reach(function: str, converted: bool, arguments: bool = True) -> dict:
        entry = {"file": "m.py", "function": function, "converted": converted}
        return {**entry, "arguments": ["x"]} if arguments else entry

    trace = {"trace": 1, "in_log": 1, "arguments": None,
             "reached": [reach("Smooth.call", False), reach("smooth", False),
                         reach("mixed", False), reach("staged", True)]}
    other = {"trace": 2, "in_log": 2, "arguments": None,
             "reached": [reach("mixed", True, arguments=False)]}
    run = {"functions": [{"file": "k.py", "function": "train_function", "user": False,
                          "each_trace": [trace, other]}]}
    examined = {e.function: e.unconverted for e in targets(run)}
    assert examined == {"Smooth.call": True, "smooth": True, "mixed": False, "staged": False}
