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
