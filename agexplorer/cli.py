"""Command line: arguments to a headless command (report, list), one clear sentence on failure."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from agexplorer import __version__
from agexplorer.core.errors import AgxError

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


def _cmd_report(args: argparse.Namespace) -> int:
    from agexplorer.core.targets import parse_source, parse_spec, read_source
    from agexplorer.worker.client import shared_worker

    spec = parse_spec(args.target)
    parse_source(spec.path, read_source(spec.path))  # bad files fail before a worker starts
    request = {"target": args.target, "call": args.call, "no_run": args.no_run,
               "device": args.device, "budget": args.budget, "fresh": not args.shared_module,
               "hlo": args.hlo, "tensorboard": os.path.abspath(args.tensorboard)
               if args.tensorboard else None}
    worker = shared_worker(args.timeout)
    answer = worker.request("report", request, what=f"loading {spec.path}", path=spec.path)
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


def _cmd_devices(args: argparse.Namespace) -> int:
    from agexplorer.worker.client import shared_worker

    devices = shared_worker().request("devices", what="listing devices")
    if args.json:
        print(json.dumps({"devices": devices}, indent=2))
    else:
        for d in devices:
            print(f"{d['name']}  ({d['type']})")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from agexplorer.core.report import list_file

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
    from agexplorer.core.report import list_file

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
    """`agexplorer [PATH[::FUNC]]`: the explorer on a file, or on the bundled samples."""
    from agexplorer.core.targets import parse_source, parse_spec, read_source

    if len(argv) > 1:
        print("agexplorer: give one PATH[::FUNC] to open (or none for the samples); "
              "see `agexplorer --help`.", file=sys.stderr)
        return 2
    if argv:
        spec = parse_spec(argv[0])
        try:
            parse_source(spec.path, read_source(spec.path))
        except AgxError as exc:
            if exc.kind != "syntax-error":  # a syntax error opens: the editor shows it
                raise
        paths, function = [spec.path], spec.qualname
    else:
        folder = samples_dir()
        paths = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
        function = None
    from agexplorer.tui.app import AgxApp

    AgxApp(paths, function).run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"report", "list", "samples", "devices"}
    if not argv or (argv[0] not in commands and not argv[0].startswith("-")):
        try:
            return _open_tui(argv)
        except AgxError as exc:
            return _fail(exc, False)
    args = _parser().parse_args(argv)
    as_json = bool(getattr(args, "json", False))
    try:
        if args.command == "report":
            return _cmd_report(args)
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
    except Exception as exc:  # never show the user our own traceback (--debug does)
        if args.debug:
            raise
        return _fail(AgxError("internal-error", f"agexplorer itself failed ({type(exc).__name__}: "
                              f"{exc}); rerun with --debug and report it with the command "
                              "you ran.", exit_code=3), as_json)
