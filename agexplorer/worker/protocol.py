"""The worker protocol: one typed request per kind, the envelopes around them, and its version."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypedDict, TypeVar

from agexplorer.model.errors import AgxError

if TYPE_CHECKING:  # the replies' records: only named here (the explorer's first frame
    # imports this module, and the records' modules cost it ~20 ms)
    from agexplorer.model.compare import Comparison  # noqa: F401 (named in strings)
    from agexplorer.model.curves import Curves  # noqa: F401 (named in strings)
    from agexplorer.model.doctor import DoctorReport, FixTrial  # noqa: F401 (named in strings)
    from agexplorer.model.lab import RunLab
    from agexplorer.model.passes import Passes  # noqa: F401 (named in strings)
    from agexplorer.model.report import Report
    from agexplorer.model.retrace import RetraceReport  # noqa: F401 (named in strings)
    from agexplorer.model.sweep import Sweep  # noqa: F401 (named in strings)

# Raised whenever a request, a reply or an envelope changes shape: a worker started from
# another install (agexplorer upgraded while the explorer runs) then says so in one sentence.
VERSION = 9

T = TypeVar("T")


class ProtocolError(AgxError):
    """The client and the worker do not speak the same protocol."""

    def __init__(self, message: str) -> None:
        super().__init__("protocol-mismatch", message, exit_code=1)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # one argument, not AgxError's five
        return (ProtocolError, (self.message,))


class Request(Generic[T]):
    """A request to the worker; ``T`` is the type of the value its reply carries. The worker
    dispatches on the request's class; ``label`` only words messages ("the report request")."""

    label: ClassVar[str] = "request"


def reply_type(request: type[Request[Any]]) -> Any:
    """The type a reply to a ``request`` of this class carries (the ``T`` of its
    ``Request[T]``; a string where the record is only named here)."""
    for base in getattr(request, "__orig_bases__", ()):
        if typing.get_origin(base) is Request:
            return typing.get_args(base)[0]
    raise TypeError(f"{request.__name__} is not a request")


class ReportReply(TypedDict):
    """The value of a report request: the trace's report and, unless ``no_run``, the run lab."""

    report: Report
    lab: RunLab | None


class Device(TypedDict):
    """One TensorFlow logical device."""

    name: str
    type: str


@dataclass(frozen=True)
class ReportRequest(Request[ReportReply]):
    """Trace ``target`` (``PATH::QUALNAME``) and, unless ``no_run``, run it eagerly, as a
    graph and with XLA. ``source``: an unsaved buffer analysed in place of the file."""

    label: ClassVar[str] = "report"
    target: str
    call: str | None = None
    source: str | None = None
    no_run: bool = False
    device: str | None = None
    budget: float = 1.0
    fresh: bool = True
    hlo: bool = False
    tensorboard: str | None = None
    user_code: tuple[str, ...] = ()  # more folders of the user's code (--user-code)
    depth: int | None = None  # the call tree's depth (--depth; None: all of it)
    skip_xla: bool = False  # leave XLA out of the run lab (--no-xla)
    mode_timeout: float | None = None  # each mode's own time box, seconds (None: none)
    init: str | None = None  # a method's instance: its constructor's arguments (--init)
    # Trace the doctor's rewrite of each unrolled loop's fix, and say in the fix how it went
    # (doctor/verdict_fixes.py): a load and a trace per loop, within the doctor's budget.
    try_fixes: bool = False
    # Send AutoGraph's code ahead of the reply, as soon as it is converted (a ``Partial``):
    # the explorer draws it while the function is traced.
    send_conversion: bool = False


@dataclass(frozen=True)
class RetraceRequest(Request["RetraceReport"]):
    """Call ``target`` with each of ``calls`` (None: the file's ``AGX_RETRACE``) and explain
    every retrace."""

    label: ClassVar[str] = "retrace"
    target: str
    calls: tuple[str, ...] | None = None
    source: str | None = None


