"""The worker's side: import TensorFlow once, then answer requests until the pipe closes."""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import gc
import os
import platform
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, cast

from agexplorer.lab.boxed import abandoned
from agexplorer.model.errors import ARGUMENT_ERRORS, AgxError
from agexplorer.worker import protocol, wire
from agexplorer.worker.confine import contain, die_with_parent
from agexplorer.worker.protocol import (
    CompareRequest,
    CurvesRequest,
    Device,
    DevicesRequest,
    DoctorRequest,
    Failure,
    Hello,
    InFolder,
    OpAttributesRequest,
    Partial,
    PassesRequest,
    PingRequest,
    Progress,
    Reply,
    ReportReply,
    ReportRequest,
    Request,
    RetraceRequest,
    SweepRequest,
    TryFixRequest,
    unknown_request,
)

if TYPE_CHECKING:
    from agexplorer.model.compare import Comparison
    from agexplorer.model.curves import Curves
    from agexplorer.model.doctor import DoctorReport, FixTrial
    from agexplorer.model.passes import Passes
    from agexplorer.model.report import Conversion, Report
    from agexplorer.model.retrace import RetraceReport
    from agexplorer.model.sweep import Sweep


def _configure_devices() -> None:
    """``AGX_LOGICAL_CPUS=N`` splits the CPU into N logical devices (tests of device choice)."""
    count = int(os.environ.get("AGX_LOGICAL_CPUS", "0") or 0)
    if count > 1:
        from agexplorer.engine.tfenv import import_tf

        tf = import_tf()
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(count)])


class LastReport:
    """The last report built, by (target, source, call): the doctor's request that follows
    the TUI's report reuses its trace instead of tracing again, and the Graph tab reads its
    ops' attributes. One per serve loop; only the latest is kept (a trace holds graphs)."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._report: Report | None = None

    def keep(self, req: ReportRequest, report: Report) -> None:
        self._key, self._report = _report_key(req), report

    def get(self, req: DoctorRequest | OpAttributesRequest) -> Report | None:
        return self._report if self._key == _report_key(req) else None


def _report_key(req: ReportRequest | DoctorRequest | OpAttributesRequest) -> tuple:
    return req.target, req.source, req.call, getattr(req, "init", None)


@dataclasses.dataclass
class Context:
    """What a handler gets beside its request: the progress callback, the last report, and
    the callback that sends a part of the reply ahead of it (``Partial``)."""

    progress: Callable[[str], None]
    last: LastReport
    partial: Callable[[Any], None] = lambda value: None


def handle_report(req: ReportRequest, ctx: Context) -> ReportReply:
    """Trace (and unless ``no_run``, run) one target: ``{"report": Report, "lab": RunLab}``;
    with ``no_run`` and ``hlo``, the lab holds the HLO alone (no modes run)."""
    from agexplorer.engine.buffer import shadowed
    from agexplorer.engine.pipeline import build_report
    from agexplorer.lab.runs import hlo_only, run_lab

    # ``source``: an unsaved buffer (the TUI), analysed in place of the file on disk.
    with shadowed(req.target, req.source) as (target, shadow):

        def converted(conversion: Conversion) -> None:
            # its code and its map (the explorer's line references follow the new code)
            code = shadow.fix_text(conversion.code) or ""
            ctx.partial(dataclasses.replace(conversion, code=code, wrapped_by=None))

        try:
            report = build_report(target, req.call, progress=ctx.progress,
                                  user_code=req.user_code, depth=req.depth, init=req.init,
                                  on_conversion=converted if req.send_conversion else None)
            if req.try_fixes:
                report = _tried_fixes(target, req.call, report, ctx)
            report = shadow.fix(report)
            ctx.last.keep(req, report)
            lab = None
            no_arguments = report.error is not None and report.error.kind in ARGUMENT_ERRORS
            if not req.no_run and not no_arguments:
                lab = shadow.fix(run_lab(
                    target, req.call, device=req.device, budget=req.budget,
                    fresh_module=req.fresh, hlo=req.hlo, tensorboard=req.tensorboard,
                    progress=ctx.progress, skip_xla=req.skip_xla,
                    mode_timeout=req.mode_timeout, init=req.init))
            elif req.hlo and not no_arguments and report.error is None:  # the HLO tab
                lab = shadow.fix(hlo_only(target, req.call, device=req.device,
                                          progress=ctx.progress, init=req.init))
        except AgxError as exc:
            raise shadow.fix_error(exc) from None
    return {"report": report, "lab": lab}


def _tried_fixes(target: str, call: str | None, report: Report, ctx: Context) -> Report:
    """``report`` with its unrolled loops' fixes tried on ``target`` (the buffer's copy)."""
    from agexplorer.doctor.verdict_fixes import tried_fixes
    from agexplorer.source.targets import parse_spec, read_source

    if not any(v.hint for v in report.statements) and not any(
            v.hint for r in report.reached for v in r.statements):
        return report
    ctx.progress(f"trying the fixes for {report.function}")
    return tried_fixes(target, read_source(parse_spec(target).path), report, call)


class _OnBuffer(Protocol):
    """A request on one target whose unsaved buffer may come with it."""

    @property
    def target(self) -> str: ...

    @property
    def source(self) -> str | None: ...


def _on_buffer(req: _OnBuffer, compute: Any) -> Any:
    """``compute(target)`` on the file, or on ``req.source`` (an unsaved buffer) through
    a shadow file; the result and any error name the user's file."""
    from agexplorer.engine.buffer import shadowed

    with shadowed(req.target, req.source) as (target, shadow):
        try:
            return shadow.fix(compute(target))
        except AgxError as exc:
            raise shadow.fix_error(exc) from None


