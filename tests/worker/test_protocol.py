"""The worker protocol: requests that pickle, the version check, and the serve loop's dispatch."""

import dataclasses
import os
import pickle
import socket
import threading

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.model.report import Report
from agexplorer.worker import protocol, server, wire
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import (
    REQUESTS,
    DevicesRequest,
    DoctorRequest,
    Failure,
    Hello,
    OpAttributesRequest,
    PingRequest,
    Progress,
    Reply,
    ReportRequest,
    RetraceRequest,
    TryFixRequest,
)

# One of each request, every field set to something other than its default.
EXAMPLES = [
    ReportRequest("/a/m.py::f", call="2", source="x = 1\n", no_run=True, device="CPU:0",
                  budget=0.3, fresh=False, hlo=True, tensorboard="/tmp/tb",
                  send_conversion=True),
    RetraceRequest("/a/m.py::f", calls=("1", "tf.constant(2)"), source="x = 1\n"),
    DoctorRequest("/a/m.py::f", call="2", source="x = 1\n", reuse=True),
    TryFixRequest("/a/m.py::f", fix="AGX004@38", call="2", source="x = 1\n", budget=0.1,
                  device="CPU:0", run=False),
    OpAttributesRequest("/a/m.py::f", "f", "add", call="2", source="x = 1\n"),
    DevicesRequest(),
    PingRequest(),
    protocol.PassesRequest("/a/m.py::f", source="x = 1\n"),
    protocol.CompareRequest("/a/m.py::f", "/b/n.py::g", call="2", left_source="x = 1\n",
                            right_source="y = 2\n", no_run=True, device="CPU:0", budget=0.2,
                            skip_xla=True, mode_timeout=3.0, left_call="1", right_call="3"),
    protocol.SweepRequest("/a/m.py::f", vary="n", values=(1, 10), at=1000, call="2",
                          source="x = 1\n", no_run=True, device="CPU:0", budget=0.1,
                          timeout=9.0),
    protocol.CurvesRequest("/a/m.py::f", call="2", steps=7, source="x = 1\n", init="n=3"),
]


def test_every_kind_of_request_has_an_example():
    assert {type(r) for r in EXAMPLES} == set(REQUESTS)
    assert set(server.HANDLERS) == set(REQUESTS)


@pytest.mark.parametrize("request_", EXAMPLES, ids=lambda r: r.label)
def test_every_request_round_trips_through_pickle(request_):
    back = pickle.loads(wire.dumps(request_))
    assert back == request_ and type(back) is type(request_)


@pytest.mark.parametrize("message", [
    Hello(version=protocol.VERSION, pid=12, import_s=1.5, tf_warnings=("moved.",)),
    Progress("tracing f"), Reply({"report": None, "lab": None}),
    protocol.Partial("def tf__f(x):\n    ...\n"),
])
def test_the_envelopes_round_trip_through_pickle(message):
    assert pickle.loads(wire.dumps(message)) == message


def test_a_failure_keeps_its_sentence_through_pickle():
    back = pickle.loads(wire.dumps(Failure(AgxError("stale", "analyse again.", line=3))))
    assert (back.error.kind, back.error.message, back.error.line) == ("stale", "analyse again.", 3)


def test_requests_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        EXAMPLES[0].target = "elsewhere"


def test_a_hello_in_this_protocol_passes():
    hello = Hello(version=protocol.VERSION, pid=1, import_s=0.5)
    assert protocol.check_hello(hello) is hello


def test_a_version_mismatch_is_one_sentence(monkeypatch):
    monkeypatch.setattr(protocol, "VERSION", 1)
    with pytest.raises(protocol.ProtocolError) as err:
        protocol.check_hello(Hello(version=2, pid=1, import_s=0.5))
    assert err.value.message == ("the TensorFlow worker speaks protocol 2, this agexplorer 1: "
                                 "reinstall agexplorer so both come from one version.")
    assert isinstance(err.value, AgxError) and err.value.kind == "protocol-mismatch"
    assert err.value.exit_code == 1


def test_a_worker_from_before_the_hello_is_a_mismatch_too():
    with pytest.raises(protocol.ProtocolError) as err:
        protocol.check_hello({"ready": True, "import_s": 1.0, "pid": 3})
    assert err.value.message.startswith("the TensorFlow worker speaks protocol 0, this "
                                        f"agexplorer {protocol.VERSION}: reinstall")
    with pytest.raises(protocol.ProtocolError, match="speaks another protocol, this"):
        protocol.check_hello("hello")


