"""The model's whole-record form (agexplorer.model.serial): every record back as it was, and
a file of another shape refused with the place it went wrong."""

from __future__ import annotations

import json

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.model.inventory import BodyInfo, Inventory, OpInfo
from agexplorer.model.report import CallSite, Conversion, Report, Verdict
from agexplorer.model.serial import from_dict, to_data
from agexplorer.model.values import Described, NamedValue
from agexplorer.worker import protocol
from conftest import fixture


def through_json(cls, record):
    return from_dict(cls, json.loads(json.dumps(to_data(record))))


def a_report() -> Report:
    verdict = Verdict(kind="while", line=3, header="while i < n:", verdict="mixed",
                      graph_op="While", iterations=5, branch=None, ops_created=12,
                      reason="n is a tensor on one call", hint=None, times=2,
                      names=[NamedValue("n", Described("python-int", "the Python int 5", "5"))],
                      call_path=(CallSite("f", "/x/f.py", 1),), mixed=(1, 1))
    inventory = Inventory(ops=[OpInfo("add", "AddV2", 4, "f", "CPU:0", ["int32[]"], file="/x/f.py")],
                          bodies=[BodyInfo("f", None, "outer", 1)], graph_names={140: "f"})
    return Report(file="/x/f.py", function="f", conversion=Conversion("def tf__f(n): ...",
                  [(1, 1), (2, 3)]), statements=[verdict], inventory=inventory,
                  timings={"trace": 0.5, "convert": 1},
                  error=AgxError("trace-failed", "line 3 raises", advice="look", line=3,
                                 exit_code=1, details=["a"]))


def test_a_report_comes_back_whole_tuples_pairs_and_its_error_included():
    report = a_report()
    back = through_json(Report, report)
    assert back.statements == report.statements and back.inventory == report.inventory
    assert back.conversion == report.conversion and back.conversion.source_map[1] == (2, 3)
    assert back.inventory.graph_names == {140: "f"}  # int keys: written as pairs
    assert back.statements[0].mixed == (1, 1) and isinstance(back.statements[0].call_path, tuple)
    assert back.timings == {"trace": 0.5, "convert": 1.0}
    error = back.error
    assert (error.kind, error.what, error.advice, error.line, error.exit_code, error.details) == (
        "trace-failed", "line 3 raises", "look", 3, 1, ["a"])
    assert to_data(back) == to_data(report)


@pytest.mark.parametrize("change, where", [
    (lambda d: d.update(colour="red"), "Report: no field colour"),
    (lambda d: d["statements"][0].update(verdict="unrolled"), "Report.statements[0].verdict"),
    (lambda d: d["statements"][0].update(line="3"), "Report.statements[0].line"),
    (lambda d: d.update(statements={}), "Report.statements: an array was expected"),
    (lambda d: d["conversion"]["source_map"].append([1, 2, 3]), "2 items were expected"),
])
def test_a_file_of_another_shape_is_refused_where_it_differs(change, where):
    data = to_data(a_report())
    change(data)
    with pytest.raises(ValueError, match=where.replace("[", r"\[").replace("]", r"\]")):
        from_dict(Report, data)


def test_every_saved_answer_reads_back_as_its_reply_and_writes_the_same():
    """The answers the explorer's snapshots replay (tests/fixtures/answers.json): each one's
    request names its reply type, and nothing is lost reading and writing it again."""
    with open(fixture("answers.json"), encoding="utf-8") as f:
        saved = json.load(f)
    kinds = set()
    for name, answer in saved.items():
        request = getattr(protocol, json.loads(name)["request"])
        if "value" in answer:
            value = from_dict(protocol.reply_type(request), answer["value"])
            assert to_data(value) == answer["value"], name
            kinds.add(request.__name__)
    assert {"ReportRequest", "DoctorRequest", "RetraceRequest", "CompareRequest",
            "PassesRequest", "SweepRequest"} <= kinds


def test_every_request_names_the_type_of_its_reply():
    requests = [c for c in vars(protocol).values() if isinstance(c, type)
                and issubclass(c, protocol.Request) and c is not protocol.Request]
    assert len(requests) >= 9
    for request in requests:
        assert protocol.reply_type(request) is not None, request


@pytest.mark.tf
def test_every_samples_fresh_report_reads_back_whole(report):
    """Reports as the engine makes them (its live inventory holds the graphs: those stay
    out), for every ready target of the samples (cached: the golden test made them)."""
    import os

    from agexplorer.model.report import Report
    from conftest import SAMPLES
    from tests.test_samples_golden import ready_targets

    for target in ready_targets():
        made = report(os.path.join(SAMPLES, target))
        data = json.loads(json.dumps(to_data(made)))
        assert to_data(from_dict(Report, data)) == data, target