def handle_retrace(req: RetraceRequest, ctx: Context) -> RetraceReport:
    """Call one target with a sequence of arguments and explain each retrace: a RetraceReport."""
    from agexplorer.retrace.explain import explain_retraces

    calls = None if req.calls is None else list(req.calls)
    return _on_buffer(req, lambda target: explain_retraces(target, calls,
                                                           progress=ctx.progress))


def handle_doctor(req: DoctorRequest, ctx: Context) -> DoctorReport:
    """The pitfall doctor for one target: a DoctorReport (``reuse``: the last report's trace,
    when it was built for the same target, buffer and call)."""
    from agexplorer.doctor.checks import diagnose

    report = ctx.last.get(req) if req.reuse else None
    return _on_buffer(req, lambda target: diagnose(target, req.call, progress=ctx.progress,
                                                   report=report, init=req.init,
                                                   origin=req.call_origin, reached=req.reached,
                                                   unconverted=req.unconverted))


def handle_op_attributes(req: OpAttributesRequest, ctx: Context) -> list[tuple[str, str]]:
    """The attributes of one op of the last report's trace (the TUI's Graph tab asks when an
    op is highlighted): (name, text) pairs."""
    report = ctx.last.get(req)
    if report is None or report.inventory is None:
        raise AgxError("stale", "that trace is no longer in the worker", advice="analyse the function "
                       "again to read its ops' attributes.")
    try:
        return report.inventory.op_attributes(req.function, req.name)
    except LookupError as exc:
        raise AgxError("stale", f"{exc}", advice="analyse the function again.") from None


def handle_try_fix(req: TryFixRequest, ctx: Context) -> FixTrial:
    """Try the doctor's rewrite ``fix`` (a code or a line) before and after: a FixTrial."""
    from agexplorer.doctor.trial import try_fix

    return _on_buffer(req, lambda target: try_fix(
        target, req.fix, req.call, budget=req.budget, device=req.device,
        progress=ctx.progress, run=req.run, skip_xla=req.skip_xla,
        mode_timeout=req.mode_timeout))


def handle_compare(req: CompareRequest, ctx: Context) -> Comparison:
    """Two targets side by side, each analysed as a report request is: a Comparison."""
    from agexplorer.compare.compare import compare

    return compare(req.sides(), lambda side: handle_report(side, ctx), progress=ctx.progress)


def handle_passes(req: PassesRequest, ctx: Context) -> Passes:
    """AutoGraph's conversion of one function pass by pass, in one conversion."""
    from agexplorer.engine.passes import passes_of

    return _on_buffer(req, passes_of)


def handle_sweep(req: SweepRequest, ctx: Context) -> Sweep:
    """One fresh trace per value of a Python argument, the fitted cost, the staged line."""
    from agexplorer.sweep.sweep import run_sweep

    return _on_buffer(req, lambda target: run_sweep(
        target, req.vary, req.values, at=req.at, call=req.call, run=not req.no_run,
        device=req.device, budget=req.budget, timeout=req.timeout, progress=ctx.progress,
        line=req.line))


