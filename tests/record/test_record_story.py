"""agexplorer record tells the whole story: how a crashed program ended, retraces by cause with
per-function trace numbers, lists never cut silently, Keras 3 advice that works."""

from __future__ import annotations

import json
import os

import pytest

from agexplorer.cli import main
from agexplorer.record.runner import run_program
from agexplorer.runlog.log import read_log
from agexplorer.runlog.summary import intended_unrolls, summarise
from agexplorer.runlog.text import text_lines
from tests.conftest import FIXTURES

RECORD = os.path.join(FIXTURES, "record")


def recorded(tmp_path, script: str, *args: str) -> tuple[int, dict, str]:
    """``script`` run as ``agexplorer record`` runs it, in this process (TensorFlow is loaded
    once): its exit status, its summary, and its log's path."""
    log = str(tmp_path / f"{os.path.splitext(script)[0]}.agxlog")
    status = run_program(os.path.join(RECORD, script), list(args), log_path=log)
    return status, summarise(read_log(log)), log


def function(summary: dict, name: str) -> dict:
    (found,) = [f for f in summary["functions"] if f["function"].endswith(name)]
    return found


@pytest.mark.tf
def test_a_program_that_fails_while_tracing_says_how_it_ended(tf, tmp_path, capsys):
    status, summary, log = recorded(tmp_path, "graph_crash.py")
    err = capsys.readouterr().err
    assert status == 1
    # Python's own traceback, to the user's line, without the recording's frames around it
    assert "in clip\n    if tf.reduce_sum(x) > 0:" in err
    assert "agexplorer" + os.sep not in err.split("agexplorer record:")[0]
    with open(log, encoding="utf-8") as handle:
        (end,) = [r for r in map(json.loads, handle) if r["type"] == "end"]
    crash = os.path.join(RECORD, "graph_crash.py")
    assert (end["raised"], end["exception"], end["file"], end["line"]) == \
        (True, "OperatorNotAllowedInGraphError", crash, 13)
    assert end["message"].startswith("Using a symbolic `tf.Tensor` as a Python `bool`")
    # The summary's first lines: how it ended, then what it traced before.
    first, second = " ".join(err.split("agexplorer record: ")[1].split()).split(" before ")[:2]
    assert first == ("the program failed (exit status 1): OperatorNotAllowedInGraphError at "
                     "graph_crash.py:13: Using a symbolic `tf.Tensor` as a Python `bool` is "
                     "not allowed.")
    assert second.startswith("it failed: 2 traces of 2 functions")
    assert function(summary, "clip")["errors"][0]["error"].startswith(
        "OperatorNotAllowedInGraphError: Using a symbolic")


@pytest.mark.tf
def test_retraces_are_grouped_by_cause_and_numbered_per_function(tf, tmp_path, capsys):
    status, summary, _ = recorded(tmp_path, "lr_schedule.py")
    assert status == 0
    step, evaluate = function(summary, "train_step"), function(summary, "evaluate")
    assert [t["trace"] for t in step["each_trace"]] == list(range(1, 11))  # every trace
    assert len(step["retraces"]) == 9
    by_lr, by_shape = step["retrace_causes"]
    assert by_lr["causes"] == [{"name": "lr", "change": "value"}]
    assert (by_lr["count"], by_lr["traces"]) == (8, list(range(2, 10)))
    assert by_shape["causes"] == [{"name": "x", "change": "shape"},
                                  {"name": "y", "change": "shape"}]
    assert (by_shape["count"], by_shape["traces"]) == (1, [10])
    # evaluate traced twice, its second trace the run's 12th: it is evaluate's trace 2,
    # compared with its trace 1, and its reason says so.
    (retrace,) = evaluate["retraces"]
    assert (retrace["trace"], retrace["compared_with"]) == (2, 1)
    assert evaluate["each_trace"][1]["in_log"] == 12
    assert retrace["reason"].startswith("x: now float32[8, 4], before float32[16, 4] (trace 1)")
    text = " ".join(capsys.readouterr().err.split())
    assert "train_step (lr_schedule.py:13): 9 retraces 8 × lr: a new Python float each " \
           "time (0.09, 0.081, 0.0729 and 5 more); traces 2-9 fix: pass lr as a tensor" in text
    assert "1 × x: a new shape [8, 4]; y: a new shape [8, 1]; trace 10" in text
    assert "evaluate (lr_schedule.py:21): 1 retrace 1 × x: a new shape [8, 4]; y: a new " \
           "shape [8, 1]; trace 2" in text


BOTH = ["model", "optimizer"]


@pytest.mark.tf
@pytest.mark.parametrize(("flag", "made_by"), [
    ((), BOTH), (("--build",), BOTH), (("--model-first",), ["optimizer"]),
    (("--plain-step",), ["model"]), (("--plain-step", "--model-first"), None),
    (("--fix",), None)])
