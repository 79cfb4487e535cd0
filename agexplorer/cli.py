"""Command line: arguments to a headless command (report, list), one clear sentence on failure."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agexplorer import __version__
from agexplorer.model.errors import AgxError

if TYPE_CHECKING:
    from agexplorer.source.targets import TargetSpec
    from agexplorer.worker.client import Worker

SAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "samples")


def samples_dir() -> str:
    """The bundled samples: inside the package when installed, else the checkout's samples/."""
    if os.path.isdir(SAMPLES_DIR):
        return SAMPLES_DIR
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one sentence, not a usage dump
        self.exit(2, f"agexplorer: {message}; see `agexplorer {self.prog.split()[-1]} --help`.\n"
                  if " " in self.prog else f"agexplorer: {message}; see `agexplorer --help`.\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agexplorer", description="Explore what TensorFlow AutoGraph "
                     "makes of your Python functions.")
    parser.add_argument("--version", action="version", version=f"agexplorer {__version__}")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    report = sub.add_parser("report", help="converted code, graph ops and a verdict for "
                            "every if/for/while of one function")
    report.add_argument("target", metavar="PATH::FUNC")
    report.add_argument("--call", metavar="ARGS", help='call arguments, a Python argument '
                        'list with tf, np and the module in scope: --call "tf.constant(5), n=3"')
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--no-run", action="store_true",
                        help="trace only; do not run eager, graph and XLA modes")
    report.add_argument("--device", metavar="NAME", help="run on this device (GPU:0, CPU:1; "
                        "default: the first GPU, else CPU:0); see `agexplorer devices`")
    report.add_argument("--budget", type=_positive, default=1.0, metavar="SECONDS",
                        help="steady-state timing budget per mode (default 1)")
    report.add_argument("--timeout", type=_positive, default=30.0, metavar="SECONDS",
                        help="give up on the function after this long (default 30)")
    report.add_argument("--hlo", action="store_true", help="add the HLO text XLA compiles")
    report.add_argument("--tensorboard", metavar="LOGDIR",
                        help="write the traced graph (and a profile) for TensorBoard")
    report.add_argument("--shared-module", action="store_true",
                        help="run all modes on one load of the module (default: a fresh "
                        "load per mode, so side effects do not leak between modes)")
    report.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)

    retrace = sub.add_parser("retrace", help="call one function with a sequence of arguments: "
                             "which calls traced anew, and why")
    retrace.add_argument("target", metavar="PATH::FUNC")
    retrace.add_argument("--call", metavar="ARGS", action="append", help="one call's arguments; "
                         'repeat for a sequence: --call "tf.constant(1)" --call "tf.constant(2.0)" '
                         "(default: the file's AGX_RETRACE entry)")
    retrace.add_argument("--json", action="store_true", help="print one JSON object")
    retrace.add_argument("--timeout", type=_positive, default=30.0, metavar="SECONDS",
                         help="give up on the calls after this long (default 30)")
    retrace.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)

    doctor = sub.add_parser("doctor", help="pitfalls of a function (or of every function of "
                            "a file), each with why and the fix; --try shows a rewrite tried")
    doctor.add_argument("target", metavar="PATH[::FUNC]")
    doctor.add_argument("--call", metavar="ARGS", help="call arguments (needs ::FUNC), as for "
                        "report")
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    doctor.add_argument("--timeout", type=_positive, default=30.0, metavar="SECONDS",
                        help="give up on a function after this long (default 30)")
    doctor.add_argument("--try", dest="try_fix", metavar="CODE|LINE", help="rewrite the "
                        "finding with this code (AGX004), at this line (38) or both "
                        "(AGX004@38), and compare the function before and after (needs ::FUNC)")
    doctor.add_argument("--apply", action="store_true", help="write the rewrite --try shows "
                        "into the file")
    doctor.add_argument("--budget", type=_positive, default=0.5, metavar="SECONDS",
                        help="steady-state timing budget per mode for --try (default 0.5)")
    doctor.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)

    lst = sub.add_parser("list", help="the functions of a file, with their lines")
    lst.add_argument("path", metavar="PATH")
    lst.add_argument("--json", action="store_true", help="print JSON")

    sub.add_parser("samples", help="list the bundled lesson samples")
    devices = sub.add_parser("devices", help="TensorFlow's logical devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be more than zero seconds")
    return value