@dataclass(frozen=True)
class DoctorRequest(Request["DoctorReport"]):
    """The pitfall doctor for ``target``; ``reuse``: the trace of the last report request
    for the same target, buffer and call, instead of tracing again."""

    label: ClassVar[str] = "doctor"
    target: str
    call: str | None = None
    source: str | None = None
    reuse: bool = False
    init: str | None = None  # a method's instance: its constructor's arguments (--init)
    # Where ``call`` came from when the user did not type it (doctor LOG: "the recorded
    # trace 1 of train_step"), said in the findings that name it; None: --call.
    call_origin: str | None = None
    # The run only reached the function from another one's trace (a helper, a layer's call):
    # it is not traced on its own, so a Python number it is passed retraces nothing of it.
    reached: bool = False
    # The run ran it only as plain Python, called by code AutoGraph does not convert (a
    # Keras 3 layer's call, and what it calls): no AutoGraph rewrite applies there.
    unconverted: bool = False


@dataclass(frozen=True)
class TryFixRequest(Request["FixTrial"]):
    """Try the doctor's rewrite ``fix`` (a code, a line or both: AGX004@38) before and after."""

    label: ClassVar[str] = "try_fix"
    target: str
    fix: str
    call: str | None = None
    source: str | None = None
    budget: float = 0.5
    device: str | None = None
    run: bool = True
    skip_xla: bool = False  # leave XLA out of both sides' run labs
    mode_timeout: float | None = None  # each mode's own time box, seconds (None: none)


@dataclass(frozen=True)
class OpAttributesRequest(Request[list[tuple[str, str]]]):
    """The attributes of op ``name`` in ``function`` of the last report's trace for the same
    target, buffer and call: (name, text) pairs."""

    label: ClassVar[str] = "op_attributes"
    target: str
    function: str
    name: str
    call: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class CompareRequest(Request["Comparison"]):
    """Two targets side by side, each analysed as a ReportRequest is. ``call`` applies to both
    sides unless ``left_call`` / ``right_call`` say otherwise; ``left_source`` /
    ``right_source``: an unsaved buffer analysed in place of that side's file."""

    label: ClassVar[str] = "compare"
    left_target: str
    right_target: str
    call: str | None = None
    left_source: str | None = None
    right_source: str | None = None
    no_run: bool = False
    device: str | None = None
    budget: float = 0.5
    skip_xla: bool = False
    mode_timeout: float | None = None
    left_call: str | None = None
    right_call: str | None = None

    def sides(self) -> tuple[ReportRequest, ReportRequest]:
        """The report request of each side, left first."""
        def side(target: str, call: str | None, source: str | None) -> ReportRequest:
            return ReportRequest(target, call=call if call is not None else self.call,
                                 source=source, no_run=self.no_run, device=self.device,
                                 budget=self.budget, skip_xla=self.skip_xla,
                                 mode_timeout=self.mode_timeout)

        return (side(self.left_target, self.left_call, self.left_source),
                side(self.right_target, self.right_call, self.right_source))


@dataclass(frozen=True)
class PassesRequest(Request["Passes"]):
    """AutoGraph's conversion of ``target`` pass by pass (``source``: an unsaved buffer)."""

    label: ClassVar[str] = "passes"
    target: str
    source: str | None = None


@dataclass(frozen=True)
class SweepRequest(Request["Sweep"]):
    """Trace ``target`` once per value of its Python argument ``vary`` (None: the one that
    drives its largest unrolled loop; ``values`` None: two orders of magnitude up to the
    call's), run each unless ``no_run``, fit a line, extrapolate to ``at``, and sweep the
    doctor's staged rewrite beside it; all within ``timeout`` seconds (``budget``: each
    value's steady-state timing)."""

    label: ClassVar[str] = "sweep"
    target: str
    vary: str | None = None
    values: tuple[int, ...] | None = None
    at: int | None = None
    call: str | None = None
    source: str | None = None
    no_run: bool = False
    device: str | None = None
    budget: float = 0.2
    timeout: float = 60.0
    line: int | None = None  # the unrolled loop at this line (None: the largest one)


