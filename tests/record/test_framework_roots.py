"""Traces TensorFlow and Keras build (tf.data's map, Keras's train step) start at the user's line.

The expected counts were checked against each op's own traceback in the graph that holds it
(the map function's graph: 41 ops, 39 of log_spectrogram, 36 of its loop; Keras's
one_step_on_data graph: 220 ops, 71 of AttentionPool.call, 66 of its loop).
"""

from __future__ import annotations

import json
import os

import pytest

from agexplorer.runlog.log import read_log
from agexplorer.runlog.summary import summarise
from agexplorer.runlog.text import text_lines
from conftest import fixture
from tests.record.test_record import RECORD, record


def _traces(log: str) -> list[dict]:
    with open(log, encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if r["type"] == "trace"]


def _record(tmp_path, script: str) -> str:
    log = str(tmp_path / "run.agxlog")
    proc = record("-o", log, os.path.join(RECORD, script))
    assert proc.returncode == 0, proc.stderr
    return log


@pytest.fixture(scope="module")
def pool_layer_log(tmp_path_factory) -> str:
    """One recording of the Keras program for the tests that read it (a run: ~8 s of CPU)."""
    return _record(tmp_path_factory.mktemp("pool-layer"), "keras_pool_layer.py")


def _summary_text(log: str, limit: int | None = 5) -> str:
    return "\n".join(text_lines(summarise(read_log(log)), limit=limit, width=400))


def _path(statement: dict) -> list[tuple[str, int]]:
    return [(site["function"], site["line"]) for site in statement["call_path"]]


@pytest.mark.tf
def test_a_dataset_map_loop_is_charged_its_ops_in_the_map_graph(tmp_path):
    log = _record(tmp_path, "audio_pipeline.py")
    (trace,) = _traces(log)
    assert not trace["user"] and trace["op_count"] == 41
    assert trace["called_from"]["function"] == "main" and trace["called_from"]["line"] == 16
    (fn,) = trace["reached"]
    assert (fn["function"], fn["op_count"]) == ("log_spectrogram", 39)
    (loop,) = trace["statements"]
    assert (loop["line"], loop["kind"], loop["iterations"], loop["ops_created"]) == \
        (9, "for", 4, 36)
    assert _path(loop) == [("waves.map(log_spectrogram)", 16), ("log_spectrogram", 6)]
    # Its fix is read from the loop's code: the summary says so, and who tries it.
    text = " ".join(_summary_text(log).split())
    assert "fix: iterate over tf.range(" in text
    assert "(These fixes are read from each loop's code, not tried: `agexplorer doctor` on " \
        "the log traces each rewrite with the call the run recorded.)" in text


@pytest.mark.tf
def test_a_keras_fit_reaches_the_custom_layers_loop_from_the_fit_line(pool_layer_log):
    traces = _traces(pool_layer_log)
    (step,) = [t for t in traces if t["function"].endswith("one_step_on_data")]
    assert step["op_count"] == 220 and step["called_from"]["line"] == 27
    (layer,) = step["reached"]
    assert (layer["function"], layer["op_count"], layer["converted"]) == \
        ("AttentionPool.call", 71, False)
    (loop,) = step["statements"]
    assert (loop["line"], loop["kind"], loop["ops_created"]) == (16, "for", 66)
    assert _path(loop) == [("model.fit", 27), ("AttentionPool.call", 14)]


@pytest.mark.tf
def test_the_summary_names_the_users_line_and_leaves_out_library_functions(pool_layer_log):
    log = pool_layer_log
    text = _summary_text(log)
    # Keras's train step, named by the line that asked for it; its data adapter's tf.data
    # function reached none of the user's code: counted, listed by --all only
    assert "model.fit (keras_pool_layer.py:27) → one_step_on_data (trainer.py:131, library)" \
        in text
    assert "wrapped_fn" not in text
    # and multi_step_on_iterator, whose ops are its call of one_step_on_data (traced on its own)
    assert "and 2 library functions that reached no def of yours" in text
    assert "wrapped_fn (structured_function.py:" in _summary_text(log, limit=None)




@pytest.mark.tf
def test_a_trace_that_failed_in_a_function_run_as_written_says_why_and_the_fix(tmp_path):
    script = fixture("unconverted.py")
    call_line = open(script).read().splitlines().index(
        "    return tf.vectorized_map(clip_row, m)") + 1
    log = str(tmp_path / "run.agxlog")
    proc = record("-o", log, script)
    assert proc.returncode == 0, proc.stderr
    (trace,) = _traces(log)
    assert trace["error"] == ("OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` "
                              "as a Python `bool` is not allowed")
    assert trace["fix"].startswith("clip_row ran as plain Python while tracing: AutoGraph did "
                                   "not convert it, because `return tf.vectorized_map(clip_row, "
                                   f"m)` (unconverted.py:{call_line}) handed it to code that "
                                   "calls it")
    text = " ".join(_summary_text(log).split())
    assert "why, and the fix: clip_row ran as plain Python" in text
    assert "tf.autograph.to_graph(clip_row)." in text
