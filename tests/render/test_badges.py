"""Verdict badges: the words the gutter, the tables and the pages use for a verdict."""

from __future__ import annotations

from dataclasses import replace

from agexplorer.model.compare import verdict_text
from agexplorer.model.report import Verdict
from agexplorer.render.badges import compact_badge, verdict_badge
from agexplorer.tui.program.screen import badge


def verdict(kind: str, verdict: str, **kw) -> Verdict:
    return replace(Verdict(kind, 5, f"{kind} x:", verdict, None, None, None, 0, "why", None),
                   **kw)


def test_each_verdict_has_its_words():
    assert verdict_badge(verdict("for", "python", iterations=4, times=1)) == "unrolled x4"
    assert verdict_badge(verdict("if", "python", branch="true", times=1)) == "took true"
    assert verdict_badge(verdict("if", "python", times=2)) == "both, in turn"
    assert verdict_badge(verdict("while", "staged", times=2)) == "staged x2"
    assert verdict_badge(verdict("for", "mixed", times=2, mixed=(1, 1))) == "mixed 1+1"
    assert verdict_badge(verdict("if", "unreached")) == "unreached"


def test_a_statement_run_in_python_but_not_counted_says_no_more_than_is_known():
    # A recorded run's Keras 3 layer: AutoGraph did not convert its call, so the statement
    # ran as plain Python and nothing counted its branches or iterations.
    for kind in ("if", "for", "while"):
        v = verdict(kind, "python")
        assert verdict_badge(v) == "in Python" and compact_badge(v) == "Py"
        assert verdict_text(v) == "in Python (not counted)"


def test_the_program_views_badge_reads_the_summarys_rows():
    row = {"kind": "if", "line": 16, "verdict": "python", "iterations": None,
           "branch": None, "times": 0}
    assert badge(row).plain == "in Python"  # not "both, in turn": nobody counted
    row = {"kind": "for", "line": 5, "verdict": "python", "iterations": 3, "branch": None,
           "times": 1}
    assert badge(row).plain == "unrolled x3"
    row = {"kind": "for", "line": 5, "verdict": "mixed", "iterations": 2, "branch": None,
           "times": 2, "mixed": {"staged": 1, "python": 1}}  # as the JSON writes it
    assert badge(row).plain == "mixed 1+1"


def test_a_long_function_name_folds_after_its_dots():
    from agexplorer.tui.program.screen import fold_name

    name = "Function._initialize_uninitialized_variables.<locals>.initialize_variables"
    lines = fold_name(name, 36).split("\n")
    assert "".join(lines) == name and all(len(line) <= 36 for line in lines[1:])
    assert lines[0] == "Function." and lines[-1] == "<locals>.initialize_variables"
    assert fold_name("train_step") == "train_step"