def _fail(exc: AgxError, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"error": exc.to_dict()}, indent=2))
    print(f"agexplorer: {exc.message}", file=sys.stderr)
    for line in exc.details:
        print(f"  {line}", file=sys.stderr)
    return exc.exit_code


def _checked(target: str, need_function: bool = True) -> tuple[TargetSpec, str, str]:
    """(spec, text, target with an absolute path): the checks that need no TensorFlow, done
    before a worker is waited for (a bad file or a certainly unknown name answers at once)."""
    from agexplorer.source.targets import check_target, parse_source, parse_spec, read_source

    spec = parse_spec(target)
    text = read_source(spec.path)
    check_target(target, parse_source(spec.path, text), need_function)
    # Absolute: the worker's current folder is not ours, and user code may os.chdir.
    return spec, text, f"{spec.path}::{spec.qualname}" if spec.qualname else spec.path


def _cmd_report(args: argparse.Namespace) -> int:
    from agexplorer.worker.client import shared_worker
    from agexplorer.worker.protocol import ReportRequest

    spec, _, target = _checked(args.target)
    request = ReportRequest(target, call=args.call, no_run=args.no_run, device=args.device,
                            budget=args.budget, fresh=not args.shared_module, hlo=args.hlo,
                            tensorboard=os.path.abspath(args.tensorboard)
                            if args.tensorboard else None)
    worker = shared_worker(args.timeout)
    answer = worker.request(request, what=f"loading {spec.path}", path=spec.path)
    report, lab = answer["report"], answer["lab"]
    if args.json:
        data = report.to_dict()
        if lab is not None:
            data.update(lab.to_dict())
        print(json.dumps(data, indent=2))
    else:
        from agexplorer.render.terminal import render_report

        render_report(report, width=args.width, lab=lab)
    if report.error is not None:
        print(f"agexplorer: {report.error.message}", file=sys.stderr)
        for line in report.error.details:
            print(f"  {line}", file=sys.stderr)
        return report.error.exit_code
    return 0


def _cmd_retrace(args: argparse.Namespace) -> int:
    from agexplorer.worker.client import shared_worker
    from agexplorer.worker.protocol import RetraceRequest

    spec, _, target = _checked(args.target)
    worker = shared_worker(args.timeout)
    calls = tuple(args.call) if args.call is not None else None
    report = worker.request(RetraceRequest(target, calls=calls),
                            what=f"loading {spec.path}", path=spec.path)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        from agexplorer.render.retrace import render_retrace

        render_retrace(report, width=args.width)
    return 0  # a call that raised is part of the report, not a failure of the command