@dataclass(frozen=True)
class CurvesRequest(Request["Curves"]):
    """Load ``target`` once and call it ``steps`` times (1 to model/curves.py's MAX_STEPS)
    with the same arguments (``call``, else the file's ready call): one series per scalar
    it returns (``return loss, lr``), the module's state carried from step to step."""

    label: ClassVar[str] = "curves"
    target: str
    call: str | None = None
    steps: int = 20
    source: str | None = None
    init: str | None = None  # a method's instance: its constructor's arguments (--init)


@dataclass(frozen=True)
class DevicesRequest(Request[list[Device]]):
    """TensorFlow's logical devices."""

    label: ClassVar[str] = "devices"


@dataclass(frozen=True)
class PingRequest(Request[str]):
    """Liveness check: the reply is ``"pong"``."""

    label: ClassVar[str] = "ping"


@dataclass(frozen=True)
class InFolder(Request[Any]):
    """``request``, answered with ``folder`` as the current folder (the background worker
    answers commands from any folder; user code may open files relative to its own). The
    reply is ``request``'s."""

    folder: str
    request: Request[Any]


REQUESTS: tuple[type[Request[Any]], ...] = (ReportRequest, RetraceRequest, DoctorRequest,
                                       TryFixRequest, OpAttributesRequest, DevicesRequest,
                                       PingRequest, PassesRequest, CompareRequest,
                                       SweepRequest, CurvesRequest)


# -- the envelopes: what the worker writes on the socket --------------------------------------
@dataclass(frozen=True)
class Hello:
    """The worker's first message, once TensorFlow is imported. ``tf_warnings``: one sentence
    per private TensorFlow name that moved and took a capability with it (what will not work
    in this version; a name the verdicts need answers every request instead)."""

    version: int
    pid: int
    import_s: float
    tf_warnings: tuple[str, ...] = ()
    python: str = ""  # the worker's Python version ("3.11.7"): it may run under another one
    executable: str = ""  # and its sys.executable
    tensorflow: str = ""  # its TensorFlow's version ("2.21.0")
    keras: str = ""  # the version of the Keras tf.keras routes to ("3.15.1")
    keras_flavour: str = ""  # and its flavour (model/keras.py: "keras-3", "tf-keras"...)


@dataclass(frozen=True)
class Progress:
    """What the worker is doing now ("tracing f"), any number of times before the reply."""

    phase: str


@dataclass(frozen=True)
class Partial:
    """A part of the reply sent ahead of it, at most once per request: a report request's
    converted code (``ReportRequest.send_conversion``), a ``Conversion`` (its code and source
    map, no more)."""

    value: Any


@dataclass(frozen=True)
class Reply:
    """The request's value; ``busy``: work the request abandoned (a mode past its time box,
    such as an XLA compile) still runs in the worker, which the client then replaces."""

    value: Any
    busy: bool = False


@dataclass(frozen=True)
class Failure:
    """The request failed: one sentence."""

    error: AgxError


def mismatch(theirs: object = None) -> ProtocolError:
    """The sentence for a worker that speaks protocol ``theirs`` (None: its message could
    not even be read)."""
    said = "another protocol" if theirs is None else f"protocol {theirs}"
    return ProtocolError(f"the TensorFlow worker speaks {said}, this agexplorer {VERSION}: "
                         "reinstall agexplorer so both come from one version.")


def check_hello(message: object) -> Hello:
    """The worker's first message, if it speaks this protocol; ProtocolError otherwise."""
    # VERSION is read here, not bound at import: tests patch it to stage a mismatch.
    if not isinstance(message, Hello):
        version = getattr(message, "version", None)
        if version is None and isinstance(message, dict):  # a worker from before Hello
            version = message.get("version", 0)
        raise mismatch(version)
    if message.version != VERSION:
        raise mismatch(message.version)
    return message


def unknown_request(request: object) -> AgxError:
    """The worker's answer to a request it has no handler for."""
    name = type(request).__name__
    return AgxError("bad-request", f"the TensorFlow worker does not know the request {name}: "
                    "reinstall agexplorer so the worker and its client come from one version.",
                    exit_code=3)