def handle_curves(req: CurvesRequest, ctx: Context) -> Curves:
    """One function called step after step in one load: the scalars it returns, per step."""
    from agexplorer.lab.curves import run_curves

    return _on_buffer(req, lambda target: run_curves(target, req.call, req.steps,
                                                     progress=ctx.progress, init=req.init))


def handle_devices(req: DevicesRequest, ctx: Context) -> list[Device]:
    """TensorFlow's logical devices."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    return [{"name": d.name, "type": d.device_type} for d in tf.config.list_logical_devices()]


def handle_ping(req: PingRequest, ctx: Context) -> str:
    """Liveness check."""
    return "pong"


# The request's class picks its handler: no string kinds on the wire.
HANDLERS: dict[type[Request], Callable[[Any, Context], Any]] = {
    ReportRequest: handle_report, RetraceRequest: handle_retrace, DoctorRequest: handle_doctor,
    TryFixRequest: handle_try_fix, OpAttributesRequest: handle_op_attributes,
    PassesRequest: handle_passes,
    DevicesRequest: handle_devices, PingRequest: handle_ping, CompareRequest: handle_compare,
    SweepRequest: handle_sweep, CurvesRequest: handle_curves}


def _resolve_paths(req: Request) -> Request:
    """The request's paths made absolute against the cwd it arrived in, before user code can
    ``os.chdir`` away (the target's file, the TensorBoard folder)."""
    changes: dict[str, str] = {}
    for key in ("target", "left_target", "right_target"):  # the last two: CompareRequest's
        target = getattr(req, key, None)
        if isinstance(target, str):
            path, sep, rest = target.partition("::")
            if path:
                changes[key] = os.path.abspath(os.path.expanduser(path)) + sep + rest
    tensorboard = getattr(req, "tensorboard", None)
    if isinstance(tensorboard, str) and tensorboard:
        changes["tensorboard"] = os.path.abspath(os.path.expanduser(tensorboard))
    return dataclasses.replace(cast(Any, req), **changes) if changes else req


_BIG_ANSWER = 1 << 20  # bytes: an answer this large says so, the client may wait on it


def serve(sock: socket.socket) -> None:
    """Answer requests on ``sock`` until it closes."""

    def progress(phase: str) -> None:
        wire.send(sock, Progress(phase))

    def partial(value: Any) -> None:
        # (a client gone is found by the reply's send, which ends the loop)
        with contextlib.suppress(OSError):
            wire.send(sock, Partial(value))

    from agexplorer.engine.buffer import removals_after
    from agexplorer.engine.tfenv import import_tf, read_settings

    ctx = Context(progress, LastReport(), partial)
    me = os.getpid()
    # TensorFlow's process-wide settings as the worker started: a module that turns on
    # tf.config.run_functions_eagerly(True) (or XLA, a Keras dtype policy) changes them
    # for its own request only, never for the next one, a warm worker's other user's.
    tf = import_tf()
    settings = read_settings(tf)
    try:
        home: str | None = os.getcwd()
    except OSError:  # started in a folder that was deleted
        home = None
    while True:
        try:
            message: object = wire.receive(sock)
        except (EOFError, OSError):
            return
        except Exception:  # noqa: BLE001 - a class this install lacks: answered, not a crash
            message = None
        if isinstance(message, InFolder):  # the command's folder, for this request only
            with contextlib.suppress(OSError):
                os.chdir(message.folder)
            message = message.request
        # The request's shadow copies go once its answer is sent, and what the user's code
        # changed (the folder, TensorFlow's settings) is put back then too: ~0.2 ms that
        # the answer need not wait for.
        with removals_after(), _put_back_after(tf, settings, home):
            reply = _handled(message, ctx)
            if os.getpid() != me:  # a copy user code forked, returned here: only we answer
                os._exit(0)
            data = _encoded(reply)
            try:
                if len(data) > _BIG_ANSWER:
                    progress(f"sending the answer ({len(data) / 1e6:.1f} MB)")
                wire.send_bytes(sock, data)
            except OSError:
                return


@contextlib.contextmanager
def _put_back_after(tf: Any, settings: dict[str, Any], home: str | None) -> Iterator[None]:
    """As it closes, however it closes: the worker's own folder (user code that chdir'd
    must not move the next request) and TensorFlow's settings as the worker started."""
    from agexplorer.engine.tfenv import write_settings

    try:
        yield
    finally:
        if home is not None:
            with contextlib.suppress(OSError):
                os.chdir(home)
        with contextlib.suppress(Exception):  # put back what can be
            write_settings(tf, settings)


def _handled(message: object, ctx: Context) -> Reply | Failure:
    """The request's reply, or its failure in one sentence: never a crash of the worker."""
    handler = HANDLERS.get(type(message)) if isinstance(message, Request) else None
    try:
        if handler is None or not isinstance(message, Request):
            raise unknown_request(message)
        return Reply(handler(_resolve_paths(message), ctx), busy=abandoned())
    except AgxError as exc:
        return Failure(exc)
    except Exception as exc:  # noqa: BLE001 - reported to the client, never a crash
        return Failure(AgxError(
            "internal-error", f"agexplorer's worker failed ({type(exc).__name__}: {exc})",
            advice="report it with the command you ran.", exit_code=3))


def _encoded(reply: Reply | Failure) -> bytes:
    """The reply as sent; one that does not pickle is a failure in one sentence."""
    try:
        return wire.dumps(reply)
    except Exception as exc:  # noqa: BLE001 - e.g. a result that does not pickle
        return wire.dumps(Failure(AgxError(
            "internal-error", f"the worker could not send its answer ({exc}).", exit_code=3)))


_LOG: Any = sys.stderr


def _dump_stack(signum: int, frame: Any) -> None:
    """SIGUSR1: write the Python stack, innermost first, with AutoGraph's lines mapped back
    to the user's file (TensorFlow's stack extraction applies the active source maps)."""
    try:
        from agexplorer.engine.tf_internals import tf_stack_frames

        frames = [(f.filename, f.lineno, f.name) for f in tf_stack_frames()]
    except Exception:  # noqa: BLE001 - fall back to the plain stack
        frames = [(f.filename, f.lineno, f.name) for f in traceback.extract_stack(frame)]
    lines = [f'  File "{name}", line {lineno} in {func}\n' for name, lineno, func in reversed(frames)]
    text = "Stack of the timed-out request (innermost first):\n" + "".join(lines)
    os.write(_LOG.fileno(), text.encode("utf-8", "replace"))


def main() -> None:
    """Entry point: ``python -c 'from agexplorer.worker.server import main; main()' FD PID``
    (the socket's descriptor, the client's pid)."""
    global _LOG
    if len(sys.argv) > 2:
        die_with_parent(int(sys.argv[2]))
    fd = int(sys.argv[1])
    contain(fd)
    # The log the client reads after a hang or a crash: a copy of the original stderr, so
    # that requests capturing fd 2 (TensorFlow's chatter) do not swallow these dumps.
    _LOG = os.fdopen(os.dup(2), "w")
    faulthandler.enable(file=_LOG, all_threads=True)
    faulthandler.register(signal.SIGUSR2, file=_LOG, all_threads=True)  # stuck in C
    signal.signal(signal.SIGUSR1, _dump_stack)  # stuck in Python
    sock = socket.socket(fileno=fd)
    start = time.perf_counter()
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.tf_internals import check_support
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.worker.keras_in_use import keras_in_use

    with capture_output():
        import_tf()
        support = check_support()  # every private TensorFlow name, checked once per worker
        if support.errors:  # a moved name the verdicts need: every request answers with it
            HANDLERS.update(dict.fromkeys(HANDLERS, support.refuse))
        _configure_devices()
    # TensorFlow leaves about a million objects behind; moving them out of the collector's
    # reach keeps full collections during a request short (a 200 ms outlier became 50 ms).
    gc.collect()
    gc.freeze()
    keras, flavour = keras_in_use()
    wire.send(sock, Hello(version=protocol.VERSION, pid=os.getpid(),
                          import_s=time.perf_counter() - start,
                          tf_warnings=tuple(support.warnings),  # errors answer every request
                          python=platform.python_version(), executable=sys.executable,
                          tensorflow=str(getattr(import_tf(), "__version__", "")),
                          keras=keras, keras_flavour=flavour))
    serve(sock)
