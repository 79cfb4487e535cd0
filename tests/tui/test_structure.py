"""The TUI's structure: small modules, typed messages and keys, the picker's badges."""

from __future__ import annotations

import dataclasses
import pathlib
import typing

import pytest

import agexplorer.tui
from agexplorer.model.errors import AgxError
from agexplorer.model.lab import RunLab
from agexplorer.model.report import Report, Verdict
from agexplorer.tui import messages
from agexplorer.tui.functions.picker import badge
from agexplorer.tui.messages import AnalysisFailed, AnalysisKey, BufferRequest
from agexplorer.worker.protocol import Request

TUI = pathlib.Path(agexplorer.tui.__file__).parent


def test_no_tui_module_is_over_400_lines():
    sizes = {str(p.relative_to(TUI)): len(p.read_text().splitlines()) for p in TUI.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 400} == {}
    assert sizes["app.py"] < 400


def test_an_analysis_key_is_a_frozen_record_naming_its_function():
    key = AnalysisKey("/x/m.py", "f", 3)
    assert key.target == ("/x/m.py", "f")
    assert key == AnalysisKey("/x/m.py", "f", 3) and key != AnalysisKey("/x/m.py", "f", 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        key.generation = 4  # type: ignore[misc]
    assert AnalysisKey("/x/m.py", "f", 3, op=("f", "while/Less")).op == ("f", "while/Less")


RECORDS = {"AgxError": AgxError, "Report": Report, "RunLab": RunLab, "Request": Request}


def test_app_messages_have_typed_fields_and_keys():
    for name in ("EngineStatus", "AnalysisReady", "AnalysisFailed", "EngineAnswer",
                 "WorkerNotice"):
        cls = getattr(messages, name)
        # the records are imported by messages.py for type checking only (the first frame
        # imports it): resolve the annotations against them here
        hints = typing.get_type_hints(cls, localns=RECORDS)
        fields = [f.name for f in dataclasses.fields(cls)]
        assert fields and all(f in hints for f in fields), name
        if "key" in fields:
            assert hints["key"] is AnalysisKey, name
    failed = AnalysisFailed(AnalysisKey("m.py", "f", 1), AgxError("timeout", "too slow."))
    assert failed.key.generation == 1 and failed.error.message == "too slow."


def test_a_buffer_request_names_the_worker_target():
    asked = BufferRequest(AnalysisKey("/x/m.py", "C.f", 2), call="5", source=None)
    assert asked.target == "/x/m.py::C.f"


def _verdict(verdict: str, kind: str = "for", iterations: int | None = None) -> Verdict:
    return Verdict(kind=kind, line=2, header="for i in range(n):", verdict=verdict,
                   graph_op=None, iterations=iterations, branch=None, ops_created=0,
                   reason="", hint=None)


@pytest.mark.parametrize(("statements", "error", "expected"), [
    ([_verdict("python", iterations=3), _verdict("python", iterations=7)], None,
     "[yellow]unrolled x7[/]"),
    ([_verdict("python", kind="if"), _verdict("staged")], None, "[green]staged[/]"),
    ([_verdict("unreached")], None, ""),
    ([_verdict("staged")], AgxError("user-error", "boom."), "[red]failed[/]"),
    ([], AgxError("needs-arguments", "f takes arguments (x)."), "[dim]args?[/]"),
])
def test_the_picker_badge_says_failed_unrolled_or_staged(statements, error, expected):
    report = Report(file="m.py", function="f", statements=statements, error=error)
    assert badge(report) == expected


@pytest.mark.parametrize(("kind", "verdict", "iterations", "unrolled"), [
    ("for", "python", 5, True),
    ("while", "mixed", 2, True),  # unrolled on some traces: unrolled there
    ("for", "python", 0, False),  # never entered: nothing copied
    ("for", "python", None, False),  # no count (a layer Keras 3 runs unconverted)
    ("for", "staged", 5, False),
    ("if", "python", 1, False),
    ("while", "unreached", None, False),
])
def test_one_definition_of_an_unrolled_loop(kind, verdict, iterations, unrolled):
    v = Verdict(kind=kind, line=3, header=f"{kind} ...", verdict=verdict, graph_op=None,
                iterations=iterations, branch=None, ops_created=4, reason="", hint=None)
    assert v.unrolled is unrolled


def test_the_function_lists_badge_counts_a_mixed_loop_as_unrolled():
    def verdict(kind, what, iterations):
        return Verdict(kind=kind, line=3, header="", verdict=what, graph_op=None,
                       iterations=iterations, branch=None, ops_created=4, reason="", hint=None)

    report = Report.__new__(Report)
    report.error = None
    report.statements = [verdict("for", "mixed", 7), verdict("while", "staged", None)]
    assert badge(report) == "[yellow]unrolled x7[/]"
    report.statements = [verdict("if", "python", None), verdict("while", "staged", None)]
    assert badge(report) == "[green]staged[/]"


def test_the_warm_explorer_preloads_every_module_the_parts_import():
    """wiring.MODULES (what the warm explorer imports ahead) is what its makers import."""
    import ast
    import inspect

    from agexplorer.tui import wiring

    made = set()
    for name in wiring.PARTS:
        for node in ast.walk(ast.parse(inspect.getsource(getattr(wiring, name)))):
            if isinstance(node, ast.ImportFrom) and node.module == "agexplorer.tui":
                made |= {f"agexplorer.tui.{a.name}" for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                made.add(node.module)
    assert made == set(wiring.MODULES)
