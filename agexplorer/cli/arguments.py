"""The headless commands' arguments: one sentence on a bad one, not a usage dump."""

from __future__ import annotations

import argparse
import math
from typing import Any

from agexplorer import __version__
from agexplorer.worker.client import MAX_TIMEOUT


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one sentence, not a usage dump
        self.exit(2, f"agexplorer: {message}; see `agexplorer {self.prog.split()[-1]} --help`.\n"
                  if " " in self.prog else f"agexplorer: {message}; see `agexplorer --help`.\n")


class _CommandParser(_Parser):
    """A subcommand's parser (every one, wherever it is added): it takes --debug too, so the
    advice "rerun with --debug" works after the command as well as before it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Unset unless given: a --debug before the command is not undone by its absence here.
        add_debug(self, default=argparse.SUPPRESS)


def add_debug(parser: argparse.ArgumentParser, default: Any = False) -> None:
    """``--debug``: agexplorer's own failures raise with their traceback (hidden in --help)."""
    parser.add_argument("--debug", action="store_true", default=default, help=argparse.SUPPRESS)


INIT_HELP = ("a method's instance: its class's constructor arguments (--init \"steps=6\"); "
             "default: an instance the module holds, else the class's defaults")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agexplorer", description="Explore what TensorFlow AutoGraph "
                     "makes of your Python functions.")
    parser.add_argument("--version", action="version", version=f"agexplorer {__version__}")
    add_debug(parser)
    # COMMAND, not the list of every command: that list made the usage line 98 columns.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)

    report = sub.add_parser("report", help="converted code, graph ops and a verdict for "
                            "every if/for/while of one function")
    report.add_argument("target", metavar="PATH[::FUNC]", help="one function; a whole file "
                        "(PATH alone) with --markdown or --html")
    report.add_argument("--call", metavar="ARGS", help='call arguments, a Python argument '
                        'list with tf, np and the module in scope: --call "tf.constant(5), n=3"')
    report.add_argument("--init", metavar="ARGS", help=INIT_HELP)
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--no-run", action="store_true",
                        help="trace only; do not run eager, graph and XLA modes")
    report.add_argument("--device", metavar="NAME", help="run on this device (GPU:0, CPU:1; "
                        "default: the first GPU, else CPU:0); see `agexplorer devices`")
    report.add_argument("--budget", type=positive, default=1.0, metavar="SECONDS",
                        help="steady-state timing budget per mode (default 1)")
    report.add_argument("--timeout", type=positive, default=30.0, metavar="SECONDS",
                        help="give up on the function after this long (default 30)")
    report.add_argument("--hlo", action="store_true", help="add the HLO text XLA compiles")
    add_mode_options(report, "none")
    report.add_argument("--tensorboard", metavar="LOGDIR",
                        help="write the traced graph (and a profile) for TensorBoard")
    report.add_argument("--shared-module", action="store_true",
                        help="run all modes on one load of the module (default: a fresh "
                        "load per mode, so side effects do not leak between modes)")
    report.add_argument("--depth", type=non_negative, default=None, metavar="N",
                        help="show the functions of your code the trace reached at most N "
                        "calls away (default: all; 0: the explored function alone)")
    report.add_argument("--user-code", action="append", default=[], metavar="PATH",
                        help="also count files under PATH as your code (repeatable; by "
                        "default every file outside the Python installation and its "
                        "site-packages is; TensorFlow and Keras never are)")
    report.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(report)
    from agexplorer.cli.share import add_share_options  # --markdown, --html, -o: a page

    add_share_options(report)
    from agexplorer.cli.svg import add_svg_options  # --svg FILE, --size: the explorer's screen

    add_svg_options(report)

    retrace = sub.add_parser("retrace", help="call one function with a sequence of arguments: "
                             "which calls traced anew, and why")
    retrace.add_argument("target", metavar="PATH::FUNC")
    retrace.add_argument("--call", metavar="ARGS", action="append", help="one call's arguments; "
                         'repeat for a sequence: --call "tf.constant(1)" --call "tf.constant(2.0)" '
                         "(default: the file's AGX_RETRACE entry)")
    retrace.add_argument("--json", action="store_true", help="print one JSON object")
    retrace.add_argument("--timeout", type=positive, default=30.0, metavar="SECONDS",
                         help="give up on the calls after this long (default 30)")
    retrace.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(retrace)

    doctor = sub.add_parser("doctor", help="pitfalls of a function (or of every function of "
                            "a file), each with why and the fix; --try shows a rewrite tried")
    doctor.add_argument("target", metavar="PATH[::FUNC]")
    doctor.add_argument("--call", metavar="ARGS", help="call arguments (needs ::FUNC), as for "
                        "report")
    doctor.add_argument("--init", metavar="ARGS", help=INIT_HELP)
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    doctor.add_argument("--timeout", type=positive, default=30.0, metavar="SECONDS",
                        help="give up on a function after this long (default 30)")
    doctor.add_argument("--try", dest="try_fix", metavar="CODE|LINE", help="rewrite the "
                        "finding with this code (AGX004), at this line (38) or both "
                        "(AGX004@38), and compare the function before and after (needs ::FUNC)")
    doctor.add_argument("--apply", action="store_true", help="write the rewrite --try shows "
                        "into the file")
    doctor.add_argument("--budget", type=positive, default=0.5, metavar="SECONDS",
                        help="steady-state timing budget per mode for --try (default 0.5)")
    add_mode_options(doctor, "a tenth of --timeout")
    doctor.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(doctor)

    lst = sub.add_parser("list", help="the functions of a file, with their lines")
    lst.add_argument("path", metavar="PATH")
    lst.add_argument("--json", action="store_true", help="print JSON")

    from agexplorer.cli.record import add_record_parsers  # record, summary

    add_record_parsers(sub)
    from agexplorer.cli.serve import add_serve_parser  # serve: the explorer in a browser

    add_serve_parser(sub)
    from agexplorer.cli.compare import add_compare_parser  # compare: two functions side by side

    add_compare_parser(sub)
    from agexplorer.cli.check import add_check_parser  # check: verdicts against a golden file

    add_check_parser(sub)
    from agexplorer.cli.passes import add_passes_parser  # passes: the conversion step by step

    add_passes_parser(sub)
    from agexplorer.cli.sweep import add_sweep_parser  # sweep: an unrolled loop's cost curve

    add_sweep_parser(sub)
    samples = sub.add_parser("samples", help="list the bundled lesson samples; --copy DIR "
                             "writes an editable copy of them")
    samples.add_argument("--copy", metavar="DIR", help="write the samples into DIR (made when "
                         "missing; an existing file is never overwritten), then open them "
                         "with `agexplorer DIR`")
    # Listed for --help: `agexplorer tour` opens the explorer (cli/explorer.py reads it).
    tour_help = ("the explorer on copies of the samples, with the lesson tour open: each "
                 "section's example, live")
    sub.add_parser("tour", help=tour_help, description=tour_help + ". It takes the explorer's "
                   "options: --timeout SECONDS, --python PATH, --user-code PATH.")
    devices = sub.add_parser("devices", help="TensorFlow's logical devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    add_python(devices)
    return parser


PYTHON_HELP = ("run TensorFlow under this Python interpreter, with its own TensorFlow "
               "(default: $AGX_PYTHON, else the active virtual environment's, else "
               "agexplorer's own); agexplorer need not be installed there")


def add_mode_options(parser: argparse.ArgumentParser, default: str) -> None:
    """--no-xla and --mode-timeout: the run lab's modes, each boxed on its own."""
    parser.add_argument("--no-xla", action="store_true",
                        help="do not run with XLA (its compile of a big graph can take minutes)")
    parser.add_argument("--mode-timeout", type=positive, default=None, metavar="SECONDS",
                        help="give each mode (eager, graph, XLA) at most this long, its first "
                        "call included, and keep what it measured by then (default: "
                        f"{default})")


def add_python(parser: argparse.ArgumentParser) -> None:
    """``--python PATH``, for every command that starts a TensorFlow worker."""
    parser.add_argument("--python", metavar="PATH", default=None, help=PYTHON_HELP)


# The longest wait agexplorer accepts (the worker's own bound, about 11 days).
MAX_SECONDS = int(MAX_TIMEOUT)


def positive(text: str) -> float:
    """A number of seconds above zero and at most MAX_SECONDS (not inf, not nan), or
    argparse's error naming what is wrong."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number of seconds")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be more than zero seconds")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"'{text}' is more seconds than agexplorer waits "
                                         f"(at most {MAX_SECONDS:,}, about 11 days)")
    return value


def non_negative(text: str) -> int:
    """A count of calls, zero or more, or argparse's error naming what is wrong."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be 0 or more")
    return value
