"""The arguments of the commands cli/commands.py and cli/doctor.py run (the other commands'
live beside their code); cli/table.py puts them all in one parser."""

from __future__ import annotations

import argparse
from typing import Any

from agexplorer.cli.options import (
    INIT_HELP,
    add_mode_options,
    add_python,
    non_negative,
    positive,
)
from agexplorer.cli.share import add_share_options
from agexplorer.cli.svg import add_svg_options


def add_report_parser(sub: Any) -> None:
    """``report PATH[::FUNC]``: one function's verdicts, ops and runs (a file's page)."""
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
    add_share_options(report)  # --markdown, --html, -o: a page
    add_svg_options(report)  # --svg FILE, --size: the explorer's screen


def add_retrace_parser(sub: Any) -> None:
    """``retrace PATH::FUNC --call ...``: which calls traced anew, and why."""
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


def add_doctor_parser(sub: Any) -> None:
    """``doctor PATH[::FUNC]|LOG``: pitfalls, each with why and the fix."""
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


def add_list_parser(sub: Any) -> None:
    """``list PATH``: the functions of a file."""
    lst = sub.add_parser("list", help="the functions of a file, with their lines")
    lst.add_argument("path", metavar="PATH")
    lst.add_argument("--json", action="store_true", help="print JSON")


def add_samples_parser(sub: Any) -> None:
    """``samples [--copy DIR]``: the bundled lesson samples."""
    samples = sub.add_parser("samples", help="list the bundled lesson samples; --copy DIR "
                             "writes an editable copy of them")
    samples.add_argument("--copy", metavar="DIR", help="write the samples into DIR (made when "
                         "missing; an existing file is never overwritten), then open them "
                         "with `agexplorer DIR`")


def add_tour_parser(sub: Any) -> None:
    """``tour``: listed for --help; cli/explorer.py opens it."""
    # Listed for --help: `agexplorer tour` opens the explorer (cli/explorer.py reads it).
    tour_help = ("the explorer on copies of the samples, with the lesson tour open: each "
                 "section's example, live")
    sub.add_parser("tour", help=tour_help, description=tour_help + ". It takes the explorer's "
                   "options: --timeout SECONDS, --python PATH, --user-code PATH.")


def add_devices_parser(sub: Any) -> None:
    """``devices``: TensorFlow's logical devices."""
    devices = sub.add_parser("devices", help="TensorFlow's logical devices")
    devices.add_argument("--json", action="store_true", help="print JSON")
    add_python(devices)
