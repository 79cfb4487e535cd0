"""A recorded run's pages name a library's tf.function after the user's call, offer it only
the fixes a user can make, and leave out one that reached none of the user's code."""

from __future__ import annotations

from agexplorer.render.run_page import cause_rows
from agexplorer.runlog.summary import display_name, loop_path


def _function(user: bool, reaches: bool, causes: list[dict]) -> dict:
    return {"file": "/x/trainer.py" if not user else "/x/train.py", "line": 131,
            "function": "Trainer.make.<locals>.one_step" if not user else "step",
            "user": user, "reaches_user": reaches,
            "called_from": None if user else {"file": "/x/train.py", "line": 30,
                                              "call": "model.predict", "text": "", "function": ""},
            "retraces": [{"trace": 2, "causes": causes}],
            "retrace_causes": [{"causes": causes, "count": 1, "traces": [2], "reason": None}],
            "each_trace": [{"trace": 2, "arguments": [
                {"name": "data", "kind": "structure", "text": "a Python list [float32[5, 4]]",
                 "parts": [{"name": "data[0]", "kind": "tensor", "shape": [5, 4]}]}]}]}


SHAPE = [{"name": "data[0]", "change": "shape"}]


def test_a_librarys_retrace_is_named_by_the_users_call_and_offered_no_signature():
    summary = {"functions": [_function(False, True, SHAPE), _function(True, True, SHAPE)]}
    library, own = cause_rows(summary)
    assert library.function == "model.predict → one_step" and library.fix is None
    assert "data[0]: a new shape [5, 4]" in library.what
    assert own.function == "step" and "input_signature" in own.fix


def test_a_library_function_that_reached_none_of_the_users_code_is_left_out():
    assert cause_rows({"functions": [_function(False, False, SHAPE)]}) == []


def test_names_and_paths_as_pages_show_them():
    assert display_name(_function(False, True, [])) == "model.predict → one_step"
    row = {"function": "Smoother.call", "call_path": [
        {"function": "model.fit", "file": "t.py", "line": 30},
        {"function": "Smoother.call", "file": "t.py", "line": 16}]}
    assert loop_path(row) == "model.fit → Smoother.call"
