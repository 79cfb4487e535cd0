"""The curves' record: whole through the model's JSON form and pickle, its --json object, and
the bound on the number of steps, all without TensorFlow."""

from __future__ import annotations

import json
import math
import pickle

from agexplorer.model.curves import Curves, Series, steps_problem
from agexplorer.model.serial import from_dict, to_data
from agexplorer.worker import protocol
from agexplorer.worker.protocol import CurvesRequest

CURVES = Curves(file="/p/s7_3_homework.py", function="train_step", call="x_train, y_train",
                call_origin="AGX_CALLS", steps=5, done=3,
                series=[Series("loss", [3.5, 2.25, 1.0]), Series("lr", [0.1, 0.1, 0.05])],
                notes=["grads is a list, not a scalar: left out of the chart."],
                error="/p/s7_3_homework.py:40: step 4 of 5, train_step(x_train, y_train), "
                      "raised ValueError: no", error_line=40, elapsed_s=0.5, printed="hi\n",
                log="")


def test_the_record_reads_back_whole_as_the_reply_of_its_request():
    data = json.loads(json.dumps(to_data(CURVES)))
    assert from_dict(Curves, data) == CURVES
    # The explorer's saved answers name the reply by the request (tests/fixtures/answers.json).
    assert from_dict(protocol.reply_type(CurvesRequest), data) == CURVES
    assert pickle.loads(pickle.dumps(CURVES)) == CURVES


def test_the_json_object_names_each_series_and_the_step_that_failed():
    data = CURVES.to_dict()
    assert data["series"] == [{"name": "loss", "values": [3.5, 2.25, 1.0]},
                              {"name": "lr", "values": [0.1, 0.1, 0.05]}]
    assert (data["done"], data["failed_step"], data["error_line"]) == (3, 4, 40)
    assert data["target"] == {"file": "/p/s7_3_homework.py", "function": "train_step"}
    # JSON has no nan: a value that is not finite is null.
    assert Series("loss", [1.0, math.nan, math.inf]).to_dict()["values"] == [1.0, None, None]


def test_paths_are_put_back_from_a_shadow_file():
    moved = CURVES.with_paths("/real/h.py", lambda text: text and text.replace(
        "/p/s7_3_homework.py", "/real/h.py"))
    assert moved.file == "/real/h.py" and moved.error.startswith("/real/h.py:40: step 4")


def test_the_number_of_steps_is_bounded():
    assert [steps_problem(n) for n in (1, 20, 1000)] == [None, None, None]
    assert steps_problem(0) == "the number of steps must be from 1 to 1000, not 0"
    assert steps_problem(1001) == "the number of steps must be from 1 to 1000, not 1001"
    assert steps_problem(True) == "the number of steps must be a whole number, not True"
    assert steps_problem("3") == "the number of steps must be a whole number, not '3'"
