"""Pairing two functions' statements, the code diff and the JSON keys, without TensorFlow."""

import pickle

from agexplorer.model.compare import (
    CompareSide,
    Comparison,
    StatementPair,
    pair_statements,
    verdict_text,
)
from agexplorer.model.errors import AgxError
from agexplorer.model.report import Verdict


def verdict(kind: str, line: int, header: str, verdict: str = "staged",
            iterations: int | None = None, branch: str | None = None) -> Verdict:
    return Verdict(kind=kind, line=line, header=header, verdict=verdict, graph_op=None,
                   iterations=iterations, branch=branch, ops_created=0, reason="", hint=None)


def lines(pairs: list[StatementPair]) -> list[tuple[int | None, int | None]]:
    return [(p.left.line if p.left else None, p.right.line if p.right else None)
            for p in pairs]


def test_a_loop_and_its_tf_range_rewrite_pair_up():
    left = [verdict("for", 4, "for i in range(n):", "python", iterations=200)]
    right = [verdict("for", 14, "for i in tf.range(n):")]
    pairs = pair_statements(left, right)
    assert lines(pairs) == [(4, 14)]
    assert pairs[0].differs
    assert f"{verdict_text(pairs[0].left)} -> {verdict_text(pairs[0].right)}" == \
        "unrolled x200 -> staged"


def test_same_headers_pair_by_header_even_when_a_statement_is_added_before_them():
    left = [verdict("if", 3, "if x > 0:"), verdict("while", 5, "while i < n:")]
    right = [verdict("for", 2, "for k in range(3):", "python", iterations=3),
             verdict("if", 6, "if  x > 0 :"), verdict("while", 8, "while i < n:")]
    pairs = pair_statements(left, right)
    assert lines(pairs) == [(None, 2), (3, 6), (5, 8)]
    assert [p.differs for p in pairs] == [True, False, False]


def test_statements_of_other_kinds_in_a_changed_stretch_stay_unpaired():
    left = [verdict("if", 3, "if a:"), verdict("for", 5, "for x in xs:")]
    right = [verdict("while", 3, "while b:"), verdict("for", 6, "for y in tf.range(3):")]
    assert lines(pair_statements(left, right)) == [(3, None), (None, 3), (5, 6)]


def test_a_statement_removed_leaves_null_on_the_other_side_in_the_json():
    pairs = pair_statements([verdict("if", 3, "if a:")], [])
    assert pairs[0].to_dict() == {"left": pairs[0].left.to_dict(), "right": None,
                                  "differs": True}


def test_verdict_words_name_the_branch_and_the_count():
    assert verdict_text(verdict("if", 1, "if a:", "python", branch="true")) == "took true"
    assert verdict_text(verdict("while", 1, "while a:", "python", iterations=5)) == \
        "unrolled x5"
    assert verdict_text(verdict("while", 1, "while a:", "unreached")) == "unreached"


def side(function: str, code: str | None, **kw) -> CompareSide:
    return CompareSide(file=f"/x/{function}.py", function=function, code=code, **kw)


def test_the_same_code_twice_has_an_empty_diff_and_the_json_has_the_issues_keys():
    code = "def tf__f(n):\n    return n\n"
    statements = [verdict("while", 4, "while i < n:")]
    same = Comparison.of(side("f", code, statements=statements, op_count=3,
                              ops_by_type={"Const": 3}, trace_s=0.5),
                         side("f", code, statements=statements, op_count=3,
                              ops_by_type={"Const": 3}, trace_s=0.25))
    assert same.diff == ""
    assert not any(p.differs for p in same.statements)
    data = same.to_dict()
    assert {"left", "right", "diff", "statements", "op_count", "timings"} <= set(data)
    assert data["op_count"] == {"left": 3, "right": 3}
    assert set(data["statements"][0]) >= {"left", "right"}
    assert data["timings"]["trace_s"] == {"left": 0.5, "right": 0.25, "ratio": 0.5}
    assert data["timings"]["graph"] == {"left": None, "right": None, "ratio": None}
    assert data["ops_by_type"]["difference"] == {"Const": 0}


def test_the_diff_is_labelled_with_each_sides_file_and_function():
    diff = Comparison.of(side("bad", "def tf__bad(n):\n    pass\n"),
                         side("good", "def tf__good(n):\n    pass\n")).diff
    assert diff.startswith("--- bad.py::bad\n+++ good.py::good\n")
    assert "-def tf__bad(n):\n+def tf__good(n):\n" in diff


def test_a_comparison_with_a_failed_side_pickles_and_names_its_error():
    failed = side("boom", None, error=AgxError("trace-failed", "boom.py:3: it raised.",
                                               exit_code=1))
    comparison = Comparison.of(side("ok", "x = 1\n", op_count=1, ops_by_type={"Const": 1}),
                               failed)
    back = pickle.loads(pickle.dumps(comparison))
    assert [e.message for e in back.errors] == ["boom.py:3: it raised."]
    assert back.to_dict()["right"]["error"]["kind"] == "trace-failed"
    assert back.ops_difference() == {}  # a side that did not trace has no op counts
    assert back.to_dict()["op_count"] == {"left": 1, "right": None}