def test_the_keras_3_advice_for_variables_made_on_the_first_call_works(tf, tmp_path, capsys,
                                                                       flag, made_by):
    """A subclassed Keras 3 model without build(): model.build creates no weights, so the
    variable-creation retrace stays. The advice names what the first trace created (the
    model's weights, the optimizer's variables) and asks for just that; what it asks for
    removes the retrace (--fix does both; after --model-first the advice asks for the
    optimizer's only; a step without an optimizer, for the model's only, and with it done
    there is no retrace)."""
    status, summary, _ = recorded(tmp_path, "keras_subclassed.py", *flag)
    assert status == 0
    out = capsys.readouterr().out
    assert ("weights before the first step: 0" in out) == ("--fix" not in flag
                                                             and "--model-first" not in flag)
    step = function(summary, "train_step")
    assert step["traces"] == (1 if made_by is None else 2)
    if made_by is not None:
        (retrace,) = step["retraces"]
        assert retrace["causes"] == [{"name": None, "change": "variables", "made_by": made_by}]
        reason = retrace["reason"]
        assert ("call the model once on a sample input" in reason) == ("model" in made_by)
        assert ("optimizer.build(model.trainable_variables)" in reason) == \
            ("optimizer" in made_by)
        assert "model.build" not in reason.replace("optimizer.build", "")
        assert reason.count("before the first call") == 1


@pytest.mark.tf
def test_a_loop_over_the_variables_is_counted_as_intended_not_listed(tf, tmp_path, capsys):
    status, summary, _ = recorded(tmp_path, "variables_loop.py")
    assert status == 0 and intended_unrolls(summary) == {"variables": 1}
    text = " ".join(capsys.readouterr().err.split())
    assert "1 loop over variables unrolled as intended" in text
    assert "step (variables_loop.py:15) for: unrolled 3x" in text  # the range(3) loop
    assert "variables_loop.py:13" not in text  # the loop over zip(w, grads)


START = {"type": "start", "format": "agexplorer-record/1", "argv": ["t.py"]}


def trace(n: int, function: str, **fields) -> dict:
    return {"type": "trace", "trace": n, "file": "/p/t.py", "function": function, "line": n,
            "user": True, "kind": "first", "trace_s": 1.0 / n, "op_count": 1,
            "statements": [], **fields}


def write_log(tmp_path, records: list[dict]) -> str:
    path = tmp_path / "made.agxlog"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def loop(line: int, intended: str | None = None) -> dict:
    return {"file": "/p/t.py", "function": "step", "line": line, "kind": "for",
            "verdict": "python", "iterations": 4, "ops_created": 8, "times": 1,
            "header": "for v, g in zip(variables, grads):", "intended": intended}


def test_no_list_is_cut_silently(tmp_path, capsys):
    log = write_log(tmp_path, [START, *[trace(n, f"f{n}") for n in range(1, 8)],
                               {"type": "end", "exit_code": 0, "wall_s": 1.0}])
    assert main(["summary", log]) == 0
    text = capsys.readouterr().out
    assert "f5 (t.py:5)" in text and "f6 (t.py:6)" not in text
    assert f"... and 2 more (agexplorer summary {log} --all lists them; --json has every " \
           "trace)" in " ".join(text.split())
    assert main(["summary", log, "--all"]) == 0
    text = capsys.readouterr().out
    assert "f7 (t.py:7)" in text and "more" not in text


def test_loops_unrolled_as_intended_are_counted_not_listed(tmp_path):
    log = write_log(tmp_path, [START, trace(1, "step", op_count=40, statements=[
        loop(3, "variables"), loop(5, "variables"), loop(9)])])
    summary = summarise(read_log(log))
    lines = text_lines(summary)
    assert [line.split(" for:")[0] for line in lines if "unrolled 4x" in line] == \
        ["  step (t.py:9)"]
    assert "2 loops over variables unrolled as intended" in lines


def test_a_log_written_before_causes_and_numbers_still_groups_and_numbers(tmp_path):
    """Older logs number traces across the run and carry no causes: the summary numbers each
    function's traces itself and groups retraces by their reason."""
    why = "n: now the Python int 3, before 2 (trace 1)"
    log = write_log(tmp_path, [START, trace(1, "f"), trace(2, "g"),
                               {**trace(3, "f", kind="retrace", reason=why, compared_with=1),
                                "line": 1}])
    (f,) = [x for x in summarise(read_log(log))["functions"] if x["function"] == "f"]
    assert [t["trace"] for t in f["each_trace"]] == [1, 2]
    assert f["retraces"][0]["trace"] == 2 and f["retraces"][0]["compared_with"] == 1
    assert f["retrace_causes"] == [{"causes": [], "count": 1, "traces": [2], "reason": why}]
    assert f"    1 × {why}; trace 2" in text_lines(summarise(read_log(log)))


def test_a_program_that_exits_with_a_status_says_so_first(tmp_path):
    log = write_log(tmp_path, [START, trace(1, "f"),
                               {"type": "end", "exit_code": 3, "wall_s": 1.0, "raised": False}])
    assert text_lines(summarise(read_log(log)))[0] == \
        "agexplorer record: the program exited with status 3; 1 trace of 1 function"


def test_the_command_line_is_shown_as_typed_where_it_ran():
    from agexplorer.runlog.summary import command_line

    ran = {"argv": ["/home/me/proj/train.py", "--epochs", "2"], "cwd": "/home/me/proj"}
    assert command_line(ran) == "train.py --epochs 2"
    assert command_line({**ran, "cwd": "/elsewhere"}) == "/home/me/proj/train.py --epochs 2"
    assert command_line({"argv": ["/home/me/proj/train.py"]}) == "/home/me/proj/train.py"
    assert command_line({"argv": [], "cwd": "/x"}) == ""  # a log of a run with no argv
    assert command_line({"argv": ["/home/me/projx/t.py"], "cwd": "/home/me/proj"}) == (
        "/home/me/projx/t.py")  # a sibling folder, not one inside
