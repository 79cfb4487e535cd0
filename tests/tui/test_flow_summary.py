"""The Control flow tab's summary line, above the verdict table."""

from __future__ import annotations

from types import SimpleNamespace

from agexplorer.tui.code.verdict_table import flow_summary


def verdict(kind: str) -> SimpleNamespace:
    return SimpleNamespace(verdict=kind)


def test_counts_each_kind_of_verdict():
    text = flow_summary("Model.call", [verdict("staged"), verdict("python"), verdict("staged")],
                        failed=False)
    assert text.startswith("3 statements in call: 2 staged in the graph, 1 run in Python")


def test_an_empty_table_says_why():
    assert flow_summary("add", [], failed=False).startswith("no if, for or while in add")
    assert "did not trace" in flow_summary("add", [], failed=True)


def test_an_empty_table_points_to_the_functions_it_calls_that_have_some():
    """A function whose helpers hold the loops: the table is empty, the Calls tab is not."""
    text = flow_summary("uses_helper", [], failed=False, callees=2)
    assert text == ("no if, for or while in uses_helper itself, but 2 functions it calls have "
                    "some: their verdicts are in the Calls tab (2)")
    assert "one function it calls has some" in flow_summary("f", [], False, callees=1)


def test_a_function_autograph_refused_says_so_not_that_there_is_nothing_to_stage():
    note = ("f.py:3: AutoGraph could not transform pick: a `match` statement (Python 3.10), "
            "which AutoGraph does not convert; write the `match` as `if`/`elif`. tf.function "
            "goes on without it: it logs a warning and traces pick as written.")
    text = flow_summary("pick", [], failed=False, refused=note)
    assert text.startswith("f.py:3: AutoGraph could not transform pick: a `match` statement")
    assert "nothing for AutoGraph to stage" not in text and "goes on" not in text


def test_a_function_that_did_not_trace_says_why_in_full_where_the_table_is_empty():
    # The status line cuts a long error at three lines, its fix last: the empty tab has room.
    why = ("f.py:5: tracing f raised OperatorNotAllowedInGraphError: ...; clip_row ran as "
           "plain Python while tracing ... Fix: ..., or tf.autograph.to_graph(clip_row).")
    assert flow_summary("f", [], failed=True, error=why) == \
        f"no verdicts for f: it did not trace: {why}"
    assert flow_summary("f", [], failed=True) == \
        "no verdicts for f: it did not trace (the status line says why)"


def test_a_plain_function_that_calls_the_file_s_tf_functions_says_what_its_verdicts_are():
    """``main`` runs in Python in the program: its verdicts are tf.function(main)'s."""
    text = flow_summary("main", [verdict("python")], failed=False, drives=("train_step",))
    assert text.startswith("main is no tf.function: your program runs it in Python, and the "
                           "tf.function train_step it calls runs a graph; these verdicts are "
                           "tf.function(main)'s (explore train_step for your program's "
                           "graph). 1 statement in main:")


def test_verdicts_of_a_trace_that_failed_say_so():
    """A return inside a staged loop: AutoGraph staged the loop, then tracing raised. The
    verdicts say how far it got; the line above them says the trace failed."""
    text = flow_summary("early_return", [verdict("staged"), verdict("staged")], failed=True)
    assert text.startswith("2 statements in early_return before tracing failed (the status "
                           "line says why): 2 staged in the graph")