def test_a_protocol_error_pickles_as_itself():
    back = pickle.loads(pickle.dumps(protocol.mismatch(7)))
    assert isinstance(back, protocol.ProtocolError) and "protocol 7" in back.message


# -- the serve loop, in this process (ping and the unknown need no TensorFlow) -------------
@pytest.fixture
def served():
    """A socket to a serve loop running on a thread of this process."""
    ours, theirs = socket.socketpair()
    thread = threading.Thread(target=server.serve, args=(theirs,), daemon=True)
    thread.start()
    yield ours
    ours.close()
    thread.join(5)
    theirs.close()


def ask(sock, message):
    wire.send(sock, message)
    return wire.receive(sock, deadline=None)


def test_the_serve_loop_dispatches_on_the_request_type(served):
    assert ask(served, PingRequest()) == Reply("pong")


@pytest.mark.parametrize("message", [{"kind": "ping", "args": {}}, "ping", Hello(1, 2, 3.0)],
                         ids=["old-dict", "string", "not-a-request"])
def test_an_unknown_request_is_one_sentence_and_the_worker_goes_on(served, message):
    answer = ask(served, message)
    assert isinstance(answer, Failure) and answer.error.kind == "bad-request"
    assert answer.error.message == (
        f"the TensorFlow worker does not know the request {type(message).__name__}: reinstall "
        "agexplorer so the worker and its client come from one version.")
    assert ask(served, PingRequest()) == Reply("pong")


def test_a_request_the_worker_cannot_unpickle_is_answered(served):
    # A class this install lacks (a newer client's request): the same length keeps the pickle whole.
    data = wire.dumps(PingRequest()).replace(b"PingRequest", b"PingRequext")
    wire.send_bytes(served, data)
    answer = wire.receive(served)
    assert isinstance(answer, Failure) and answer.error.kind == "bad-request"
    assert ask(served, PingRequest()) == Reply("pong")


# -- the server's pieces ---------------------------------------------------------------
def test_paths_are_made_absolute_before_user_code_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    got = server._resolve_paths(ReportRequest("m.py::f", tensorboard="tb"))
    assert got == ReportRequest(f"{tmp_path}/m.py::f", tensorboard=f"{tmp_path}/tb")
    assert server._resolve_paths(PingRequest()) == PingRequest()
    assert server._resolve_paths(DoctorRequest("m.py")).target == f"{tmp_path}/m.py"


def test_the_last_report_serves_only_the_same_target_buffer_and_call():
    last = server.LastReport()
    report = Report(file="/a/m.py", function="f")
    assert last.get(DoctorRequest("/a/m.py::f")) is None
    last.keep(ReportRequest("/a/m.py::f", call="2", source="b"), report)
    assert last.get(DoctorRequest("/a/m.py::f", call="2", source="b", reuse=True)) is report
    assert last.get(OpAttributesRequest("/a/m.py::f", "f", "add", call="2", source="b")) is report
    assert last.get(DoctorRequest("/a/m.py::f", call="3", source="b")) is None
    assert last.get(DoctorRequest("/a/m.py::f", call="2")) is None
    last.keep(ReportRequest("/a/m.py::g"), report)  # only the latest is kept
    assert last.get(DoctorRequest("/a/m.py::f", call="2", source="b")) is None


def test_op_attributes_without_a_trace_is_one_sentence():
    ctx = server.Context(lambda phase: None, server.LastReport())
    with pytest.raises(AgxError) as err:
        server.handle_op_attributes(OpAttributesRequest("/a/m.py::f", "f", "add"), ctx)
    assert err.value.kind == "stale" and err.value.message.endswith("read its ops' attributes.")


# -- the client against a real worker --------------------------------------------------
@pytest.mark.tf
def test_a_worker_of_another_protocol_is_refused_in_one_sentence(monkeypatch):
    """As if agexplorer were upgraded under a running client: its worker says another VERSION."""
    monkeypatch.setattr(protocol, "VERSION", protocol.VERSION + 1)
    worker = Worker(timeout=60, env={**os.environ})
    try:
        with pytest.raises(AgxError) as err:
            worker.request(PingRequest())
        assert err.value.message == (
            f"the TensorFlow worker speaks protocol {protocol.VERSION - 1}, this agexplorer "
            f"{protocol.VERSION}: reinstall agexplorer so both come from one version.")
        assert not worker.alive  # it is not kept to answer in a protocol we cannot read
    finally:
        worker.close()