def _cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 1 when something was found (as a linter does), 0 when clean, 2 on bad input."""
    import re

    from agexplorer.doctor.checks import doctor_targets, module_findings
    from agexplorer.model.doctor import DoctorReport
    from agexplorer.worker.client import shared_worker
    from agexplorer.worker.protocol import DoctorRequest

    spec, text, target = _checked(args.target, need_function=False)
    if args.apply and not args.try_fix:
        raise AgxError("bad-arguments", "--apply writes the rewrite that --try shows: add "
                       "--try CODE|LINE.")
    if args.try_fix and not re.fullmatch(r"(?i)AGX\d{3}(@\d+)?|\d+", args.try_fix):
        raise AgxError("bad-arguments", f"--try takes a finding's code (AGX004), its line "
                       f"number (38) or both (AGX004@38), not '{args.try_fix}'.")
    if spec.qualname is None and (args.try_fix or args.call is not None):
        option = "--try" if args.try_fix else "--call"
        raise AgxError("bad-arguments", f"{option} needs one function: write "
                       f"{args.target}::FUNCTION.")
    worker = shared_worker(args.timeout)
    if args.try_fix:
        return _doctor_try(args, worker, target)
    names = [spec.qualname] if spec.qualname else doctor_targets(spec.path)
    reports: list[DoctorReport] = []
    for name in names:
        target = f"{spec.path}::{name}"
        try:
            reports.append(worker.request(DoctorRequest(target, call=args.call),
                                          what=f"diagnosing {name}", path=spec.path))
        except AgxError as exc:
            if spec.qualname:
                raise
            reports.append(DoctorReport(file=spec.path, function=name, error=exc))
    module = [] if spec.qualname else [f for f in module_findings(text)
                                       if f.subject not in names]
    if args.json:
        data = reports[0].to_dict() if spec.qualname else {
            "file": spec.path, "functions": [r.to_dict() for r in reports],
            "module": [f.to_dict() for f in module]}
        print(json.dumps(data, indent=2))
    else:
        from agexplorer.render.doctor import render_doctor

        render_doctor(reports, width=args.width, module=module)
    return 1 if module or any(r.findings for r in reports) else 0


def _doctor_try(args: argparse.Namespace, worker: Worker, target: str) -> int:
    from agexplorer.doctor.trial import apply_fix
    from agexplorer.source.targets import parse_spec
    from agexplorer.worker.protocol import TryFixRequest

    trial = worker.request(TryFixRequest(target, fix=args.try_fix, call=args.call,
                                         budget=args.budget),
                           what=f"trying the fix for {args.try_fix}",
                           path=parse_spec(target).path)
    applied = None
    if args.apply:
        if trial.after.error is not None and trial.before.error is None:
            raise AgxError("fix-failed", f"not applied: the rewritten function fails "
                           f"({trial.after.error.message}).", exit_code=1)
        applied = apply_fix(trial.file, trial.rewrite)
    if args.json:
        print(json.dumps({"trial": trial.to_dict(), "applied": applied}, indent=2))
    else:
        from agexplorer.render.doctor import render_trial

        render_trial(trial, width=args.width, applied=bool(applied))
        if applied:
            print(f"wrote {applied} ({trial.finding.code}: {trial.rewrite.description})")
        elif trial.rewrite.new_call is not None:
            print(f'to use it, call with --call "{trial.rewrite.new_call}"')
    return 0


def _cmd_devices(args: argparse.Namespace) -> int:
    from agexplorer.worker.client import shared_worker
    from agexplorer.worker.protocol import DevicesRequest

    devices = shared_worker().request(DevicesRequest(), what="listing devices")
    if args.json:
        print(json.dumps({"devices": devices}, indent=2))
    else:
        for d in devices:
            print(f"{d['name']}  ({d['type']})")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from agexplorer.engine.pipeline import list_file

    functions = list_file(args.path)
    if args.json:
        print(json.dumps({"file": os.path.abspath(args.path),
                          "functions": [f.to_dict() for f in functions]}, indent=2))
        return 0
    if not functions:
        print(f"{args.path}: no functions found.")
    for f in functions:
        badge = "@tf.function" if f.decorated else "plain"
        kind = "method" if f.is_method else "function"
        inputs = "ready inputs" if f.ready else "needs --call"
        print(f"{args.path}::{f.qualname}  line {f.line}  {kind}, {badge}, {inputs}")
    return 0


def _cmd_samples() -> int:
    from agexplorer.engine.pipeline import list_file

    folder = samples_dir()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path)
            for f in list_file(path):
                if f.ready and not f.qualname.split(".")[-1].startswith("__"):
                    print(f"agexplorer report {rel}::{f.qualname}")
    return 0


def _open_tui(argv: list[str]) -> int:
    """`agexplorer [--timeout SECONDS] [PATH[::FUNC]]`: the explorer on a file, or on the
    bundled samples."""
    from agexplorer.source.targets import check_target, parse_source, parse_spec, read_source

    timeout, argv = _tui_timeout(argv)
    if len(argv) > 1:
        print("agexplorer: give one PATH[::FUNC] to open (or none for the samples); "
              "see `agexplorer --help`.", file=sys.stderr)
        return 2
    if argv:
        spec = parse_spec(argv[0])
        try:
            tree = parse_source(spec.path, read_source(spec.path))
        except AgxError as exc:
            if exc.kind == "missing-file":
                raise _with_recovery_copy(exc, spec.path) from None
            if exc.kind != "syntax-error":  # a syntax error opens: the editor shows it
                raise
        else:
            check_target(argv[0], tree, need_function=False)
        paths, function = [spec.path], spec.qualname
    else:
        folder = samples_dir()
        paths = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
        function = None
    from agexplorer.tui.app import AgxApp

    app = AgxApp(paths, function, timeout=timeout)
    app.run()
    if app.exit_note:  # e.g. where the unsaved edits were kept after a crash
        print(f"agexplorer: {app.exit_note}", file=sys.stderr)
    return app.return_code or 0


def _with_recovery_copy(exc: AgxError, path: str) -> AgxError:
    """A missing file whose unsaved edits the explorer kept (the file was deleted while it
    held them, then the explorer ended): the error says where they are."""
    from agexplorer.tui.recovery import copy_path, load_copy

    found = load_copy(path)
    if found is None:
        return exc
    return AgxError(exc.kind, f"{path}: no such file, but the explorer kept your unsaved edits "
                    f"to it from {found.when} in {copy_path(path)}; copy that file to {path} "
                    "and open it again.", exit_code=exc.exit_code)


def _tui_timeout(argv: list[str]) -> tuple[float, list[str]]:
    """The explorer's ``--timeout SECONDS`` (or ``--timeout=SECONDS``), and the other arguments."""
    rest, timeout = list(argv), 30.0
    for i, arg in enumerate(rest):
        if arg == "--timeout" or arg.startswith("--timeout="):
            value = arg.partition("=")[2] if "=" in arg else (rest[i + 1] if i + 1 < len(rest)
                                                             else "")
            del rest[i:i + (1 if "=" in arg else 2)]
            try:
                timeout = _positive(value)
            except argparse.ArgumentTypeError as exc:
                raise AgxError("bad-arguments", f"--timeout: {exc}; give the seconds an "
                               "analysis may take, e.g. --timeout 60.") from None
            break
    return timeout, rest


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader of our output went away (`agexplorer list F --json | head -1`): stop
        # quietly, as other Unix tools do. Exit 2, the issue's group for "the user's
        # environment" (not 3: agexplorer did not fail). stdout now points at /dev/null so
        # the interpreter's final flush of what is still buffered does not complain.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 2


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"report", "retrace", "doctor", "list", "samples", "devices"}
    tui = not argv or argv[0] == "--timeout" or argv[0].startswith("--timeout=")
    if tui or (argv[0] not in commands and not argv[0].startswith("-")):
        try:
            return _open_tui(argv)
        except AgxError as exc:
            return _fail(exc, False)
    args = _parser().parse_args(argv)
    as_json = bool(getattr(args, "json", False))
    try:
        if args.command == "report":
            return _cmd_report(args)
        if args.command == "retrace":
            return _cmd_retrace(args)
        if args.command == "doctor":
            return _cmd_doctor(args)
        if args.command == "list":
            return _cmd_list(args)
        if args.command == "devices":
            return _cmd_devices(args)
        return _cmd_samples()
    except AgxError as exc:
        return _fail(exc, as_json)
    except KeyboardInterrupt:
        print("agexplorer: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # our output was closed: main stops quietly
    except Exception as exc:  # never show the user our own traceback (--debug does)
        if args.debug:
            raise
        return _fail(AgxError("internal-error", f"agexplorer itself failed ({type(exc).__name__}: "
                              f"{exc}); rerun with --debug and report it with the command "
                              "you ran.", exit_code=3), as_json)
